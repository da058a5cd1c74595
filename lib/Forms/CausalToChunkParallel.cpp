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
#include "linea/Target/Target.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/ChunkBuilders.h"
#include "linea/Utils/FloatTypes.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

/// Phase (1) for the GPU: each chunk's local state `K^T V` in a block of its
/// own, which copies its chunk of v (and of k, where no decay makes a new
/// tensor of it) into shared memory once: its tensor cores read them with
/// ldmatrix, whatever the value width (a normalized op's ones column takes
/// no staged grid). Gated, it decays the keys to the chunk's end by the
/// suffix sums of the chunk's gates first. Its temporaries are fewer than
/// the rows' block's (gatedChunkBlockBytes, plainChunkBlockBytes).
Value localStatesPerChunkBlock(OpBuilder &b, Location loc, int64_t numBatch,
                               bool scalar, const Chunk &chunks) {
  return inSequenceBlocks(
      b, loc, leadingSizes(b, loc, chunks.k, numBatch),
      tensor::getMixedSize(b, loc, chunks.k, numBatch + 1),
      tensor::getMixedSize(b, loc, chunks.v, numBatch + 1),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        Value k = chunks.g ? leadingSlice(nb, nl, chunks.k, ivs)
                           : leadingSliceCopy(nb, nl, chunks.k, ivs);
        Value v = leadingSliceCopy(nb, nl, chunks.v, ivs);
        Value zeros = zerosWithBatchOf(
            nb, nl, k, numBatch,
            {tensor::getMixedSize(nb, nl, k, numBatch + 1),
             tensor::getMixedSize(nb, nl, v, numBatch + 1)});
        if (!chunks.g)
          return transposedMatmulAccumulate(nb, nl, numBatch, k, v, zeros);
        return gatedStateUpdate(nb, nl, numBatch, k, v,
                                leadingSlice(nb, nl, chunks.g, ivs), zeros,
                                scalar, /*stateIsZero=*/true);
      });
}

/// Phase (3) for the GPU: every chunk's rows in a block of its own, which
/// copies its chunk of q, k and v into shared memory first (each is read
/// many times over: q by every block column's decay, v and k by
/// tensor-core fragments per tile) and keeps every temporary of the rows
/// there (the scores; gated, the in-chunk log-decays and decayed operands
/// too): the chunk's data leaves global memory about once, where the
/// all-chunks-at-once form writes and reads each temporary for every chunk
/// through it. A plain block copies the state entering it too; a gated
/// one's lanes read it per 16 rows (its shared memory is full).
Value rowsPerChunkBlock(OpBuilder &b, Location loc, int64_t numBatch,
                        bool scalar, const Chunk &chunks, Value entering) {
  return inSequenceBlocks(
      b, loc, leadingSizes(b, loc, chunks.q, numBatch),
      tensor::getMixedSize(b, loc, chunks.q, numBatch),
      tensor::getMixedSize(b, loc, chunks.v, numBatch + 1),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        // g is read once, by its presum.
        Chunk one{leadingSliceCopy(nb, nl, chunks.q, ivs),
                  leadingSliceCopy(nb, nl, chunks.k, ivs),
                  leadingSliceCopy(nb, nl, chunks.v, ivs),
                  chunks.g ? leadingSlice(nb, nl, chunks.g, ivs) : Value()};
        if (!one.g)
          return plainChunkRows(nb, nl, numBatch, one,
                                leadingSliceCopy(nb, nl, entering, ivs));
        Value cum = gatePresum(nb, nl, one.g, numBatch, /*suffix=*/false);
        // One block: the loop over block columns keeps one column's
        // temporaries.
        GatedScoresPlan plan{/*mayFactor=*/false, /*blocksAtOnce=*/false,
                             /*diagonalInBlocks=*/false};
        return gatedChunkRows(nb, nl, numBatch, scalar, plan, one, cum,
                              leadingSlice(nb, nl, entering, ivs));
      });
}

