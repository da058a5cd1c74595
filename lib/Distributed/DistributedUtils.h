//===- DistributedUtils.h - what the split rules share ----------*- C++ -*-===//
//
// Private to LineaDistributed. What linea-sequence-parallel's per-op rules
// share: the records the ranks all-gather (Records), folds over ranks and
// where this rank's rows sit in the whole sequence (RowSpan), moving rows
// run from a zero state onto a real one, and a packed op's global offsets
// read on this rank. Then each op's rule, one file each, and the walk over
// a function that dispatches to them (FunctionDistributor.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_DISTRIBUTED_DISTRIBUTEDUTILS_H
#define LINEA_LIB_DISTRIBUTED_DISTRIBUTEDUTILS_H

#include "linea/Distributed/RankCollectives.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::linea::distributed {

/// The dim along which `op` reads `operand` as a sequence, if it does.
std::optional<int64_t> sequenceDimOf(Operation *op, Value operand);

/// `value` as an `index` value (a constant for an attribute).
Value index(OpBuilder &b, Location loc, OpFoldResult value);

/// `x + y` on sizes, folded when both are constant.
OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y);

/// `x + y`, written into `x` (a loop's accumulator stays in its buffer).
Value addInto(OpBuilder &b, Location loc, Value x, Value y);

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
  void gather(OpBuilder &b, Location loc, ModuleOp module, Value numRanks);

  /// Part `which` of rank `rank`'s record, shaped like this rank's.
  Value read(OpBuilder &b, Location loc, Value rank, unsigned which) const;

private:
  SmallVector<Value> parts;
  SmallVector<OpFoldResult> offsets, sizes;
  Value gathered;
};

/// `state` with `step(state, s)` applied for the ranks `s` in [lo, hi).
Value foldOverRanks(
    OpBuilder &b, Location loc, Value lo, Value hi, Value state,
    function_ref<Value(OpBuilder &, Location, Value, Value)> step);

/// Where this rank's rows sit in the whole sequence, from an all-gather of
/// every rank's row count: the rows of the ranks before it and of all
/// ranks; `counts` (`[P, 1]` i64) holds each rank's.
struct RowSpan {
  Value offset, total, counts;

  /// Rank `rank`'s rows.
  Value rowsOf(OpBuilder &b, Location loc, Value rank) const;
};
RowSpan rowSpan(OpBuilder &b, Location loc, ModuleOp module, const Ranks &ranks,
                Value rows);

/// Rows run from a zero state, moved onto `state`: `rows + q S`, or with a
/// gate `rows + (q * exp(b)) S` with `b` the gate's running sum from the
/// first row (the decay from the state's position to each row).
Value rowsFromState(OpBuilder &b, Location loc, int64_t numBatch, Value q,
                    Value g, bool scalarGate, Value state, Value rows);

// A packed op's offsets are global (every rank has them all); see
// DistributePackedSegments.cpp.

/// The run-time checks of the op's offsets, against all ranks' rows.
void checkGlobalOffsets(OpBuilder &b, Location loc, Operation *op,
                        Value offsets, Value total);

/// This rank's offsets (`tensor<?xindex>`): every global offset less the
/// rows of the ranks before, clamped to `[0, rows]`.
Value localOffsets(OpBuilder &b, Location loc, Value offsets, Value first,
                   Value rows);

//===----------------------------------------------------------------------===//
// Each op's rule for splitting across the ranks
//===----------------------------------------------------------------------===//
//
// Each builds, at `b`'s insertion point, the op's results for this rank's
// rows; the caller has checked that its sequence operands are split and
// replaces the op.

/// A linear-attention op that is not packed (DistributeLinearAttention.cpp).
SmallVector<Value> distributeLinearAttention(OpBuilder &b, ModuleOp module,
                                             const Ranks &ranks,
                                             LinearAttentionOpInterface op);

/// A packed linear-attention op (DistributePackedSegments.cpp).
FailureOr<SmallVector<Value>>
distributePackedAttention(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                          LinearAttentionOpInterface op);

/// A packed presum (DistributePackedSegments.cpp).
Value distributePackedPresum(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                             PresumOp presum);

/// A presum that is not packed (DistributePresum.cpp).
Value distributePresum(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                       PresumOp presum);

/// Softmax attention, packed or not (DistributeSoftmaxAttention.cpp).
Value distributeSoftmaxAttention(OpBuilder &b, ModuleOp module,
                                 const Ranks &ranks, AttentionOp op);

/// Rewrites one function for this rank's rows (FunctionDistributor.cpp);
/// false when no argument is a sequence (the function stays as it is).
FailureOr<bool> distributeFunction(func::FuncOp func, ModuleOp module);

} // namespace mlir::linea::distributed

#endif // LINEA_LIB_DISTRIBUTED_DISTRIBUTEDUTILS_H
