//===- CausalToChunked.cpp - causal regions -> the chunked algorithm ------===//
//
// Per chunk of C rows (the last one shorter when L % C != 0):
//   O_c = Q_c S + tril(Q_c K_c^T) V_c,   S += K_c^T V_c.
// With gates, b = presum(g_c) is taken within the chunk, so every decay is
// relative to the chunk start and every exponent is <= 0:
//   O_c[i] = (q_i .* exp(b_i)) S + sum_{t <= i} (q_i .* exp(b_i - b_t)) . k_t v_t
//   S      = diag(exp(b_last)) S + sum_t diag(exp(b_last - b_t)) k_t^T v_t.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/ChunkRows.h"
#include "linea/Transforms/FormUtils.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACAUSALTOCHUNKED
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-causal-to-chunked"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The chunk size for `op`: its chosen form's, else the pass option, else
/// the documented default.
int64_t chunkSizeFor(FormOpInterface op, int64_t option) {
  if (FormAttr form = op.getFormAttr())
    return form.getChunkSize();
  return option > 0 ? option : kDefaultChunkSize;
}

using ChunkStep = function_ref<std::pair<Value, Value>(
    OpBuilder &, Location, const Chunk &, Value state)>;
using RowFinisher = function_ref<Value(OpBuilder &, Location, Value rows)>;

using ChunkPreparer =
    function_ref<Chunk(OpBuilder &, Location, const Chunk &rows)>;

/// The chunked form of one op: its operands as they are, how a chunk of
/// their rows becomes the step's f32 operands (`prepare`: feature map,
/// the normalizer's ones column, chunk by chunk so that no whole-sequence
/// copy is made), the chunk size, what one step computes (`step` returns
/// the chunk's unscaled rows and the updated state) and how rows become
/// output rows (`finish`: scale, normalize, cast). The output has the shape
/// of `outputLike` (the op's value) and the element type `outputType`.
struct ChunkLoop {
  Value q, k, v, g;
  ChunkPreparer prepare;
  int64_t chunkSize;
  /// Pad the remainder chunk to C rows (see buildChunkLoop).
  bool padTail;
  /// Whether `prepare` keeps zero key rows zero (see chunkStep).
  bool keysKeepZero;
  ChunkStep step;
  RowFinisher finish;
  Value outputLike;
  Type outputType;
};

/// `x` padded with zeros along `dim` to `size` rows.
Value padAlong(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  Value zero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(type.getElementType()));
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (ShapedType::isDynamic(shape[i]))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, x, i));
  return tensor::createPadHighOp(
      RankedTensorType::get(shape, type.getElementType()), x, zero,
      /*nofold=*/false, loc, b, dynamicSizes);
}

/// One step of the chunk loop: slices rows [start, start + size), prepares
/// them, runs the step, writes its finished rows into `out`. Returns
/// (state, out). With `padTo`, the rows are padded with zeros to that
/// static size before they are prepared, so that every temporary of the
/// step has a static size (a sequence block on the GPU cannot allocate a
/// dynamic one): zero keys add nothing to the state, zero gates decay
/// nothing, and the padded output rows are dropped. Where the feature map
/// does not keep zero rows (elu + 1 gives ones), the prepared keys'
/// padding rows are zeroed again.
std::pair<Value, Value> chunkStep(OpBuilder &b, Location loc,
                                  const ChunkLoop &form, OpFoldResult start,
                                  OpFoldResult size, std::optional<int64_t> padTo,
                                  Value state, Value out) {
  int64_t seq = numBatchDims(cast<RankedTensorType>(form.q.getType()));
  auto slice = [&](Value x) -> Value {
    return x ? sliceAlong(b, loc, x, seq, start, size) : Value();
  };
  auto pad = [&](Value x) -> Value {
    return x && padTo ? padAlong(b, loc, x, seq, *padTo) : x;
  };
  Chunk rowsIn{pad(slice(form.q)), pad(slice(form.k)), pad(slice(form.v)),
               pad(slice(form.g))};
  Chunk c = form.prepare(b, loc, rowsIn);
  if (padTo && !form.keysKeepZero)
    c.k = pad(sliceAlong(b, loc, c.k, seq, b.getIndexAttr(0), size));
  auto [rows, next] = form.step(b, loc, c, state);
  if (padTo)
    rows = sliceAlong(b, loc, rows, seq, b.getIndexAttr(0), size);
  // Finished per chunk, the rows go straight to their place in the output.
  rows = form.finish(b, loc, rows);
  return {next, insertAlong(b, loc, rows, out, seq, start)};
}

