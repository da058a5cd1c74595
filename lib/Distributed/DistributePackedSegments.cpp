//===- DistributePackedSegments.cpp - packed segments across ranks --------===//
//
// The rules for packed ops, whose rows are segments of several sequences
// (`offsets`): linear attention, with per-segment prefixes or not, and
// presum.
//
// The offsets are global (every rank has them all). On a rank, each
// segment keeps the rows it has there: `clamp(o_n - first row, 0, rows)`
// are this rank's offsets, with a segment that has no rows here empty. So
// every rank runs the same N segments, and a segment's state passes from
// rank to rank exactly as an unpacked sequence's does; one that lies on
// one rank only receives nothing (the ranks before it add zero states).
//
//===----------------------------------------------------------------------===//

#include "DistributedUtils.h"

#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::linea::distributed {
namespace {

/// `sum` of `x` over each segment's rows here, along the sequence dim
/// `seq`: `[N, x's other dims]`, zero for a segment with no rows here. The
/// last row of each segment's inclusive packed presum, read from the presum
/// with a zero row in front (which an empty segment reads).
Value segmentTotals(OpBuilder &b, Location loc, Value x, Value offsets,
                    int64_t seq) {
  auto type = cast<RankedTensorType>(x.getType());
  Value scanned = PresumOp::create(
      b, loc, type, x, /*decay=*/Value(), offsets, b.getI64IntegerAttr(seq),
      /*exclusive=*/nullptr, /*reverse=*/nullptr, /*form=*/nullptr);
  SmallVector<OpFoldResult> padded = tensor::getMixedSizes(b, loc, x);
  padded[seq] = addSizes(b, loc, padded[seq], b.getIndexAttr(1));
  Value withZeroRow = buildFilled(b, loc, padded, b.getF32Type(), 0.0);
  withZeroRow =
      insertAlong(b, loc, scanned, withZeroRow, seq, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.erase(sizes.begin() + seq);
  sizes.insert(sizes.begin(), segmentCount(b, loc, offsets));
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  int64_t rank = sizes.size();
  MLIRContext *ctx = b.getContext();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return buildGeneric(
      b, loc, ValueRange{}, init,
      {AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, kPar),
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value n = linalg::IndexOp::create(nb, l, 0);
        Value start = segmentOffset(nb, l, offsets, n);
        Value end =
            segmentOffset(nb, l, offsets, arith::AddIOp::create(nb, l, n, one));
        Value nonEmpty =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, end, start);
        SmallVector<Value> at;
        for (int64_t d = 1; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        at.insert(at.begin() + seq,
                  arith::SelectOp::create(nb, l, nonEmpty, end, zero));
        return tensor::ExtractOp::create(nb, l, withZeroRow, at);
      });
}

/// One rank's step of a fold over per-segment states `[N, B..., Dk, Dv]`,
/// segment by segment as for one sequence (the segment dim is one more
/// batch dim of the states): decayed by the rank's log-decay sums (part
/// `logAt` of its record, with a gate), plus what its rows add (part
/// `stateAt`).
struct SegmentStatesStep {
  const Records &records;
  int64_t numBatch;
  bool scalarGate;
  unsigned stateAt;
  std::optional<unsigned> logAt;

