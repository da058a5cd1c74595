//===- SequenceParallel.cpp - one sequence across the ranks of MPI --------===//
//
// Linear attention needs from the rows before a rank only their state, a
// `Dk x Dv` matrix, so a sequence split across ranks exchanges states, never
// activations. Each rank runs its rows as ordinary Linea ops from a zero
// state (the optimizer picks their forms as for any other op); their final
// states, and for a gate the sums of their log-decays, are the rank's
// record. One all-gather shares the records, and every rank folds those of
// the ranks before it onto the initial state: an exclusive scan over ranks
// (seed 000 again, one level up). The output is linear in the state, so
// `Q S` (decayed, with a gate) then moves the rows onto the state they
// really start from. Row-local ops around the Linea ops (projections,
// elementwise maps) are split along with them.
//
//===----------------------------------------------------------------------===//

#include "linea/Distributed/Passes.h"
#include "linea/Distributed/RankCollectives.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/FormUtils.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASEQUENCEPARALLEL
#include "linea/Distributed/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The values of a function that hold only this rank's rows, and the dim
/// those rows run along. Everything else is the same on every rank.
using ShardedDims = llvm::DenseMap<Value, int64_t>;

/// The dim along which `op` reads `operand` as a sequence, if it does.
std::optional<int64_t> sequenceDimOf(Operation *op, Value operand) {
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(op)) {
    // q, k, v and the gate (per dim or scalar) all have L after the batch.
    if (operand == attention.getQuery() || operand == attention.getKey() ||
        operand == attention.getValue() || operand == attention.getGate())
      return numBatchDims(attention.getQuery().getType());
    return std::nullopt;
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    if (operand == attention.getQuery() || operand == attention.getKey() ||
        operand == attention.getValue())
      return numBatchDims(attention.getQuery().getType());
    return std::nullopt;
  }
  // (Offsets are positions in the whole sequence: every rank has them all.)
  if (auto presum = dyn_cast<PresumOp>(op);
      presum && operand == presum.getInput())
    return presum.getScanDim();
  return std::nullopt;
}

/// An elementwise op on tensors (arith on tensors, math): row `i` of its
/// result reads row `i` of each operand.
bool isElementwiseOnTensors(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
}

/// The loop of `op` that position `pos` of `operand` is indexed by, when
/// that is one parallel loop: then each step of it reads and writes only
/// its own row (a projection's rows, an elementwise map's).
std::optional<unsigned> parallelLoopAt(linalg::LinalgOp op, OpOperand *operand,
                                       int64_t pos) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  auto loop = dyn_cast<AffineDimExpr>(map.getResult(pos));
  if (!loop || op.getIteratorTypesArray()[loop.getPosition()] !=
                   utils::IteratorType::parallel)
    return std::nullopt;
  return loop.getPosition();
}

/// Where `operand` is indexed by loop `loop` alone, if it is; failure if
/// the loop appears inside a compound index (not one row per step).
FailureOr<std::optional<int64_t>> positionOfLoop(linalg::LinalgOp op,
                                                 OpOperand *operand,
                                                 unsigned loop) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (!map.isFunctionOfDim(loop))
    return std::optional<int64_t>();
  for (auto [position, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && dim.getPosition() == loop)
      return std::optional<int64_t>(position);
  return failure();
}

RankedTensorType withDynamicDim(Type type, int64_t dim) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[dim] = ShapedType::kDynamic;
  return tensor.clone(shape);
}

Value index(OpBuilder &b, Location loc, OpFoldResult value) {
  return getValueOrCreateConstantIndexOp(b, loc, value);
}

OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  return arith::AddIOp::create(b, loc, index(b, loc, x), index(b, loc, y))
      .getResult();
}

/// `x + y`, written into `x` (a loop's accumulator stays in its buffer).
Value addInto(OpBuilder &b, Location loc, Value x, Value y) {
  return linalg::AddOp::create(b, loc, ValueRange{x, y}, ValueRange{x})
      .getResult(0);
}

/// Several tensors packed into one flat f32 record per rank, and read back
/// from the all-gathered `[P, n]` records.
class Records {
public:
  /// Appends `part`; returns its position for `read`.
  unsigned add(Value part) {
    parts.push_back(part);
    return parts.size() - 1;
  }

  /// Every rank's record on every rank.
  void gather(OpBuilder &b, Location loc, ModuleOp module, Value numRanks) {
    OpFoldResult total = b.getIndexAttr(0);
    SmallVector<Value> flats;
    for (Value part : parts) {
      Value flat = flatten(b, loc, part);
      flats.push_back(flat);
      offsets.push_back(total);
      sizes.push_back(tensor::getMixedSize(b, loc, flat, 0));
      total = addSizes(b, loc, total, sizes.back());
    }
    Value record = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{total},
                                           b.getF32Type());
    for (auto [flat, offset, size] : llvm::zip(flats, offsets, sizes))
      record = tensor::InsertSliceOp::create(
          b, loc, flat, record, ArrayRef<OpFoldResult>{offset},
          ArrayRef<OpFoldResult>{size},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    gathered = allGather(b, loc, module, record, numRanks);
  }

  /// Part `which` of rank `rank`'s record, shaped like this rank's.
  Value read(OpBuilder &b, Location loc, Value rank, unsigned which) const {
    OpFoldResult size = sizes[which];
    std::optional<int64_t> staticSize = getConstantIntValue(size);
    auto type = RankedTensorType::get(
        {staticSize ? *staticSize : ShapedType::kDynamic}, b.getF32Type());
    Value one = tensor::ExtractSliceOp::create(
        b, loc, type, gathered, ArrayRef<OpFoldResult>{rank, offsets[which]},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), size},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    return unflattenLike(b, loc, one, parts[which]);
  }

