//===- TileAttention.cpp - softmax attention -> tiled online softmax ------===//
//
// A loop over key tiles carries, per query row, the running max m, the
// running sum l and the unnormalized output acc. For each tile:
//   s = scale * q k_tile^T (-inf where masked),  m' = max(m, rowmax(s)),
//   p = exp(s - m'),  l = exp(m - m') l + rowsum(p),
//   acc = exp(m - m') acc + p v_tile;
// finally o = acc / l (0 for a row that saw no key). Only Lq x tile scores
// are live at a time.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEATILEATTENTION
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// A running max of -inf means "no key yet": use 0 as the shift then, so
/// exp(-inf - shift) is 0 rather than NaN.
Value safeShift(OpBuilder &b, Location loc, Value max) {
  Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max,
                                     f32Constant(b, loc, kNegInf));
  return arith::SelectOp::create(b, loc, none, f32Constant(b, loc, 0.0f), max);
}

struct TileAttention : OpRewritePattern<AttentionOp> {
  TileAttention(MLIRContext *ctx, int64_t tileSize)
      : OpRewritePattern(ctx), tileSize(tileSize) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    // Each segment is its own attention: tiled after linea-split-segments.
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(op, "packed: one op per segment");
    Location loc = op.getLoc();
    Value q = castToF32(rewriter, loc, op.getQuery());
    Value k = castToF32(rewriter, loc, op.getKey());
    Value v = castToF32(rewriter, loc, op.getValue());
    int64_t nb = numBatchDims(op.getQuery().getType());
    OpFoldResult rows = tensor::getMixedSize(rewriter, loc, q, nb);
    Value keys = tensor::DimOp::create(rewriter, loc, k, nb);
    // Queries are the last Lq positions: row i sees keys t <= i + (Lk - Lq).
    Value offset = arith::SubIOp::create(
        rewriter, loc, keys, getValueOrCreateConstantIndexOp(rewriter, loc, rows));

