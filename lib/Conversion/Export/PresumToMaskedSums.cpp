//===- PresumToMaskedSums.cpp - presum with no loop, for a hand-off -------===//
//
// Linea's own lowering scans a presum with a loop (or a vector scan). Handed
// to another compiler, a loop costs: IREE runs each iteration as dispatches
// of their own and copies what the loop carries. Written as sums under a
// triangular mask, the presum is contractions only, which such a compiler
// fuses and tiles as it does a matmul. Two levels keep the work near
// N * sqrt(N) instead of N^2: blocks of B rows summed under a B x B mask,
// the block totals under an n1 x n1 one.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPRESUMTOMASKEDSUMS
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Rows per block: about sqrt(N) for a static N (the two masked sums then
/// cost about the same); 16 for a dynamic one, which suits the few hundred
/// chunk states of a long sequence (and costs 16 adds per row where N is
/// small).
int64_t blockRows(int64_t n) {
  if (ShapedType::isDynamic(n))
    return 16;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::sqrt(n))));
}

/// The square 0/1 mask `[rows, rows]` of which source row `s` (columns) a
/// target row `t` (rows) sums: `s <= t` (`s < t` strict), mirrored for
/// `reverse`.
Value triangularMask(OpBuilder &b, Location loc, OpFoldResult rows,
                     bool strict, bool reverse) {
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{rows, rows},
                                       b.getF32Type());
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  return buildGeneric(
      b, loc, {}, init, {identity}, {kPar, kPar},
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value target = linalg::IndexOp::create(nb, l, 0);
        Value source = linalg::IndexOp::create(nb, l, 1);
        arith::CmpIPredicate predicate =
            reverse ? (strict ? arith::CmpIPredicate::ugt
                              : arith::CmpIPredicate::uge)
                    : (strict ? arith::CmpIPredicate::ult
                              : arith::CmpIPredicate::ule);
        Value visible = arith::CmpIOp::create(nb, l, predicate, source, target);
        return arith::UIToFPOp::create(nb, l, nb.getF32Type(), visible);
      });
}

/// `sum_s mask[t, s] * x[..., s, ...]` along dim `d` of `x`, with as many
/// target rows `t` as the mask has: a contraction.
Value maskedSum(OpBuilder &b, Location loc, Value x, int64_t d, Value mask) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  // Loops: x's dims (dim d is the target row t), then the source row s.
  SmallVector<AffineExpr> out, in;
  for (int64_t k = 0; k < rank; ++k) {
    out.push_back(getAffineDimExpr(k, ctx));
    in.push_back(getAffineDimExpr(k == d ? rank : k, ctx));
  }
  AffineExpr t = getAffineDimExpr(d, ctx), s = getAffineDimExpr(rank, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, {t, s}, ctx),
                                 AffineMap::get(rank + 1, 0, in, ctx),
                                 AffineMap::get(rank + 1, 0, out, ctx)};
  SmallVector<utils::IteratorType> iterators(rank, kPar);
  iterators.push_back(kRed);
  // As many target rows as the mask has.
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[d] = tensor::getMixedSize(b, loc, mask, 0);
  Value init = buildFilled(b, loc, sizes, type.getElementType(), 0.0);
  return buildGeneric(b, loc, {mask, x}, init, maps, iterators,
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        Value product =
                            arith::MulFOp::create(nb, l, args[0], args[1]);
                        return arith::AddFOp::create(nb, l, args[2], product);
                      });
}

/// The 0/1 mask `[1, rows]` of all ones: one target row summing every
/// source row (a block's total, as a contraction: IREE's GPU codegen did
/// not take it as a reduction over an inner dim).
Value onesMask(OpBuilder &b, Location loc, int64_t rows) {
  return buildFilled(b, loc, {b.getIndexAttr(1), b.getIndexAttr(rows)},
                     b.getF32Type(), 1.0);
}

