//===- CausalToChunkParallel.cpp - causal regions -> chunk-parallel form --===//
//
// The chunked algorithm with its chunk loop taken apart: the chunk axis
// becomes a batch dim, every chunk's local state is computed at once, the
// states entering the chunks are a (decayed) presum along that axis, and
// every chunk's rows are computed at once from them. Only the presum walks
// the chunks in order, and it touches one Dk x Dv state per step.
//
//===----------------------------------------------------------------------===//

#include "ChunkRows.h"
#include "ChunkSize.h"
#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACAUSALTOCHUNKPARALLEL
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-causal-to-chunk-parallel"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// `type` with dim `dim` replaced by `size` (dynamic where not constant).
RankedTensorType withDim(RankedTensorType type, int64_t dim, OpFoldResult size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = getConstantIntValue(size).value_or(ShapedType::kDynamic);
  return RankedTensorType::get(shape, type.getElementType());
}

/// How the sequence of `[B..., L, D...]` splits into chunks.
struct ChunkGrid {
  int64_t seq;       // the sequence dim
  int64_t size;      // C
  OpFoldResult length, count, paddedLength; // L, N = ceil(L / C), N C
};

ChunkGrid gridFor(OpBuilder &b, Location loc, Value q, int64_t chunk) {
  ChunkGrid grid;
  grid.seq = numBatchDims(cast<RankedTensorType>(q.getType()));
  grid.size = chunk;
  grid.length = tensor::getMixedSize(b, loc, q, grid.seq);
  AffineExpr l = b.getAffineSymbolExpr(0);
  grid.count = affine::makeComposedFoldedAffineApply(
      b, loc, l.ceilDiv(chunk), {grid.length});
  grid.paddedLength = affine::makeComposedFoldedAffineApply(
      b, loc, l.ceilDiv(chunk) * chunk, {grid.length});
  return grid;
}

/// `x` padded with zero rows to N C along the sequence, viewed as
/// `[B..., N, C, D...]`.
Value splitIntoChunks(OpBuilder &b, Location loc, Value x,
                      const ChunkGrid &grid) {
  auto type = cast<RankedTensorType>(x.getType());
  if (getConstantIntValue(grid.length) != getConstantIntValue(grid.paddedLength) ||
      !getConstantIntValue(grid.length)) {
    RankedTensorType padded = withDim(type, grid.seq, grid.paddedLength);
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (padded.isDynamicDim(i))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(
            b, loc,
            i == grid.seq ? grid.paddedLength
                          : tensor::getMixedSize(b, loc, x, i)));
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    x = tensor::createPadHighOp(padded, x, zero, /*nofold=*/false, loc, b,
                                dynamicSizes);
    type = padded;
  }
  SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, x);
  shape[grid.seq] = grid.count;
  shape.insert(shape.begin() + grid.seq + 1, b.getIndexAttr(grid.size));
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t first = i <= grid.seq ? i : i + 1;
    groups.push_back(i == grid.seq ? ReassociationIndices{first, first + 1}
                                   : ReassociationIndices{first});
  }
  SmallVector<int64_t> staticShape;
  for (OpFoldResult size : shape)
    staticShape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  auto chunked = RankedTensorType::get(staticShape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, chunked, x, groups, shape);
}

/// `[B..., N, C, D]` rows back to `[B..., L, D]`: the chunks joined, the
/// padding dropped.
Value joinChunks(OpBuilder &b, Location loc, Value rows, const ChunkGrid &grid) {
  auto type = cast<RankedTensorType>(rows.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank() - 1; ++i)
    groups.push_back(i == grid.seq ? ReassociationIndices{i, i + 1}
                     : i < grid.seq ? ReassociationIndices{i}
                                    : ReassociationIndices{i + 1});
  Value joined = tensor::CollapseShapeOp::create(b, loc, rows, groups);
  if (getConstantIntValue(grid.length) &&
      getConstantIntValue(grid.length) == getConstantIntValue(grid.paddedLength))
    return joined;
  return sliceAlong(b, loc, joined, grid.seq, b.getIndexAttr(0), grid.length);
}