private:
  SmallVector<Value> parts;
  SmallVector<OpFoldResult> offsets, sizes;
  Value gathered;
};

/// `state` with `step(state, s)` applied for the ranks `s` in [lo, hi).
Value foldOverRanks(OpBuilder &b, Location loc, Value lo, Value hi, Value state,
                    function_ref<Value(OpBuilder &, Location, Value, Value)> step) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, one, ValueRange{state},
      [&](OpBuilder &nested, Location nestedLoc, Value rank, ValueRange iter) {
        scf::YieldOp::create(nested, nestedLoc,
                             step(nested, nestedLoc, iter.front(), rank));
      });
  return loop.getResult(0);
}

/// Where this rank's rows sit in the whole sequence, from an all-gather of
/// every rank's row count: the rows of the ranks before it and of all
/// ranks; `counts` (`[P, 1]` i64) holds each rank's.
struct RowSpan {
  Value offset, total, counts;

  /// Rank `rank`'s rows.
  Value rowsOf(OpBuilder &b, Location loc, Value rank) const {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value n = tensor::ExtractOp::create(b, loc, counts, ValueRange{rank, zero});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
  }
};
RowSpan rowSpan(OpBuilder &b, Location loc, ModuleOp module, const Ranks &ranks,
                Value rows) {
  Value count = arith::IndexCastOp::create(b, loc, b.getI64Type(), rows);
  Value record = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({1}, b.getI64Type()), ValueRange{count});
  RowSpan span;
  span.counts = allGather(b, loc, module, record, ranks.size);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, ranks.size, one, ValueRange{zero, zero},
      [&](OpBuilder &nested, Location nestedLoc, Value s, ValueRange iter) {
        Value rowsOfS = span.rowsOf(nested, nestedLoc, s);
        Value before = arith::CmpIOp::create(
            nested, nestedLoc, arith::CmpIPredicate::slt, s, ranks.rank);
        Value addend = arith::SelectOp::create(nested, nestedLoc, before,
                                               rowsOfS, zero);
        scf::YieldOp::create(
            nested, nestedLoc,
            ValueRange{
                arith::AddIOp::create(nested, nestedLoc, iter[0], addend),
                arith::AddIOp::create(nested, nestedLoc, iter[1], rowsOfS)});
      });
  span.offset = loop.getResult(0);
  span.total = loop.getResult(1);
  return span;
}

/// Rows run from a zero state, moved onto `state`: `rows + q S`, or with a
/// gate `rows + (q * exp(b)) S` with `b` the gate's running sum from the
/// first row (the decay from the state's position to each row).
Value rowsFromState(OpBuilder &b, Location loc, int64_t numBatch, Value q,
                    Value g, bool scalarGate, Value state, Value rows) {
  if (!g)
    return matmulAccumulate(b, loc, numBatch, q, state, rows);
  Value decayUpTo = gatePresum(b, loc, g, numBatch, /*suffix=*/false);
  return decayedQueryTimesState(b, loc, numBatch, q, decayUpTo, state,
                                scalarGate, rows);
}

/// One linear-attention op (gated or not) rewritten for this rank's rows.
class DistributedAttention {
public:
  DistributedAttention(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                       LinearAttentionOpInterface op)
      : b(b), loc(op.getLoc()), module(module), ranks(ranks), op(op),
        numBatch(numBatchDims(op.getQuery().getType())),
        scalarGate(op.getGate() && op.hasScalarGate()) {}

  /// The op's results: this rank's output rows, the final state.
  SmallVector<Value> build();

private:
  /// A contiguous range of this rank's rows.
  struct Rows {
    Value q, k, v, g;
    OpFoldResult offset, size;
  };
  /// A range of rows run from a zero state: its output rows, its state
  /// (what it adds to any state before it) and the sum of its log-decays.
  struct Summary {
    Value rows, state, logDecay; // logDecay: null without a gate
  };

  Rows rows(const FormOperands &all, OpFoldResult offset,
            OpFoldResult size) const;
  Summary fromZero(const Rows &part, Mask mask) const;
  Value localPrefixLength(OpFoldResult localRows) const;
  Value stateAfter(Value state, Value logDecay, Value contribution,
                   OpBuilder &nested, Location nestedLoc) const;
  Value seeded(const Rows &part, Value rowsFromZero, Value initial) const;
  Value joinRows(const FormOperands &all, const Rows &head, Value headRows,
                 const Rows &tail, Value tailRows) const;

  OpBuilder &b;
  Location loc;
  ModuleOp module;
  const Ranks &ranks;
  // Interface methods are not const.
  mutable LinearAttentionOpInterface op;
  int64_t numBatch;
  bool scalarGate;
};

DistributedAttention::Rows
DistributedAttention::rows(const FormOperands &all, OpFoldResult offset,
                           OpFoldResult size) const {
  auto slice = [&](Value x) {
    return x ? sliceAlong(b, loc, x, numBatch, offset, size) : x;
  };
  return {slice(all.q), slice(all.k), slice(all.v), slice(all.g), offset, size};
}