/// `within[..., c, r, ...] + before[..., c, 0, ...]`.
Value addPerBlock(OpBuilder &b, Location loc, Value within, Value before,
                  int64_t blockDim) {
  int64_t rank = cast<RankedTensorType>(within.getType()).getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> perBlock;
  for (int64_t k = 0; k < rank; ++k)
    perBlock.push_back(k == blockDim + 1 ? getAffineConstantExpr(0, ctx)
                                         : getAffineDimExpr(k, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return buildGeneric(
      b, loc, {within, before}, tensor::EmptyOp::create(
                                    b, loc, tensor::getMixedSizes(b, loc, within),
                                    cast<RankedTensorType>(within.getType())
                                        .getElementType()),
      {identity, AffineMap::get(rank, 0, perBlock, ctx), identity},
      SmallVector<utils::IteratorType>(rank, kPar),
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::AddFOp::create(nb, l, args[0], args[1]);
      });
}

/// presum along dim `d` of the f32 tensor `x` as masked sums over blocks of
/// `rows` rows: x padded with zeros to whole blocks and viewed as
/// `[..., n1, rows, ...]`; each row's sum inside its block, plus the totals
/// of the blocks before it (after it, reversed).
Value blockedMaskedPresum(OpBuilder &b, Location loc, Value x, int64_t d,
                          bool exclusive, bool reverse) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t n = type.getDimSize(d);
  int64_t rows = blockRows(n);
  // The block count and the padding: constants where N is one, so that
  // every shape below stays static.
  OpFoldResult length = tensor::getMixedSize(b, loc, x, d);
  OpFoldResult blocks, extra;
  if (ShapedType::isDynamic(n)) {
    Value lengthValue = getValueOrCreateConstantIndexOp(b, loc, length);
    Value rowsValue = arith::ConstantIndexOp::create(b, loc, rows);
    Value count = arith::CeilDivUIOp::create(b, loc, lengthValue, rowsValue);
    Value padded = arith::MulIOp::create(b, loc, count, rowsValue);
    blocks = count;
    extra = arith::SubIOp::create(b, loc, padded, lengthValue).getResult();
  } else {
    blocks = b.getIndexAttr((n + rows - 1) / rows);
    extra = b.getIndexAttr((n + rows - 1) / rows * rows - n);
  }

  SmallVector<OpFoldResult> low(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> high = low;
  high[d] = extra;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value whole = tensor::PadOp::create(b, loc, Type(), x, low, high, zero);

  // [..., n1 * rows, ...] -> [..., n1, rows, ...]
  SmallVector<ReassociationIndices> groups;
  SmallVector<OpFoldResult> shape;
  SmallVector<OpFoldResult> wholeSizes = tensor::getMixedSizes(b, loc, whole);
  for (int64_t k = 0, next = 0; k < type.getRank(); ++k) {
    if (k == d) {
      groups.push_back({next, next + 1});
      next += 2;
      shape.push_back(blocks);
      shape.push_back(b.getIndexAttr(rows));
    } else {
      groups.push_back({next++});
      shape.push_back(wholeSizes[k]);
    }
  }
  SmallVector<int64_t> staticShape;
  SmallVector<Value> dynamicShape;
  dispatchIndexOpFoldResults(shape, dynamicShape, staticShape);
  auto blockedType = RankedTensorType::get(staticShape, b.getF32Type());
  Value blocked = tensor::ExpandShapeOp::create(b, loc, blockedType, whole,
                                                groups, shape);

  Value within = maskedSum(
      b, loc, blocked, d + 1,
      triangularMask(b, loc, b.getIndexAttr(rows), exclusive, reverse));
  // The totals of the blocks before each one (after it, reversed).
  Value totals = maskedSum(b, loc, blocked, d + 1, onesMask(b, loc, rows));
  Value before = maskedSum(
      b, loc, totals, d,
      triangularMask(b, loc, blocks, /*strict=*/true, reverse));
  Value sums = addPerBlock(b, loc, within, before, d);
  Value flat = tensor::CollapseShapeOp::create(b, loc, sums, groups);
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, flat);
  sizes[d] = length;
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, flat, offsets, sizes, strides);
}

struct PresumToMaskedSums : OpRewritePattern<PresumOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PresumOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(op, "packed: split into segments first");
    if (op.getDecay())
      return rewriter.notifyMatchFailure(
          op, "decayed: its weights as differences of running log-sums "
              "would lose f32 precision over long spans");
    Location loc = op.getLoc();
    Value x = castToF32(rewriter, loc, op.getInput());
    Value sum = blockedMaskedPresum(rewriter, loc, x, op.getScanDim(),
                                    op.getExclusive(), op.getReverse());
    rewriter.replaceOp(
        op, castFromF32(rewriter, loc, sum,
                        op.getOutput().getType().getElementType()));
    return success();
  }
};

struct LineaPresumToMaskedSumsPass
    : linea::impl::LineaPresumToMaskedSumsBase<LineaPresumToMaskedSumsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PresumToMaskedSums>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