  Value operator()(OpBuilder &b, Location loc, Value state, Value rank) const {
    if (logAt)
      state = decayState(b, loc, numBatch + 1, state,
                         records.read(b, loc, rank, *logAt), scalarGate);
    return addInto(b, loc, state, records.read(b, loc, rank, stateAt));
  }
};

/// `op` on this rank's rows as a packed op over `offsets` with `mask`, on
/// its prepared f32 operands `all`, from `initial` (null: zero states):
/// the unscaled rows and the final states `[N, B..., Dk, Dv]` (Dv with the
/// normalizer's column).
ResultRange runPackedHere(OpBuilder &b, Location loc,
                          LinearAttentionOpInterface op,
                          const FormOperands &all, Value offsets, Mask mask,
                          Value initial) {
  auto qType = cast<RankedTensorType>(all.q.getType());
  auto vType = cast<RankedTensorType>(all.v.getType());
  SmallVector<int64_t> rowsShape(qType.getShape());
  rowsShape.back() = vType.getShape().back();
  SmallVector<int64_t> stateShape{ShapedType::kDynamic};
  llvm::append_range(stateShape, qType.getShape().drop_back(2));
  stateShape.push_back(qType.getShape().back());
  stateShape.push_back(vType.getShape().back());
  LinearAttentionSpec spec;
  spec.query = all.q, spec.key = all.k, spec.value = all.v, spec.gate = all.g;
  spec.initialState = initial;
  spec.offsets = offsets;
  spec.mask = mask;
  spec.outputType = RankedTensorType::get(rowsShape, b.getF32Type());
  spec.finalStateType = RankedTensorType::get(stateShape, b.getF32Type());
  return op.createLike(b, loc, spec)->getResults();
}

/// The op's final-states result from the folded states: the normalizer's
/// column dropped, cast to the result's type.
Value finalStatesResult(OpBuilder &b, Location loc,
                        LinearAttentionOpInterface op, Value states) {
  if (op.getNormalize()) {
    auto type = cast<RankedTensorType>(states.getType());
    states = sliceAlong(b, loc, states, type.getRank() - 1, b.getIndexAttr(0),
                        b.getIndexAttr(type.getShape().back() - 1));
  }
  Type type = op.getFinalState().getType();
  return states.getType() == type
             ? states
             : tensor::CastOp::create(b, loc, type, states).getResult();
}

/// This rank's bounds of each segment's prefix and of its rest, interleaved
/// (`tensor<2N+1 x index>`): entries 2n and 2n + 1 are where segment n and
/// the rows after its prefix start here, the last is `rows`. So segment 2n
/// of these offsets is segment n's prefix rows here, segment 2n + 1 the
/// rest. `prefixLengths` null: every row is in the prefix (mask none).
Value localPrefixBounds(OpBuilder &b, Location loc, Value offsets,
                        Value prefixLengths, Value first, Value rows) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value segments =
      getValueOrCreateConstantIndexOp(b, loc, segmentCount(b, loc, offsets));
  Value count = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, segments, two), one);
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                       b.getIndexType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  return buildGeneric(
      b, loc, ValueRange{}, init, {identity}, {kPar},
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Value m = linalg::IndexOp::create(nb, l, 0);
        Value n = arith::DivUIOp::create(nb, l, m, two);
        Value isPrefixEnd =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                  arith::RemUIOp::create(nb, l, m, two), one);
        // The prefix's end is read only for odd m (n < N), through an
        // scf.if: an even m may be 2N, past the lengths.
        auto global = scf::IfOp::create(
            nb, l, isPrefixEnd,
            [&](OpBuilder &tb, Location tl) {
              Value end =
                  prefixLengths
                      ? arith::AddIOp::create(
                            tb, tl, segmentOffset(tb, tl, offsets, n),
                            segmentOffset(tb, tl, prefixLengths, n))
                            .getResult()
                      : segmentOffset(tb, tl, offsets,
                                      arith::AddIOp::create(tb, tl, n, one));
              scf::YieldOp::create(tb, tl, end);
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, segmentOffset(eb, el, offsets, n));
            });
        Value here = arith::SubIOp::create(nb, l, global.getResult(0), first);
        here = arith::MaxSIOp::create(nb, l, here, zero);
        return arith::MinSIOp::create(nb, l, here, rows);
      });
}

/// Entries 2n + `parity` of `[2N, X...]`: `[N, X...]`.
Value everyOther(OpBuilder &b, Location loc, Value x, int64_t parity) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[0] = b.getIndexAttr(parity);
  strides[0] = b.getIndexAttr(2);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  sizes[0] =
      arith::DivUIOp::create(b, loc, index(b, loc, sizes[0]), two).getResult();
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

/// `[2N, X...]` with entry 2n + 1 from `odd[n]` and the even ones zero.
Value interleaveAfterZeros(OpBuilder &b, Location loc, Value odd) {
  auto type = cast<RankedTensorType>(odd.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, odd);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  sizes[0] =
      arith::MulIOp::create(b, loc, index(b, loc, sizes[0]), two).getResult();
  Value all = buildFilled(b, loc, sizes, b.getF32Type(), 0.0);
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[0] = b.getIndexAttr(1);
  strides[0] = b.getIndexAttr(2);
  return tensor::InsertSliceOp::create(
      b, loc, odd, all, offsets, tensor::getMixedSizes(b, loc, odd), strides);
}

