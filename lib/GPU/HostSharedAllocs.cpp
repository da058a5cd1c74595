//===- HostSharedAllocs.cpp - host buffers -> managed GPU memory ----------===//

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAHOSTSHAREDALLOCS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaHostSharedAllocsPass
    : linea::impl::LineaHostSharedAllocsBase<LineaHostSharedAllocsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> targets;
    getOperation()->walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        targets.push_back(op);
    });
    for (Operation *op : targets) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto shared = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/true);
        rewriter.replaceOp(alloc, shared.getMemref());
        continue;
      }
      // gpu-to-llvm lowers the asynchronous form: wait for the stream,
      // free, wait for the free.
      auto dealloc = cast<memref::DeallocOp>(op);
      Location loc = dealloc.getLoc();
      Type token = gpu::AsyncTokenType::get(rewriter.getContext());
      Value ready = gpu::WaitOp::create(rewriter, loc, token, ValueRange())
                        .getAsyncToken();
      Value freed = gpu::DeallocOp::create(rewriter, loc, token, {ready},
                                           dealloc.getMemref())
                        .getAsyncToken();
      gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{freed});
      rewriter.eraseOp(dealloc);
    }
  }
};

} // namespace
