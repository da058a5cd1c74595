//===- HostSharedAllocs.cpp - host buffers -> GPU memory -------------------===//
//
// After the kernels are launches, the buffers allocated outside them become
// GPU allocations: device memory where only kernels read and write them,
// managed memory where the host does too. Device memory comes from the
// runtime's stream-ordered pool and is freed in stream order, with no wait;
// managed memory is placed on first touch and freed after the stream is
// done with it.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAHOSTSHAREDALLOCS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The buffers whose elements some host op may read or write.
DenseSet<Value> buffersTheHostTouches(Operation *root) {
  DenseSet<Value> touched;
  linea::forEachHostAccess(
      root, [&](Operation *, Value buffer) { touched.insert(buffer); });
  return touched;
}

/// Device memory, allocated in stream order (gpu-to-llvm lowers a device
/// allocation only in its asynchronous form, on the stream `gpu.wait async`
/// names: the runtime's one stream of this thread).
Value allocInStreamOrder(RewriterBase &rewriter, memref::AllocOp alloc) {
  Location loc = alloc.getLoc();
  Type token = gpu::AsyncTokenType::get(rewriter.getContext());
  Value stream =
      gpu::WaitOp::create(rewriter, loc, token, ValueRange()).getAsyncToken();
  return gpu::AllocOp::create(rewriter, loc, alloc.getType(), token, {stream},
                              alloc.getDynamicSizes(),
                              alloc.getSymbolOperands(), /*hostShared=*/false)
      .getMemref();
}

/// Managed memory, which the host and the kernels both address.
Value allocManaged(RewriterBase &rewriter, memref::AllocOp alloc) {
  return gpu::AllocOp::create(rewriter, alloc.getLoc(), alloc.getType(),
                              /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange(),
                              alloc.getDynamicSizes(),
                              alloc.getSymbolOperands(), /*hostShared=*/true)
      .getMemref();
}

/// A dealloc in stream order: `gpu.wait async` names the stream (the
/// runtime's one stream of this thread), the free is queued behind the
/// kernels already on it, and nothing waits.
void deallocInStreamOrder(RewriterBase &rewriter, memref::DeallocOp dealloc) {
  Location loc = dealloc.getLoc();
  Type token = gpu::AsyncTokenType::get(rewriter.getContext());
  Value stream =
      gpu::WaitOp::create(rewriter, loc, token, ValueRange()).getAsyncToken();
  gpu::DeallocOp::create(rewriter, loc, token, {stream}, dealloc.getMemref());
}

/// A dealloc of managed memory after the stream is done with it: wait,
/// free, wait for the free (gpu-to-llvm lowers the asynchronous form).
void deallocAfterWaiting(RewriterBase &rewriter, memref::DeallocOp dealloc) {
  Location loc = dealloc.getLoc();
  Type token = gpu::AsyncTokenType::get(rewriter.getContext());
  Value ready =
      gpu::WaitOp::create(rewriter, loc, token, ValueRange()).getAsyncToken();
  Value freed = gpu::DeallocOp::create(rewriter, loc, token, {ready},
                                       dealloc.getMemref())
                    .getAsyncToken();
  gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{freed});
}

struct LineaHostSharedAllocsPass
    : linea::impl::LineaHostSharedAllocsBase<LineaHostSharedAllocsPass> {
  void runOnOperation() override {
    DenseSet<Value> touched = buffersTheHostTouches(getOperation());
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> targets;
    getOperation()->walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        targets.push_back(op);
    });
    // Deallocs first: they ask whether their buffer is touched, which is
    // keyed by the alloc's result.
    std::stable_partition(
        targets.begin(), targets.end(),
        [](Operation *op) { return isa<memref::DeallocOp>(op); });
    for (Operation *op : targets) {
      rewriter.setInsertionPoint(op);
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (touched.contains(linea::viewRoot(dealloc.getMemref())))
          deallocAfterWaiting(rewriter, dealloc);
        else
          deallocInStreamOrder(rewriter, dealloc);
        rewriter.eraseOp(dealloc);
        continue;
      }
      auto alloc = cast<memref::AllocOp>(op);
      rewriter.replaceOp(alloc, touched.contains(alloc.getResult())
                                    ? allocManaged(rewriter, alloc)
                                    : allocInStreamOrder(rewriter, alloc));
    }
  }
};

} // namespace
