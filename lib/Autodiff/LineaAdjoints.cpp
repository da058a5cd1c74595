//===- LineaAdjoints.cpp - Adjoints of Linea ops, as Linea ops -------------===//
//
// The backward pass of a Linea op is again made of Linea ops, so the
// optimizer chooses its forms too (one-shot for bidirectional parts,
// chunked or chunk-parallel for causal ones).
//
// presum: the adjoint of a prefix sum is the same sum walked from the other
// end.
//
// linear_attention, `o_i = scale * phi(q_i) S(i)`, `S(i) = S0 + sum over
// the keys t row i sees of phi(k_t)^T v_t`, `F = S0 + sum_t phi(k_t)^T v_t`.
// With `dO' = scale * dO` and `dF` the final state's cotangent:
//   d phi(q) = linear_attention(dO', v, phi(k); mask)       seeded with S0^T
//   dv, dS0  = linear_attention^T(phi(k), phi(q), dO')      seeded with dF
//   d phi(k) = linear_attention^T(v, dO', phi(q))           seeded with dF^T
// where `^T` is the transposed mask (row t sees the rows i that see t; the
// seed's final state is what dS0 needs): none stays none; causal becomes
// anti-causal, a causal op over reversed sequences; prefix(j) becomes rows
// t < j seeing every row (bidirectional, seeded with the suffix's state) and
// rows t >= j seeing the suffix rows i >= t (anti-causal over [j, L)).
// `normalize` is the unnormalized op with a ones column appended to v (the
// last output column is the denominator); its cotangent follows from the
// quotient rule.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// presum
//===----------------------------------------------------------------------===//

/// A presum walks from the start (or the end, `reverse`); its adjoint is the
/// same scan from the other end. Without a decay that is all. With one,
/// inclusive `y_i = exp(a_i) y_prev + x_i`: the cotangent flowing into
/// `y_i` is `g_i = dy_i + exp(a_next) g_next`, a scan from the other end
/// whose decays are `a` moved one step back; `dx = g` and
/// `da_i = sum over the broadcast dims of g_i exp(a_i) y_prev` (y moved one
/// step, never `y_i - x_i`, which cancels). Exclusive `y_i = z_prev` (z the
/// inclusive scan) is the same with `dz_i = dy_next` and `z_prev = y_i`.
static LogicalResult adjoint(PresumOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value x = op.getInput(), y = op.getOutput(), decay = op.getDecay();
  int64_t dim = op.getScanDim();
  bool reverse = op.getReverse(), exclusive = op.getExclusive();
  Value dy = ct.lookupOrZeros(b, loc, y);
  UnitAttr flipped = reverse ? UnitAttr() : b.getUnitAttr();
  if (!decay) {
    ct.accumulate(b, loc, x,
                  PresumOp::create(b, loc, x.getType(), dy, Value(),
                                   /*offsets=*/Value(), op.getDimAttr(),
                                   op.getExclusiveAttr(), flipped, FormAttr()));
    return success();
  }
  // "next" is one step against the scan's direction of travel.
  bool towardEnd = !reverse;
  Value dz = exclusive ? shiftAlong(b, loc, dy, dim, !towardEnd) : dy;
  Value nextDecay = shiftAlong(b, loc, decay, dim, !towardEnd);
  Value g = PresumOp::create(b, loc, x.getType(), dz, nextDecay, Value(),
                             op.getDimAttr(), UnitAttr(), flipped, FormAttr());
  ct.accumulate(b, loc, x, g);
  if (!ct.isActive(decay))
    return success();
  Value previous = exclusive ? y : shiftAlong(b, loc, y, dim, towardEnd);
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  int64_t decayRank = cast<RankedTensorType>(decay.getType()).getRank();
  SmallVector<utils::IteratorType> iterators(rank, kRed);
  std::fill_n(iterators.begin(), decayRank, kPar);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap decayMap = AffineMap::get(
      rank, 0, identity.getResults().take_front(decayRank), b.getContext());
  Type element = xType.getElementType();
  Value init = buildFilled(b, loc, tensor::getMixedSizes(b, loc, decay),
                           element, 0.0);
  Value da = buildGeneric(
      b, loc, {g, previous, decay}, init,
      {identity, identity, decayMap, decayMap}, iterators,
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value carried = arith::MulFOp::create(
            nb, l, math::ExpOp::create(nb, l, args[2]), args[1]);
        Value term = arith::MulFOp::create(nb, l, args[0], carried);
        return arith::AddFOp::create(nb, l, args[3], term);
      });
  ct.accumulate(b, loc, decay, da);
  return success();
}