/// The loop over chunks carrying (S, O). Full chunks have the static size C
/// (static shapes for the contractions: vectorizable loops on the CPU,
/// tensor-core tiles on the GPU); the remainder, when L % C != 0, is one
/// more step after the loop, padded to C rows when `padTail` (every
/// temporary then has a static size: what a GPU sequence block needs for
/// shared memory). Returns (final state, output).
std::pair<Value, Value> buildChunkLoop(OpBuilder &b, Location loc,
                                       const ChunkLoop &form, Value state) {
  int64_t seq = numBatchDims(cast<RankedTensorType>(form.q.getType()));
  Value length = tensor::DimOp::create(b, loc, form.q, seq);
  Value out = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, form.outputLike), form.outputType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value chunk = arith::ConstantIndexOp::create(b, loc, form.chunkSize);
  Value remainder = arith::RemUIOp::create(b, loc, length, chunk);
  Value fullEnd = arith::SubIOp::create(b, loc, length, remainder);

  auto loop = scf::ForOp::create(
      b, loc, zero, fullEnd, chunk, ValueRange{state, out},
      [&](OpBuilder &nb, Location l, Value start, ValueRange carried) {
        auto [next, written] =
            chunkStep(nb, l, form, start, nb.getIndexAttr(form.chunkSize),
                      std::nullopt, carried[0], carried[1]);
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      });
  state = loop.getResult(0);
  out = loop.getResult(1);

  int64_t staticLength =
      cast<RankedTensorType>(form.q.getType()).getDimSize(seq);
  if (!ShapedType::isDynamic(staticLength) &&
      staticLength % form.chunkSize == 0)
    return {state, out};
  Value hasTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        remainder, zero);
  std::optional<int64_t> padTo;
  if (form.padTail)
    padTo = form.chunkSize;
  auto tail = scf::IfOp::create(
      b, loc, hasTail,
      [&](OpBuilder &nb, Location l) {
        auto [next, written] =
            chunkStep(nb, l, form, fullEnd, remainder, padTo, state, out);
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      },
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l, ValueRange{state, out});
      });
  return {tail.getResult(0), tail.getResult(1)};
}

/// Inside a sequence block the state gets a buffer of its own, which the
/// block keeps in shared memory. Otherwise empty-tensor
/// elimination would place it in the final-state output, so that every
/// chunk updates it in global memory.
Value inOwnBuffer(RewriterBase &rewriter, Value state) {
  // The state starts as fill(empty), or as a copy of the initial state into
  // one.
  Operation *op = state.getDefiningOp();
  while (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(op))
    op = dps.getDpsInits()[0].getDefiningOp();
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(op)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(empty);
    rewriter.replaceOpWithNewOp<bufferization::AllocTensorOp>(
        empty, empty.getType(), empty.getDynamicSizes());
  }
  return state;
}

/// One chunk: its rows from the state entering it, then the state after it.
/// The rows are built first: they read S before the update overwrites it in
/// place.
std::pair<Value, Value> plainStep(OpBuilder &b, Location l, int64_t numBatch,
                                  const Chunk &c, Value s) {
  Value rows = plainChunkRows(b, l, numBatch, c, s);
  Value next = transposedMatmulAccumulate(b, l, numBatch, c.k, c.v, s);
  return {rows, next};
}