/// `rows` with each segment n's prefix rows here (`[bounds[2n],
/// bounds[2n+1])`) replaced by `q` of those rows times `states[n]`: a
/// prefix row reads its segment's state after the whole prefix.
Value prefixRowsFromStates(OpBuilder &b, Location loc, int64_t numBatch,
                           Value q, Value states, Value bounds, Value rows) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value segments = tensor::DimOp::create(b, loc, states, 0);
  auto loop = scf::ForOp::create(
      b, loc, zero, segments, one, ValueRange{rows},
      [&](OpBuilder &nb, Location l, Value n, ValueRange iter) {
        Value at = arith::MulIOp::create(nb, l, n, two);
        Value start = segmentOffset(nb, l, bounds, at);
        Value end =
            segmentOffset(nb, l, bounds, arith::AddIOp::create(nb, l, at, one));
        Value size = arith::SubIOp::create(nb, l, end, start);
        Value prefixRows = queryTimesState(
            nb, l, numBatch, sliceAlong(nb, l, q, numBatch, start, size),
            segmentEntry(nb, l, states, n));
        scf::YieldOp::create(
            nb, l, insertAlong(nb, l, prefixRows, iter[0], numBatch, start));
      });
  return loop.getResult(0);
}

/// This rank's rows of `op`'s packed sequences `x` (along `dim`) and where
/// they lie among all ranks' rows, the global segment `offsets` checked
/// against the total at run time.
std::pair<Value, RowSpan> packedRowsHere(OpBuilder &b, Location loc,
                                         ModuleOp module, const Ranks &ranks,
                                         Operation *op, Value offsets, Value x,
                                         int64_t dim) {
  Value rows = tensor::DimOp::create(b, loc, x, dim);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  checkGlobalOffsets(b, loc, op, offsets, span.total);
  return {rows, span};
}

