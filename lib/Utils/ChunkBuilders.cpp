//===- ChunkBuilders.cpp - sequences cut into chunks and blocks -----------===//

#include "linea/Utils/ChunkBuilders.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// `type` with dim `dim` replaced by `size` (dynamic where not constant).
RankedTensorType withDim(RankedTensorType type, int64_t dim,
                         OpFoldResult size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = getConstantIntValue(size).value_or(ShapedType::kDynamic);
  return RankedTensorType::get(shape, type.getElementType());
}

} // namespace

namespace mlir::linea {

ChunkGrid gridFor(OpBuilder &b, Location loc, Value q, int64_t chunk) {
  ChunkGrid grid;
  grid.seq = numBatchDims(cast<RankedTensorType>(q.getType()));
  grid.size = chunk;
  grid.length = tensor::getMixedSize(b, loc, q, grid.seq);
  AffineExpr l = b.getAffineSymbolExpr(0);
  grid.count = affine::makeComposedFoldedAffineApply(b, loc, l.ceilDiv(chunk),
                                                     {grid.length});
  grid.paddedLength = affine::makeComposedFoldedAffineApply(
      b, loc, l.ceilDiv(chunk) * chunk, {grid.length});
  return grid;
}

Value splitIntoChunks(OpBuilder &b, Location loc, Value x,
                      const ChunkGrid &grid) {
  auto type = cast<RankedTensorType>(x.getType());
  if (getConstantIntValue(grid.length) !=
          getConstantIntValue(grid.paddedLength) ||
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
  // A dynamic dim whose size folds to a constant (the rows of a slice of a
  // static tensor) is static in the chunks' type: so in `x`'s, which
  // expand_shape requires.
  SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, x);
  SmallVector<int64_t> known;
  for (OpFoldResult size : shape)
    known.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  if (known != type.getShape()) {
    type = type.clone(known);
    x = tensor::CastOp::create(b, loc, type, x);
  }
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
    staticShape.push_back(
        getConstantIntValue(size).value_or(ShapedType::kDynamic));
  auto chunked = RankedTensorType::get(staticShape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, chunked, x, groups, shape);
}

Value joinChunks(OpBuilder &b, Location loc, Value rows,
                 const ChunkGrid &grid) {
  auto type = cast<RankedTensorType>(rows.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank() - 1; ++i)
    groups.push_back(i == grid.seq  ? ReassociationIndices{i, i + 1}
                     : i < grid.seq ? ReassociationIndices{i}
                                    : ReassociationIndices{i + 1});
  Value joined = tensor::CollapseShapeOp::create(b, loc, rows, groups);
  if (getConstantIntValue(grid.length) &&
      getConstantIntValue(grid.length) ==
          getConstantIntValue(grid.paddedLength))
    return joined;
  return sliceAlong(b, loc, joined, grid.seq, b.getIndexAttr(0), grid.length);
}

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
    return tensor::PadOp::create(b, loc, restType.clone(shape), rest, low, high,
                                 zero);
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

Value splitIntoBlocks(OpBuilder &b, Location l, Value x, int64_t dim) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= kSubBlock;
  shape.insert(shape.begin() + dim + 1, kSubBlock);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t first = d <= dim ? d : d + 1;
    groups.push_back(d == dim ? ReassociationIndices{first, first + 1}
                              : ReassociationIndices{first});
  }
  return tensor::ExpandShapeOp::create(
      b, l, RankedTensorType::get(shape, type.getElementType()), x, groups);
}

Value mergeDims(OpBuilder &b, Location l, Value x, int64_t dim) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == dim + 1)
      groups.back().push_back(d);
    else
      groups.push_back({d});
  }
  return tensor::CollapseShapeOp::create(b, l, x, groups);
}

Value decayAgainst(OpBuilder &b, Location l, int64_t numBatch, bool scalar,
                   Value x, Value log, Value ref, bool towardRef, Value after) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar});
  AffineExpr t = s[0], d = s[1];
  AffineMap logMap = scalar ? s.map({t}) : s.map({t, d});
  AffineMap refMap = scalar ? s.map({}) : s.map({d});
  Value init = tensor::EmptyOp::create(b, l, tensor::getMixedSizes(b, l, x),
                                       b.getF32Type());
  return buildGeneric(
      b, l, {x, log, ref}, init, {s.map({t, d}), logMap, refMap, s.map({t, d})},
      s.iterators(), [&](OpBuilder &nb, Location el, ValueRange args) -> Value {
        Value exponent = towardRef
                             ? arith::SubFOp::create(nb, el, args[2], args[1])
                             : arith::SubFOp::create(nb, el, args[1], args[2]);
        if (towardRef || !after)
          return arith::MulFOp::create(nb, el, args[0],
                                       math::ExpOp::create(nb, el, exponent));
        Value row = linalg::IndexOp::create(nb, el, s.position(0));
        Value below = arith::CmpIOp::create(nb, el, arith::CmpIPredicate::sgt,
                                            row, after);
        return decayedWhere(nb, el, below, args[0], exponent);
      });
}

} // namespace mlir::linea

Value mlir::linea::inSequenceBlocks(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> counts,
    OpFoldResult rows, OpFoldResult cols,
    function_ref<Value(OpBuilder &, Location, ValueRange)> build) {
  int64_t numBatch = counts.size();
  SmallVector<OpFoldResult> sizes(counts);
  sizes.append({rows, cols});
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  auto forall = scf::ForallOp::create(
      b, loc, counts, ValueRange{init},
      b.getArrayAttr(sequenceBlockMapping(b.getContext(), numBatch)));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  // (getInductionVars returns a vector by value: a ValueRange of it would
  // dangle.)
  SmallVector<Value> ivs = forall.getInductionVars();
  Value result = build(b, loc, ivs);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> offsets(ivs.begin(), ivs.end());
  offsets.append(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> blockSizes(numBatch, b.getIndexAttr(1));
  blockSizes.append({rows, cols});
  tensor::ParallelInsertSliceOp::create(
      b, loc, result, forall.getRegionIterArgs()[0], offsets, blockSizes,
      SmallVector<OpFoldResult>(numBatch + 2, b.getIndexAttr(1)));
  return forall.getResult(0);
}
