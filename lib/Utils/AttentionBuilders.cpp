//===- AttentionBuilders.cpp - pieces shared by Linea's attention forms --===//

#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"

using namespace mlir;
using namespace mlir::linea;


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

bool mlir::linea::featureMapKeepsZero(FeatureMap map) {
  return map != FeatureMap::elu_plus_one;
}

Value mlir::linea::clampPrefixLength(OpBuilder &b, Location loc, Value prefix,
                                     Value length) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value atLeastZero = arith::MaxSIOp::create(b, loc, prefix, zero);
  return arith::MinSIOp::create(b, loc, atLeastZero, length);
}

arith::FastMathFlagsAttr mlir::linea::contractionFastMath(OpBuilder &b) {
  return arith::FastMathFlagsAttr::get(
      b.getContext(), arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
}

Value mlir::linea::multiplyAccumulate(OpBuilder &b, Location loc,
                                      ValueRange args) {
  auto fm = contractionFastMath(b);
  Value prod = arith::MulFOp::create(b, loc, args[0], args[1], fm);
  return arith::AddFOp::create(b, loc, args[2], prod, fm);
}

// The loop nests put a parallel unit-stride dim innermost (e, the output's
// last dim), so the innermost loop of the lowered code vectorizes without
// reassociating a reduction.

Value mlir::linea::matmulAccumulate(OpBuilder &b, Location loc,
                                    int64_t numBatch, Value a, Value m,
                                    Value init) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kRed, kPar});
  AffineExpr i = s[0], t = s[1], e = s[2];
  return buildGeneric(b, loc, {a, m}, init,
                      {s.map({i, t}), s.map({t, e}), s.map({i, e})},
                      s.iterators(), multiplyAccumulate);
}

Value mlir::linea::transposedMatmulAccumulate(OpBuilder &b, Location loc,
                                              int64_t numBatch, Value a,
                                              Value m, Value init) {
  LoopSpace s(b.getContext(), numBatch, {kRed, kPar, kPar});
  AffineExpr t = s[0], d = s[1], e = s[2];
  return buildGeneric(b, loc, {a, m}, init,
                      {s.map({t, d}), s.map({t, e}), s.map({d, e})},
                      s.iterators(), multiplyAccumulate);
}

Value mlir::linea::scoresAccumulate(OpBuilder &b, Location loc,
                                    int64_t numBatch, Value a, Value m,
                                    Value init) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kRed});
  AffineExpr i = s[0], t = s[1], d = s[2];
  return buildGeneric(b, loc, {a, m}, init,
                      {s.map({i, d}), s.map({t, d}), s.map({i, t})},
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

Value mlir::linea::stepAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                             OpFoldResult index) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[dim] = index;
  sizes[dim] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  auto stepType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, stepType, x, offsets, sizes,
                                        strides);
}

Value mlir::linea::appendZeroStep(OpBuilder &b, Location loc, Value x,
                                  int64_t dim) {
  SmallVector<OpFoldResult> padded = tensor::getMixedSizes(b, loc, x);
  padded[dim] = affine::makeComposedFoldedAffineApply(
      b, loc, getAffineSymbolExpr(0, b.getContext()) + 1, {padded[dim]});
  return insertAlong(
      b, loc, x, buildFilled(b, loc, padded, getElementTypeOrSelf(x), 0.0),
      dim, b.getIndexAttr(0));
}

Value mlir::linea::padAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                            int64_t size) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (ShapedType::isDynamic(shape[i]))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, x, i));
  return tensor::createPadHighOp(
      RankedTensorType::get(shape, type.getElementType()), x, zero,
      /*nofold=*/false, loc, b, dynamicSizes);
}

Value mlir::linea::insertAlong(OpBuilder &b, Location loc, Value source,
                               Value dest, int64_t dim, OpFoldResult offset,
                               OpFoldResult size) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[dim] = offset;
  if (size)
    sizes[dim] = size;
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                       strides);
}