/// The same with decays relative to the chunk start: b = presum(g_c).
std::pair<Value, Value> gatedStep(OpBuilder &b, Location l, int64_t numBatch,
                                  bool scalar, bool mayFactor, const Chunk &c,
                                  Value s) {
  Value cum = gatePresum(b, l, c.g, numBatch, /*suffix=*/false);
  GatedScoresPlan plan{mayFactor, /*blocksAtOnce=*/false};
  Value rows = gatedChunkRows(b, l, numBatch, scalar, plan, c, cum, s);
  // S = diag(exp(b_last)) S + (K .* exp(b_last - b_t))^T V, with
  // b_last - b_t the suffix sums within the chunk.
  Value next = gatedStateUpdate(b, l, numBatch, c.k, c.v, c.g, s, scalar,
                                /*stateIsZero=*/false);
  return {rows, next};
}

struct ToChunked : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  ToChunked(MLIRContext *ctx, int64_t chunkSize)
      : OpInterfaceRewritePattern(ctx), chunkSize(chunkSize) {}

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    auto form = cast<FormOpInterface>(op.getOperation());
    if (op.getEffectiveMask() != Mask::causal)
      return rewriter.notifyMatchFailure(op, "not a causal op");
    if (!form.formAllows(FormKind::chunked))
      return rewriter.notifyMatchFailure(op, "its form is not chunked");
    Location loc = op.getLoc();
    int64_t numBatch = numBatchDims(op.getQuery().getType());
    bool scalar = op.hasScalarGate();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue(),
          g = op.getGate();
    // Inside a sequence block every temporary needs a static size and the
    // state a buffer of its own (shared memory).
    bool inBlock = isInSequenceBlock(op);
    // The factored gated scores branch on the data: CPU code only.
    bool mayFactor = !inBlock && !plannedForGPU(op);
    LLVM_DEBUG(llvm::dbgs()
               << "chunked form, chunks of " << chunkSizeFor(form, chunkSize)
               << (inBlock ? ", in a sequence block (static, padded tail)" : "")
               << (g && mayFactor ? ", factored gated scores" : "") << "\n");
    auto step = [&](OpBuilder &b, Location l, const Chunk &c, Value s) {
      return c.g ? gatedStep(b, l, numBatch, scalar, mayFactor, c, s)
                 : plainStep(b, l, numBatch, c, s);
    };
    auto finish = [&](OpBuilder &b, Location l, Value rows) {
      return finishRows(b, l, op, rows);
    };
    auto prepare = [&](OpBuilder &b, Location l, const Chunk &rows) {
      auto [pq, pk, pv, pg] = prepareOperands(
          b, l, op, FormOperands{rows.q, rows.k, rows.v, rows.g});
      return Chunk{pq, pk, pv, pg};
    };
    ChunkLoop loop{q,
                   k,
                   v,
                   g,
                   prepare,
                   chunkSizeFor(form, chunkSize),
                   /*padTail=*/inBlock,
                   featureMapKeepsZero(op.getFeatureMap()),
                   step,
                   finish,
                   op.getValue(),
                   op.getOutput().getType().getElementType()};
    // The state has a column per value column, the ones column's too (an
    // empty tensor of the values' shape with it: only its sizes are read).
    Value valuesLike = v;
    if (op.getNormalize())
      valuesLike = tensor::EmptyOp::create(
          rewriter, loc, sizesWithExtraColumn(rewriter, loc, v),
          getElementTypeOrSelf(v));
    Value state0 = initialStateOrZeros(rewriter, loc, op.getInitialState(), q,
                                       valuesLike);
    if (inBlock)
      state0 = inOwnBuffer(rewriter, state0);
    auto [state, o] = buildChunkLoop(rewriter, loc, loop, state0);
    replaceWithFinished(rewriter, op, o, state);
    return success();
  }

  int64_t chunkSize;
};

struct LineaCausalToChunkedPass
    : linea::impl::LineaCausalToChunkedBase<LineaCausalToChunkedPass> {
  using LineaCausalToChunkedBase::LineaCausalToChunkedBase;

  void runOnOperation() override {
    if (failed(verifyFormSizeOption(getOperation(), "chunk-size", chunkSize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateCausalToChunkedPatterns(patterns, chunkSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateCausalToChunkedPatterns(RewritePatternSet &patterns,
                                                  int64_t chunkSize) {
  patterns.add<ToChunked>(patterns.getContext(), chunkSize);
}
