//===- FoldAdjoint.cpp - linea.fold backwards, segment by segment ---------===//
//
// A fold's output is the memory after each segment, so the backward loop
// recomputes any window from it: `W_s = [M_s; x_s]` with `M_0 = memory` and
// `M_s = y[(s-1)l : sl]`. Walking the segments in reverse, it recomputes the
// body on `W_s`, seeds `R_s[l : 2l]` with `dy_s + dM_(s+1)`, sweeps the body
// backwards, and splits `dW_s` into `dM_s` and `dx_s`; captured values (a
// folded attention's weights) sum their cotangents over the segments. Live
// data beyond the inputs, the outputs and their cotangents is one window's
// activations, however long the sequence.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Utils/AttentionBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::linea;

static Value castTo(OpBuilder &b, Location loc, Type type, Value x) {
  return x.getType() == type ? x : tensor::CastOp::create(b, loc, type, x);
}

/// `M_s`: the fold's memory operand for the first segment, else the output
/// rows of the segment before (the memory that segment evolved).
static Value memoryBefore(OpBuilder &b, Location loc, FoldOp op, Value segment,
                          Value start) {
  Value memory = op.getMemory();
  int64_t length = op.getSegmentLength();
  int64_t seq = seqDim(op.getInput().getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        segment, zero);
  auto select = scf::IfOp::create(
      b, loc, isFirst,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, memory); },
      [&](OpBuilder &eb, Location l) {
        Value before = arith::SubIOp::create(
            eb, l, start, arith::ConstantIndexOp::create(eb, l, length));
        Value rows = sliceAlong(eb, l, op.getOutput(), seq, before,
                                eb.getIndexAttr(length));
        scf::YieldOp::create(eb, l, castTo(eb, l, memory.getType(), rows));
      });
  return select.getResult(0);
}

/// `W_s = [M_s; x[start : start + l]]`, of the body's window type.
static Value recomputeWindow(OpBuilder &b, Location loc, FoldOp op,
                             Value segment, Value start) {
  TypedValue<RankedTensorType> x = op.getInput();
  int64_t length = op.getSegmentLength();
  int64_t seq = seqDim(x.getType());
  Type windowType = op.getBody().getArgument(0).getType();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[seq] = b.getIndexAttr(2 * length);
  Value window = tensor::EmptyOp::create(
      b, loc, sizes, x.getType().getElementType());
  window = insertAlong(b, loc, memoryBefore(b, loc, op, segment, start),
                       window, seq, b.getIndexAttr(0));
  Value current = sliceAlong(b, loc, x, seq, start, b.getIndexAttr(length));
  window = insertAlong(b, loc, current, window, seq, b.getIndexAttr(length));
  return castTo(b, loc, windowType, window);
}

namespace {

/// One iteration of the reverse loop: segment `s`'s window recomputed and
/// its body differentiated.
struct SegmentAdjoint {
  FoldOp op;
  ArrayRef<Value> captured; // active values the body reads from outside
  Value dOutput;
  TargetKind target; // the machine the gradient is for

  /// Given the carried (dM_(s+1), dx, d captured...), yields
  /// (dM_s, dx with dx_s inserted, d captured + this segment's share).
  LogicalResult build(OpBuilder &b, Location loc, Value segment,
                      ValueRange carried, SmallVector<Value> &next) {
    int64_t length = op.getSegmentLength();
    int64_t seq = seqDim(op.getInput().getType());
    Value start = arith::MulIOp::create(
        b, loc, segment, arith::ConstantIndexOp::create(b, loc, length));
    Value window = recomputeWindow(b, loc, op, segment, start);

    Block &body = op.getBody().front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), window);
    SmallVector<Operation *> recomputed;
    for (Operation &nested : body.without_terminator())
      recomputed.push_back(b.clone(nested, mapping));
    Value evolved = mapping.lookupOrDefault(
        cast<YieldOp>(body.getTerminator()).getValue());

    Cotangents inner;
    inner.setTarget(target);
    inner.markActive(window);
    for (Value value : captured)
      inner.markActive(value);
    propagateActivity(recomputed, inner);

    // dR = [0; dy_s + dM_(s+1)]: only the evolved half leaves the window.
    Value dRows = sliceAlong(b, loc, dOutput, seq, start,
                             b.getIndexAttr(length));
    dRows = addCotangents(b, loc, dRows,
                          castTo(b, loc, dRows.getType(), carried[0]));
    inner.accumulate(b, loc, evolved,
                     insertAlong(b, loc, dRows, zerosLike(b, loc, evolved),
                                 seq, b.getIndexAttr(length)));
    if (failed(sweepBackwards(recomputed, b, inner)))
      return failure();

    // Each carried cotangent is written into its own buffer: bufferization
    // keeps one buffer per loop-carried value only when the yield is it.
    Value dWindow = inner.lookupOrZeros(b, loc, window);
    Value dMemory = sliceAlong(b, loc, dWindow, seq, b.getIndexAttr(0),
                               b.getIndexAttr(length));
    dMemory = castTo(b, loc, carried[0].getType(), dMemory);
    next.push_back(
        linalg::CopyOp::create(b, loc, dMemory, carried[0]).getResult(0));
    Value dCurrent = sliceAlong(b, loc, dWindow, seq, b.getIndexAttr(length),
                                b.getIndexAttr(length));
    next.push_back(insertAlong(b, loc, dCurrent, carried[1], seq, start));
    for (auto [value, sum] : llvm::zip(captured, carried.drop_front(2))) {
      Value share = inner.lookup(value);
      next.push_back(share ? linalg::AddOp::create(b, loc, ValueRange{sum, share},
                                                   ValueRange{sum})
                                 .getResult(0)
                           : sum);
    }
    return success();
  }
};

} // namespace

LogicalResult mlir::linea::emitFoldAdjoint(FoldOp op, OpBuilder &b,
                                           Cotangents &cotangents) {
  Location loc = op.getLoc();
  TypedValue<RankedTensorType> x = op.getInput();
  int64_t seq = seqDim(x.getType());

  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(op.getBody(), used);
  SmallVector<Value> captured = llvm::filter_to_vector(
      used, [&](Value v) { return cotangents.isActive(v); });

  Value length = getValueOrCreateConstantIndexOp(
      b, loc, tensor::getMixedSize(b, loc, x, seq));
  Value numSegments = arith::DivUIOp::create(
      b, loc, length,
      arith::ConstantIndexOp::create(b, loc, op.getSegmentLength()));
  SmallVector<Value> init = {
      cotangents.lookupOrZeros(b, loc, op.getFinalMemory()),
      zerosLike(b, loc, x)};
  for (Value value : captured)
    init.push_back(zerosLike(b, loc, value));

  SegmentAdjoint segment{op, captured,
                         cotangents.lookupOrZeros(b, loc, op.getOutput()),
                         cotangents.target()};
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, numSegments, one);
  // The body is built after the loop exists: the rules look at the
  // regions above the ops they differentiate.
  auto loop = scf::ForOp::create(b, loc, zero, numSegments, one, init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value s = arith::SubIOp::create(b, loc, last, loop.getInductionVar());
  SmallVector<Value> next;
  if (failed(segment.build(b, loc, s, loop.getRegionIterArgs(), next)))
    return failure();
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);

  cotangents.accumulate(b, loc, op.getMemory(), loop.getResult(0));
  cotangents.accumulate(b, loc, x, loop.getResult(1));
  for (auto [value, sum] : llvm::zip(captured, loop.getResults().drop_front(2)))
    cotangents.accumulate(b, loc, value, sum);
  return success();
}