Value mlir::linea::shiftAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                        bool towardEnd) {
  OpFoldResult length = tensor::getMixedSize(b, loc, x, dim);
  std::optional<int64_t> staticLength = getConstantIntValue(length);
  if (staticLength && *staticLength <= 1) // nothing stays in
    return buildFilled(b, loc, tensor::getMixedSizes(b, loc, x),
                       getElementTypeOrSelf(x), 0.0);
  AffineExpr s0;
  bindSymbols(b.getContext(), s0);
  OpFoldResult kept =
      affine::makeComposedFoldedAffineApply(b, loc, s0 - 1, {length});
  if (auto dynamic = dyn_cast<Value>(kept)) // an empty sequence keeps nothing
    kept = arith::MaxSIOp::create(b, loc, dynamic,
                                  arith::ConstantIndexOp::create(b, loc, 0))
               .getResult();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  Value moved = sliceAlong(b, loc, x, dim, towardEnd ? zero : one, kept);
  Value zeros = buildFilled(b, loc, tensor::getMixedSizes(b, loc, x),
                            getElementTypeOrSelf(x), 0.0);
  return insertAlong(b, loc, moved, zeros, dim, towardEnd ? one : zero);
}

SmallVector<OpFoldResult>
mlir::linea::sizesWithExtraColumn(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  AffineExpr s0;
  bindSymbols(b.getContext(), s0);
  sizes[last] =
      affine::makeComposedFoldedAffineApply(b, loc, s0 + 1, {sizes[last]});
  return sizes;
}

Value mlir::linea::appendConstantColumn(OpBuilder &b, Location loc, Value x,
                                        double value) {
  auto type = cast<RankedTensorType>(x.getType());
  Value filled = buildFilled(b, loc, sizesWithExtraColumn(b, loc, x),
                             type.getElementType(), value);
  return insertAlong(b, loc, x, filled, type.getRank() - 1,
                     b.getIndexAttr(0));
}

Value mlir::linea::appendOnesColumn(OpBuilder &b, Location loc, Value x) {
  return appendConstantColumn(b, loc, x, 1.0);
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
  // The numerator is the slice without the last column, so that the loop
  // bounds come out as `width` for every operand.
  Value numerator =
      sliceAlong(b, loc, x, rank - 1, b.getIndexAttr(0), b.getIndexAttr(width));
  return buildGeneric(
      b, loc, {numerator, x}, init, {identity, denominatorMap, identity},
      iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value den = arith::AddFOp::create(
            nb, l, args[1], f32Constant(nb, l, kNormalizerEpsilon));
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

Value mlir::linea::causallyVisible(OpBuilder &b, Location loc, Value key,
                                   Value lastKey) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, key,
                               lastKey);
}

static Value indexAt(OpBuilder &b, Location loc, const LoopSpace &s,
                     unsigned k) {
  return linalg::IndexOp::create(b, loc, s.position(k));
}

Value mlir::linea::maskedScores(OpBuilder &b, Location loc, int64_t numBatch,
                                Value q, Value k, VisibleFn visible) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kRed});
  AffineExpr i = s[0], t = s[1], d = s[2];
  Value init = zerosWithBatchOf(
      b, loc, q, numBatch,
      {tensor::getMixedSize(b, loc, q, numBatch),
       tensor::getMixedSize(b, loc, k, numBatch)});
  return buildGeneric(
      b, loc, {q, k}, init, {s.map({i, d}), s.map({t, d}), s.map({i, t})},
      s.iterators(), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value seen = visible(nb, l, indexAt(nb, l, s, 0), indexAt(nb, l, s, 1));
        auto fm = contractionFastMath(nb);
        Value prod = arith::MulFOp::create(nb, l, args[0], args[1], fm);
        Value masked = arith::SelectOp::create(nb, l, seen, prod,
                                               f32Constant(nb, l, 0.0f));
        return arith::AddFOp::create(nb, l, args[2], masked, fm);
      });
}

