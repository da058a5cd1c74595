//===- linea-opt.cpp - the opt-style driver for Linea ---------------------===//
//
// Linea's dialect and passes next to every upstream dialect and pass, so a
// Linea pipeline can be spelled and debugged as with mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Linea version " << LINEA_VERSION << "\n";
  });
  mlir::registerAllPasses();
  mlir::linea::registerAllPasses();

  mlir::DialectRegistry registry;
  registry.insert<mlir::linea::LineaDialect,
                  mlir::linea::tm_tensor::TMTensorDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR on the way to PTX.
  mlir::registerAllToLLVMIRTranslations(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Linea optimizer driver\n", registry));
}