/// A packed op whose rows read their segment's state after its prefix
/// (per-segment prefix lengths; mask none with a gate, where the prefix is
/// the whole segment). On this rank each segment n is two segments, its
/// prefix rows here and the rest (localPrefixBounds), run as one causal
/// packed op from zero states: their final states and log-decay sums are
/// the rank's record. After one all-gather each segment's prefix state is
/// the fold of every rank's prefix parts onto its initial state, and the
/// rest continues from it through the ranks before this one, as an
/// unpacked sequence does. The rest's rows are the causal op run again from
/// those states; a prefix row is `q` times its segment's prefix state.
FailureOr<SmallVector<Value>>
distributePackedPrefixes(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                         LinearAttentionOpInterface op) {
  Location loc = op.getLoc();
  int64_t numBatch = numBatchDims(op.getQuery().getType());
  bool scalarGate = op.getGate() && op.hasScalarGate();
  FormOperands all = prepareOperands(b, loc, op);
  Value rows;
  RowSpan span;
  std::tie(rows, span) = packedRowsHere(b, loc, module, ranks, op,
                                        op.getOffsets(), all.q, numBatch);
  Value prefixLengths =
      op.getEffectiveMask() == Mask::prefix ? op.getPrefixIndex() : Value();
  if (prefixLengths)
    checkSegmentPrefixLengths(
        b, loc,
        checkMessageAt(op->getLoc(), op->getName().getStringRef().str() + ": "),
        prefixLengths, op.getOffsets());
  Value bounds = localPrefixBounds(b, loc, op.getOffsets(), prefixLengths,
                                   span.offset, rows);

  auto runCausal = [&](Value initial) {
    return runPackedHere(b, loc, op, all, bounds, Mask::causal, initial);
  };
  Value contribution = runCausal(Value())[1];

  Records records;
  unsigned prefixAt = records.add(everyOther(b, loc, contribution, 0));
  unsigned restAt = records.add(everyOther(b, loc, contribution, 1));
  std::optional<unsigned> prefixLogAt, restLogAt;
  if (all.g) {
    Value logs = segmentTotals(b, loc, all.g, bounds, numBatch);
    prefixLogAt = records.add(everyOther(b, loc, logs, 0));
    restLogAt = records.add(everyOther(b, loc, logs, 1));
  }
  records.gather(b, loc, module, ranks.size);

  auto stepOver = [&](unsigned stateAt, std::optional<unsigned> logAt) {
    return SegmentStatesStep{records, numBatch, scalarGate, stateAt, logAt};
  };
  Value mine = records.read(b, loc, ranks.rank, prefixAt);
  Value initial = op.getInitialState();
  initial =
      initial
          ? tensor::CastOp::create(b, loc, mine.getType(), initial).getResult()
          : buildFilled(b, loc, tensor::getMixedSizes(b, loc, mine),
                        b.getF32Type(), 0.0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value prefixState = foldOverRanks(b, loc, zero, ranks.size, initial,
                                    stepOver(prefixAt, prefixLogAt));
  Value restHere = foldOverRanks(b, loc, zero, ranks.rank, prefixState,
                                 stepOver(restAt, restLogAt));
  Value finalState = foldOverRanks(b, loc, ranks.rank, ranks.size, restHere,
                                   stepOver(restAt, restLogAt));

  Value restRows = runCausal(interleaveAfterZeros(b, loc, restHere))[0];
  Value out = prefixRowsFromStates(b, loc, numBatch, all.q, prefixState, bounds,
                                   restRows);
  SmallVector<Value> results{finishRows(b, loc, op, out)};
  if (op.getFinalState())
    results.push_back(finalStatesResult(b, loc, op, finalState));
  return results;
}

/// Each segment's initial state where this rank is the one that adds it:
/// the rank whose rows hold `o_n` (the last rank for `o_n = L`, so an empty
/// segment at the end has one too), zeros elsewhere. The owner's run then
/// carries the initial state into its record, and every rank's fold starts
/// from zeros.
Value ownedInitialStates(OpBuilder &b, Location loc, Value initial,
                         Value offsets, Value first, Value rows,
                         const Ranks &ranks) {
  auto type = cast<RankedTensorType>(initial.getType());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ranks.rank,
                            arith::SubIOp::create(b, loc, ranks.size, one));
  Value end = arith::AddIOp::create(b, loc, first, rows);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  return buildGeneric(
      b, loc, ValueRange{initial},
      buildEmptyLike(b, loc, initial, b.getF32Type()), {identity, identity},
      SmallVector<utils::IteratorType>(type.getRank(), kPar),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value n = linalg::IndexOp::create(nb, l, 0);
        Value start = segmentOffset(nb, l, offsets, n);
        Value here = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sle, first,
                                  start),
            arith::OrIOp::create(
                nb, l, last,
                arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, start,
                                      end)));
        Value state = args[0];
        if (state.getType() != nb.getF32Type())
          state = arith::ExtFOp::create(nb, l, nb.getF32Type(), state);
        Value zero = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(0.0f));
        return arith::SelectOp::create(nb, l, here, state, zero);
      });
}

} // namespace