Value mlir::linea::decayedScores(OpBuilder &b, Location loc, int64_t numBatch,
                                 Value q, Value k, Value rowLog, Value colLog,
                                 bool scalarGate, VisibleFn visible) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kRed});
  AffineExpr i = s[0], t = s[1], d = s[2];
  auto logMap = [&](AffineExpr pos) {
    return scalarGate ? s.map({pos}) : s.map({pos, d});
  };
  Value init = zerosWithBatchOf(
      b, loc, q, numBatch,
      {tensor::getMixedSize(b, loc, q, numBatch),
       tensor::getMixedSize(b, loc, k, numBatch)});
  return buildGeneric(
      b, loc, {q, k, rowLog, colLog}, init,
      {s.map({i, d}), s.map({t, d}), logMap(i), logMap(t), s.map({i, t})},
      s.iterators(), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value seen = visible(nb, l, indexAt(nb, l, s, 0), indexAt(nb, l, s, 1));
        Value zero = f32Constant(nb, l, 0.0f);
        // Invisible pairs may have a positive exponent: replace it by 0
        // before exp so nothing overflows.
        Value diff = arith::SubFOp::create(nb, l, args[2], args[3]);
        Value decay = math::ExpOp::create(
            nb, l, arith::SelectOp::create(nb, l, seen, diff, zero));
        auto fm = contractionFastMath(nb);
        Value prod = arith::MulFOp::create(
            nb, l, arith::MulFOp::create(nb, l, args[0], args[1], fm), decay,
            fm);
        Value masked = arith::SelectOp::create(nb, l, seen, prod, zero);
        return arith::AddFOp::create(nb, l, args[4], masked, fm);
      });
}

Value mlir::linea::scalarDecayedScores(OpBuilder &b, Location loc,
                                       int64_t numBatch, Value q, Value k,
                                       Value rowLog, Value colLog,
                                       VisibleFn visible) {
  Value scores = scoresAccumulate(
      b, loc, numBatch, q, k,
      zerosWithBatchOf(b, loc, q, numBatch,
                       {tensor::getMixedSize(b, loc, q, numBatch),
                        tensor::getMixedSize(b, loc, k, numBatch)}));
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar});
  AffineExpr i = s[0], t = s[1];
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, scores), b.getF32Type());
  return buildGeneric(
      b, loc, {scores, rowLog, colLog}, init,
      {s.map({i, t}), s.map({i}), s.map({t}), s.map({i, t})}, s.iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value seen = visible(nb, l, indexAt(nb, l, s, 0), indexAt(nb, l, s, 1));
        return decayedWhere(nb, l, seen, args[0],
                            arith::SubFOp::create(nb, l, args[1], args[2]));
      });
}

Value mlir::linea::decayedWhere(OpBuilder &b, Location loc, Value keep,
                                Value x, Value exponent) {
  Value zero = f32Constant(b, loc, 0.0f);
  Value safe = arith::SelectOp::create(b, loc, keep, exponent, zero);
  Value decayed =
      arith::MulFOp::create(b, loc, x, math::ExpOp::create(b, loc, safe));
  return arith::SelectOp::create(b, loc, keep, decayed, zero);
}

Value mlir::linea::queryTimesState(OpBuilder &b, Location loc,
                                   int64_t numBatch, Value q, Value state) {
  Value init = zerosWithBatchOf(
      b, loc, q, numBatch,
      {tensor::getMixedSize(b, loc, q, numBatch),
       tensor::getMixedSize(b, loc, state, numBatch + 1)});
  return matmulAccumulate(b, loc, numBatch, q, state, init);
}

Value mlir::linea::decayedQueryTimesState(OpBuilder &b, Location loc,
                                          int64_t numBatch, Value q,
                                          Value rowLog, Value state,
                                          bool scalarGate, Value init) {
  // The decay depends on (i, d) only: applied to the rows once (L x Dk
  // exponentials, not L x Dk x Dv), it leaves a plain contraction, which
  // the CPU kernels register-tile and the GPU puts on tensor cores.
  Value decayed = decayRows(b, loc, numBatch, q, rowLog, scalarGate);
  return matmulAccumulate(b, loc, numBatch, decayed, state, init);
}