/// The rows as a Linea op of this op's kind on f32 operands (feature map
/// and normalizer column applied, scale left for the end), from a zero
/// state: the optimizer picks its form (one-shot for `none`, chunked for
/// `causal`), and its final state is the part's contribution, decayed to
/// the part's last row when gated.
DistributedAttention::Summary
DistributedAttention::fromZero(const Rows &part, Mask mask) const {
  auto qType = cast<RankedTensorType>(part.q.getType());
  auto vType = cast<RankedTensorType>(part.v.getType());
  SmallVector<int64_t> rowsShape(qType.getShape());
  rowsShape.back() = vType.getShape().back();
  SmallVector<int64_t> stateShape(qType.getShape().drop_back(2));
  stateShape.push_back(qType.getShape().back());
  stateShape.push_back(vType.getShape().back());
  LinearAttentionSpec spec;
  spec.query = part.q;
  spec.key = part.k;
  spec.value = part.v;
  spec.gate = part.g;
  spec.mask = mask;
  spec.outputType = RankedTensorType::get(rowsShape, b.getF32Type());
  spec.finalStateType = RankedTensorType::get(stateShape, b.getF32Type());
  Operation *local = op.createLike(b, loc, spec);
  Value logDecay =
      part.g ? sumOverSequence(b, loc, numBatch, part.g, scalarGate) : Value();
  return {local->getResult(0), local->getResult(1), logDecay};
}

/// The global prefix length `j` as this rank's: `clamp(j - offset, 0, n)`.
/// A dynamic `j` (or one with the whole length dynamic) is checked against
/// the rows of all ranks first, as the op's own run-time check would.
Value DistributedAttention::localPrefixLength(OpFoldResult localRows) const {
  Value rowsHere = index(b, loc, localRows);
  std::optional<int64_t> staticLength = op.getStaticPrefixLength();
  Value global = staticLength
                     ? arith::ConstantIndexOp::create(b, loc, *staticLength)
                     : op.getPrefixIndex();
  RowSpan span = rowSpan(b, loc, module, ranks, rowsHere);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  if (!staticLength || op.getQuery().getType().isDynamicDim(numBatch)) {
    Value inRange = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, global, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, global,
                              span.total));
    CheckOp::create(b, loc, inRange,
                    (op->getName().getStringRef() +
                     ": prefix length {0} is outside [0, L] of 'query' (L = "
                     "{1}, all ranks' rows)")
                        .str(),
                    ValueRange{global, span.total});
  }
  Value local = arith::SubIOp::create(b, loc, global, span.offset);
  local = arith::MaxSIOp::create(b, loc, local, zero);
  return arith::MinSIOp::create(b, loc, local, rowsHere);
}

/// The state after a rank's rows: `diag(exp(a)) S + H`, or `S + H`.
Value DistributedAttention::stateAfter(Value state, Value logDecay,
                                       Value contribution, OpBuilder &nested,
                                       Location nestedLoc) const {
  if (logDecay)
    state = decayState(nested, nestedLoc, numBatch, state, logDecay, scalarGate);
  return addInto(nested, nestedLoc, state, contribution);
}

/// Causal rows run from zero, moved onto the state `initial` they really
/// start from: the output is linear in the state, so row `i` gains
/// `q_i initial`, or `q_i diag(exp(b_i)) initial` with `b_i` the sum of the
/// part's gates up to row `i` (a presum local to the rank: `<= 0`).
Value DistributedAttention::seeded(const Rows &part, Value rowsFromZero,
                                   Value initial) const {
  return rowsFromState(b, loc, numBatch, part.q, part.g, scalarGate, initial,
                       rowsFromZero);
}

Value DistributedAttention::joinRows(const FormOperands &all, const Rows &head,
                                     Value headRows, const Rows &tail,
                                     Value tailRows) const {
  if (!headRows)
    return tailRows;
  if (!tailRows)
    return headRows;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, all.q);
  sizes.back() = tensor::getMixedSize(b, loc, all.v, numBatch + 1);
  Value out = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  out = insertAlong(b, loc, headRows, out, numBatch, head.offset);
  return insertAlong(b, loc, tailRows, out, numBatch, tail.offset);
}