    Value max = zerosWithBatchOf(rewriter, loc, q, nb, {rows});
    max = linalg::FillOp::create(rewriter, loc,
                                 f32Constant(rewriter, loc, kNegInf), max)
              .getResult(0);
    Value sum = zerosWithBatchOf(rewriter, loc, q, nb, {rows});
    Value acc = zerosWithBatchOf(
        rewriter, loc, q, nb,
        {rows, tensor::getMixedSize(rewriter, loc, v, nb + 1)});

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value tile = arith::ConstantIndexOp::create(rewriter, loc, tileSize);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, keys, tile, ValueRange{max, sum, acc},
        [&](OpBuilder &b, Location l, Value start, ValueRange carried) {
          // Whole tiles where the keys divide into them: static shapes.
          OpFoldResult size =
              dividesKeys(op, nb)
                  ? OpFoldResult(b.getIndexAttr(tileSize))
                  : OpFoldResult(arith::MinSIOp::create(
                        b, l, tile, arith::SubIOp::create(b, l, keys, start)));
          Value kt = sliceAlong(b, l, k, nb, start, size);
          Value vt = sliceAlong(b, l, v, nb, start, size);
          // The rows that see a key of this tile: under a causal mask on
          // the CPU, rows from max(0, start - offset) on (the others would
          // add exp(-inf) = 0: half the causal work). The GPU keeps every
          // row, so that a block's tiles have static sizes.
          Value first, count;
          if (skipsHiddenRows(op, nb)) {
            Value all = getValueOrCreateConstantIndexOp(b, l, rows);
            first = firstSeeingRow(b, l, start, offset, all);
            count = arith::SubIOp::create(b, l, all, first);
          }
          auto rowsOf = [&](Value x) {
            return first ? sliceAlong(b, l, x, nb, first, count) : x;
          };
          Value rowOffset =
              first ? arith::AddIOp::create(b, l, offset, first).getResult()
                    : offset;
          Value s = tileScores(b, l, op, nb, rowsOf(q), kt, start, rowOffset);
          auto [m, runningSum, out] = std::make_tuple(
              rowsOf(carried[0]), rowsOf(carried[1]), rowsOf(carried[2]));
          Value newMax = maxWith(b, l, nb, m, rowMax(b, l, nb, s));
          Value alpha = rescale(b, l, nb, m, newMax);
          Value p = shiftedExp(b, l, nb, s, newMax);
          Value newSum = scaleAdd(b, l, nb, alpha, runningSum, rowSums(b, l, nb, p));
          Value newOut = matmulAccumulate(b, l, nb, p, vt,
                                          scaleRows(b, l, nb, alpha, out));
          Value keptMax = linalg::CopyOp::create(b, l, newMax, m).getResult(0);
          SmallVector<Value> next{keptMax, newSum, newOut};
          if (first)
            for (auto [part, whole] : llvm::zip(next, carried))
              part = insertAlong(b, l, part, whole, nb, first, count);
          scf::YieldOp::create(b, l, next);
        });

    rewriter.replaceOp(op, normalize(rewriter, loc, nb, loop.getResult(2),
                                     loop.getResult(1),
                                     op.getOutput().getType().getElementType()));
    return success();
  }

  /// Whether the key count is static and a multiple of the tile.
  bool dividesKeys(AttentionOp op, int64_t nb) const {
    int64_t keys = cast<ShapedType>(op.getKey().getType()).getDimSize(nb);
    return !ShapedType::isDynamic(keys) && keys % tileSize == 0;
  }

  /// Whether the tiles skip the rows that see none of their keys: causal,
  /// on the CPU, unless static sizes show that every row sees the first key
  /// of every tile (the last tile starts at most Lk - Lq: nothing to skip,
  /// and the rows keep their static count).
  bool skipsHiddenRows(AttentionOp op, int64_t nb) const {
    if (op.getMask() != Mask::causal || plannedForGPU(op))
      return false;
    int64_t queries = cast<ShapedType>(op.getQuery().getType()).getDimSize(nb);
    int64_t keys = cast<ShapedType>(op.getKey().getType()).getDimSize(nb);
    if (ShapedType::isDynamic(queries) || ShapedType::isDynamic(keys) ||
        keys == 0)
      return true;
    int64_t lastStart = (keys - 1) / tileSize * tileSize;
    return lastStart > keys - queries;
  }

  /// The first row that sees key `start` (row i sees t <= i + offset),
  /// clamped to [0, rows].
  static Value firstSeeingRow(OpBuilder &b, Location loc, Value start,
                              Value offset, Value rows) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first = arith::SubIOp::create(b, loc, start, offset);
    first = arith::MaxSIOp::create(b, loc, first, zero);
    return arith::MinSIOp::create(b, loc, first, rows);
  }

  /// `part` (`size` long along `dim`) written into `whole` from `offset`.
  static Value insertAlong(OpBuilder &b, Location loc, Value part, Value whole,
                           int64_t dim, Value offset, Value size) {
    int64_t rank = cast<RankedTensorType>(whole.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[dim] = offset;
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, whole);
    sizes[dim] = size;
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, part, whole, offsets, sizes,
                                         strides);
  }

  /// `scale * q k^T`, -inf where key `start + t` is not visible from row i.
  static Value tileScores(OpBuilder &b, Location loc, AttentionOp op,
                          int64_t nb, Value q, Value kt, Value start,
                          Value offset) {
    Value dots = maskedScores(b, loc, nb, q, kt,
                              [](OpBuilder &nb2, Location l, Value, Value) {
                                return arith::ConstantIntOp::create(nb2, l, 1, 1)
                                    .getResult();
                              });
    float scale = op.getEffectiveScale();
    bool causal = op.getMask() == Mask::causal;
    LoopSpace s(b.getContext(), nb, {kPar, kPar});
    AffineMap rowCol = s.map({s[0], s[1]});
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, dots), b.getF32Type());
    return buildGeneric(
        b, loc, dots, init, {rowCol, rowCol}, s.iterators(),
        [&](OpBuilder &nb2, Location l, ValueRange args) -> Value {
          Value scaled =
              arith::MulFOp::create(nb2, l, args[0], f32Constant(nb2, l, scale));
          if (!causal)
            return scaled;
          Value row = linalg::IndexOp::create(nb2, l, s.position(0));
          Value col = arith::AddIOp::create(
              nb2, l, start, linalg::IndexOp::create(nb2, l, s.position(1)));
          Value last = arith::AddIOp::create(nb2, l, row, offset);
          Value visible = arith::CmpIOp::create(
              nb2, l, arith::CmpIPredicate::sle, col, last);
          return arith::SelectOp::create(nb2, l, visible, scaled,
                                         f32Constant(nb2, l, kNegInf));
        });
  }

  static Value rowMax(OpBuilder &b, Location loc, int64_t nb, Value s) {
    LoopSpace sp(b.getContext(), nb, {kPar, kRed});
    Value init = zerosWithBatchOf(b, loc, s, nb,
                                  {tensor::getMixedSize(b, loc, s, nb)});
    init = linalg::FillOp::create(b, loc, f32Constant(b, loc, kNegInf), init)
               .getResult(0);
    return buildGeneric(b, loc, s, init, {sp.map({sp[0], sp[1]}), sp.map({sp[0]})},
                        sp.iterators(),
                        [](OpBuilder &nb2, Location l, ValueRange args) -> Value {
                          return arith::MaximumFOp::create(nb2, l, args[0],
                                                           args[1]);
                        });
  }

  /// An elementwise map over `[B..., rows]` vectors, written into `into`
  /// (a fresh tensor when null).
  static Value rowwise(OpBuilder &b, Location loc, int64_t nb, ValueRange xs,
                       function_ref<Value(OpBuilder &, Location, ValueRange)> fn,
                       Value into = {}) {
    LoopSpace sp(b.getContext(), nb, {kPar});
    SmallVector<AffineMap> maps(xs.size() + 1, sp.map({sp[0]}));
    Value init = into ? into
                      : tensor::EmptyOp::create(
                            b, loc, tensor::getMixedSizes(b, loc, xs[0]),
                            b.getF32Type())
                            .getResult();
    return buildGeneric(b, loc, xs, init, maps, sp.iterators(),
                        [&](OpBuilder &nb2, Location l, ValueRange args) {
                          return fn(nb2, l, args.drop_back());
                        });
  }

  static Value maxWith(OpBuilder &b, Location loc, int64_t nb, Value m,
                       Value tileMax) {
    return rowwise(b, loc, nb, {m, tileMax},
                   [](OpBuilder &nb2, Location l, ValueRange a) -> Value {
                     return arith::MaximumFOp::create(nb2, l, a[0], a[1]);
                   });
  }

  /// exp(m - m'): how much the old sum and output shrink.
  static Value rescale(OpBuilder &b, Location loc, int64_t nb, Value m,
                       Value newMax) {
    return rowwise(b, loc, nb, {m, newMax},
                   [](OpBuilder &nb2, Location l, ValueRange a) -> Value {
                     Value diff = arith::SubFOp::create(
                         nb2, l, a[0], safeShift(nb2, l, a[1]));
                     return math::ExpOp::create(nb2, l, diff);
                   });
  }

  /// `alpha * sum + tileSum`, written into `sum` (the loop carries it).
  static Value scaleAdd(OpBuilder &b, Location loc, int64_t nb, Value alpha,
                        Value sum, Value tileSum) {
    return rowwise(
        b, loc, nb, {alpha, sum, tileSum},
        [](OpBuilder &nb2, Location l, ValueRange a) -> Value {
          Value kept = arith::MulFOp::create(nb2, l, a[0], a[1]);
          return arith::AddFOp::create(nb2, l, kept, a[2]);
        },
        sum);
  }

  /// p[i, t] = exp(s[i, t] - m'[i]).
  static Value shiftedExp(OpBuilder &b, Location loc, int64_t nb, Value s,
                          Value newMax) {
    LoopSpace sp(b.getContext(), nb, {kPar, kPar});
    AffineMap rowCol = sp.map({sp[0], sp[1]});
    Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, s),
                                         b.getF32Type());
    return buildGeneric(
        b, loc, {s, newMax}, init, {rowCol, sp.map({sp[0]}), rowCol},
        sp.iterators(), [](OpBuilder &nb2, Location l, ValueRange a) -> Value {
          Value diff =
              arith::SubFOp::create(nb2, l, a[0], safeShift(nb2, l, a[1]));
          return math::ExpOp::create(nb2, l, diff);
        });
  }

  /// acc[i, e] * alpha[i], written into acc.
  static Value scaleRows(OpBuilder &b, Location loc, int64_t nb, Value alpha,
                         Value acc) {
    LoopSpace sp(b.getContext(), nb, {kPar, kPar});
    return buildGeneric(b, loc, alpha, acc,
                        {sp.map({sp[0]}), sp.map({sp[0], sp[1]})},
                        sp.iterators(),
                        [](OpBuilder &nb2, Location l, ValueRange a) -> Value {
                          return arith::MulFOp::create(nb2, l, a[1], a[0]);
                        });
  }

  /// o = acc / l, or 0 where l = 0 (a row that saw no key).
  static Value normalize(OpBuilder &b, Location loc, int64_t nb, Value acc,
                         Value sum, Type elementType) {
    LoopSpace sp(b.getContext(), nb, {kPar, kPar});
    AffineMap rowCol = sp.map({sp[0], sp[1]});
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, acc), elementType);
    return buildGeneric(
        b, loc, {acc, sum}, init, {rowCol, sp.map({sp[0]}), rowCol},
        sp.iterators(), [&](OpBuilder &nb2, Location l, ValueRange a) -> Value {
          Value zero = f32Constant(nb2, l, 0.0f);
          // Only a row that saw no key has a zero sum (the max's own term
          // is exp(0) = 1); a NaN sum is not zero and stays NaN.
          Value seen = arith::CmpFOp::create(nb2, l, arith::CmpFPredicate::UNE,
                                             a[1], zero);
          Value ratio = arith::DivFOp::create(nb2, l, a[0], a[1]);
          Value o = arith::SelectOp::create(nb2, l, seen, ratio, zero);
          if (o.getType() != elementType)
            o = arith::TruncFOp::create(nb2, l, elementType, o);
          return o;
        });
  }

  int64_t tileSize;
};

struct LineaTileAttentionPass
    : linea::impl::LineaTileAttentionBase<LineaTileAttentionPass> {
  using LineaTileAttentionBase::LineaTileAttentionBase;

  void runOnOperation() override {
    if (tileSize <= 0) {
      getOperation()->emitError() << "tile-size must be positive, got "
                                  << static_cast<int64_t>(tileSize);
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateTileAttentionPatterns(patterns, tileSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populateTileAttentionPatterns(RewritePatternSet &patterns,
                                                int64_t tileSize) {
  patterns.add<TileAttention>(patterns.getContext(), tileSize);
}