//===----------------------------------------------------------------------===//
// linear_attention
//===----------------------------------------------------------------------===//

namespace {

/// The rows each row sees: the forward op's mask, with a prefix length
/// that is a constant or an index value (clamped to [0, L]).
struct Visibility {
  Mask mask;
  OpFoldResult prefix; // only for Mask::prefix
};

/// What one linear attention evaluates: no feature map, scale 1.
struct Attended {
  Value output, finalState;
};

} // namespace

static int64_t numBatch(Value x) {
  return numBatchDims(cast<ShapedType>(x.getType()));
}

static int64_t seqDim(Value x) { return numBatch(x); }

/// The output type of linear attention over queries `q` and values `v`.
static RankedTensorType attendedType(Value q, Value v) {
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(cast<RankedTensorType>(q.getType()).getShape());
  shape.back() = vType.getShape().back();
  return RankedTensorType::get(shape, vType.getElementType());
}

/// `linear_attention(q, k, v)` seeded with `init` (null: zero), its final
/// state too; `like` is the forward op (it builds ops of its kind).
static Attended attend(LinearAttentionOpInterface like, OpBuilder &b,
                       Location loc, Value q, Value k, Value v,
                       const Visibility &vis, Value init,
                       Value gate = Value()) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  int64_t rank = qType.getRank();
  SmallVector<int64_t> stateShape(qType.getShape().take_front(rank - 2));
  stateShape.push_back(qType.getShape().back());
  stateShape.push_back(vType.getShape().back());

  LinearAttentionSpec spec;
  spec.query = q;
  spec.key = k;
  spec.value = v;
  spec.initialState = init;
  spec.gate = gate;
  spec.mask = vis.mask;
  if (vis.mask == Mask::prefix) {
    if (std::optional<int64_t> j = getConstantIntValue(vis.prefix))
      spec.prefixLength = *j;
    else
      spec.prefixIndex = cast<Value>(vis.prefix);
  }
  spec.outputType = attendedType(q, v);
  spec.finalStateType = RankedTensorType::get(stateShape, b.getF32Type());
  Operation *op = like.createLike(b, loc, spec);
  return {op->getResult(0), op->getResult(1)};
}

std::pair<Value, Value>
mlir::linea::causalOpLike(LinearAttentionOpInterface like, OpBuilder &b,
                          Location loc, Value q, Value k, Value v, Value init,
                          Value gate) {
  Attended causal =
      attend(like, b, loc, q, k, v, Visibility{Mask::causal, {}}, init, gate);
  return {causal.output, causal.finalState};
}

/// `x` with its sequence (`[B..., L, D]`) reversed.
static Value reverseSequence(OpBuilder &b, Location loc, Value x) {
  return reverseAlong(b, loc, x, seqDim(x));
}

/// Linear attention under the transposed mask: row t of the output sums
/// `(q_t . k_i) v_i` over the rows i that see t under `vis`, plus `q_t init`;
/// the final state is `init + sum_i k_i^T v_i` over every row.
static Attended attendTransposed(LinearAttentionOp like, OpBuilder &b,
                                 Location loc, Value q, Value k, Value v,
                                 const Visibility &vis, Value init) {
  Visibility none{Mask::none, {}};
  auto antiCausal = [&](Value qq, Value kk, Value vv, Value seed) {
    Visibility causal{Mask::causal, {}};
    Attended reversed =
        attend(like, b, loc, reverseSequence(b, loc, qq), reverseSequence(b, loc, kk),
               reverseSequence(b, loc, vv), causal, seed);
    return Attended{reverseSequence(b, loc, reversed.output),
                    reversed.finalState};
  };
  switch (vis.mask) {
  case Mask::none:
    return attend(like, b, loc, q, k, v, none, init);
  case Mask::causal:
    return antiCausal(q, k, v, init);
  case Mask::prefix:
    break;
  }
  // Rows [j, L) see the suffix rows after them; rows [0, j) see every row:
  // the suffix's state seeds the bidirectional prefix.
  int64_t seq = seqDim(q);
  OpFoldResult length = tensor::getMixedSize(b, loc, q, seq);
  OpFoldResult j = vis.prefix;
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  OpFoldResult rest =
      affine::makeComposedFoldedAffineApply(b, loc, s0 - s1, {length, j});
  OpFoldResult zero = b.getIndexAttr(0);
  auto suffixOf = [&](Value x) { return sliceAlong(b, loc, x, seq, j, rest); };
  auto prefixOf = [&](Value x) { return sliceAlong(b, loc, x, seq, zero, j); };
  Attended suffix = antiCausal(suffixOf(q), suffixOf(k), suffixOf(v), init);
  Attended prefix = attend(like, b, loc, prefixOf(q), prefixOf(k), prefixOf(v),
                           none, suffix.finalState);
  RankedTensorType outType = attendedType(q, v);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, q);
  sizes.back() = b.getIndexAttr(outType.getShape().back());
  Value output =
      tensor::EmptyOp::create(b, loc, sizes, outType.getElementType());
  output = insertAlong(b, loc, prefix.output, output, seq, zero);
  output = insertAlong(b, loc, suffix.output, output, seq, j);
  if (output.getType() != outType)
    output = tensor::CastOp::create(b, loc, outType, output);
  return {output, prefix.finalState};
}