/// A packed linear-attention op (causal, or bidirectional without a gate)
/// on this rank's rows, run once: from each segment's initial state where
/// this rank owns it (ownedInitialStates), else zeros, which gives each
/// segment's record here. After one all-gather, each segment's state from
/// the other ranks moves its rows here (the output is linear in the state):
/// under `causal` the state from the ranks before (only the segment that
/// continues into this rank has one), under `none` the state of all the
/// other ranks' rows (the segments that start before or end after this
/// rank). Segments that lie on this rank alone are left as run. Per-segment
/// prefixes and a gated op with mask `none` take distributePackedPrefixes.
FailureOr<SmallVector<Value>>
distributePackedAttention(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                          LinearAttentionOpInterface op) {
  Location loc = op.getLoc();
  Mask mask = op.getEffectiveMask();
  if (mask == Mask::prefix || (mask == Mask::none && op.getGate()))
    return distributePackedPrefixes(b, module, ranks, op);
  int64_t numBatch = numBatchDims(op.getQuery().getType());
  bool scalarGate = op.getGate() && op.hasScalarGate();
  FormOperands all = prepareOperands(b, loc, op);
  Value rows;
  RowSpan span;
  std::tie(rows, span) = packedRowsHere(b, loc, module, ranks, op,
                                        op.getOffsets(), all.q, numBatch);
  Value offsets = localOffsets(b, loc, op.getOffsets(), span.offset, rows);

  Value initial = op.getInitialState();
  if (initial)
    initial = ownedInitialStates(b, loc, initial, op.getOffsets(), span.offset,
                                 rows, ranks);
  ResultRange here = runPackedHere(b, loc, op, all, offsets, mask, initial);
  Value rowsHere = here[0], contribution = here[1];

  Records records;
  unsigned stateAt = records.add(contribution);
  std::optional<unsigned> logAt;
  if (all.g)
    logAt = records.add(segmentTotals(b, loc, all.g, offsets, numBatch));
  records.gather(b, loc, module, ranks.size);

  Value zeros = buildFilled(b, loc, tensor::getMixedSizes(b, loc, contribution),
                            b.getF32Type(), 0.0);
  SegmentStatesStep step{records, numBatch, scalarGate, stateAt, logAt};
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value before = foldOverRanks(b, loc, zero, ranks.rank, zeros, step);
  Value fromOthers = before, finalState;
  if (mask == Mask::none) {
    // Every row sees its segment's whole state: the other ranks' rows too.
    Value next = arith::AddIOp::create(b, loc, ranks.rank, one);
    fromOthers = foldOverRanks(b, loc, next, ranks.size, before, step);
    finalState =
        addInto(b, loc, fromOthers, records.read(b, loc, ranks.rank, stateAt));
  } else {
    finalState = foldOverRanks(b, loc, ranks.rank, ranks.size, before, step);
  }

  // Only a segment that spans ranks has a state from the others: one that
  // starts before this rank (causal), or also goes on after it (none). The
  // loop moves none of the other segments' rows (a count of 0).
  Value end = arith::AddIOp::create(b, loc, span.offset, rows);
  auto spansRanks = [&](OpBuilder &nb, Location l, Value n) -> Value {
    Value start = segmentOffset(nb, l, op.getOffsets(), n);
    Value startsBefore = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                               start, span.offset);
    if (mask != Mask::none)
      return startsBefore;
    Value next = segmentOffset(nb, l, op.getOffsets(),
                               arith::AddIOp::create(nb, l, n, one));
    return arith::OrIOp::create(
        nb, l, startsBefore,
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, next, end));
  };
  SmallVector<Value> sequences{all.q, rowsHere};
  if (all.g)
    sequences.push_back(all.g);
  Value moved =
      buildSegmentLoop(
          b, loc, offsets, sequences, numBatch,
          ValueRange{buildEmptyLike(b, loc, rowsHere)}, /*entryOutputs=*/{},
          [&](OpBuilder &nb, Location l, const Segment &segment) {
            Value count = arith::SelectOp::create(
                nb, l, spansRanks(nb, l, segment.index), segment.size, zero);
            auto part = [&](Value x) {
              return x ? sliceAlong(nb, l, x, numBatch, nb.getIndexAttr(0),
                                    count)
                       : x;
            };
            ArrayRef<Value> slices = segment.slices;
            Value state = segmentEntry(nb, l, fromOthers, segment.index);
            Value movedRows = rowsFromState(nb, l, numBatch, part(slices[0]),
                                            part(all.g ? slices[2] : Value()),
                                            scalarGate, state, part(slices[1]));
            return SmallVector<Value>{insertAlong(nb, l, movedRows, slices[1],
                                                  numBatch, nb.getIndexAttr(0),
                                                  count)};
          })
          .front();
  SmallVector<Value> results{finishRows(b, loc, op, moved)};
  if (op.getFinalState())
    results.push_back(finalStatesResult(b, loc, op, finalState));
  return results;
}

