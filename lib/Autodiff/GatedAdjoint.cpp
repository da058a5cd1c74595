//===- GatedAdjoint.cpp - gated linear attention backwards, any gate, any mask -===//
//
// With a per-key-dim gate `S_t = diag(exp(g_t)) S_(t-1) + k_t^T v_t`, the
// backward reads states on their value side: `dq_t = S_t dO_t`, and
// `dk_t = G_t v_t` with G the states' cotangents, `G_t = diag(exp(g_(t+1)))
// G_(t+1) + q_t^T dO_t` walked from the end. The decay does not commute with
// that read, so no gated op computes it. On the CPU the rule runs both
// recurrences one token at a time (scanTokens: a `[Dk, Dv]` state in cache,
// each decay `exp(g) <= 1` applied step by step). For the GPU
// (Cotangents::target) chunkedValueSideReads runs the reads chunked
// (GatedReads.cpp, fla's chunk_gla_bwd), and `dv_t = k_t G_t`, a key-side
// read, is a gated op over the reversed rows, whose final state is G at
// row j. Either way every exponent is `<= 0`: gates down to -20 are safe.
//
// A prefix(j) mask makes rows t < j read S_(j-1), and none is prefix(L), so
// the rows before j are one-shot on both sides: S_(j-1) is one gated state
// update, and `G_(j-1) = exp(g_j) G_j + Q[0:j)^T dO[0:j)` decays to every
// earlier row by `exp(B_(j-1) - B_i)` (suffix sums of g, all <= 0).
// Causal is prefix(0). The gate's cotangent is fla's identity per key dim,
// `dB_t = q_t dq_t - k_t dk_t` reverse-summed, plus `<dF, F>`, with the rows
// before j lumped at j - 1, where they read the state (see gateCotangent).
//
//===----------------------------------------------------------------------===//

#include "GatedReads.h"
#include "linea/Autodiff/Cotangents.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Target/Target.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

struct Readout {
  Value rows; // [B..., L, D], the x of each step
  ReadSide side;
};

} // namespace

/// `S <- diag(exp(d)) S (+ a^T c)` for one row: `d` is `[B..., 1, Dk]` (or
/// `[B..., 1]`), `a` and `c` (both or neither) `[B..., 1, Dk]`, `[B..., 1, Dv]`.
/// Written into `state`.
static Value stepState(OpBuilder &b, Location loc, const GateLayout &layout,
                       Value state, Value decay, Value a = Value(),
                       Value c = Value()) {
  LoopSpace s(b.getContext(), layout.numBatch, {kPar, kPar});
  AffineExpr i = s[0], e = s[1];
  AffineExpr first = getAffineConstantExpr(0, b.getContext());
  SmallVector<Value> inputs{decay};
  SmallVector<AffineMap> maps{layout.scalarGate ? s.map({first})
                                                : s.map({first, i})};
  if (a) {
    inputs.append({a, c});
    maps.append({s.map({first, i}), s.map({first, e})});
  }
  maps.push_back(s.map({i, e}));
  bool outer = static_cast<bool>(a);
  return buildGeneric(
      b, loc, inputs, state, maps, s.iterators(),
      [outer](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value decayed = arith::MulFOp::create(
            nb, l, args.back(), math::ExpOp::create(nb, l, args[0]));
        if (!outer)
          return decayed;
        Value product = arith::MulFOp::create(nb, l, args[1], args[2]);
        return arith::AddFOp::create(nb, l, decayed, product);
      });
}