/// `scale * x` (x itself when the scale is 1).
static Value scaled(OpBuilder &b, Location loc, Value x, float scale) {
  return scaleAndCast(b, loc, x, scale,
                      cast<RankedTensorType>(x.getType()).getElementType());
}

/// A state `[B..., a, c]` as `[B..., c, a]`.
static Value transposeState(OpBuilder &b, Location loc, Value state) {
  auto type = cast<RankedTensorType>(state.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(rank));
  std::swap(permutation[rank - 1], permutation[rank - 2]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, state);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, state, init, permutation)
      .getResult()[0];
}

/// `d * phi'(x)`: the cotangent of x from that of phi(x).
static Value throughFeatureMap(OpBuilder &b, Location loc, Value x, Value d,
                               FeatureMap map) {
  if (map == FeatureMap::identity)
    return d;
  auto type = cast<RankedTensorType>(d.getType());
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, d),
                                       type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank, kPar);
  return buildGeneric(
      b, loc, ValueRange{x, d}, init, {identity, identity, identity},
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value xe = args[0], de = args[1];
        Type element = de.getType();
        Value zero = arith::ConstantOp::create(nb, nl, element,
                                               nb.getFloatAttr(element, 0.0));
        if (xe.getType() != element)
          xe = arith::ExtFOp::create(nb, nl, element, xe);
        Value positive = arith::CmpFOp::create(
            nb, nl, arith::CmpFPredicate::OGT, xe, zero);
        // relu' = [x > 0]; (elu + 1)' = 1 for x > 0, exp(x) otherwise.
        Value below = map == FeatureMap::relu
                          ? zero
                          : arith::MulFOp::create(
                                nb, nl, de, math::ExpOp::create(nb, nl, xe))
                                .getResult();
        return arith::SelectOp::create(nb, nl, positive, de, below);
      });
}

/// The op's visibility, a dynamic prefix length clamped to [0, L].
static Visibility visibilityOf(LinearAttentionOp op, OpBuilder &b) {
  Mask mask = cast<LinearAttentionOpInterface>(op.getOperation())
                  .getEffectiveMask();
  if (mask != Mask::prefix)
    return {mask, {}};
  if (std::optional<int64_t> j = op.getPrefixLength())
    return {mask, b.getIndexAttr(*j)};
  Location loc = op.getLoc();
  Value length =
      tensor::DimOp::create(b, loc, op.getQuery(), seqDim(op.getQuery()));
  return {mask, clampPrefixLength(b, loc, op.getPrefixIndex(), length)};
}

