//===- MapToGPU.cpp - linalg ops on buffers -> GPU-mapped parallel loops --===//
//
// The general mapping every Linea form gets: each linalg op is one kernel
// with one thread per element of its parallel iteration space (all parallel
// dims collapsed to one and tiled into blocks); reductions run sequentially
// in each thread.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAMAPTOGPU
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Parallel dims first, in their order, then the reductions: the loop nest
/// of the op is then one parallel band over a sequential one.
FailureOr<linalg::GenericOp> parallelFirst(RewriterBase &rewriter,
                                           linalg::GenericOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type != utils::IteratorType::parallel)
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  return linalg::interchangeGenericOp(rewriter, op, order);
}

/// Collapses the band to one dim, tiles it by `blockSize`, and maps the
/// outer loop to blocks and the inner one to threads.
void mapToBlocksAndThreads(RewriterBase &rewriter, scf::ParallelOp loop,
                           int64_t blockSize) {
  std::vector<unsigned> all(loop.getNumLoops());
  std::iota(all.begin(), all.end(), 0);
  if (all.size() > 1) {
    // The collapse replaces the loop by a new one just before the op that
    // followed it.
    Operation *next = loop->getNextNode();
    rewriter.setInsertionPoint(loop);
    collapseParallelLoops(rewriter, loop, {all});
    Operation *collapsed = next->getPrevNode();
    while (!isa<scf::ParallelOp>(collapsed))
      collapsed = collapsed->getPrevNode();
    loop = cast<scf::ParallelOp>(collapsed);
  }
  auto [outer, inner] =
      scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/false);
  MLIRContext *ctx = rewriter.getContext();
  auto map = [&](scf::ParallelOp l, gpu::Processor processor) {
    (void)gpu::setMappingAttr(
        l, {gpu::ParallelLoopDimMappingAttr::get(
               ctx, processor, AffineMap::getMultiDimIdentityMap(1, ctx),
               AffineMap::getMultiDimIdentityMap(1, ctx))});
  };
  map(outer, gpu::Processor::BlockX);
  map(inner, gpu::Processor::ThreadX);
}

struct LineaMapToGPUPass : linea::impl::LineaMapToGPUBase<LineaMapToGPUPass> {
  using LineaMapToGPUBase::LineaMapToGPUBase;

  void runOnOperation() override {
    if (blockSize <= 0) {
      getOperation()->emitError() << "block-size must be positive, got "
                                  << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      // Named ops (fill, copy) become generics so they can be reordered.
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized)) {
          op->emitError() << "cannot be mapped to the GPU";
          return signalPassFailure();
        }
        generic = *generalized;
      }
      FailureOr<linalg::GenericOp> ordered = parallelFirst(rewriter, generic);
      if (failed(ordered)) {
        generic->emitError() << "cannot order its loops for the GPU";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(*ordered);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, *ordered);
      if (failed(loops)) {
        ordered->emitError() << "cannot be turned into parallel loops";
        return signalPassFailure();
      }
      rewriter.eraseOp(*ordered);
      if (loops->empty())
        continue;
      if (auto band = dyn_cast<scf::ParallelOp>(loops->front()))
        mapToBlocksAndThreads(rewriter, band, blockSize);
    }
  }
};

} // namespace
