//===- linea-opt.cpp - the opt-style driver for Linea ---------------------===//
//
// Linea's dialect and passes next to every upstream dialect and pass, so a
// Linea pipeline can be spelled and debugged as with mlir-opt.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Pipelines/OptionCheck.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

/// A misspelt pass or option in `--NAME=OPTIONS` or `--pass-pipeline=P`
/// ends the run with one line naming the right spelling, before MLIR's
/// option parser prints its own three.
static void checkPassArguments(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      return;
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    auto [name, value] = arg.split('=');
    bool hasValue = arg.contains('=');
    std::optional<std::string> problem;
    if (name == "pass-pipeline" || name == "p") {
      if (!hasValue && i + 1 < argc)
        value = argv[++i];
      problem = mlir::linea::diagnosePipeline(value);
    } else if (hasValue && (mlir::PassInfo::lookup(name) ||
                            mlir::PassPipelineInfo::lookup(name))) {
      problem = mlir::linea::diagnosePassOptions(name, value);
    }
    if (problem) {
      llvm::errs() << "linea-opt: error: " << *problem << "\n";
      std::exit(1);
    }
  }
}

int main(int argc, char **argv) {
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Linea version " << LINEA_VERSION << "\n";
  });
  mlir::registerAllPasses();
  mlir::linea::registerAllPasses();
  checkPassArguments(argc, argv);

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