/// `S <- diag(exp(decay_t)) S + a_t^T c_t`, then `out_t = read(S, x_t)` for
/// each readout, one token at a time over rows `[from, L)` (from the end
/// with `reverse`), starting from `seed`. `outputs` (one per readout,
/// `[B..., L, D]`) come in holding the other rows and leave with these
/// filled. Returns the last state.
static Value scanTokens(OpBuilder &b, Location loc, const GateLayout &layout,
                        Value a, Value c, Value decay, Value seed, Value from,
                        bool reverse, ArrayRef<Readout> readouts,
                        SmallVector<Value> &outputs) {
  int64_t seq = layout.seq();
  Value length = tensor::DimOp::create(b, loc, a, seq);
  Value count = arith::SubIOp::create(b, loc, length, from);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> init{seed};
  llvm::append_range(init, outputs);
  auto loop = scf::ForOp::create(b, loc, zero, count, one, init);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  Value t = reverse ? arith::SubIOp::create(
                          b, loc, arith::SubIOp::create(b, loc, length, one),
                          step)
                    : arith::AddIOp::create(b, loc, from, step).getResult();
  auto row = [&](Value x) {
    return sliceAlong(b, loc, x, seq, t, b.getIndexAttr(1));
  };
  ValueRange carried = loop.getRegionIterArgs();
  Value state = stepState(b, loc, layout, carried[0], row(decay), row(a),
                          row(c));
  SmallVector<Value> next{state};
  for (auto [readout, out] : llvm::zip(readouts, carried.drop_front()))
    next.push_back(insertAlong(
        b, loc, readState(b, loc, layout, state, row(readout.rows), readout.side),
        out, seq, t));
  scf::YieldOp::create(b, loc, next);

  for (auto [k, out] : llvm::enumerate(outputs))
    out = loop.getResult(k + 1);
  return loop.getResult(0);
}

/// `x dx` per row: `[B..., L, Dk]`, or summed over the key dims for a
/// scalar gate (`[B..., L]`).
static Value rowProducts(OpBuilder &b, Location loc, const GateLayout &layout,
                         Value x, Value dx) {
  int64_t batch = layout.numBatch;
  SmallVector<utils::IteratorType> extra{kPar,
                                         layout.scalarGate ? kRed : kPar};
  LoopSpace s(b.getContext(), batch, extra);
  AffineExpr t = s[0], a = s[1];
  SmallVector<OpFoldResult> trailing{tensor::getMixedSize(b, loc, x, batch)};
  if (!layout.scalarGate)
    trailing.push_back(tensor::getMixedSize(b, loc, x, batch + 1));
  Value init = zerosWithBatchOf(b, loc, x, batch, trailing);
  AffineMap out = layout.scalarGate ? s.map({t}) : s.map({t, a});
  return buildGeneric(
      b, loc, {x, dx}, init, {s.map({t, a}), s.map({t, a}), out},
      s.iterators(), multiplyAccumulate);
}

/// `<dF, F>` per key dim (`[B..., Dk]`), or in all (`[B...]`).
static Value stateProduct(OpBuilder &b, Location loc, const GateLayout &layout,
                          Value dF, Value finalState) {
  int64_t batch = layout.numBatch;
  LoopSpace s(b.getContext(), batch,
              {layout.scalarGate ? kRed : kPar, kRed});
  AffineExpr a = s[0], e = s[1];
  SmallVector<OpFoldResult> trailing;
  if (!layout.scalarGate)
    trailing.push_back(tensor::getMixedSize(b, loc, dF, batch));
  Value init = zerosWithBatchOf(b, loc, dF, batch, trailing);
  return buildGeneric(
      b, loc, {dF, finalState}, init,
      {s.map({a, e}), s.map({a, e}),
       layout.scalarGate ? s.map({}) : s.map({a})},
      s.iterators(), multiplyAccumulate);
}

static Value presum(OpBuilder &b, Location loc, Value x, int64_t seq,
                    bool exclusive, bool reverse) {
  return PresumOp::create(b, loc, x.getType(), x, /*decay=*/Value(), /*offsets=*/Value(),
                          b.getI64IntegerAttr(seq),
                          exclusive ? b.getUnitAttr() : UnitAttr(),
                          reverse ? b.getUnitAttr() : UnitAttr(), FormAttr());
}

