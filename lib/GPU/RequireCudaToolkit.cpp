//===- RequireCudaToolkit.cpp - a missing toolkit fails the run -----------===//

#include "linea/GPU/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAREQUIRECUDATOOLKIT
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaRequireCudaToolkitPass
    : linea::impl::LineaRequireCudaToolkitBase<LineaRequireCudaToolkitPass> {
  using LineaRequireCudaToolkitBase::LineaRequireCudaToolkitBase;

  void runOnOperation() override {
    llvm::SmallString<256> ptxas(cudaPath);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(ptxas))
      return;
    getOperation()->emitError() << "no CUDA toolkit at '" << cudaPath
                                << "': bin/ptxas is missing";
    signalPassFailure();
  }
};

} // namespace
