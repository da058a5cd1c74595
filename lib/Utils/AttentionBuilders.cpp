//===- AttentionBuilders.cpp - pieces shared by Linea's attention forms --===//

#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

static constexpr utils::IteratorType kPar = utils::IteratorType::parallel;
static constexpr utils::IteratorType kRed = utils::IteratorType::reduction;

Value mlir::linea::f32Constant(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value mlir::linea::applyFeatureMap(OpBuilder &b, Location loc, Value x,
                                   FeatureMap map) {
  if (map == FeatureMap::identity)
    return x;
  return buildElementwise(
      b, loc, x, b.getF32Type(),
      [&](OpBuilder &nb, Location l, Value v) -> Value {
        Value zero = f32Constant(nb, l, 0.0f);
        if (map == FeatureMap::relu)
          return arith::MaximumFOp::create(nb, l, v, zero);
        Value positive =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, zero);
        Value plusOne =
            arith::AddFOp::create(nb, l, v, f32Constant(nb, l, 1.0f));
        Value exp = math::ExpOp::create(nb, l, v);
        return arith::SelectOp::create(nb, l, positive, plusOne, exp);
      });
}

static Value multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Value prod = arith::MulFOp::create(b, loc, args[0], args[1]);
  return arith::AddFOp::create(b, loc, args[2], prod);
}

Value mlir::linea::matmulAccumulate(OpBuilder &b, Location loc,
                                    int64_t numBatch, Value a, Value m,
                                    Value init) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kRed});
  AffineExpr i = s[0], e = s[1], t = s[2];
  return buildGeneric(b, loc, {a, m}, init,
                      {s.map({i, t}), s.map({t, e}), s.map({i, e})},
                      s.iterators(), multiplyAccumulate);
}

Value mlir::linea::transposedMatmulAccumulate(OpBuilder &b, Location loc,
                                              int64_t numBatch, Value a,
                                              Value m, Value init) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kRed});
  AffineExpr d = s[0], e = s[1], t = s[2];
  return buildGeneric(b, loc, {a, m}, init,
                      {s.map({t, d}), s.map({t, e}), s.map({d, e})},
                      s.iterators(), multiplyAccumulate);
}

Value mlir::linea::rowSums(OpBuilder &b, Location loc, int64_t numBatch,
                           Value a) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kRed});
  Value init = zerosWithBatchOf(b, loc, a, numBatch,
                                {tensor::getMixedSize(b, loc, a, numBatch)});
  return buildGeneric(b, loc, a, init, {s.map({s[0], s[1]}), s.map({s[0]})},
                      s.iterators(),
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return arith::AddFOp::create(nb, l, args[1], args[0]);
                      });
}

Value mlir::linea::zerosWithBatchOf(OpBuilder &b, Location loc, Value like,
                                    int64_t numBatch,
                                    ArrayRef<OpFoldResult> trailing) {
  SmallVector<OpFoldResult> sizes = leadingSizes(b, loc, like, numBatch);
  llvm::append_range(sizes, trailing);
  return buildFilled(b, loc, sizes, b.getF32Type(), 0);
}

Value mlir::linea::sliceAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                              OpFoldResult offset, OpFoldResult size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[dim] = offset;
  sizes[dim] = size;
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

Value mlir::linea::insertAlong(OpBuilder &b, Location loc, Value source,
                               Value dest, int64_t dim, OpFoldResult offset) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[dim] = offset;
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets,
                                       tensor::getMixedSizes(b, loc, source),
                                       strides);
}

Value mlir::linea::appendOnesColumn(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[last] = b.getIndexAttr(type.getDimSize(last) + 1);
  Value ones = buildFilled(b, loc, sizes, type.getElementType(), 1.0);
  return insertAlong(b, loc, x, ones, last, b.getIndexAttr(0));
}

Value mlir::linea::divideByLastColumn(OpBuilder &b, Location loc, Value x,
                                      float scale, Type elementType) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t width = type.getDimSize(rank - 1) - 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[rank - 1] = b.getIndexAttr(width);
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineExpr> lastColumn;
  for (int64_t i = 0; i + 1 < rank; ++i)
    lastColumn.push_back(getAffineDimExpr(i, ctx));
  lastColumn.push_back(getAffineConstantExpr(width, ctx));
  AffineMap denominatorMap = AffineMap::get(rank, 0, lastColumn, ctx);
  SmallVector<utils::IteratorType> iterators(rank, kPar);
  return buildGeneric(
      b, loc, {x, x}, init, {identity, denominatorMap, identity}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value den =
            arith::AddFOp::create(nb, l, args[1], f32Constant(nb, l, 1e-6f));
        Value q = arith::DivFOp::create(nb, l, args[0], den);
        Value y = arith::MulFOp::create(nb, l, q, f32Constant(nb, l, scale));
        if (y.getType() != elementType)
          y = arith::TruncFOp::create(nb, l, elementType, y);
        return y;
      });
}

Value mlir::linea::scaleAndCast(OpBuilder &b, Location loc, Value x,
                                float scale, Type elementType) {
  if (scale == 1.0f &&
      cast<ShapedType>(x.getType()).getElementType() == elementType)
    return x;
  return buildElementwise(
      b, loc, x, elementType, [&](OpBuilder &nb, Location l, Value v) -> Value {
        Value y = arith::MulFOp::create(nb, l, v, f32Constant(nb, l, scale));
        if (y.getType() != elementType)
          y = arith::TruncFOp::create(nb, l, elementType, y);
        return y;
      });
}
