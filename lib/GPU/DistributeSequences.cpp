//===- DistributeSequences.cpp - one GPU block per sequence ---------------===//
//
// The chunked forms carry their state along the sequence only, so each
// (batch, head) and each tile of value columns is an independent program.
// Tiling the op over those dims (its TilingInterface, through upstream's
// scf::tileUsingSCF) into an scf.forall mapped to GPU blocks, before the
// chunked rewrite, puts the chunk loop inside the forall, where the GPU
// mapping gives it one block (state in shared memory) instead of one launch
// per op per chunk. A sequential presum (the chunk-parallel form's scan of
// chunk states) is the same kind of program: each slice of its input walks
// the scanned dim alone, so it gets one block per slice instead of one
// launch per step.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/Passes.h"
#include "linea/Target/Target.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEADISTRIBUTESEQUENCES
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The largest divisor of `size` that is at most `bound`.
int64_t largestDivisorUpTo(int64_t size, int64_t bound) {
  for (int64_t d = std::min(size, bound); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

/// The product of `sizes`, if none is dynamic.
std::optional<int64_t> staticProduct(ArrayRef<int64_t> sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    product *= size;
  }
  return product;
}

/// A causal op chosen to be chunked, not yet inside a sequence block.
bool isChunkedCausal(LinearAttentionOpInterface op) {
  FormAttr form = cast<FormOpInterface>(op.getOperation()).getFormAttr();
  return op.getEffectiveMask() == Mask::causal && form &&
         form.getKind() == FormKind::chunked && !isInSequenceBlock(op);
}

/// A presum chosen to be a sequential scan, not yet in a sequence block (the
/// chunk-parallel form passes its chunk states with one).
bool isSequentialScan(PresumOp op) {
  FormAttr form = op.getFormAttr();
  return form && form.getKind() == FormKind::scan && !isInSequenceBlock(op) &&
         op.getInput().getType().getRank() > 1 && !op.getOffsets();
}

struct LineaDistributeSequencesPass
    : linea::impl::LineaDistributeSequencesBase<LineaDistributeSequencesPass> {
  using LineaDistributeSequencesBase::LineaDistributeSequencesBase;

  void runOnOperation() override {
    if (valueTile < -1) {
      getOperation()->emitError()
          << "value-tile must be >= 0 (or -1: the target's), got "
          << static_cast<int64_t>(valueTile);
      return signalPassFailure();
    }
    FailureOr<TargetDescription> gpu =
        targetFor(getOperation(), TargetKind::gpu, getArgument());
    if (failed(gpu))
      return signalPassFailure();
    target = *gpu;
    columnsPerBlock = valueTile >= 0 ? valueTile : target.valueTile;
    SmallVector<LinearAttentionOpInterface> ops;
    getOperation()->walk([&](LinearAttentionOpInterface op) {
      if (isChunkedCausal(op))
        ops.push_back(op);
    });
    SmallVector<PresumOp> scans;
    getOperation()->walk([&](PresumOp op) {
      if (isSequentialScan(op))
        scans.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (LinearAttentionOpInterface op : ops)
      if (failed(distribute(rewriter, op)))
        return signalPassFailure();
    for (PresumOp op : scans)
      if (failed(distributeScan(rewriter, op)))
        return signalPassFailure();
  }

  /// Tiles a sequential scan by 1 over the dims before the scanned one and
  /// by the value tile over its last dim: each block walks the steps of one
  /// slice (for chunk states `[B..., N + 1, Dk, Dv]`, one `[Dk, tile]`). The
  /// tile shrinks further until the slices fill the GPU's SMs. A step
  /// should still give every thread of the block an element: the last dim
  /// is split only where a step keeps that many, and a step still
  /// shorter takes several slices of the dim before the scanned one (the
  /// gates' in-chunk presums, `[B..., N, C, Dk]` along C: two chunks of 128
  /// columns per block).
  LogicalResult distributeScan(RewriterBase &rewriter, PresumOp op) {
    RankedTensorType type = op.getInput().getType();
    int64_t scan = op.getScanDim(), last = type.getRank() - 1;
    int64_t threads = target.threadsPerBlock;
    SmallVector<int64_t> tiles(type.getRank(), 0);
    for (int64_t d = 0; d < scan; ++d)
      tiles[d] = 1;
    // Elements per step, where static.
    std::optional<int64_t> step =
        staticProduct(type.getShape().drop_front(scan + 1));
    if (last > scan && step) {
      int64_t columns = type.getDimSize(last);
      int64_t tile = sequenceBlockColumns(columns, columnsPerBlock);
      // Fewer slices than SMs leave SMs idle for the whole scan: halve the
      // tile while a step still has an element per thread.
      std::optional<int64_t> slices =
          staticProduct(type.getShape().take_front(scan));
      while (columnsPerBlock > 0 && slices &&
             *slices * (columns / tile) < target.parallelUnits &&
             tile % 2 == 0 &&
             *step / columns * (tile / 2) >= threads)
        tile /= 2;
      if (tile != columns && *step / columns * tile >= threads) {
        tiles[last] = tile;
        step = *step / columns * tile;
      }
    }
    if (scan > 0 && step && *step < threads && !type.isDynamicDim(scan - 1))
      tiles[scan - 1] = largestDivisorUpTo(
          type.getDimSize(scan - 1), std::max<int64_t>(1, threads / *step));
    SmallVector<OpFoldResult> tileSizes;
    unsigned numLoops = 0;
    for (int64_t d = 0; d <= last; ++d) {
      if (d == scan)
        continue;
      numLoops += tiles[d] != 0;
      tileSizes.push_back(rewriter.getIndexAttr(tiles[d]));
    }
    return tileIntoBlocks(rewriter, cast<TilingInterface>(op.getOperation()),
                          tileSizes, numLoops);
  }

  /// Tiles `op` into an scf.forall of `numLoops` sequence blocks.
  LogicalResult tileIntoBlocks(RewriterBase &rewriter, TilingInterface op,
                               ArrayRef<OpFoldResult> tileSizes,
                               unsigned numLoops) {
    if (numLoops == 0)
      return success(); // one sequence, one tile: nothing to distribute
    if (numLoops > kMaxSequenceBlockLoops) {
      op->emitRemark() << "not distributed over sequence blocks: " << numLoops
                       << " loops exceed the " << kMaxSequenceBlockLoops
                       << " linear block dims";
      return success();
    }
    scf::SCFTilingOptions options;
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
        .setTileSizes(tileSizes)
        .setMapping(sequenceBlockMapping(&getContext(), numLoops));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, op, options);
    if (failed(tiled))
      return op->emitOpError() << "could not be tiled over its sequences";
    rewriter.replaceOp(op, tiled->replacements);
    return success();
  }

  /// Tiles `op` by 1 over its batch dims and by the value tile over its
  /// value columns, into a forall of sequence blocks.
  LogicalResult distribute(RewriterBase &rewriter,
                           LinearAttentionOpInterface op) {
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    int64_t columns = op.getValue().getType().getShape().back();
    int64_t tile = sequenceBlockColumns(columns, columnsPerBlock);
    bool splitColumns = tile != columns;
    unsigned numLoops = numBatch + (splitColumns ? 1 : 0);
    SmallVector<OpFoldResult> tileSizes(numBatch, rewriter.getIndexAttr(1));
    tileSizes.push_back(rewriter.getIndexAttr(splitColumns ? tile : 0));
    return tileIntoBlocks(rewriter, cast<TilingInterface>(op.getOperation()),
                          tileSizes, numLoops);
  }

  /// The planned GPU, and the value columns per block from it or the
  /// option.
  TargetDescription target{};
  int64_t columnsPerBlock = 0;
};

} // namespace
