//===- LineaPlugin.cpp - Linea as a plugin for upstream tools -------------===//
//
// Loads Linea into a tool built on the same libMLIR.so, such as Debian's
// mlir-opt:
//   mlir-opt --load-dialect-plugin=libLineaPlugin.so \
//            --load-pass-plugin=libLineaPlugin.so \
//            --pass-pipeline="builtin.module(linea-optimize)" in.mlir
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Linea", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::linea::LineaDialect,
                             mlir::linea::tm_tensor::TMTensorDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Linea", LLVM_VERSION_STRING,
          []() { mlir::linea::registerAllPasses(); }};
}