/// The gate's cotangent, for rows t >= j: `sum_(r >= t) (q_r dq_r - k_r
/// dk_r) + <dF, F>` (the last term added at the last row, before the
/// reverse presum). The rows t < j (their queries read S_(j-1)) get the
/// same sum with every `q_r dq_r` counted, which is `<dS0, S0> + sum_(r < t)
/// k_r dk_r`: written that way, since the long form cancels down to it
/// (under `none`, the S0 term, exp(B_L) S0, is all that is left at t = 0).
static Value gateCotangent(OpBuilder &b, Location loc, const GateLayout &layout,
                           Value q, Value dq, Value k, Value dk, Value dF,
                           Value finalState, Value dS0, Value s0, Value j,
                           bool hasPrefix) {
  int64_t seq = layout.seq();
  Value seen = rowProducts(b, loc, layout, q, dq);
  Value kept = rowProducts(b, loc, layout, k, dk);
  auto type = cast<RankedTensorType>(seen.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  AffineMap everyRow = identity.dropResult(seq);
  SmallVector<utils::IteratorType> parallel(type.getRank(), kPar);
  auto emptyLike = [&]() -> Value {
    return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, seen),
                                   b.getF32Type());
  };

  // q dq - k dk per row, <dF, F> added at the last.
  SmallVector<Value> inputs{seen, kept};
  SmallVector<AffineMap> maps{identity, identity, identity};
  Value last;
  if (dF) {
    inputs.push_back(stateProduct(b, loc, layout, dF, finalState));
    maps.insert(maps.begin() + 2, everyRow);
    last = arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, seen, seq),
                                 arith::ConstantIndexOp::create(b, loc, 1));
  }
  Value difference = buildGeneric(
      b, loc, inputs, emptyLike(), maps, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value d = arith::SubFOp::create(nb, l, args[0], args[1]);
        if (!last)
          return d;
        Value atLast = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq,
            linalg::IndexOp::create(nb, l, seq), last);
        return arith::SelectOp::create(
            nb, l, atLast, arith::AddFOp::create(nb, l, d, args[2]), d);
      });
  Value after = presum(b, loc, difference, seq, /*exclusive=*/false,
                       /*reverse=*/true);
  if (!hasPrefix)
    return after;

  // The rows before j: the prefix sums of k dk, plus <dS0, S0>.
  inputs = {after, presum(b, loc, kept, seq, /*exclusive=*/true, false)};
  maps = {identity, identity};
  if (s0) {
    inputs.push_back(stateProduct(b, loc, layout, dS0, s0));
    maps.push_back(everyRow);
  }
  maps.push_back(identity);
  bool withInitial = static_cast<bool>(s0);
  return buildGeneric(
      b, loc, inputs, emptyLike(), maps, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value before = args[1];
        if (withInitial)
          before = arith::AddFOp::create(nb, l, before, args[2]);
        Value t = linalg::IndexOp::create(nb, l, seq);
        Value isBefore =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, t, j);
        return arith::SelectOp::create(nb, l, isBefore, before, args[0]);
      });
}

Value mlir::linea::causalGateCotangent(OpBuilder &b, Location loc,
                                       bool scalarGate, Value q, Value dq,
                                       Value k, Value dk, Value dF,
                                       Value finalState) {
  GateLayout layout{numBatchDims(cast<ShapedType>(q.getType())), scalarGate};
  return gateCotangent(b, loc, layout, q, dq, k, dk, dF, finalState,
                       /*dS0=*/Value(), /*s0=*/Value(), /*j=*/Value(),
                       /*hasPrefix=*/false);
}

/// The location of the ops computing the backward's `what` (dq, dk) of
/// `op`: its kernels named `<family>_backward_<what>` (`gla_backward_dq`),
/// carrying a 16-bit op's element type, so that under `precision=auto`
/// the chunked reads' contractions take its tensor cores as the forward's
/// chunks do (their f32 operands rounded to it, the states and decayed
/// rows alike).
static Location backwardStageLoc(Operation *op, StringRef what) {
  return kernelStageLoc(op, ("backward_" + what).str());
}

/// The shared memory of one block of the GPU the gradient of `op` is for:
/// the planned GPU's, else the default chip's (a gradient is made before
/// its module is planned).
static int64_t blockSharedMemory(Operation *op) {
  TargetAttr planned = plannedTarget(op);
  if (planned && planned.getKind() == TargetKind::gpu)
    return planned.getDescription().sharedMemoryPerBlock;
  return TargetDescription::get(TargetKind::gpu).sharedMemoryPerBlock;
}