/// The cotangent of the unnormalized output `[num, den - eps]` (`plus`, of
/// the op with a ones column appended to v) from that of
/// `o = scale * num / den`: `scale dO / den` and `-scale (dO . num) / den^2`.
static Value quotientAdjoint(OpBuilder &b, Location loc, Value plus, Value dO,
                             float scale) {
  auto type = cast<RankedTensorType>(dO.getType());
  int64_t rank = type.getRank();
  int64_t width = type.getShape().back();
  Type element = type.getElementType();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> rowExprs, denExprs;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    rowExprs.push_back(getAffineDimExpr(d, ctx));
    denExprs.push_back(getAffineDimExpr(d, ctx));
  }
  denExprs.push_back(getAffineConstantExpr(width, ctx));
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap rowMap = AffineMap::get(rank, 0, rowExprs, ctx);
  AffineMap denMap = AffineMap::get(rank, 0, denExprs, ctx);
  auto constant = [&](OpBuilder &nb, Location nl, double value) -> Value {
    return arith::ConstantOp::create(nb, nl, element,
                                     nb.getFloatAttr(element, value));
  };
  auto denominator = [&](OpBuilder &nb, Location nl, Value den) -> Value {
    return arith::AddFOp::create(nb, nl, den, constant(nb, nl, kNormalizerEpsilon));
  };
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, dO);
  Value numerator =
      sliceAlong(b, loc, plus, rank - 1, b.getIndexAttr(0), b.getIndexAttr(width));

  // dO . num, per row.
  SmallVector<utils::IteratorType> rowIterators(rank, kPar);
  rowIterators.back() = kRed;
  Value dots = buildGeneric(
      b, loc, ValueRange{dO, numerator},
      buildFilled(b, loc, ArrayRef(sizes).drop_back(), element, 0.0),
      {identity, identity, rowMap}, rowIterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value product = arith::MulFOp::create(nb, nl, args[0], args[1]);
        return arith::AddFOp::create(nb, nl, args[2], product);
      });

  SmallVector<utils::IteratorType> parallel(rank, kPar);
  Value dNum = buildGeneric(
      b, loc, ValueRange{dO, plus},
      tensor::EmptyOp::create(b, loc, sizes, element), {identity, denMap, identity},
      parallel, [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value q = arith::DivFOp::create(nb, nl, args[0],
                                        denominator(nb, nl, args[1]));
        return arith::MulFOp::create(nb, nl, q, constant(nb, nl, scale));
      });
  SmallVector<OpFoldResult> oneColumn = sizes;
  oneColumn.back() = b.getIndexAttr(1);
  Value dDen = buildGeneric(
      b, loc, ValueRange{dots, plus},
      tensor::EmptyOp::create(b, loc, oneColumn, element),
      {rowMap, denMap, identity}, parallel,
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value den = denominator(nb, nl, args[1]);
        Value q = arith::DivFOp::create(
            nb, nl, args[0], arith::MulFOp::create(nb, nl, den, den));
        return arith::MulFOp::create(nb, nl, q, constant(nb, nl, -scale));
      });
  SmallVector<OpFoldResult> widened = sizes;
  widened.back() = b.getIndexAttr(width + 1);
  Value result = tensor::EmptyOp::create(b, loc, widened, element);
  result = insertAlong(b, loc, dNum, result, rank - 1, b.getIndexAttr(0));
  return insertAlong(b, loc, dDen, result, rank - 1, b.getIndexAttr(width));
}