/// Phases (1) and (2) for the GPU in one pass (fla's chunk_fwd_h and
/// chunk_gla_fwd_h): a block per sequence and kStateTile x kStateTile
/// state tile walks the chunks in order, its tile of the state in shared
/// memory (f32), writes the state entering each chunk (in `enteringType`: a
/// 16-bit op's own type, which its rows' tensor cores multiply in anyway)
/// and adds the chunk's `K_c^T V_c` (gated: decays the state by the
/// chunk's total gate and adds the keys decayed to the chunk's end, as the
/// chunked form's step does). No chunk's local state passes through global
/// memory and no scan runs. `state0` (`[B..., Dk, Dv]` f32) is the
/// initial state or null. Returns (entering `[B..., N, Dk, Dv]`, the final
/// state `[B..., Dk, Dv]` f32).
std::pair<Value, Value>
statesPerSequenceBlock(OpBuilder &b, Location loc, int64_t numSeq,
                       const Chunk &chunks, Value state0, Type enteringType) {
  auto kType = cast<RankedTensorType>(chunks.k.getType());
  auto vType = cast<RankedTensorType>(chunks.v.getType());
  int64_t chunk = kType.getDimSize(numSeq + 1);
  int64_t dk = kType.getDimSize(numSeq + 2), dv = vType.getDimSize(numSeq + 2);
  int64_t tileK = stateTileAlong(dk), tileV = stateTileAlong(dv);
  OpFoldResult count = tensor::getMixedSize(b, loc, chunks.k, numSeq);
  SmallVector<OpFoldResult> sequences = leadingSizes(b, loc, chunks.k, numSeq);
  auto withTrailing = [](ArrayRef<OpFoldResult> lead,
                         ArrayRef<OpFoldResult> rest) {
    SmallVector<OpFoldResult> all(lead);
    all.append(rest.begin(), rest.end());
    return all;
  };
  auto units = [&](int64_t n) {
    return SmallVector<OpFoldResult>(n, b.getIndexAttr(1));
  };
  OpFoldResult dkSize = b.getIndexAttr(dk), dvSize = b.getIndexAttr(dv);
  OpFoldResult tileKSize = b.getIndexAttr(tileK),
               tileVSize = b.getIndexAttr(tileV);

  // Inside the block every tensor keeps a unit dim for the chunk axis (a
  // batch dim of the contraction and the gates' sums), so that none is
  // rank 0 where the op has no batch dims. The final state has it too,
  // dropped after the loop.
  Value enteringInit = tensor::EmptyOp::create(
      b, loc, withTrailing(sequences, {count, dkSize, dvSize}), enteringType);
  Value finalInit = tensor::EmptyOp::create(
      b, loc, withTrailing(sequences, {b.getIndexAttr(1), dkSize, dvSize}),
      b.getF32Type());
  SmallVector<OpFoldResult> counts = withTrailing(
      sequences, {b.getIndexAttr(dk / tileK), b.getIndexAttr(dv / tileV)});
  auto forall = scf::ForallOp::create(
      b, loc, counts, ValueRange{enteringInit, finalInit},
      b.getArrayAttr(sequenceBlockMapping(b.getContext(), counts.size())));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> ivs = forall.getInductionVars();
  AffineExpr i = b.getAffineSymbolExpr(0);
  OpFoldResult firstRow =
      affine::makeComposedFoldedAffineApply(b, loc, i * tileK, {ivs[numSeq]});
  OpFoldResult firstColumn = affine::makeComposedFoldedAffineApply(
      b, loc, i * tileV, {ivs[numSeq + 1]});
  SmallVector<OpFoldResult> at(ivs.begin(), ivs.begin() + numSeq);
  SmallVector<OpFoldResult> strides = units(numSeq + 3);
  SmallVector<OpFoldResult> tileSizes =
      withTrailing(units(numSeq + 1), {tileKSize, tileVSize});

  // The state tile, `[1..., 1, tileK, tileV]`, in a buffer of its own.
  SmallVector<int64_t> tileShape(numSeq + 1, 1);
  tileShape.append({tileK, tileV});
  Value state = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get(tileShape, b.getF32Type()), ValueRange{});
  if (state0) {
    Value init =
        sliceDropping(b, loc, state0, withTrailing(at, {firstRow, firstColumn}),
                      withTrailing(units(numSeq), {tileKSize, tileVSize}), {});
    SmallVector<OpFoldResult> origin(numSeq + 3, b.getIndexAttr(0));
    state = tensor::InsertSliceOp::create(b, loc, init, state, origin,
                                          tileSizes, strides);
  } else {
    Value zero = f32Constant(b, loc, 0.0f);
    state = linalg::FillOp::create(b, loc, zero, state).getResult(0);
  }
  SmallVector<OpFoldResult> outSizes =
      withTrailing(units(numSeq), {count, tileKSize, tileVSize});
  Value out = tensor::EmptyOp::create(b, loc, outSizes, enteringType);

  int64_t numBatch = numSeq + 1;
  bool scalar =
      chunks.g &&
      cast<RankedTensorType>(chunks.g.getType()).getRank() == numSeq + 2;
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value end = getValueOrCreateConstantIndexOp(b, loc, count);
  auto loop = scf::ForOp::create(
      b, loc, zeroIndex, end, one, ValueRange{state, out},
      [&](OpBuilder &nb, Location l, Value n, ValueRange carried) {
        Value s = carried[0];
        // The state entering chunk n, then chunk n's keys and values
        // (`[1..., 1, C, tile]`) and gates (`[1..., 1, C]` a scalar per
        // token, or the key tile's `[1..., 1, C, tileK]`).
        SmallVector<OpFoldResult> step(numSeq, nb.getIndexAttr(0));
        step.append({n, nb.getIndexAttr(0), nb.getIndexAttr(0)});
        Value written = tensor::InsertSliceOp::create(
            nb, l, castFromF32(nb, l, s, enteringType), carried[1], step,
            tileSizes, strides);
        SmallVector<OpFoldResult> rows =
            withTrailing(at, {n, nb.getIndexAttr(0)});
        SmallVector<OpFoldResult> rowSizes =
            withTrailing(units(numSeq + 1), {nb.getIndexAttr(chunk)});
        auto chunkOf = [&](Value x, OpFoldResult first, OpFoldResult width) {
          return sliceDroppingCopy(nb, l, x, withTrailing(rows, {first}),
                                   withTrailing(rowSizes, {width}), {});
        };
        Value k = chunkOf(chunks.k, firstRow, tileKSize);
        Value v = chunkOf(chunks.v, firstColumn, tileVSize);
        Value next;
        if (!chunks.g) {
          next = transposedMatmulAccumulate(nb, l, numBatch, k, v, s);
        } else {
          Value g =
              scalar ? sliceDropping(nb, l, chunks.g, rows, rowSizes, {})
                     : sliceDropping(nb, l, chunks.g,
                                     withTrailing(rows, {firstRow}),
                                     withTrailing(rowSizes, {tileKSize}), {});
          next = gatedStateUpdate(nb, l, numBatch, k, v, g, s, scalar,
                                  /*stateIsZero=*/false);
        }
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      });

  b.setInsertionPointToStart(forall.getTerminator().getBody());
  Value entering = forall.getRegionIterArgs()[0];
  Value final = forall.getRegionIterArgs()[1];
  tensor::ParallelInsertSliceOp::create(
      b, loc, loop.getResult(1), entering,
      withTrailing(at, {b.getIndexAttr(0), firstRow, firstColumn}), outSizes,
      strides);
  tensor::ParallelInsertSliceOp::create(
      b, loc, loop.getResult(0), final,
      withTrailing(at, {b.getIndexAttr(0), firstRow, firstColumn}), tileSizes,
      strides);
  b.setInsertionPointAfter(forall);
  SmallVector<ReassociationIndices> dropChunk;
  for (int64_t d = 0; d < numSeq; ++d)
    dropChunk.push_back({d});
  dropChunk.push_back({numSeq, numSeq + 1});
  dropChunk.push_back({numSeq + 2});
  Value finalState =
      tensor::CollapseShapeOp::create(b, loc, forall.getResult(1), dropChunk);
  return {forall.getResult(0), finalState};
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
    int64_t numBatch = grid.seq + 1;
    Chunk chunks{splitIntoChunks(rewriter, loc, q, grid),
                 splitIntoChunks(rewriter, loc, k, grid),
                 splitIntoChunks(rewriter, loc, v, grid),
                 g ? splitIntoChunks(rewriter, loc, g, grid) : Value()};
    bool scalar = op.hasScalarGate();

    // On the GPU, phases run as blocks where the planned GPU's shared
    // memory holds them (TargetDescription::chunkBlocks); a hand-off leaves
    // the mapping to the receiving compiler.
    TargetDescription::ChunkBlocks blocks;
    bool gpu = plannedForGPU(op);
    if (gpu && !handOff)
      blocks = chunkBlocksFor(op, chunks);
    LLVM_DEBUG(llvm::dbgs()
               << "chunk-parallel form, chunks of " << chunk
               << (g ? " (gated)" : "") << (gpu ? " for the GPU" : "")
               << (blocks.statesPerSequence ? ": a state pass per sequence"
                                            : "")
               << (blocks.rowsPerChunk ? ": a block per chunk's rows" : "")
               << "\n");

    // (1) and (2): the states entering the chunks, and the final one.
    auto initialState = [&](Location at) {
      return op.getInitialState()
                 ? initialStateOrZeros(rewriter, at, op.getInitialState(), q, v)
                 : Value();
    };
    Value entering, finalState;
    if (blocks.statesPerSequence) {
      std::tie(entering, finalState) = statesPerSequenceBlock(
          rewriter, statesLoc, grid.seq, chunks, initialState(statesLoc),
          sixteenBitOrF32(op.getQuery().getType().getElementType()));
      entering = castToF32(rewriter, rowsLoc, entering);
    } else {
      Value local = localStates(rewriter, statesLoc, numBatch, chunks, scalar,
                                blocks.rowsPerChunk);
      std::tie(entering, finalState) =
          scannedStates(rewriter, scanLoc, numBatch, grid, chunks, scalar,
                        local, initialState(scanLoc));
    }

    // (3) Every chunk's rows from the state entering it.
    Value rows;
    if (blocks.rowsPerChunk) {
      rows = rowsPerChunkBlock(rewriter, rowsLoc, numBatch, scalar, chunks,
                               entering);
    } else if (g) {
      Value cum =
          gatePresum(rewriter, rowsLoc, chunks.g, numBatch, /*suffix=*/false);
      GatedScoresPlan plan{/*mayFactor=*/!gpu, /*blocksAtOnce=*/true,
                           /*diagonalInBlocks=*/gpu && !handOff};
      rows = gatedChunkRows(rewriter, rowsLoc, numBatch, scalar, plan, chunks,
                            cum, entering);
    } else {
      rows = plainChunkRows(rewriter, rowsLoc, numBatch, chunks, entering);
    }
    replaceWithForm(rewriter, op, joinChunks(rewriter, rowsLoc, rows, grid),
                    finalState);
    return success();
  }

  /// Phase (1) without the state pass: every chunk's local state from zero,
  /// `[B..., N, Dk, Dv]` (a block per chunk where the rows take one, else a
  /// grid over every chunk).
  static Value localStates(PatternRewriter &rewriter, Location loc,
                           int64_t numBatch, const Chunk &chunks, bool scalar,
                           bool chunkBlocks) {
    if (chunkBlocks)
      return localStatesPerChunkBlock(rewriter, loc, numBatch, scalar, chunks);
    Value zeros = zerosWithBatchOf(
        rewriter, loc, chunks.k, numBatch,
        {tensor::getMixedSize(rewriter, loc, chunks.k, numBatch + 1),
         tensor::getMixedSize(rewriter, loc, chunks.v, numBatch + 1)});
    return chunks.g ? gatedStateUpdate(rewriter, loc, numBatch, chunks.k,
                                       chunks.v, chunks.g, zeros, scalar,
                                       /*stateIsZero=*/true)
                    : transposedMatmulAccumulate(rewriter, loc, numBatch,
                                                 chunks.k, chunks.v, zeros);
  }

  /// Phase (2) as a scan: the states entering the chunks and the final one,
  /// an inclusive (decayed) presum of `[S0; H]` along the chunk axis, `H`
  /// the `local` states, `state0` the initial state or null. Returns
  /// (entering `[B..., N, Dk, Dv]`, final).
  std::pair<Value, Value> scannedStates(PatternRewriter &rewriter,
                                        Location scanLoc, int64_t numBatch,
                                        const ChunkGrid &grid,
                                        const Chunk &chunks, bool scalar,
                                        Value local, Value state0) const {
    int64_t chunkAxis = grid.seq;
    Value states =
        prependAlong(rewriter, scanLoc, state0, local, chunkAxis, handOff);
    Value decay;
    if (chunks.g) {
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
    return {sliceAlong(rewriter, scanLoc, states, chunkAxis,
                       rewriter.getIndexAttr(0), grid.count),
            stepAlong(rewriter, scanLoc, states, chunkAxis, grid.count)};
  }

  /// The blocks the planned GPU takes for `op`'s chunks (none where a chunk
  /// or width is dynamic).
  static TargetDescription::ChunkBlocks
  chunkBlocksFor(LinearAttentionOpInterface op, const Chunk &chunks) {
    auto q = cast<RankedTensorType>(chunks.q.getType());
    auto v = cast<RankedTensorType>(chunks.v.getType());
    int64_t rank = q.getRank();
    if (q.isDynamicDim(rank - 2) || q.isDynamicDim(rank - 1) ||
        v.isDynamicDim(rank - 1))
      return {};
    RankedTensorType stored = op.getQuery().getType();
    std::optional<int64_t> sequences = 1;
    for (int64_t d = 0, e = numBatchDims(stored); d < e && sequences; ++d)
      sequences = stored.isDynamicDim(d)
                      ? std::nullopt
                      : std::optional(*sequences * stored.getDimSize(d));
    return plannedTarget(op).getDescription().chunkBlocks(
        static_cast<bool>(chunks.g), q.getDimSize(rank - 2),
        q.getDimSize(rank - 1), v.getDimSize(rank - 1),
        stored.getElementTypeBitWidth() / 8, sequences);
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