/// j: the rows that read the state after the prefix (0 for causal, L for
/// none, the clamped prefix length otherwise).
static Value prefixRows(OpBuilder &b, Location loc,
                        LinearAttentionOpInterface op,
                        const LinearAttentionSpec &spec, Value length) {
  switch (op.getEffectiveMask()) {
  case Mask::causal:
    return arith::ConstantIndexOp::create(b, loc, 0);
  case Mask::none:
    return length;
  case Mask::prefix:
    break;
  }
  if (spec.prefixIndex)
    return clampPrefixLength(b, loc, spec.prefixIndex, length);
  return arith::ConstantIndexOp::create(b, loc, *spec.prefixLength);
}

LogicalResult mlir::linea::emitGatedRecurrenceAdjoint(GatedLinearAttentionOp op,
                                                      OpBuilder &b,
                                                      Cotangents &ct) {
  auto iface = cast<LinearAttentionOpInterface>(op.getOperation());
  LinearAttentionSpec spec = iface.getSpec();
  Location loc = op.getLoc();
  Value q = castToF32(b, loc, spec.query), k = castToF32(b, loc, spec.key);
  Value v = castToF32(b, loc, spec.value), g = castToF32(b, loc, spec.gate);
  Value s0 = spec.initialState ? castToF32(b, loc, spec.initialState) : Value();
  int64_t batch = numBatchDims(cast<ShapedType>(q.getType()));
  GateLayout layout{batch,
                    cast<RankedTensorType>(g.getType()).getRank() == batch + 1};
  int64_t seq = layout.seq();
  Value length = tensor::DimOp::create(b, loc, q, seq);
  Value j = prefixRows(b, loc, iface, spec, length);
  std::optional<int64_t> staticJ = getConstantIntValue(j);
  bool hasPrefix = !staticJ || *staticJ > 0;
  auto prefixOf = [&](Value x) {
    return sliceAlong(b, loc, x, seq, b.getIndexAttr(0), j);
  };
  Value dO = scaleAndCast(
      b, loc, castToF32(b, loc, ct.lookupOrZeros(b, loc, op.getOutput())),
      spec.scale, b.getF32Type());
  Value dF = op.getFinalState() ? ct.lookup(op.getFinalState()) : Value();
  if (dF)
    dF = castToF32(b, loc, dF);
  auto zeroRows = [&](Value like) {
    return zerosWithBatchOf(b, loc, q, batch,
                            {tensor::getMixedSize(b, loc, q, seq),
                             tensor::getMixedSize(b, loc, like, batch + 1)});
  };
  Value zeroState = zerosWithBatchOf(
      b, loc, q, batch,
      {tensor::getMixedSize(b, loc, q, batch + 1),
       tensor::getMixedSize(b, loc, v, batch + 1)});

  // The rows from j on each read a state of their own; under `none` there
  // are none.
  bool rowsAfter =
      iface.getEffectiveMask() != Mask::none &&
      !(staticJ &&
        *staticJ == cast<RankedTensorType>(q.getType()).getDimSize(seq));

  // dq: S_(j-1) for the rows before j, then S_t from it. dk, dv: G_t from
  // the end down to j (the decays moved one step back), then G_(j-1),
  // which every earlier row reads decayed.
  Value state = s0;
  Value dq = zeroRows(q);
  if (hasPrefix) {
    state = gatedStateUpdate(b, loc, batch, prefixOf(k), prefixOf(v),
                             prefixOf(g), s0 ? s0 : zeroState,
                             layout.scalarGate, /*stateIsZero=*/!s0);
    dq = insertAlong(b, loc,
                     readState(b, loc, layout, state, prefixOf(dO),
                               ReadSide::value),
                     dq, seq, b.getIndexAttr(0));
  }
  Value dk = zeroRows(k), dv = zeroRows(v);
  Value cotangent = dF ? dF : zeroState;
  auto nextGates = [&] {
    return shiftAlong(b, loc, g, seq, /*towardEnd=*/false);
  };
  if (rowsAfter && ct.target() == TargetKind::gpu) {
    int64_t sharedMemory = blockSharedMemory(op);
    AffineExpr rows, first;
    bindSymbols(b.getContext(), rows, first);
    OpFoldResult rest = affine::makeComposedFoldedAffineApply(
        b, loc, rows - first, {tensor::getMixedSize(b, loc, q, seq), j});
    auto restOf = [&](Value x) { return sliceAlong(b, loc, x, seq, j, rest); };
    dq = insertAlong(b, loc,
                     chunkedValueSideReads(
                         b, backwardStageLoc(op, "dq"), layout, restOf(dO),
                         restOf(v), restOf(k), restOf(g), state, sharedMemory),
                     dq, seq, j);
    auto reversedRest = [&](Value x) {
      return reverseAlong(b, loc, restOf(x), seq);
    };
    Value rq = reversedRest(q), rdO = reversedRest(dO);
    Value rGate = reversedRest(nextGates());
    Value rdk = chunkedValueSideReads(b, backwardStageLoc(op, "dk"), layout,
                                      reversedRest(v), rdO, rq, rGate, dF,
                                      sharedMemory);
    // dv reads the same states on their key side: a gated op, in a 16-bit
    // op's own type (q, k and the gates are its values; the cotangent is
    // rounded to it, as the forward rounds its operands), so that its
    // chunks take the tensor cores the forward's take.
    Type opType = getElementTypeOrSelf(spec.query);
    auto inOpType = [&](Value x) { return castFromF32(b, loc, x, opType); };
    auto [rdv, atJ] =
        causalOpLike(iface, b, loc, inOpType(reversedRest(k)), inOpType(rq),
                     inOpType(rdO), dF, inOpType(rGate));
    rdv = castToF32(b, loc, rdv);
    dk = insertAlong(b, loc, reverseAlong(b, loc, rdk, seq), dk, seq, j);
    dv = insertAlong(b, loc, reverseAlong(b, loc, rdv, seq), dv, seq, j);
    cotangent = atJ;
  } else if (rowsAfter) {
    SmallVector<Value> forwardReads{dq};
    scanTokens(b, loc, layout, k, v, g, state ? state : zeroState, j,
               /*reverse=*/false, {{dO, ReadSide::value}}, forwardReads);
    dq = forwardReads[0];
    SmallVector<Value> backwardReads{dk, dv};
    cotangent =
        scanTokens(b, loc, layout, q, dO, nextGates(), cotangent, j,
                   /*reverse=*/true, {{v, ReadSide::value}, {k, ReadSide::key}},
                   backwardReads);
    dk = backwardReads[0];
    dv = backwardReads[1];
  }
  // g_j, or 0 at j = L.
  Value paddedGate = appendZeroStep(b, loc, g, seq);
  cotangent =
      decayState(b, loc, batch, cotangent,
                 stepAlong(b, loc, paddedGate, seq, j), layout.scalarGate);
  Value dS0 = cotangent;
  if (hasPrefix) {
    cotangent = transposedMatmulAccumulate(b, loc, batch, prefixOf(q),
                                           prefixOf(dO), cotangent);
    Value toEnd = gatePresum(b, loc, prefixOf(g), seq, /*suffix=*/true);
    Value dkBefore = decayRows(
        b, loc, batch,
        readState(b, loc, layout, cotangent, prefixOf(v), ReadSide::value),
        toEnd, layout.scalarGate);
    Value dvBefore =
        readState(b, loc, layout, cotangent,
                  decayRows(b, loc, batch, prefixOf(k), toEnd, layout.scalarGate),
                  ReadSide::key);
    dk = insertAlong(b, loc, dkBefore, dk, seq, b.getIndexAttr(0));
    dv = insertAlong(b, loc, dvBefore, dv, seq, b.getIndexAttr(0));
    dS0 = decayState(b, loc, batch, cotangent,
                     sumOverSequence(b, loc, batch, prefixOf(g),
                                     layout.scalarGate),
                     layout.scalarGate);
  }

  auto give = [&](Value primal, Value d) {
    ct.accumulate(b, loc, primal, castFromF32(b, loc, d,
                                              getElementTypeOrSelf(primal)));
  };
  give(spec.query, dq);
  give(spec.key, dk);
  give(spec.value, dv);
  if (s0)
    give(spec.initialState, dS0);
  if (ct.isActive(spec.gate)) {
    Value finalState = dF ? castToF32(b, loc, op.getFinalState()) : Value();
    give(spec.gate, gateCotangent(b, loc, layout, q, dq, k, dk, dF,
                                  finalState, dS0, s0, j, hasPrefix));
  }
  return success();
}
