//===- StructuredBuilders.cpp - small builders for linalg IR --------------===//

#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

LoopSpace::LoopSpace(MLIRContext *ctx, unsigned numBatch,
                     ArrayRef<utils::IteratorType> extra)
    : ctx(ctx), batch(numBatch), extraIterators(extra) {}

AffineExpr LoopSpace::operator[](unsigned k) const {
  return getAffineDimExpr(batch + k, ctx);
}

AffineMap LoopSpace::map(ArrayRef<AffineExpr> trailing) const {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < batch; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  llvm::append_range(exprs, trailing);
  return AffineMap::get(batch + extraIterators.size(), 0, exprs, ctx);
}

AffineMap LoopSpace::mapWithoutBatch(ArrayRef<AffineExpr> exprs) const {
  return AffineMap::get(batch + extraIterators.size(), 0, exprs, ctx);
}

SmallVector<utils::IteratorType> LoopSpace::iterators() const {
  SmallVector<utils::IteratorType> all(batch, utils::IteratorType::parallel);
  llvm::append_range(all, extraIterators);
  return all;
}

Value mlir::linea::buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                                Value init, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators,
                                GenericBody body) {
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args);
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::linea::buildEmptyLike(OpBuilder &b, Location loc, Value like,
                                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                 elementType ? elementType
                                             : getElementTypeOrSelf(like));
}

Value mlir::linea::buildFilled(OpBuilder &b, Location loc,
                               ArrayRef<OpFoldResult> sizes, Type elementType,
                               double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value scalar = arith::ConstantOp::create(
      b, loc, elementType, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value mlir::linea::buildElementwise(
    OpBuilder &b, Location loc, Value input, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, input, init, {identity, identity}, iterators,
                      [&](OpBuilder &nested, Location nestedLoc,
                          ValueRange args) {
                        return fn(nested, nestedLoc, args[0]);
                      });
}

Value mlir::linea::castToF32(OpBuilder &b, Location loc, Value tensor) {
  Type f32 = b.getF32Type();
  if (cast<ShapedType>(tensor.getType()).getElementType() == f32)
    return tensor;
  return buildElementwise(b, loc, tensor, f32,
                          [&](OpBuilder &nb, Location l, Value x) -> Value {
                            return arith::ExtFOp::create(nb, l, f32, x);
                          });
}

Value mlir::linea::castFromF32(OpBuilder &b, Location loc, Value tensor,
                               Type elementType) {
  if (cast<ShapedType>(tensor.getType()).getElementType() == elementType)
    return tensor;
  return buildElementwise(
      b, loc, tensor, elementType,
      [&](OpBuilder &nb, Location l, Value x) -> Value {
        return arith::TruncFOp::create(nb, l, elementType, x);
      });
}

SmallVector<OpFoldResult> mlir::linea::sizesAt(OpBuilder &b, Location loc,
                                               Value tensor,
                                               ArrayRef<int64_t> dims) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : dims)
    sizes.push_back(tensor::getMixedSize(b, loc, tensor, d));
  return sizes;
}

SmallVector<OpFoldResult> mlir::linea::leadingSizes(OpBuilder &b, Location loc,
                                                    Value tensor, int64_t n) {
  return sizesAt(b, loc, tensor, llvm::to_vector(llvm::seq<int64_t>(0, n)));
}

Value mlir::linea::leadingSlice(OpBuilder &b, Location loc, Value x,
                                ValueRange ivs) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  for (auto [d, iv] : llvm::enumerate(ivs)) {
    offsets[d] = iv;
    sizes[d] = b.getIndexAttr(1);
  }
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

/// `slice` copied into a tensor of its own.
static Value copyOf(OpBuilder &b, Location loc, Value slice) {
  auto type = cast<RankedTensorType>(slice.getType());
  Value copy = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, slice), type.getElementType());
  return linalg::CopyOp::create(b, loc, slice, copy).getResult(0);
}

Value mlir::linea::leadingSliceCopy(OpBuilder &b, Location loc, Value x,
                                    ValueRange ivs) {
  return copyOf(b, loc, leadingSlice(b, loc, x, ivs));
}

Value mlir::linea::sliceDropping(OpBuilder &b, Location loc, Value x,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes,
                                 ArrayRef<int64_t> dropped) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (!llvm::is_contained(dropped, static_cast<int64_t>(d)))
      shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, x, offsets, sizes,
                                        strides);
}

Value mlir::linea::sliceDroppingCopy(OpBuilder &b, Location loc, Value x,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes,
                                     ArrayRef<int64_t> dropped) {
  return copyOf(b, loc, sliceDropping(b, loc, x, offsets, sizes, dropped));
}
