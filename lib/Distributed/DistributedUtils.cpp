//===- DistributedUtils.cpp - what the split rules share ------------------===//
//
// The bodies of DistributedUtils.h's helpers: which operand an op reads as
// a sequence, the records the ranks all-gather, folds over ranks, this
// rank's row span, and the global offsets of a packed op read here.
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

/// Every rank's record on every rank.
void Records::gather(OpBuilder &b, Location loc, ModuleOp module,
                     Value numRanks) {
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
Value Records::read(OpBuilder &b, Location loc, Value rank,
                    unsigned which) const {
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

/// Rank `rank`'s rows.
Value RowSpan::rowsOf(OpBuilder &b, Location loc, Value rank) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value n = tensor::ExtractOp::create(b, loc, counts, ValueRange{rank, zero});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
}

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

} // namespace mlir::linea::distributed
