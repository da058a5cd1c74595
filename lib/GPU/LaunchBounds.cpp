//===- LaunchBounds.cpp - nvvm.minctasm on every kernel -------------------===//
//
// ptxas's default occupancy heuristic can trade a spill for registers even
// where the budget allows more; stating the occupancy wanted removes the
// guess.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"
#include "linea/Utils/KernelNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEALAUNCHBOUNDS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaLaunchBoundsPass
    : linea::impl::LineaLaunchBoundsBase<LineaLaunchBoundsPass> {
  using LineaLaunchBoundsBase::LineaLaunchBoundsBase;

  void runOnOperation() override {
    if (minBlocksPerSM <= 0) {
      getOperation()->emitError() << "min-blocks-per-sm must be positive, got "
                                  << static_cast<int64_t>(minBlocksPerSM);
      return signalPassFailure();
    }
    Builder b(&getContext());
    // A kernel's builder may know its occupancy better (its location
    // says so: blocksPerSMOf).
    for (auto kernel : getOperation().getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel())
        kernel->setAttr(
            NVVM::NVVMDialect::getMinctasmAttrName(),
            b.getI32IntegerAttr(linea::blocksPerSMOf(kernel.getLoc())
                                    .value_or(minBlocksPerSM)));
  }
};

} // namespace