SmallVector<Value> DistributedAttention::build() {
  FormOperands all = prepareOperands(b, loc, op);
  Mask mask = op.getEffectiveMask();
  bool hasHead = mask != Mask::causal, hasTail = mask != Mask::none;

  // This rank's rows: [0, split) read the prefix state, [split, n) are causal.
  OpFoldResult localRows = tensor::getMixedSize(b, loc, all.q, numBatch);
  OpFoldResult split = mask == Mask::none     ? localRows
                       : mask == Mask::causal ? OpFoldResult(b.getIndexAttr(0))
                                              : localPrefixLength(localRows);
  OpFoldResult tailRows =
      hasTail ? OpFoldResult(arith::SubIOp::create(b, loc, index(b, loc, localRows),
                                                   index(b, loc, split))
                                 .getResult())
              : OpFoldResult(b.getIndexAttr(0));
  Rows head = rows(all, b.getIndexAttr(0), split);
  Rows tail = rows(all, split, tailRows);

  Value initial = initialStateOrZeros(b, loc, op.getInitialState(), all.q, all.v);
  Value prefixState = initial, tailState, finalState;
  Summary causal;
  if (mask == Mask::none && !all.g) {
    // Order does not matter: the states just add up.
    Summary mine = fromZero(head, Mask::none);
    prefixState = addInto(b, loc, initial, allReduceSum(b, loc, mine.state));
    finalState = prefixState;
  } else {
    Records records;
    std::optional<unsigned> headLog, headState, tailLog, tailStateAt;
    if (hasHead) {
      Summary mine = fromZero(head, Mask::none);
      headState = records.add(mine.state);
      if (mine.logDecay)
        headLog = records.add(mine.logDecay);
    }
    if (hasTail) {
      causal = fromZero(tail, Mask::causal);
      Summary &mine = causal;
      tailStateAt = records.add(mine.state);
      if (mine.logDecay)
        tailLog = records.add(mine.logDecay);
    }
    records.gather(b, loc, module, ranks.size);
    auto stepWith = [&](std::optional<unsigned> log, unsigned state) {
      return [&, log, state](OpBuilder &nested, Location nestedLoc, Value s,
                             Value rank) {
        Value logDecay = log ? records.read(nested, nestedLoc, rank, *log) : Value();
        Value contribution = records.read(nested, nestedLoc, rank, state);
        return stateAfter(s, logDecay, contribution, nested, nestedLoc);
      };
    };
    Value first = arith::ConstantIndexOp::create(b, loc, 0);
    // The state after the whole prefix: every rank's prefix rows in order.
    if (hasHead)
      prefixState = foldOverRanks(b, loc, first, ranks.size, initial,
                                  stepWith(headLog, *headState));
    finalState = prefixState;
    if (hasTail) {
      // Then the causal rows of the ranks before this one, and after it.
      tailState = foldOverRanks(b, loc, first, ranks.rank, prefixState,
                                stepWith(tailLog, *tailStateAt));
      finalState = foldOverRanks(b, loc, ranks.rank, ranks.size, tailState,
                                 stepWith(tailLog, *tailStateAt));
    }
  }

  Value rowsOut = joinRows(
      all, head, hasHead ? queryTimesState(b, loc, numBatch, head.q, prefixState)
              : Value(), tail,
      hasTail ? seeded(tail, causal.rows, tailState) : Value());
  SmallVector<Value> results{finishRows(b, loc, op, rowsOut)};
  if (op.getFinalState()) {
    // Drop the normalizer's column again.
    if (op.getNormalize()) {
      auto type = cast<RankedTensorType>(finalState.getType());
      finalState = sliceAlong(b, loc, finalState, type.getRank() - 1,
                              b.getIndexAttr(0),
                              b.getIndexAttr(type.getShape().back() - 1));
    }
    results.push_back(finalState);
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Packed segments across ranks
//===----------------------------------------------------------------------===//
//
// The offsets are global (every rank has them all). On a rank, each
// segment keeps the rows it has there: `clamp(o_n - first row, 0, rows)`
// are this rank's offsets, with a segment that has no rows here empty. So
// every rank runs the same N segments, and a segment's state passes from
// rank to rank exactly as an unpacked sequence's does; one that lies on
// one rank only receives nothing (the ranks before it add zero states).

/// The run-time checks of the op's offsets, against all ranks' rows.
void checkGlobalOffsets(OpBuilder &b, Location loc, Operation *op,
                        Value offsets, Value total) {
  checkSegmentOffsets(
      b, loc,
      checkMessageAt(op->getLoc(), op->getName().getStringRef().str() + ": "),
      offsets, total, "L (all ranks' rows)");
}

/// This rank's offsets (`tensor<?xindex>`): every global offset less the
/// rows of the ranks before, clamped to `[0, rows]`.
Value localOffsets(OpBuilder &b, Location loc, Value offsets, Value first,
                   Value rows) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value count = tensor::DimOp::create(b, loc, offsets, 0);
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                       b.getIndexType());
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  return buildGeneric(b, loc, ValueRange{}, init, {identity}, {kPar},
                      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
                        Value n = linalg::IndexOp::create(nb, l, 0);
                        Value here = arith::SubIOp::create(
                            nb, l, segmentOffset(nb, l, offsets, n), first);
                        here = arith::MaxSIOp::create(nb, l, here, zero);
                        return arith::MinSIOp::create(nb, l, here, rows);
                      });
}

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
  Value rows = tensor::DimOp::create(b, loc, all.q, numBatch);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  checkGlobalOffsets(b, loc, op, op.getOffsets(), span.total);
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
  Value rows = tensor::DimOp::create(b, loc, all.q, numBatch);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  checkGlobalOffsets(b, loc, op, op.getOffsets(), span.total);
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
  Value rows = tensor::DimOp::create(b, loc, x, dim);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  checkGlobalOffsets(b, loc, presum, presum.getOffsets(), span.total);
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

/// presum along the sharded dim: the local scan plus the totals of the
/// ranks before this one (after it, when reversed).
Value distributePresum(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                       PresumOp presum) {
  Location loc = presum.getLoc();
  Value x = presum.getInput();
  int64_t dim = presum.getScanDim();
  auto type = cast<RankedTensorType>(x.getType());
  Value local = PresumOp::create(b, loc, type, x, /*decay=*/Value(), /*offsets=*/Value(),
                                 presum.getDimAttr(),
                                 presum.getExclusiveAttr(),
                                 presum.getReverseAttr(), presum.getFormAttr());

  // This rank's total along `dim`.
  SmallVector<OpFoldResult> totalSizes = tensor::getMixedSizes(b, loc, x);
  totalSizes.erase(totalSizes.begin() + dim);
  Value zeros = buildFilled(b, loc, totalSizes, type.getElementType(), 0.0);
  Value total =
      linalg::ReduceOp::create(
          b, loc, ValueRange{x}, ValueRange{zeros}, ArrayRef<int64_t>{dim},
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            Value sum = arith::AddFOp::create(nested, nestedLoc, args[0], args[1]);
            linalg::YieldOp::create(nested, nestedLoc, sum);
          })
          .getResult(0);

  Records records;
  unsigned mine = records.add(castToF32(b, loc, total));
  records.gather(b, loc, module, ranks.size);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lo = presum.getReverse()
                 ? arith::AddIOp::create(b, loc, ranks.rank, one).getResult()
                 : arith::ConstantIndexOp::create(b, loc, 0).getResult();
  Value hi = presum.getReverse() ? ranks.size : ranks.rank;
  Value before = foldOverRanks(
      b, loc, lo, hi, castToF32(b, loc, zeros),
      [&](OpBuilder &nested, Location nestedLoc, Value sum, Value rank) {
        return addInto(nested, nestedLoc, sum,
                          records.read(nested, nestedLoc, rank, mine));
      });

  // local + before, broadcast along `dim`.
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      kept.push_back(getAffineDimExpr(d, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap broadcast = AffineMap::get(rank, 0, kept, ctx);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       type.getElementType());
  SmallVector<utils::IteratorType> parallel(rank, kPar);
  return buildGeneric(
      b, loc, ValueRange{local, before}, init, {identity, broadcast, identity},
      parallel, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value offset = args[1];
        if (offset.getType() != args[0].getType())
          offset = arith::TruncFOp::create(nested, nestedLoc, args[0].getType(),
                                           offset);
        return arith::AddFOp::create(nested, nestedLoc, args[0], offset)
            .getResult();
      });
}

