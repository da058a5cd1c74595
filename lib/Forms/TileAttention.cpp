//===- TileAttention.cpp - softmax attention -> tiled online softmax ------===//
//
// A loop over key tiles carries, per query row, the running max m, the
// running sum l and the unnormalized output acc. For each tile:
//   s = scale * q k_tile^T (-inf where masked),  m' = max(m, rowmax(s)),
//   p = exp(s - m'),  l = exp(m - m') l + rowsum(p),
//   acc = exp(m - m') acc + p v_tile;
// finally o = acc / l (0 for a row that saw no key). Only Lq x tile scores
// are live at a time. On the GPU the query rows go in tiles too, each tile
// a block of its own (flash attention's grid) whose temporaries have
// static sizes: see `tiled` for the choice.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "ChunkLoop.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"
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
#include "linea/Forms/Passes.h.inc"
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

/// The online softmax's running statistics for a set of query rows: the
/// max m, the sum l, the unnormalized output acc.
struct Running {
  Value max, sum, acc;
  SmallVector<Value> values() const { return {max, sum, acc}; }
};

/// Which of a tile's scores are visible: key `start + t` from row i when t
/// is one of the tile's `validKeys` (null: all) and, under a causal mask,
/// `start + t <= i + rowOffset`.
struct TileMask {
  Value start, rowOffset, validKeys;
};

