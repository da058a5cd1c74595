//===- CheckHostCode.cpp - no device instructions on the host -------------===//
//
// Linea's GPU passes put barriers, ldmatrix, mma.sync and cp.async inside
// thread loops, which convert-parallel-loops-to-gpu turns into kernels by
// their mapping attributes. A loop that lost its mapping on the way stays a
// host loop with device instructions in it; this is where that is caught.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACHECKHOSTCODE
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A GPU instruction, not host code. (Encoding a TMA tensor map is the
/// host's half of TMA: it stays.)
bool isDeviceInstruction(Operation *op) {
  Dialect *dialect = op->getDialect();
  return isa<gpu::BarrierOp>(op) ||
         (dialect && isa<nvgpu::NVGPUDialect, NVVM::NVVMDialect>(dialect) &&
          !isa<nvgpu::TmaCreateDescriptorOp>(op));
}

struct LineaCheckHostCodePass
    : linea::impl::LineaCheckHostCodeBase<LineaCheckHostCodePass> {
  void runOnOperation() override {
    bool clean = true;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isDeviceInstruction(op)) {
        op->emitOpError("is device code left on the host: its thread loop "
                        "did not become a kernel (a loop without a GPU "
                        "mapping)");
        clean = false;
      }
      return WalkResult::advance();
    });
    if (!clean)
      signalPassFailure();
  }
};

} // namespace