//===----------------------------------------------------------------------===//
// Softmax attention across ranks
//===----------------------------------------------------------------------===//
//
// A softmax row reads every key it sees, not a state: the ranks all-gather
// the keys and values (context parallelism by all-gather; O(L D) received
// per rank, where linear attention exchanges O(Dk Dv)), and each rank
// attends its own query rows to the keys those rows see.

/// Every rank's key and value rows, in rank order: `[B..., Lk, D]` of all
/// ranks. All-gather records have one length, so each rank sends its rows
/// padded to the longest rank's; the keys' row span tells each rank's real
/// rows apart.
struct AllKeys {
  Value keys, values, total;
};
AllKeys gatherKeys(OpBuilder &b, Location loc, ModuleOp module,
                   const Ranks &ranks, Value k, Value v, int64_t seq) {
  RowSpan span =
      rowSpan(b, loc, module, ranks, tensor::DimOp::create(b, loc, k, seq));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value longest =
      scf::ForOp::create(
          b, loc, zero, ranks.size, one, ValueRange{zero},
          [&](OpBuilder &nb, Location l, Value rank, ValueRange iter) {
            scf::YieldOp::create(
                nb, l,
                ValueRange{arith::MaxUIOp::create(nb, l, iter[0],
                                                  span.rowsOf(nb, l, rank))});
          })
          .getResult(0);
  auto padded = [&](Value x) {
    Value rowsF32 = castToF32(b, loc, x);
    SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, rowsF32);
    shape[seq] = longest;
    return insertAlong(b, loc, rowsF32,
                       buildFilled(b, loc, shape, b.getF32Type(), 0.0), seq,
                       b.getIndexAttr(0));
  };
  Records records;
  unsigned keysAt = records.add(padded(k));
  unsigned valuesAt = records.add(padded(v));
  records.gather(b, loc, module, ranks.size);

  auto emptyAll = [&](Value x) {
    SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, x);
    shape[seq] = span.total;
    return tensor::EmptyOp::create(b, loc, shape, b.getF32Type()).getResult();
  };
  auto loop = scf::ForOp::create(
      b, loc, zero, ranks.size, one, ValueRange{emptyAll(k), emptyAll(v), zero},
      [&](OpBuilder &nb, Location l, Value rank, ValueRange iter) {
        Value n = span.rowsOf(nb, l, rank);
        auto place = [&](unsigned at, Value into) {
          Value part = sliceAlong(nb, l, records.read(nb, l, rank, at), seq,
                                  nb.getIndexAttr(0), n);
          return insertAlong(nb, l, part, into, seq, iter[2], n);
        };
        scf::YieldOp::create(
            nb, l,
            ValueRange{place(keysAt, iter[0]), place(valuesAt, iter[1]),
                       arith::AddIOp::create(nb, l, iter[2], n)});
      });
  Type keyType = cast<RankedTensorType>(k.getType()).getElementType();
  Type valueType = cast<RankedTensorType>(v.getType()).getElementType();
  return {castFromF32(b, loc, loop.getResult(0), keyType),
          castFromF32(b, loc, loop.getResult(1), valueType), span.total};
}

/// `op`'s mask and scale on other operands.
Value attentionLike(OpBuilder &b, Location loc, AttentionOp op, Value q,
                    Value k, Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(qType.getShape());
  shape.back() = vType.getShape().back();
  return AttentionOp::create(
      b, loc, RankedTensorType::get(shape, vType.getElementType()), q, k, v,
      /*offsets=*/Value(), op.getMaskAttr(), op.getScaleAttr());
}

/// `max(lo, min(x, hi))` on indices.
Value clampIndex(OpBuilder &b, Location loc, Value x, Value lo, Value hi) {
  return arith::MaxSIOp::create(b, loc, lo,
                                arith::MinSIOp::create(b, loc, x, hi));
}