static LogicalResult adjoint(LinearAttentionOp op, OpBuilder &b,
                             Cotangents &ct) {
  Location loc = op.getLoc();
  LinearAttentionSpec spec =
      cast<LinearAttentionOpInterface>(op.getOperation()).getSpec();
  Value q = spec.query, k = spec.key, v = spec.value, s0 = spec.initialState;
  Visibility vis = visibilityOf(op, b);
  Value phiQ = applyFeatureMap(b, loc, q, spec.featureMap);
  Value phiK = applyFeatureMap(b, loc, k, spec.featureMap);
  Value dO = ct.lookupOrZeros(b, loc, op.getOutput());
  Value dF = op.getFinalState() ? ct.lookup(op.getFinalState()) : Value();

  // Reduce to the unnormalized op with scale 1 over `values`.
  Value values = v, dOut;
  if (spec.normalize) {
    values = appendOnesColumn(b, loc, v);
    Value plus = attend(op, b, loc, phiQ, phiK, values, vis, Value()).output;
    dOut = quotientAdjoint(b, loc, plus, dO, spec.scale);
    if (dF)
      dF = appendConstantColumn(b, loc, dF, 0.0); // the ones column's state
  } else {
    dOut = scaled(b, loc, dO, spec.scale);
  }

  if (ct.isActive(q)) {
    Value seed = s0 ? transposeState(b, loc, s0) : Value();
    Value dPhiQ = attend(op, b, loc, dOut, values, phiK, vis, seed).output;
    ct.accumulate(b, loc, q, throughFeatureMap(b, loc, q, dPhiQ,
                                               spec.featureMap));
  }
  if (ct.isActive(v) || (s0 && ct.isActive(s0))) {
    Attended dv = attendTransposed(op, b, loc, phiK, phiQ, dOut, vis, dF);
    Value dValues = dv.output;
    if (spec.normalize) // drop the ones column's cotangent
      dValues = sliceAlong(
          b, loc, dValues, seqDim(v) + 1, b.getIndexAttr(0),
          b.getIndexAttr(cast<RankedTensorType>(v.getType()).getShape().back()));
    ct.accumulate(b, loc, v, dValues);
    if (s0)
      ct.accumulate(b, loc, s0, dv.finalState);
  }
  if (ct.isActive(k)) {
    Value seed = dF ? transposeState(b, loc, dF) : Value();
    Value dPhiK =
        attendTransposed(op, b, loc, values, dOut, phiQ, vis, seed).output;
    ct.accumulate(b, loc, k, throughFeatureMap(b, loc, k, dPhiK,
                                               spec.featureMap));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// gated_linear_attention
//===----------------------------------------------------------------------===//

/// Causal, one decay per token: `S_t = exp(g_t) S_(t-1) + k_t^T v_t`. The
/// decays are scalars, so they commute with the state's transposes:
///   dq = gated(dO', v, k; g)                     seeded with S0^T
///   G  = the state cotangents, `G_t = exp(g_(t+1)) G_(t+1) + q_t^T dO'_t`
///        from `G_(L-1) = q^T dO' + dF`: a gated op over reversed
///        sequences whose decays are g moved one step back;
///   dv = k_t G_t and dk = v_t G_t^T (both of them such ops), dS0 = exp(g_0) G_0;
///   dg = reverse presum of `q . dq - k . dk` (plus `<dF, F>` at the end).
/// A per-key-dim gate decays dq's and dk's states on their value side, and
/// a prefix mask lumps rows: GatedAdjoint.cpp takes those.
static LogicalResult adjoint(GatedLinearAttentionOp op, OpBuilder &b,
                             Cotangents &ct) {
  auto iface = cast<LinearAttentionOpInterface>(op.getOperation());
  LinearAttentionSpec spec = iface.getSpec();
  Mask mask = iface.getEffectiveMask();
  Value q = spec.query, k = spec.key, v = spec.value, g = spec.gate;
  Value s0 = spec.initialState;
  int64_t seq = seqDim(q);
  if (cast<RankedTensorType>(g.getType()).getRank() != seq + 1 ||
      mask != Mask::causal)
    return emitGatedRecurrenceAdjoint(op, b, ct);
  Location loc = op.getLoc();
  Visibility causal{Mask::causal, {}};
  Value dO = scaled(b, loc, ct.lookupOrZeros(b, loc, op.getOutput()),
                    spec.scale);
  Value dF = op.getFinalState() ? ct.lookup(op.getFinalState()) : Value();

  Value dq = attend(op, b, loc, dO, v, k, causal,
                    s0 ? transposeState(b, loc, s0) : Value(), g)
                 .output;
  Value nextGates = reverseAlong(
      b, loc, shiftAlong(b, loc, g, seq, /*towardEnd=*/false), seq);
  Value revQ = reverseSequence(b, loc, q), revDO = reverseSequence(b, loc, dO);
  Attended values = attend(op, b, loc, reverseSequence(b, loc, k), revQ, revDO,
                           causal, dF, nextGates);
  Value dv = reverseSequence(b, loc, values.output);
  Value dk = reverseSequence(
      b, loc,
      attend(op, b, loc, reverseSequence(b, loc, v), revDO, revQ, causal,
             dF ? transposeState(b, loc, dF) : Value(), nextGates)
          .output);
  ct.accumulate(b, loc, q, dq);
  ct.accumulate(b, loc, k, dk);
  ct.accumulate(b, loc, v, dv);
  if (s0)
    ct.accumulate(b, loc, s0,
                  decayState(b, loc, numBatch(q), values.finalState,
                             // (an empty sequence reads no gate: 0)
                             stepAlong(b, loc, appendZeroStep(b, loc, g, seq),
                                       seq, b.getIndexAttr(0)),
                             /*scalarGate=*/true));
  if (ct.isActive(g)) {
    auto f32 = [&](Value x) { return x ? castToF32(b, loc, x) : x; };
    Value dg = causalGateCotangent(
        b, loc, /*scalarGate=*/true, f32(q), f32(dq), f32(k), f32(dk), f32(dF),
        dF ? f32(op.getFinalState()) : Value());
    ct.accumulate(b, loc, g,
                  castFromF32(b, loc, dg, getElementTypeOrSelf(g)));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// attention (softmax)
//===----------------------------------------------------------------------===//

namespace {
/// The softmax attention backward's loops: scores `[B..., Lq, Lk]` and the
/// contractions around them, with the causal mask read off linalg.index.
struct SoftmaxBackward {
  OpBuilder &b;
  Location loc;
  int64_t batch;
  float scale;
  Value offset; // causal: key t is seen by query i when t <= i + offset

  Value constant(OpBuilder &nb, Location l, double value) {
    return arith::ConstantOp::create(nb, l, nb.getF32Type(),
                                     nb.getF32FloatAttr(value));
  }
  /// Whether (query, key) at the current loop position is visible.
  Value visible(OpBuilder &nb, Location l, const LoopSpace &s) {
    if (!offset)
      return Value();
    Value i = linalg::IndexOp::create(nb, l, s.position(0));
    Value t = linalg::IndexOp::create(nb, l, s.position(1));
    Value last = arith::AddIOp::create(nb, l, i, offset);
    return causallyVisible(nb, l, t, last);
  }
  Value masked(OpBuilder &nb, Location l, const LoopSpace &s, Value x,
               Value otherwise) {
    Value vis = visible(nb, l, s);
    return vis ? arith::SelectOp::create(nb, l, vis, x, otherwise).getResult()
               : x;
  }
  /// `a b^T` over the last dims: `[.., i, c] x [.., t, c] -> [.., i, t]`.
  Value timesTransposed(Value a, Value m, Value init) {
    LoopSpace s(b.getContext(), batch, {kPar, kPar, kRed});
    AffineExpr i = s[0], t = s[1], c = s[2];
    return buildGeneric(
        b, loc, {a, m}, init, {s.map({i, c}), s.map({t, c}), s.map({i, t})},
        s.iterators(), [](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
          return arith::AddFOp::create(nb, l, args[2], p);
        });
  }
  /// The attention probabilities, recomputed from the scores.
  Value probabilities(Value scores, Value like) {
    LoopSpace rows(b.getContext(), batch, {kPar, kRed});
    AffineExpr i = rows[0], t = rows[1];
    OpFoldResult lq = tensor::getMixedSize(b, loc, scores, batch);
    SmallVector<OpFoldResult> rowSizes = leadingSizes(b, loc, like, batch);
    rowSizes.push_back(lq);
    Value lowest = buildFilled(b, loc, rowSizes, b.getF32Type(),
                               -std::numeric_limits<double>::infinity());
    Value maxima = buildGeneric(
        b, loc, scores, lowest, {rows.map({i, t}), rows.map({i})},
        rows.iterators(),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value x = arith::MulFOp::create(nb, l, args[0], constant(nb, l, scale));
          Value bigger = arith::MaximumFOp::create(nb, l, args[1], x);
          return masked(nb, l, rows, bigger, args[1]);
        });
    LoopSpace grid(b.getContext(), batch, {kPar, kPar});
    AffineExpr gi = grid[0], gt = grid[1];
    Value empty = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, scores), b.getF32Type());
    Value exps = buildGeneric(
        b, loc, {scores, maxima}, empty,
        {grid.map({gi, gt}), grid.map({gi}), grid.map({gi, gt})},
        grid.iterators(),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value x = arith::MulFOp::create(nb, l, args[0], constant(nb, l, scale));
          Value e = math::ExpOp::create(
              nb, l, arith::SubFOp::create(nb, l, x, args[1]));
          return masked(nb, l, grid, e, constant(nb, l, 0.0));
        });
    Value sums = rowSums(b, loc, batch, exps);
    // A query that sees no key has a zero row (sum 0).
    return buildGeneric(
        b, loc, {exps, sums}, empty,
        {grid.map({gi, gt}), grid.map({gi}), grid.map({gi, gt})},
        grid.iterators(),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value zero = constant(nb, l, 0.0);
          Value any = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                            args[1], zero);
          Value p = arith::DivFOp::create(nb, l, args[0], args[1]);
          return arith::SelectOp::create(nb, l, any, p, zero);
        });
  }
};
} // namespace