/// `[first; rest]` along `dim`, `first` (f32, lacking that dim) zeros where
/// null. Linea's lowering writes `rest` in place into the joined buffer; a
/// hand-off gets a zero step as a pad instead: the empty tensor filled by
/// two inserts is, for IREE's GPU target, a write to a global buffer
/// outside any workgroup, which it refuses.
Value prependAlong(OpBuilder &b, Location loc, Value first, Value rest,
                   int64_t dim, bool handOff) {
  auto restType = cast<RankedTensorType>(rest.getType());
  if (!first && handOff) {
    SmallVector<OpFoldResult> low(restType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> high(low);
    low[dim] = b.getIndexAttr(1);
    SmallVector<int64_t> shape(restType.getShape());
    if (!restType.isDynamicDim(dim))
      shape[dim] += 1;
    Value zero = f32Constant(b, loc, 0.0f);
    return tensor::PadOp::create(b, loc, restType.clone(shape), rest, low,
                                 high, zero);
  }
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rest);
  OpFoldResult count = sizes[dim];
  AffineExpr n = b.getAffineSymbolExpr(0);
  sizes[dim] = affine::makeComposedFoldedAffineApply(b, loc, n + 1, {count});
  Value all = tensor::EmptyOp::create(b, loc, sizes, restType.getElementType());
  // `first` as one step: the same sizes, 1 along `dim`.
  SmallVector<OpFoldResult> offsets(restType.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(restType.getRank(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> oneStep(sizes);
  oneStep[dim] = b.getIndexAttr(1);
  if (!first) {
    SmallVector<OpFoldResult> stepSizes(sizes);
    stepSizes.erase(stepSizes.begin() + dim);
    first = buildFilled(b, loc, stepSizes, b.getF32Type(), 0.0);
  }
  all = tensor::InsertSliceOp::create(b, loc, first, all, offsets, oneStep,
                                      strides);
  return insertAlong(b, loc, rest, all, dim, b.getIndexAttr(1));
}

/// Phase (1) of a gated op for the GPU: each chunk's local state in a
/// block of its own, the suffix sums of its gates, its decayed keys and a
/// copy of its values in shared memory (the state update reads each value
/// once per 16 state rows: from shared memory, and with ldmatrix); the
/// block reads its chunk of k, v and g once. Its temporaries are fewer
/// than the rows' block's (gatedChunkBlockBytes).
Value gatedLocalStatesPerChunkBlock(OpBuilder &b, Location loc,
                                    int64_t numBatch, bool scalar,
                                    const Chunk &chunks) {
  return inSequenceBlocks(
      b, loc, leadingSizes(b, loc, chunks.k, numBatch),
      tensor::getMixedSize(b, loc, chunks.k, numBatch + 1),
      tensor::getMixedSize(b, loc, chunks.v, numBatch + 1),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        Value k = leadingSlice(nb, nl, chunks.k, ivs);
        Value v = leadingSliceCopy(nb, nl, chunks.v, ivs);
        Value zeros = zerosWithBatchOf(
            nb, nl, k, numBatch,
            {tensor::getMixedSize(nb, nl, k, numBatch + 1),
             tensor::getMixedSize(nb, nl, v, numBatch + 1)});
        return gatedStateUpdate(nb, nl, numBatch, k, v,
                                leadingSlice(nb, nl, chunks.g, ivs), zeros,
                                scalar, /*stateIsZero=*/true);
      });
}

/// Phase (3) of a gated op for the GPU: every chunk's rows in a block of
/// its own, which reads its chunk of q, k, v and g and the state entering
/// it, and keeps every temporary of the rows (the in-chunk log-decays, the
/// decayed operands, the scores) in shared memory: the chunk's data leaves
/// global memory about once, where the all-chunks-at-once form writes and
/// reads each temporary for every chunk through it.
Value gatedRowsPerChunkBlock(OpBuilder &b, Location loc, int64_t numBatch,
                             bool scalar, const Chunk &chunks, Value entering) {
  return inSequenceBlocks(
      b, loc, leadingSizes(b, loc, chunks.q, numBatch),
      tensor::getMixedSize(b, loc, chunks.q, numBatch),
      tensor::getMixedSize(b, loc, chunks.v, numBatch + 1),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        // q, k and v are read many times over (q by every block column's
        // decay, v and k by tensor-core fragments per tile): the block
        // copies them in first. g is read once, by its presum.
        Chunk one{leadingSliceCopy(nb, nl, chunks.q, ivs),
                  leadingSliceCopy(nb, nl, chunks.k, ivs),
                  leadingSliceCopy(nb, nl, chunks.v, ivs),
                  leadingSlice(nb, nl, chunks.g, ivs)};
        Value cum = gatePresum(nb, nl, one.g, numBatch, /*suffix=*/false);
        // One block: the loop over block columns keeps one column's
        // temporaries.
        GatedScoresPlan plan{/*mayFactor=*/false, /*blocksAtOnce=*/false,
                             /*diagonalInBlocks=*/false};
        return gatedChunkRows(nb, nl, numBatch, scalar, plan, one, cum,
                              leadingSlice(nb, nl, entering, ivs));
      });
}

struct ToChunkParallel : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  ToChunkParallel(MLIRContext *ctx, int64_t chunkSize, bool handOff)
      : OpInterfaceRewritePattern(ctx), chunkSize(chunkSize),
        handOff(handOff) {}

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    auto form = cast<FormOpInterface>(op.getOperation());
    if (op.getEffectiveMask() != Mask::causal)
      return rewriter.notifyMatchFailure(op, "not a causal op");
    if (!form.formAllows(FormKind::chunk_parallel))
      return rewriter.notifyMatchFailure(op, "its form is not chunk-parallel");
    // Each stage's ops carry the stage's kernel name.
    Location loc = kernelStageLoc(op, "inputs");
    Location statesLoc = kernelStageLoc(op, "chunk_states");
    Location scanLoc = kernelStageLoc(op, "state_scan");
    Location rowsLoc = kernelStageLoc(op, "chunk_outputs");
    int64_t chunk = chunkSizeFor(form, chunkSize);

    // A static sequence shorter than a chunk is one chunk of its own length
    // (no padding to compute and drop).
    int64_t length = op.getQuery().getType().getDimSize(
        numBatchDims(op.getQuery().getType()));
    if (!ShapedType::isDynamic(length))
      chunk = std::min(chunk, length);

    auto [q, k, v, g] = prepareOperands(rewriter, loc, op);
    ChunkGrid grid = gridFor(rewriter, loc, q, chunk);
    // The chunk axis is one more batch dim from here on.
    int64_t chunkAxis = grid.seq, numBatch = grid.seq + 1;
    Chunk chunks{splitIntoChunks(rewriter, loc, q, grid),
                 splitIntoChunks(rewriter, loc, k, grid),
                 splitIntoChunks(rewriter, loc, v, grid),
                 g ? splitIntoChunks(rewriter, loc, g, grid) : Value()};
    bool scalar = op.hasScalarGate();

    // (1) Every chunk's local state, from zero.
    // On the GPU a gated op's local states and rows are blocks per chunk
    // where one fits the planned GPU's shared memory.
    bool gpu = plannedForGPU(op);
    bool blocks = gpu && !handOff;
    bool chunkBlocks = g && blocks && chunkFitsBlock(op, chunks);
    LLVM_DEBUG(llvm::dbgs() << "chunk-parallel form, chunks of " << chunk
                            << (g ? " (gated)" : "")
                            << (chunkBlocks ? ": a GPU block per chunk\n"
                                : gpu       ? ": grids over every chunk\n"
                                            : "\n"));
    Value local;
    if (chunkBlocks) {
      local = gatedLocalStatesPerChunkBlock(rewriter, statesLoc, numBatch,
                                            scalar, chunks);
    } else {
      Value zeros = zerosWithBatchOf(
          rewriter, statesLoc, chunks.k, numBatch,
          {tensor::getMixedSize(rewriter, statesLoc, chunks.k, numBatch + 1),
           tensor::getMixedSize(rewriter, statesLoc, chunks.v, numBatch + 1)});
      local = g ? gatedStateUpdate(rewriter, statesLoc, numBatch, chunks.k,
                                   chunks.v, chunks.g, zeros, scalar,
                                   /*stateIsZero=*/true)
                : transposedMatmulAccumulate(rewriter, statesLoc, numBatch,
                                             chunks.k, chunks.v, zeros);
    }

    // (2) The states entering the chunks, and the final one: an inclusive
    // (decayed) presum of [S0; H] along the chunk axis.
    Value state0 =
        op.getInitialState()
            ? initialStateOrZeros(rewriter, scanLoc, op.getInitialState(), q, v)
            : Value();
    Value states =
        prependAlong(rewriter, scanLoc, state0, local, chunkAxis, handOff);
    Value decay;
    if (g) {
      Value total =
          sumOverSequence(rewriter, scanLoc, numBatch, chunks.g, scalar);
      decay = prependAlong(rewriter, scanLoc, /*first=*/Value(), total,
                           chunkAxis, handOff);
    }
    // A sequential scan, part of this form: N steps of independent
    // [Dk, Dv] states (one GPU block per slice of them), not a long
    // sequence for the blocked scan to cut.
    states = PresumOp::create(
        rewriter, scanLoc, states.getType(), states, decay, /*offsets=*/Value(),
        rewriter.getI64IntegerAttr(chunkAxis),
        /*exclusive=*/UnitAttr(), /*reverse=*/UnitAttr(),
        FormAttr::get(rewriter.getContext(), FormKind::scan, 0));
    Value entering = sliceAlong(rewriter, scanLoc, states, chunkAxis,
                                rewriter.getIndexAttr(0), grid.count);
    Value finalState =
        stepAlong(rewriter, scanLoc, states, chunkAxis, grid.count);

    // (3) Every chunk's rows from the state entering it.
    Value rows;
    if (chunkBlocks) {
      rows = gatedRowsPerChunkBlock(rewriter, rowsLoc, numBatch, scalar, chunks,
                                    entering);
    } else if (g) {
      Value cum =
          gatePresum(rewriter, rowsLoc, chunks.g, numBatch, /*suffix=*/false);
      GatedScoresPlan plan{/*mayFactor=*/!gpu, /*blocksAtOnce=*/true,
                           /*diagonalInBlocks=*/blocks};
      rows = gatedChunkRows(rewriter, rowsLoc, numBatch, scalar, plan, chunks,
                            cum, entering);
    } else {
      rows = plainChunkRows(rewriter, rowsLoc, numBatch, chunks, entering);
    }
    replaceWithForm(rewriter, op, joinChunks(rewriter, rowsLoc, rows, grid),
                    finalState);
    return success();
  }

  /// Whether a block computing one chunk's gated rows fits the shared
  /// memory of the GPU `op` was planned for (static chunk and widths only;
  /// `op` is planned for the GPU: plannedForGPU).
  static bool chunkFitsBlock(Operation *op, const Chunk &chunks) {
    auto q = cast<RankedTensorType>(chunks.q.getType());
    auto v = cast<RankedTensorType>(chunks.v.getType());
    int64_t rank = q.getRank();
    if (q.isDynamicDim(rank - 2) || q.isDynamicDim(rank - 1) ||
        v.isDynamicDim(rank - 1))
      return false;
    return plannedTarget(op).getDescription().gatedChunkFitsBlock(q.getDimSize(rank - 2), q.getDimSize(rank - 1),
                             v.getDimSize(rank - 1));
  }

  int64_t chunkSize;
  /// Whether the result goes to another compiler rather than to Linea's
  /// lowering (grids, not sequence blocks; pads, not writes in place).
  bool handOff;
};

struct LineaCausalToChunkParallelPass
    : linea::impl::LineaCausalToChunkParallelBase<
          LineaCausalToChunkParallelPass> {
  using LineaCausalToChunkParallelBase::LineaCausalToChunkParallelBase;

  void runOnOperation() override {
    if (failed(verifyFormSizeOption(getOperation(), "chunk-size", chunkSize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateCausalToChunkParallelPatterns(patterns, chunkSize, handOff);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateCausalToChunkParallelPatterns(
    RewritePatternSet &patterns, int64_t chunkSize, bool handOff) {
  patterns.add<ToChunkParallel>(patterns.getContext(), chunkSize, handOff);
}