/// Softmax attention on this rank's query rows against all ranks' keys. A
/// causal query at global row `i` of `Lq` sees keys `t <= i + Lk - Lq`: a
/// rank's rows see the keys up to its last row's bound, and the op on them
/// (whose causal mask aligns the queries with the end of the keys) keeps
/// that bound row by row. Packed, segment n's query rows here see its keys
/// from `o_n` up to their own last row (causal) or to `o_{n+1}`.
Value distributeSoftmaxAttention(OpBuilder &b, ModuleOp module,
                                 const Ranks &ranks, AttentionOp op) {
  Location loc = op.getLoc();
  Value q = op.getQuery();
  int64_t seq = numBatchDims(cast<RankedTensorType>(q.getType()));
  Value rows = tensor::DimOp::create(b, loc, q, seq);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  AllKeys all =
      gatherKeys(b, loc, module, ranks, op.getKey(), op.getValue(), seq);
  bool causal = op.getMask() == Mask::causal;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value firstRow = span.offset;

  if (!op.getOffsets()) {
    if (!causal)
      return attentionLike(b, loc, op, q, all.keys, all.values);
    // Keys [0, first + rows + Lk - Lq), clamped to [0, Lk].
    Value end = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, firstRow, rows),
        arith::SubIOp::create(b, loc, all.total, span.total));
    end = clampIndex(b, loc, end, zero, all.total);
    return attentionLike(b, loc, op, q,
                         sliceAlong(b, loc, all.keys, seq, zero, end),
                         sliceAlong(b, loc, all.values, seq, zero, end));
  }

  // Queries and keys are packed alike: as many rows of each on all ranks.
  Value offsets = op.getOffsets();
  CheckOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, all.total,
                            span.total),
      checkMessageAt(op->getLoc(),
                     "linea.attention: packed keys need as many rows as the "
                     "queries, got {0} and {1} (all ranks' rows)"),
      ValueRange{all.total, span.total});
  checkGlobalOffsets(b, loc, op, offsets, span.total);
  Value localQueries = localOffsets(b, loc, offsets, firstRow, rows);
  SmallVector<OpFoldResult> outputSizes = tensor::getMixedSizes(b, loc, q);
  outputSizes.back() = tensor::getMixedSize(b, loc, op.getValue(), seq + 1);
  Value outputs = tensor::EmptyOp::create(b, loc, outputSizes,
                                          op.getType().getElementType());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return buildSegmentLoop(
             b, loc, localQueries, ValueRange{q}, seq, ValueRange{outputs},
             /*entryOutputs=*/{},
             [&](OpBuilder &nb, Location l, const Segment &segment) {
               Value keyStart = segmentOffset(nb, l, offsets, segment.index);
               Value keyEnd =
                   causal ? arith::MaxSIOp::create(
                                nb, l, keyStart,
                                arith::AddIOp::create(
                                    nb, l, firstRow,
                                    arith::AddIOp::create(nb, l, segment.start,
                                                          segment.size)))
                                .getResult()
                          : segmentOffset(nb, l, offsets,
                                          arith::AddIOp::create(
                                              nb, l, segment.index, one));
               Value keyCount = arith::SubIOp::create(nb, l, keyEnd, keyStart);
               return SmallVector<Value>{attentionLike(
                   nb, l, op, segment.slices.front(),
                   sliceAlong(nb, l, all.keys, seq, keyStart, keyCount),
                   sliceAlong(nb, l, all.values, seq, keyStart, keyCount))};
             })
      .front();
}

/// Rewrites one function for this rank's rows.
class FunctionDistributor {
public:
  FunctionDistributor(func::FuncOp func, ModuleOp module)
      : func(func), module(module), builder(func.getContext()) {}

  /// False when no argument is a sequence (the function stays as it is).
  FailureOr<bool> run();

private:
  LogicalResult shardArguments();
  LogicalResult demand(Value value, int64_t dim);
  LogicalResult distribute(Operation *op);
  LogicalResult distributeRowLocal(linalg::LinalgOp op);
  LogicalResult distributeElementwise(Operation *op);
  FailureOr<Value> localInit(Operation *op, Value init, int64_t pos,
                             Value rows, int64_t rowsPos);
  LogicalResult requireSharded(Operation *op, Value operand, int64_t dim);
  void updateSignature();

  func::FuncOp func;
  ModuleOp module;
  OpBuilder builder;
  ShardedDims sharded;
  /// What the Linea ops need split, traced back through row-local ops.
  ShardedDims wanted;
  std::optional<Ranks> ranks;
};

/// `value` must hold only this rank's rows along `dim`: so must the values
/// a row-local op computes it from (a projection's input rows, an
/// elementwise map's operands), back to the function's arguments.
LogicalResult FunctionDistributor::demand(Value value, int64_t dim) {
  if (auto it = wanted.find(value); it != wanted.end()) {
    if (it->second == dim)
      return success();
    if (auto arg = dyn_cast<BlockArgument>(value))
      return func.emitError() << "argument #" << arg.getArgNumber()
                              << " is a sequence along dim " << it->second
                              << " for one op and along dim " << dim
                              << " for another";
    return value.getDefiningOp()->emitOpError()
           << "computes a sequence split along dim " << it->second
           << " for one op and along dim " << dim << " for another";
  }
  wanted[value] = dim;
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return success();
  if (isElementwiseOnTensors(producer)) {
    for (Value operand : producer->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          failed(demand(operand, dim)))
        return failure();
    return success();
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return success(); // not row-local: distribute() says so if it matters
  OpOperand *init =
      linalgOp.getDpsInitOperand(cast<OpResult>(value).getResultNumber());
  std::optional<unsigned> loop = parallelLoopAt(linalgOp, init, dim);
  if (!loop)
    return success();
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(linalgOp, input, *loop);
    if (succeeded(position) && *position &&
        failed(demand(input->get(), **position)))
      return failure();
  }
  return success();
}

