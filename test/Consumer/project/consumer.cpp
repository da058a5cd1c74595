//===- consumer.cpp - a tool built against an installed Linea -------------===//
//
// Parses a Linea program, runs linea-optimize and linea-lower-to-cpu from
// the installed libraries, and prints the result.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: linea-consumer FILE.mlir\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  registry.insert<mlir::linea::LineaDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  mlir::linea::buildOptimizePipeline(pm);
  mlir::linea::buildLowerToCPUPipeline(pm);
  if (mlir::failed(pm.run(*module)))
    return 1;
  llvm::outs() << "// lowered by Linea " << LINEA_VERSION << "\n";
  module->print(llvm::outs());
  return 0;
}