Value mlir::linea::decayRows(OpBuilder &b, Location loc, int64_t numBatch,
                             Value x, Value log, bool scalarGate) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar});
  AffineExpr t = s[0], d = s[1];
  AffineMap logMap = scalarGate ? s.map({t}) : s.map({t, d});
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       b.getF32Type());
  return buildGeneric(
      b, loc, {x, log}, init, {s.map({t, d}), logMap, s.map({t, d})},
      s.iterators(), [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::MulFOp::create(nb, l, args[0],
                                     math::ExpOp::create(nb, l, args[1]));
      });
}

Value mlir::linea::decayState(OpBuilder &b, Location loc, int64_t numBatch,
                              Value state, Value log, bool scalarGate) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar});
  AffineExpr d = s[0], e = s[1];
  AffineMap logMap = scalarGate ? s.map({}) : s.map({d});
  return buildGeneric(
      b, loc, log, state, {logMap, s.map({d, e})}, s.iterators(),
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::MulFOp::create(nb, l, args[1],
                                     math::ExpOp::create(nb, l, args[0]));
      });
}

Value mlir::linea::sumOverSequence(OpBuilder &b, Location loc,
                                   int64_t numBatch, Value g, bool scalarGate) {
  SmallVector<utils::IteratorType> extra{kRed};
  if (!scalarGate)
    extra.push_back(kPar);
  LoopSpace s(b.getContext(), numBatch, extra);
  SmallVector<OpFoldResult> trailing;
  if (!scalarGate)
    trailing.push_back(tensor::getMixedSize(b, loc, g, numBatch + 1));
  Value init = zerosWithBatchOf(b, loc, g, numBatch, trailing);
  AffineMap in = scalarGate ? s.map({s[0]}) : s.map({s[0], s[1]});
  AffineMap out = scalarGate ? s.map({}) : s.map({s[1]});
  return buildGeneric(b, loc, g, init, {in, out}, s.iterators(),
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return arith::AddFOp::create(nb, l, args[1], args[0]);
                      });
}

Value mlir::linea::gatedStateUpdate(OpBuilder &b, Location loc,
                                    int64_t numBatch, Value k, Value v,
                                    Value g, Value state, bool scalarGate,
                                    bool stateIsZero) {
  if (!stateIsZero)
    state = decayState(b, loc, numBatch, state,
                       sumOverSequence(b, loc, numBatch, g, scalarGate),
                       scalarGate);
  Value suffix = gatePresum(b, loc, g, numBatch, /*suffix=*/true);
  Value decayedKeys = decayRows(b, loc, numBatch, k, suffix, scalarGate);
  return transposedMatmulAccumulate(b, loc, numBatch, decayedKeys, v, state);
}

Value mlir::linea::gatePresum(OpBuilder &b, Location loc, Value g,
                              int64_t seq, bool suffix) {
  UnitAttr flag = suffix ? b.getUnitAttr() : UnitAttr();
  return PresumOp::create(b, loc, g.getType(), g, /*decay=*/Value(), /*offsets=*/Value(),
                          b.getI64IntegerAttr(seq),
                          /*exclusive=*/flag, /*reverse=*/flag,
                          /*form=*/FormAttr());
}

/// `running += slice`, written into `running`.
static Value accumulateInto(OpBuilder &b, Location loc, Value slice,
                            Value running) {
  auto type = cast<RankedTensorType>(slice.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(), kPar);
  return buildGeneric(b, loc, slice, running, {identity, identity}, iterators,
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return arith::AddFOp::create(nb, l, args[1], args[0]);
                      });
}