LogicalResult FunctionDistributor::shardArguments() {
  for (Operation &op : func.getBody().front())
    for (Value operand : op.getOperands())
      if (std::optional<int64_t> dim = sequenceDimOf(&op, operand))
        if (failed(demand(operand, *dim)))
          return failure();
  for (BlockArgument arg : func.getArguments()) {
    auto it = wanted.find(arg);
    if (it == wanted.end())
      continue;
    sharded[arg] = it->second;
    arg.setType(withDynamicDim(arg.getType(), it->second));
  }
  return success();
}

LogicalResult FunctionDistributor::requireSharded(Operation *op, Value operand,
                                                  int64_t dim) {
  auto it = sharded.find(operand);
  if (it == sharded.end())
    return op->emitOpError()
           << "reads a replicated sequence operand next to sharded ones: "
              "linea-sequence-parallel needs every sequence operand of an op "
              "split across the ranks";
  if (it->second != dim)
    return op->emitOpError() << "reads a value split along dim " << it->second
                           << " as a sequence along dim " << dim;
  return success();
}

LogicalResult FunctionDistributor::distribute(Operation *op) {
  bool readsSharded = llvm::any_of(
      op->getOperands(), [&](Value v) { return sharded.contains(v); });
  bool nestedReadsSharded = false;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        nestedReadsSharded |= sharded.contains(v);
    });
  if (isa<func::ReturnOp>(op) || (!readsSharded && !nestedReadsSharded))
    return success();
  if (nestedReadsSharded || isa<FoldOp, FoldedAttentionOp>(op))
    return op->emitOpError()
           << "cannot run sequence-parallel: its rows read keys from every "
              "rank; give it replicated operands (it then runs on every rank)";

  builder.setInsertionPoint(op);
  // Rank and size once, before the first op that exchanges anything.
  if (!ranks && isa<LinearAttentionOpInterface, PresumOp, AttentionOp>(op))
    ranks = buildRanks(builder, func.getLoc());
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    int64_t seq = numBatchDims(attention.getQuery().getType());
    for (Value operand :
         {attention.getQuery(), attention.getKey(), attention.getValue()})
      if (failed(requireSharded(op, operand, seq)))
        return failure();
    if (attention.getOffsets() && sharded.contains(attention.getOffsets()))
      return op->emitOpError() << "reads a sequence-sharded value as its "
                                  "offsets";
    Value result =
        distributeSoftmaxAttention(builder, module, *ranks, attention);
    sharded[result] = seq;
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(op)) {
    int64_t seq = numBatchDims(attention.getQuery().getType());
    for (Value operand :
         SmallVector<Value>{attention.getQuery(), attention.getKey(),
                            attention.getValue(), attention.getGate()})
      if (operand && failed(requireSharded(op, operand, seq)))
        return failure();
    for (Value operand : SmallVector<Value>{attention.getInitialState(),
                                            attention.getPrefixIndex()})
      if (operand && sharded.contains(operand))
        return op->emitOpError() << "reads a sequence-sharded value as its "
                                  "initial state or prefix length";
    if (attention.getOffsets() && sharded.contains(attention.getOffsets()))
      return op->emitOpError() << "reads a sequence-sharded value as its "
                                  "offsets";
    SmallVector<Value> results;
    if (attention.isPacked()) {
      FailureOr<SmallVector<Value>> packed =
          distributePackedAttention(builder, module, *ranks, attention);
      if (failed(packed))
        return failure();
      results = std::move(*packed);
    } else {
      results =
          DistributedAttention(builder, module, *ranks, attention).build();
    }
    sharded[results.front()] = seq;
    op->replaceAllUsesWith(results);
    op->erase();
    return success();
  }
  if (auto presum = dyn_cast<PresumOp>(op)) {
    int64_t dim = presum.getScanDim();
    if (failed(requireSharded(op, presum.getInput(), dim)))
      return failure();
    if (presum.getDecay())
      return op->emitOpError()
             << "cannot run sequence-parallel: a decayed presum's ranks would "
                "exchange decayed totals, which this pass does not build";
    if (presum.getOffsets() && sharded.contains(presum.getOffsets()))
      return op->emitOpError() << "reads a sequence-sharded value as its "
                                  "offsets";
    Value result = presum.getOffsets()
                       ? distributePackedPresum(builder, module, *ranks, presum)
                       : distributePresum(builder, module, *ranks, presum);
    sharded[result] = dim;
    presum.replaceAllUsesWith(result);
    presum.erase();
    return success();
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      linalgOp && linalgOp.hasPureTensorSemantics())
    return distributeRowLocal(linalgOp);
  if (isElementwiseOnTensors(op))
    return distributeElementwise(op);
  return op->emitOpError()
         << "reads a sequence-sharded value, which linea-sequence-parallel "
            "splits only for Linea's linear attention ops and presum, and "
            "for ops that compute each row from the same rows (elementwise "
            "maps, projections)";
}

