//===- DistributeLinearAttention.cpp - linear attention across ranks ------===//
//
// The rule for a linear-attention op (gated or not, any mask) that is not
// packed: each rank runs its rows from a zero state as an ordinary Linea
// op, one all-gather shares the final states (and log-decay sums), and
// each rank folds those of the ranks before it onto the initial state; the
// output, linear in the state, then moves onto the state its rows really
// start from. Under a prefix mask the rows before the prefix length read
// the state after the whole prefix instead.
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

} // namespace

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

SmallVector<Value> distributeLinearAttention(OpBuilder &b, ModuleOp module,
                                             const Ranks &ranks,
                                             LinearAttentionOpInterface op) {
  return DistributedAttention(b, module, ranks, op).build();
}

} // namespace mlir::linea::distributed