/// `running = exp(decay) * running + slice`, written into `running`; the
/// decay slice covers the leading dims of the others and is broadcast. Its
/// exponentials are taken once each, into a tensor of their own (inside a
/// GPU block, shared memory), not once per element they scale.
static Value decayAndAccumulateInto(OpBuilder &b, Location loc, Value slice,
                                    Value decay, Value running) {
  auto type = cast<RankedTensorType>(slice.getType());
  int64_t rank = type.getRank();
  int64_t decayRank = cast<RankedTensorType>(decay.getType()).getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap leading = AffineMap::get(
      rank, 0, identity.getResults().take_front(decayRank), b.getContext());
  SmallVector<utils::IteratorType> iterators(rank, kPar);
  Value factors = buildElementwise(
      b, loc, decay, type.getElementType(),
      [](OpBuilder &nb, Location l, Value x) -> Value {
        return math::ExpOp::create(nb, l, x);
      });
  return buildGeneric(
      b, loc, ValueRange{slice, factors}, running, {identity, leading, identity},
      iterators, [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value decayed = arith::MulFOp::create(nb, l, args[1], args[2]);
        return arith::AddFOp::create(nb, l, decayed, args[0]);
      });
}

Value mlir::linea::buildSequentialScan(OpBuilder &b, Location loc, Value x,
                                       int64_t dim, bool exclusive,
                                       bool reverse, Value seed, Value decay) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sliceSizes = tensor::getMixedSizes(b, loc, x);
  Value length = getValueOrCreateConstantIndexOp(b, loc, sliceSizes[dim]);
  sliceSizes[dim] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value running = buildFilled(b, loc, sliceSizes, type.getElementType(), 0);
  // The seed is copied: the loop updates its running sum in place.
  if (seed)
    running = accumulateInto(b, loc, seed, running);
  Value result = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, x), type.getElementType());

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, length, one, ValueRange{running, result},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
        Value pos = iv;
        if (reverse)
          pos = arith::SubIOp::create(
              nb, l, arith::SubIOp::create(nb, l, length, one), iv);
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        offsets[dim] = pos;
        Value slice = tensor::ExtractSliceOp::create(nb, l, x, offsets,
                                                     sliceSizes, strides);
        // The running sum is updated in place, so the exclusive variant
        // stores it before adding.
        auto store = [&](Value value) -> Value {
          return tensor::InsertSliceOp::create(nb, l, value, carried[1],
                                               offsets, sliceSizes, strides);
        };
        Value updated = exclusive ? store(carried[0]) : Value();
        Value sum;
        if (decay) {
          int64_t decayRank = cast<RankedTensorType>(decay.getType()).getRank();
          auto decaySlice = tensor::ExtractSliceOp::create(
              nb, l, decay, ArrayRef(offsets).take_front(decayRank),
              ArrayRef(sliceSizes).take_front(decayRank),
              ArrayRef(strides).take_front(decayRank));
          sum = decayAndAccumulateInto(nb, l, slice, decaySlice, carried[0]);
        } else {
          sum = accumulateInto(nb, l, slice, carried[0]);
        }
        if (!exclusive)
          updated = store(sum);
        scf::YieldOp::create(nb, l, ValueRange{sum, updated});
      });
  return loop.getResult(1);
}

Value mlir::linea::reverseAlong(OpBuilder &b, Location loc, Value x,
                                int64_t seq) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value last =
      arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, x, seq),
                            arith::ConstantIndexOp::create(b, loc, 1));
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       type.getElementType());
  if (init.getType() != type)
    init = tensor::CastOp::create(b, loc, type, init);
  SmallVector<utils::IteratorType> iterators(rank, kPar);
  return buildGeneric(b, loc, ValueRange{}, init,
                      {b.getMultiDimIdentityMap(rank)}, iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange) -> Value {
                        SmallVector<Value> at;
                        for (int64_t d = 0; d < rank; ++d)
                          at.push_back(linalg::IndexOp::create(nb, nl, d));
                        at[seq] = arith::SubIOp::create(nb, nl, last, at[seq]);
                        return tensor::ExtractOp::create(nb, nl, x, at);
                      });
}