namespace {

/// `rows` of `x` along `dim` (from `start`, `size` many) plus `carry` (x's
/// shape without `dim`), written back into `x`.
Value addToRows(OpBuilder &b, Location loc, Value x, int64_t dim, Value start,
                Value size, Value carry) {
  Value part = sliceAlong(b, loc, x, dim, start, size);
  auto type = cast<RankedTensorType>(part.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      kept.push_back(getAffineDimExpr(d, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value sum =
      buildGeneric(b, loc, ValueRange{carry}, part,
                   {AffineMap::get(rank, 0, kept, ctx), identity},
                   SmallVector<utils::IteratorType>(rank, kPar),
                   [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                     Value c = args[0];
                     if (c.getType() != args[1].getType())
                       c = arith::TruncFOp::create(nb, l, args[1].getType(), c);
                     return arith::AddFOp::create(nb, l, args[1], c);
                   });
  return insertAlong(b, loc, sum, x, dim, start);
}

} // namespace

/// A packed presum on this rank's rows: the local segmented scan, then the
/// one segment that continues into this rank from the ranks before (after,
/// reversed) gains their totals of it. Every other segment starts (ends)
/// here, and the totals of it elsewhere are zero.
Value distributePackedPresum(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                             PresumOp presum) {
  Location loc = presum.getLoc();
  Value x = presum.getInput();
  int64_t dim = presum.getScanDim();
  bool reverse = presum.getReverse();
  Value rows;
  RowSpan span;
  std::tie(rows, span) = packedRowsHere(b, loc, module, ranks, presum,
                                        presum.getOffsets(), x, dim);
  Value offsets = localOffsets(b, loc, presum.getOffsets(), span.offset, rows);
  Value scanned = PresumOp::create(
      b, loc, x.getType(), x, /*decay=*/Value(), offsets, presum.getDimAttr(),
      presum.getExclusiveAttr(), presum.getReverseAttr(), presum.getFormAttr());

  Records records;
  unsigned totals =
      records.add(segmentTotals(b, loc, castToF32(b, loc, x), offsets, dim));
  records.gather(b, loc, module, ranks.size);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value mine = records.read(b, loc, ranks.rank, totals);
  Value none = buildFilled(b, loc, tensor::getMixedSizes(b, loc, mine),
                           b.getF32Type(), 0.0);
  Value lo = reverse
                 ? arith::AddIOp::create(b, loc, ranks.rank, one).getResult()
                 : zero;
  Value hi = reverse ? ranks.size : ranks.rank;
  Value carry = foldOverRanks(
      b, loc, lo, hi, none,
      [&](OpBuilder &nb, Location l, Value sum, Value rank) {
        return addInto(nb, l, sum, records.read(nb, l, rank, totals));
      });

  // The continuing segment n and its rows here: forward, the first with
  // rows here (the number of segments ending at row 0); reversed, the last
  // (the number starting before the end, less one).
  Value segments =
      getValueOrCreateConstantIndexOp(b, loc, segmentCount(b, loc, offsets));
  auto count = scf::ForOp::create(
      b, loc, zero, segments, one, ValueRange{zero},
      [&](OpBuilder &nb, Location l, Value n, ValueRange counted) {
        Value at = reverse ? n : arith::AddIOp::create(nb, l, n, one);
        Value o = segmentOffset(nb, l, offsets, at);
        Value counts = reverse ? arith::CmpIOp::create(
                                     nb, l, arith::CmpIPredicate::slt, o, rows)
                               : arith::CmpIOp::create(
                                     nb, l, arith::CmpIPredicate::eq, o, zero);
        Value next = arith::AddIOp::create(
            nb, l, counted[0],
            arith::SelectOp::create(nb, l, counts, one, zero));
        scf::YieldOp::create(nb, l, ValueRange{next});
      });
  Value n =
      reverse
          ? arith::SubIOp::create(b, loc, count.getResult(0), one).getResult()
          : count.getResult(0);
  // No rows here, or no segments: nothing to add.
  Value applies = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rows, zero),
      arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n, zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n,
                                segments)));
  auto result = scf::IfOp::create(
      b, loc, applies,
      [&](OpBuilder &nb, Location l) {
        Value start = segmentOffset(nb, l, offsets, n);
        Value end =
            segmentOffset(nb, l, offsets, arith::AddIOp::create(nb, l, n, one));
        Value size = arith::SubIOp::create(nb, l, end, start);
        Value ofN = stepAlong(nb, l, carry, 0, n);
        scf::YieldOp::create(nb, l,
                             addToRows(nb, l, scanned, dim, start, size, ofN));
      },
      [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, scanned); });
  return result.getResult(0);
}

} // namespace mlir::linea::distributed