struct TileAttention : OpRewritePattern<AttentionOp> {
  TileAttention(MLIRContext *ctx, int64_t tileSize)
      : OpRewritePattern(ctx), tileSize(tileSize) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    // Each segment is its own attention: tiled after linea-split-segments.
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(op, "packed: one op per segment");
    rewriter.replaceOp(op, tiled(rewriter, op));
    return success();
  }

  /// The one choice of form: query tiles within the block it runs in (a
  /// packed segment on the GPU), a block per query tile (elsewhere on the
  /// GPU), or one loop over key tiles for every row (the CPU).
  Value tiled(PatternRewriter &rewriter, AttentionOp op) const {
    if (isInSequenceBlock(op))
      return tilesInBlock(rewriter, op);
    int64_t nb = numBatchDims(op.getQuery().getType());
    if (plannedForGPU(op) && nb + 1 <= int64_t(kMaxSequenceBlockLoops))
      return queryTileBlocks(rewriter, op);
    return tilesOverKeys(rewriter, op);
  }

  /// One loop over key tiles for all query rows at once.
  Value tilesOverKeys(PatternRewriter &rewriter, AttentionOp op) const {
    Location loc = kernelStageLoc(op, "fwd");
    Value q = castToF32(rewriter, loc, op.getQuery());
    Value k = castToF32(rewriter, loc, op.getKey());
    Value v = castToF32(rewriter, loc, op.getValue());
    int64_t nb = numBatchDims(op.getQuery().getType());
    OpFoldResult rows = tensor::getMixedSize(rewriter, loc, q, nb);
    Value keys = tensor::DimOp::create(rewriter, loc, k, nb);
    Value offset = keyOffset(rewriter, loc, keys, rows);
    Running start = startRunning(rewriter, loc, q, v, nb, rows);

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value tile = arith::ConstantIndexOp::create(rewriter, loc, tileSize);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, keys, tile, start.values(),
        [&](OpBuilder &b, Location l, Value first, ValueRange carried) {
          // Whole tiles where the keys divide into them: static shapes.
          OpFoldResult size =
              dividesKeys(op, nb)
                  ? OpFoldResult(b.getIndexAttr(tileSize))
                  : OpFoldResult(tileRowsFrom(b, l, first, keys));
          Value kt = sliceAlong(b, l, k, nb, first, size);
          Value vt = sliceAlong(b, l, v, nb, first, size);
          // The rows that see a key of this tile: under a causal mask on
          // the CPU, rows from max(0, first - offset) on (the others would
          // add exp(-inf) = 0: half the causal work). Planned for the GPU
          // (past the block dims queryTileBlocks can name), every row is
          // kept, so that the tiles have static sizes.
          Value firstRow, count;
          if (skipsHiddenRows(op, nb)) {
            Value all = getValueOrCreateConstantIndexOp(b, l, rows);
            firstRow = firstSeeingRow(b, l, first, offset, all);
            count = arith::SubIOp::create(b, l, all, firstRow);
          }
          auto rowsOf = [&](Value x) {
            return firstRow ? sliceAlong(b, l, x, nb, firstRow, count) : x;
          };
          TileMask mask{
              first,
              firstRow
                  ? arith::AddIOp::create(b, l, offset, firstRow).getResult()
                  : offset,
              Value()};
          Running part{rowsOf(carried[0]), rowsOf(carried[1]),
                       rowsOf(carried[2])};
          SmallVector<Value> next =
              addTile(b, l, op, nb, rowsOf(q), kt, vt, part, mask).values();
          if (firstRow)
            for (auto [piece, whole] : llvm::zip(next, carried))
              piece = insertAlong(b, l, piece, whole, nb, firstRow, count);
          scf::YieldOp::create(b, l, next);
        });
    return normalize(rewriter, loc, nb, loop.getResult(2), loop.getResult(1),
                     op.getOutput().getType().getElementType());
  }

  /// In a GPU sequence block (a packed segment) every temporary needs a
  /// static size, the block's shared memory: the block runs its queries
  /// tile after tile.
  Value tilesInBlock(PatternRewriter &rewriter, AttentionOp op) const {
    Location loc = kernelStageLoc(op, "fwd");
    Value q = op.getQuery();
    int64_t nb = numBatchDims(op.getQuery().getType());
    Value rows = tensor::DimOp::create(rewriter, loc, q, nb);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value tile = arith::ConstantIndexOp::create(rewriter, loc, tileSize);
    auto queryLoop = scf::ForOp::create(
        rewriter, loc, zero, rows, tile, ValueRange{emptyOutput(rewriter, op)},
        [&](OpBuilder &b, Location l, Value firstRow, ValueRange written) {
          // The loop builds its body with `rewriter` itself.
          Value count = tileRowsFrom(b, l, firstRow, rows);
          Value o = queryTileRows(rewriter, l, op, q, op.getKey(),
                                  op.getValue(), firstRow, count);
          scf::YieldOp::create(b, l,
                               insertAlong(b, l, o, written[0], nb, firstRow));
        });
    return queryLoop.getResult(0);
  }

  /// Planned for the GPU: one sequence block per (sequence, query tile),
  /// flash attention's grid, all of it one launch (one loop over key tiles
  /// for every row would be a host loop launching each tile's kernels).
  Value queryTileBlocks(PatternRewriter &rewriter, AttentionOp op) const {
    Location loc = kernelStageLoc(op, "fwd");
    Value q = op.getQuery();
    int64_t nb = numBatchDims(op.getQuery().getType());
    Value rows = tensor::DimOp::create(rewriter, loc, q, nb);
    SmallVector<OpFoldResult> blocks = leadingSizes(rewriter, loc, q, nb);
    blocks.push_back(arith::CeilDivUIOp::create(rewriter, loc, rows,
                                                arith::ConstantIndexOp::create(
                                                    rewriter, loc, tileSize))
                         .getResult());
    auto forall = scf::ForallOp::create(
        rewriter, loc, blocks, ValueRange{emptyOutput(rewriter, op)},
        rewriter.getArrayAttr(
            sequenceBlockMapping(rewriter.getContext(), blocks.size())));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    ValueRange ivs = forall.getInductionVars();
    ValueRange sequence = ivs.drop_back();
    Value firstRow = arith::MulIOp::create(
        rewriter, loc, ivs.back(),
        arith::ConstantIndexOp::create(rewriter, loc, tileSize));
    Value count = tileRowsFrom(rewriter, loc, firstRow, rows);
    Value o = queryTileRows(
        rewriter, loc, op, leadingSlice(rewriter, loc, q, sequence),
        leadingSlice(rewriter, loc, op.getKey(), sequence),
        leadingSlice(rewriter, loc, op.getValue(), sequence), firstRow, count);
    SmallVector<OpFoldResult> at(sequence.begin(), sequence.end());
    SmallVector<OpFoldResult> sizes(nb, rewriter.getIndexAttr(1));
    at.append({firstRow, rewriter.getIndexAttr(0)});
    sizes.append({count, tensor::getMixedSize(rewriter, loc, o, nb + 1)});
    SmallVector<OpFoldResult> strides(nb + 2, rewriter.getIndexAttr(1));
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, o, forall.getRegionIterArgs()[0], at, sizes, strides);
    return forall.getResult(0);
  }

  /// Output rows [firstRow, firstRow + count) of one sequence's attention
  /// (`q`, `k`, `v` with batch dims of size 1), count at most a tile: their
  /// queries padded to a tile, over the key tiles they see (under a causal
  /// mask none past their last row's key), each padded too. Every
  /// temporary has a static size: a block's shared memory. Padded keys are
  /// masked, padded rows dropped.
  Value queryTileRows(RewriterBase &b, Location loc, AttentionOp op, Value q,
                      Value k, Value v, Value firstRow, Value count) const {
    int64_t nb = numBatchDims(op.getQuery().getType());
    Value keys = tensor::DimOp::create(b, loc, k, nb);
    Value rowOffset = arith::AddIOp::create(
        b, loc, keyOffset(b, loc, keys, tensor::getMixedSize(b, loc, q, nb)),
        firstRow);
    Value qt = paddedTile(b, loc, q, nb, firstRow, count);
    Value keyEnd = keys;
    if (op.getMask() == Mask::causal)
      keyEnd = arith::MinSIOp::create(
          b, loc, keys, arith::AddIOp::create(b, loc, rowOffset, count));
    // The block keeps the running statistics in shared memory.
    Running start = startRunning(b, loc, qt, v, nb, b.getIndexAttr(tileSize));
    start = {inOwnBuffer(b, start.max), inOwnBuffer(b, start.sum),
             inOwnBuffer(b, start.acc)};
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value tile = arith::ConstantIndexOp::create(b, loc, tileSize);
    auto keyLoop = scf::ForOp::create(
        b, loc, zero, keyEnd, tile, start.values(),
        [&](OpBuilder &kb, Location l, Value firstKey, ValueRange carried) {
          Value keyCount = tileRowsFrom(kb, l, firstKey, keys);
          Value kt = paddedTile(kb, l, k, nb, firstKey, keyCount);
          Value vt = paddedTile(kb, l, v, nb, firstKey, keyCount);
          TileMask mask{firstKey, rowOffset, keyCount};
          Running seen{carried[0], carried[1], carried[2]};
          scf::YieldOp::create(
              kb, l, addTile(kb, l, op, nb, qt, kt, vt, seen, mask).values());
        });
    Value o = normalize(b, loc, nb, keyLoop.getResult(2), keyLoop.getResult(1),
                        op.getOutput().getType().getElementType());
    return sliceAlong(b, loc, o, nb, b.getIndexAttr(0), count);
  }

  /// `count` rows of `x` from `first` along the sequence dim, padded with
  /// zeros to a tile, in f32.
  Value paddedTile(OpBuilder &b, Location loc, Value x, int64_t nb, Value first,
                   Value count) const {
    Value rows = sliceAlong(b, loc, x, nb, first, count);
    return castToF32(b, loc, padAlong(b, loc, rows, nb, tileSize));
  }

  /// The rows of the tile from `first` of `total`: min(tile, total - first).
  Value tileRowsFrom(OpBuilder &b, Location loc, Value first,
                     Value total) const {
    Value tile = arith::ConstantIndexOp::create(b, loc, tileSize);
    return arith::MinSIOp::create(b, loc, tile,
                                  arith::SubIOp::create(b, loc, total, first));
  }

  /// An empty `[B..., Lq, Dv]` in the output's element type.
  static Value emptyOutput(OpBuilder &b, AttentionOp op) {
    Location loc = kernelStageLoc(op, "fwd");
    int64_t nb = numBatchDims(op.getQuery().getType());
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, op.getQuery());
    sizes.back() = tensor::getMixedSize(b, loc, op.getValue(), nb + 1);
    return tensor::EmptyOp::create(b, loc, sizes,
                                   op.getOutput().getType().getElementType());
  }

  /// Queries are the last Lq positions: row i sees keys t <= i + (Lk - Lq).
  static Value keyOffset(OpBuilder &b, Location loc, Value keys,
                         OpFoldResult rows) {
    return arith::SubIOp::create(b, loc, keys,
                                 getValueOrCreateConstantIndexOp(b, loc, rows));
  }

  /// No key seen yet: max -inf, sum 0, acc 0, for `rows` rows.
  static Running startRunning(OpBuilder &b, Location loc, Value q, Value v,
                              int64_t nb, OpFoldResult rows) {
    SmallVector<OpFoldResult> rowSizes = leadingSizes(b, loc, q, nb);
    rowSizes.push_back(rows);
    SmallVector<OpFoldResult> accSizes(rowSizes);
    accSizes.push_back(tensor::getMixedSize(b, loc, v, nb + 1));
    auto filled = [&](ArrayRef<OpFoldResult> sizes, float value) -> Value {
      Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
      return linalg::FillOp::create(b, loc, f32Constant(b, loc, value), init)
          .getResult(0);
    };
    return {filled(rowSizes, kNegInf), filled(rowSizes, 0.0f),
            filled(accSizes, 0.0f)};
  }

  /// The running statistics after one more key tile.
  static Running addTile(OpBuilder &b, Location l, AttentionOp op, int64_t nb,
                         Value q, Value kt, Value vt, const Running &seen,
                         const TileMask &mask) {
    Value s = tileScores(b, l, op, nb, q, kt, mask);
    Value newMax = maxWith(b, l, nb, seen.max, rowMax(b, l, nb, s));
    Value alpha = rescale(b, l, nb, seen.max, newMax);
    Value p = shiftedExp(b, l, nb, s, newMax);
    Value newSum = scaleAdd(b, l, nb, alpha, seen.sum, rowSums(b, l, nb, p));
    Value newAcc =
        matmulAccumulate(b, l, nb, p, vt, scaleRows(b, l, nb, alpha, seen.acc));
    // The max is written back into its own buffer, as the sum and the
    // output are: the loop carries one buffer of each.
    Value keptMax = linalg::CopyOp::create(b, l, newMax, seen.max).getResult(0);
    return {keptMax, newSum, newAcc};
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

  /// `scale * q k^T`, -inf where key `start + t` is not visible from row i.
  static Value tileScores(OpBuilder &b, Location loc, AttentionOp op,
                          int64_t nb, Value q, Value kt, const TileMask &mask) {
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
          if (!causal && !mask.validKeys)
            return scaled;
          Value row = linalg::IndexOp::create(nb2, l, s.position(0));
          Value column = linalg::IndexOp::create(nb2, l, s.position(1));
          Value visible = arith::ConstantIntOp::create(nb2, l, 1, 1);
          if (causal) {
            Value key = arith::AddIOp::create(nb2, l, mask.start, column);
            Value last = arith::AddIOp::create(nb2, l, row, mask.rowOffset);
            visible = causallyVisible(nb2, l, key, last);
          }
          if (mask.validKeys)
            visible = arith::AndIOp::create(
                nb2, l, visible,
                arith::CmpIOp::create(nb2, l, arith::CmpIPredicate::slt, column,
                                      mask.validKeys));
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
