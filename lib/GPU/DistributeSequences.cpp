//===- DistributeSequences.cpp - one GPU block per sequence ---------------===//
//
// The chunked forms carry their state along the sequence only, so each
// (batch, head) and each tile of value columns is an independent program.
// Tiling the op over those dims (its TilingInterface, through upstream's
// scf::tileUsingSCF) into an scf.forall mapped to GPU blocks, before the
// chunked rewrite, puts the chunk loop inside the forall, where the GPU
// mapping gives it one block (state in shared memory) instead of one launch
// per op per chunk.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/Passes.h"
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

/// The GPU block mapping names at most this many loops (linear_dim_0..9).
constexpr unsigned kMaxBlockLoops = 10;

/// A causal op chosen to be chunked, not yet inside a sequence block.
bool isChunkedCausal(LinearAttentionOpInterface op) {
  FormAttr form = cast<FormOpInterface>(op.getOperation()).getFormAttr();
  return op.getEffectiveMask() == Mask::causal && form &&
         form.getKind() == FormKind::chunked && !isInSequenceBlock(op);
}

struct LineaDistributeSequencesPass
    : linea::impl::LineaDistributeSequencesBase<LineaDistributeSequencesPass> {
  using LineaDistributeSequencesBase::LineaDistributeSequencesBase;

  void runOnOperation() override {
    if (valueTile < 0) {
      getOperation()->emitError() << "value-tile must be >= 0, got "
                                  << static_cast<int64_t>(valueTile);
      return signalPassFailure();
    }
    SmallVector<LinearAttentionOpInterface> ops;
    getOperation()->walk([&](LinearAttentionOpInterface op) {
      if (isChunkedCausal(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (LinearAttentionOpInterface op : ops)
      if (failed(distribute(rewriter, op)))
        return signalPassFailure();
  }

  /// Tiles `op` by 1 over its batch dims and by the value tile over its
  /// value columns, into a forall of sequence blocks.
  LogicalResult distribute(RewriterBase &rewriter,
                           LinearAttentionOpInterface op) {
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    int64_t columns = op.getValue().getType().getShape().back();
    int64_t tile = sequenceBlockColumns(columns, valueTile);
    bool splitColumns = tile != columns;
    unsigned numLoops = numBatch + (splitColumns ? 1 : 0);
    if (numLoops == 0)
      return success(); // one sequence, one tile: nothing to distribute
    if (numLoops > kMaxBlockLoops) {
      op->emitRemark() << "not distributed over sequence blocks: " << numLoops
                       << " loops exceed the " << kMaxBlockLoops
                       << " linear block dims";
      return success();
    }
    SmallVector<OpFoldResult> tileSizes(numBatch, rewriter.getIndexAttr(1));
    tileSizes.push_back(rewriter.getIndexAttr(splitColumns ? tile : 0));
    scf::SCFTilingOptions options;
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
        .setTileSizes(tileSizes)
        .setMapping(sequenceBlockMapping(&getContext(), numLoops));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return op->emitOpError() << "could not be tiled over its sequences";
    rewriter.replaceOp(op, tiled->replacements);
    return success();
  }
};

} // namespace