/// A linalg op that runs a parallel loop along the split rows (a projection
/// `x W`, an elementwise generic): the same op on this rank's rows, its
/// init resized to them.
LogicalResult FunctionDistributor::distributeRowLocal(linalg::LinalgOp op) {
  std::optional<unsigned> loop;
  Value rows;
  int64_t rowsPos = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto it = sharded.find(input->get());
    if (it == sharded.end())
      continue;
    std::optional<unsigned> inputLoop = parallelLoopAt(op, input, it->second);
    if (!inputLoop || (loop && *loop != *inputLoop))
      return op->emitOpError()
             << "mixes the rows of the split sequence (operand #"
             << input->getOperandNumber()
             << " is reduced over, or indexed across its rows)";
    loop = inputLoop;
    rows = input->get();
    rowsPos = it->second;
  }
  if (!loop)
    return op->emitOpError() << "writes into a sequence-sharded init; "
                                "linea-sequence-parallel splits its inputs";
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(op, input, *loop);
    if (failed(position))
      return op->emitOpError() << "indexes operand #"
                               << input->getOperandNumber()
                               << " across the rows of the split sequence";
    if (*position && failed(requireSharded(op, input->get(), **position)))
      return failure();
  }
  builder.setInsertionPoint(op);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(op, &init, *loop);
    if (failed(position) || !*position)
      return op->emitOpError() << "does not write the rows of the split "
                                  "sequence one to one";
    FailureOr<Value> local = localInit(op, init.get(), **position, rows, rowsPos);
    if (failed(local))
      return failure();
    init.set(*local);
    OpResult result = op->getResult(init.getOperandNumber() - op.getNumDpsInputs());
    result.setType(local->getType());
    sharded[result] = **position;
  }
  return success();
}

/// `init` with this rank's rows along `pos` (`rows` has them along
/// `rowsPos`): a fresh `tensor.empty` (or the fill of one) of that size.
FailureOr<Value> FunctionDistributor::localInit(Operation *op, Value init,
                                                int64_t pos, Value rows,
                                                int64_t rowsPos) {
  if (auto it = sharded.find(init); it != sharded.end() && it->second == pos)
    return init;
  Location loc = op->getLoc();
  if (auto empty = init.getDefiningOp<tensor::EmptyOp>()) {
    SmallVector<OpFoldResult> sizes = empty.getMixedSizes();
    sizes[pos] = tensor::getMixedSize(builder, loc, rows, rowsPos);
    return tensor::EmptyOp::create(builder, loc, sizes,
                                   empty.getType().getElementType())
        .getResult();
  }
  if (auto fill = init.getDefiningOp<linalg::FillOp>();
      fill && fill.hasPureTensorSemantics()) {
    FailureOr<Value> target =
        localInit(op, fill.getOutputs().front(), pos, rows, rowsPos);
    if (failed(target))
      return failure();
    return linalg::FillOp::create(builder, loc, fill.getInputs(), *target)
        .getResult(0);
  }
  return op->emitOpError()
         << "writes into an init that linea-sequence-parallel cannot give "
            "this rank's rows (a tensor.empty or its linalg.fill can be)";
}

/// An elementwise map: every tensor operand split alike, the result too.
LogicalResult FunctionDistributor::distributeElementwise(Operation *op) {
  std::optional<int64_t> dim;
  for (Value operand : op->getOperands())
    if (auto it = sharded.find(operand); it != sharded.end())
      dim = it->second;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        failed(requireSharded(op, operand, *dim)))
      return failure();
  for (OpResult result : op->getResults()) {
    result.setType(withDynamicDim(result.getType(), *dim));
    sharded[result] = *dim;
  }
  return success();
}

void FunctionDistributor::updateSignature() {
  Operation *terminator = func.getBody().front().getTerminator();
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().front().getArgumentTypes(),
                                 terminator->getOperandTypes()));
  Type i64 = builder.getI64Type();
  for (BlockArgument arg : func.getArguments())
    if (auto it = sharded.find(arg); it != sharded.end())
      func.setArgAttr(arg.getArgNumber(), kShardedDimAttrName,
                      IntegerAttr::get(i64, it->second));
  for (OpOperand &result : terminator->getOpOperands())
    if (auto it = sharded.find(result.get()); it != sharded.end())
      func.setResultAttr(result.getOperandNumber(), kShardedDimAttrName,
                         IntegerAttr::get(i64, it->second));
}

FailureOr<bool> FunctionDistributor::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "linea-sequence-parallel needs a function "
                               "body of one block";
  if (failed(shardArguments()))
    return failure();
  if (sharded.empty())
    return false;
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(distribute(op)))
      return failure();
  updateSignature();
  return true;
}

struct LineaSequenceParallelPass
    : linea::impl::LineaSequenceParallelBase<LineaSequenceParallelPass> {
  using LineaSequenceParallelBase::LineaSequenceParallelBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    LineaSequenceParallelBase::getDependentDialects(registry);
    registerMPIMemoryEffects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mpiImplementation != "OpenMPI" && mpiImplementation != "MPICH") {
      module.emitError() << "mpi-implementation must be OpenMPI or MPICH, got '"
                         << mpiImplementation << "'";
      return signalPassFailure();
    }
    bool distributed = false;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic())
        continue;
      FailureOr<bool> changed = FunctionDistributor(func, module).run();
      if (failed(changed))
        return signalPassFailure();
      distributed |= *changed;
    }
    if (distributed)
      declareImplementation(module);
  }

  /// The DLTI entry the mpi dialect's lowering reads, unless one is there.
  void declareImplementation(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    StringAttr key = StringAttr::get(ctx, "MPI:Implementation");
    auto existing = module->getAttrOfType<MapAttr>(DLTIDialect::kMapAttrName);
    SmallVector<DataLayoutEntryInterface> entries;
    if (existing) {
      for (DataLayoutEntryInterface entry : existing.getEntries())
        if (auto name = dyn_cast<StringAttr>(entry.getKey()); name && name == key)
          return;
      llvm::append_range(entries, existing.getEntries());
    }
    entries.push_back(DataLayoutEntryAttr::get(
        key, StringAttr::get(ctx, mpiImplementation)));
    module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(ctx, entries));
  }
};

} // namespace