/// `o = softmax(scale q k^T + mask) v`: with P recomputed,
/// `dv = P^T dO`, `dS = scale P (dO v^T - rowsum(dO o))`, `dq = dS k`,
/// `dk = dS^T q`.
static LogicalResult adjoint(AttentionOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value o = op.getOutput();
  if (!cast<RankedTensorType>(q.getType()).getElementType().isF32())
    return op.emitOpError()
           << "cannot be differentiated yet with operands other than f32";
  int64_t batch = numBatch(q);
  Value offset;
  if (op.getMask() == Mask::causal)
    offset = arith::SubIOp::create(b, loc,
                                   tensor::DimOp::create(b, loc, k, batch),
                                   tensor::DimOp::create(b, loc, q, batch));
  SoftmaxBackward sb{b, loc, batch, op.getEffectiveScale(), offset};
  Value dO = ct.lookupOrZeros(b, loc, o);
  OpFoldResult lq = tensor::getMixedSize(b, loc, q, batch);
  OpFoldResult lk = tensor::getMixedSize(b, loc, k, batch);
  auto zeros = [&](OpFoldResult rows, OpFoldResult columns) {
    return zerosWithBatchOf(b, loc, q, batch, {rows, columns});
  };
  auto width = [&](Value x) {
    return tensor::getMixedSize(b, loc, x, batch + 1);
  };
  Value probs = sb.probabilities(sb.timesTransposed(q, k, zeros(lq, lk)), q);

  // rowsum(dO o), then dS = scale P (dO v^T - rowsum).
  LoopSpace rows(b.getContext(), batch, {kPar, kRed});
  SmallVector<OpFoldResult> rowSizes = leadingSizes(b, loc, q, batch);
  rowSizes.push_back(lq);
  Value dots = buildGeneric(
      b, loc, {dO, o}, buildFilled(b, loc, rowSizes, b.getF32Type(), 0.0),
      {rows.map({rows[0], rows[1]}), rows.map({rows[0], rows[1]}),
       rows.map({rows[0]})},
      rows.iterators(), [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value p = arith::MulFOp::create(nb, l, args[0], args[1]);
        return arith::AddFOp::create(nb, l, args[2], p);
      });
  Value dProbs = sb.timesTransposed(dO, v, zeros(lq, lk));
  LoopSpace grid(b.getContext(), batch, {kPar, kPar});
  AffineExpr i = grid[0], t = grid[1];
  float scale = sb.scale;
  Value dScores = buildGeneric(
      b, loc, {probs, dProbs, dots},
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, probs),
                              b.getF32Type()),
      {grid.map({i, t}), grid.map({i, t}), grid.map({i}), grid.map({i, t})},
      grid.iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value centered = arith::SubFOp::create(nb, l, args[1], args[2]);
        Value d = arith::MulFOp::create(nb, l, args[0], centered);
        return arith::MulFOp::create(nb, l, d, sb.constant(nb, l, scale));
      });

  if (ct.isActive(q))
    ct.accumulate(b, loc, q,
                  matmulAccumulate(b, loc, batch, dScores, k,
                                   zeros(lq, width(k))));
  if (ct.isActive(k))
    ct.accumulate(b, loc, k,
                  transposedMatmulAccumulate(b, loc, batch, dScores, q,
                                             zeros(lk, width(q))));
  if (ct.isActive(v))
    ct.accumulate(b, loc, v,
                  transposedMatmulAccumulate(b, loc, batch, probs, dO,
                                             zeros(lk, width(v))));
  return success();
}

std::optional<LogicalResult>
mlir::linea::emitLineaAdjoint(Operation *op, OpBuilder &b,
                              Cotangents &cotangents) {
  // Each segment alone: the rules below see one sequence.
  if (auto packed = dyn_cast<PackedOpInterface>(op);
      packed && packed.isPacked())
    return emitPackedAdjoint(packed, b, cotangents);
  if (auto presum = dyn_cast<PresumOp>(op))
    return adjoint(presum, b, cotangents);
  if (auto attention = dyn_cast<LinearAttentionOp>(op))
    return adjoint(attention, b, cotangents);
  if (auto attention = dyn_cast<AttentionOp>(op))
    return adjoint(attention, b, cotangents);
  if (auto gated = dyn_cast<GatedLinearAttentionOp>(op))
    return adjoint(gated, b, cotangents);
  if (auto fold = dyn_cast<FoldOp>(op))
    return emitFoldAdjoint(fold, b, cotangents);
  return std::nullopt;
}
