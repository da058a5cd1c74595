//===- VectorizeScans.cpp - presum as a streaming vector scan -------------===//
//
// A presum is bound by memory: one read and one write of each element is all
// it needs. The reference lowering steps every leading index at once, one
// strided slice per position, with a running-sum buffer and a copy per
// step. Here each leading index and tile of the innermost dim walks the
// scanned dim alone, its running sum in vector registers, so the input and
// the result stream through memory row after row. A decay multiplies the
// running sum by its exponential at each step (one element broadcast, or a
// row of lanes where the decay spans every dim).
//
//===----------------------------------------------------------------------===//

#include "linea/CPU/Passes.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAVECTORIZESCANS
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

class ScanBuilder {
public:
  ScanBuilder(OpBuilder &b, PresumOp op, int64_t lanes)
      : b(b), loc(op.getLoc()), op(op), lanes(lanes),
        rank(op.getInput().getType().getRank()) {}

  Value build() {
    Value x = op.getInput();
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
    indices.assign(rank, Value());
    Value result = tensor::EmptyOp::create(b, loc, sizes,
                                           b.getF32Type());
    return buildOuterLoops(0, result);
  }

private:
  Value constant(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value size(int64_t d) { return getValueOrCreateConstantIndexOp(b, loc, sizes[d]); }

  /// A loop carrying the result tensor; `body` gets the induction variable
  /// and the current result and returns the next.
  Value loop(Value lb, Value ub, Value step, Value result,
             function_ref<Value(Value, Value)> body) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, step, ValueRange{result},
        [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(iv, carried[0]));
        });
    return forOp.getResult(0);
  }

  /// Loops over every dim but the scanned one, the innermost by tiles of
  /// `lanes`.
  Value buildOuterLoops(int64_t d, Value result) {
    int64_t scanDim = op.getScanDim();
    if (d == scanDim)
      return buildOuterLoops(d + 1, result);
    if (d == rank - 1)
      return loop(constant(0), size(d), constant(lanes), result,
                  [&](Value iv, Value current) {
                    indices[d] = iv;
                    return buildScan(current);
                  });
    return loop(constant(0), size(d), constant(1), result,
                [&](Value iv, Value current) {
                  indices[d] = iv;
                  return buildOuterLoops(d + 1, current);
                });
  }

  /// `exp(a)` at the current position as a vector of the row's lanes: the
  /// decay's own lanes where it spans every dim of the input, else its one
  /// element (it covers only leading dims) broadcast.
  Value decayFactor(Value decay, VectorType rowType) {
    int64_t decayRank = cast<RankedTensorType>(decay.getType()).getRank();
    ArrayRef<Value> at = ArrayRef(indices).take_front(decayRank);
    Value factor;
    if (decayRank == rank) {
      Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      factor = vector::TransferReadOp::create(b, loc, rowType, decay, at, pad,
                                              ArrayRef<bool>{inBounds});
    } else {
      factor = vector::BroadcastOp::create(
          b, loc, rowType, tensor::ExtractOp::create(b, loc, decay, at));
    }
    return math::ExpOp::create(b, loc, factor);
  }

  /// The walk along the scanned dim with the running sum in registers.
  Value buildScan(Value result) {
    int64_t scanDim = op.getScanDim();
    auto rowType = VectorType::get({lanes}, b.getF32Type());
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(0)));
    Value pad = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    Value length = size(scanDim);
    Value one = constant(1);
    // The last tile of the innermost dim may be partial: masked accesses.
    inBounds = false;
    if (std::optional<int64_t> inner = getConstantIntValue(sizes[rank - 1]))
      inBounds = *inner % lanes == 0;
    auto walk = scf::ForOp::create(
        b, loc, constant(0), length, one, ValueRange{zeros, result},
        [&](OpBuilder &nested, Location, Value step, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          Value position = step;
          if (op.getReverse())
            position = arith::SubIOp::create(
                b, loc, arith::SubIOp::create(b, loc, length, one), step);
          indices[scanDim] = position;
          Value row = vector::TransferReadOp::create(
              b, loc, rowType, op.getInput(), indices, pad,
              ArrayRef<bool>{inBounds});
          Value running = carried[0];
          if (Value decay = op.getDecay())
            running = arith::MulFOp::create(b, loc, decayFactor(decay, rowType),
                                            running);
          Value sum = arith::AddFOp::create(b, loc, running, row);
          // Exclusive: position i holds the sum of the steps before it.
          Value stored = op.getExclusive() ? carried[0] : sum;
          Value written = vector::TransferWriteOp::create(
                              b, loc, stored, carried[1], indices,
                              ArrayRef<bool>{inBounds})
                              .getResult();
          scf::YieldOp::create(b, loc, ValueRange{sum, written});
        });
    return walk.getResult(1);
  }

  OpBuilder &b;
  Location loc;
  PresumOp op;
  int64_t lanes;
  int64_t rank;
  SmallVector<OpFoldResult> sizes;
  SmallVector<Value> indices;
  /// Whether every tile of the innermost dim is whole (unmasked accesses).
  bool inBounds = false;
};

bool isVectorizable(PresumOp op) {
  RankedTensorType type = op.getInput().getType();
  Value decay = op.getDecay();
  if (!type.getElementType().isF32() ||
      (decay && !getElementTypeOrSelf(decay.getType()).isF32()) ||
      op.getScanDim() == type.getRank() - 1 || op.getOffsets())
    return false;
  FormAttr form = op.getFormAttr();
  return !form || form.getKind() == FormKind::scan;
}

struct LineaVectorizeScansPass
    : linea::impl::LineaVectorizeScansBase<LineaVectorizeScansPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(linea::checkTileOption(root, "vector-width", vectorWidth, 64)) ||
        failed(linea::checkTileOption(root, "registers", registers, 32)))
      return signalPassFailure();
    SmallVector<PresumOp> presums;
    getOperation()->walk([&](PresumOp op) {
      if (isVectorizable(op))
        presums.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (PresumOp op : presums) {
      rewriter.setInsertionPoint(op);
      // A tile no wider than the innermost dim when that is known small.
      int64_t lanes = vectorWidth * registers;
      int64_t inner = op.getInput().getType().getShape().back();
      if (!ShapedType::isDynamic(inner) && inner < lanes)
        lanes = inner;
      rewriter.replaceOp(op, ScanBuilder(rewriter, op, lanes).build());
    }
  }
};

} // namespace
