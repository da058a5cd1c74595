//===- Cotangents.cpp - The reverse sweep's state --------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::linea;

bool mlir::linea::isDifferentiableType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return isa<FloatType>(tensor.getElementType());
  return isa<FloatType>(type);
}

Value mlir::linea::zerosLike(OpBuilder &b, Location loc, Value like) {
  Type type = like.getType();
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, floatType,
                                     b.getFloatAttr(floatType, 0.0));
  auto tensor = cast<RankedTensorType>(type);
  Value zeros = buildFilled(b, loc, tensor::getMixedSizes(b, loc, like),
                            tensor.getElementType(), 0.0);
  if (zeros.getType() != type)
    zeros = tensor::CastOp::create(b, loc, type, zeros);
  return zeros;
}

Value Cotangents::lookupOrZeros(OpBuilder &b, Location loc, Value primal) {
  if (Value sum = lookup(primal))
    return sum;
  return zerosLike(b, loc, primal);
}

/// A linalg.add over tensors (its sizes are `lhs`'s), an addf over scalars.
Value mlir::linea::addCotangents(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs) {
  auto tensor = dyn_cast<RankedTensorType>(lhs.getType());
  if (!tensor)
    return arith::AddFOp::create(b, loc, lhs, rhs);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, lhs),
                                       tensor.getElementType());
  if (init.getType() != tensor)
    init = tensor::CastOp::create(b, loc, tensor, init);
  return linalg::AddOp::create(b, loc, ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

void Cotangents::accumulate(OpBuilder &b, Location loc, Value primal,
                            Value contribution) {
  if (!isActive(primal) || !contribution)
    return;
  if (contribution.getType() != primal.getType())
    contribution =
        tensor::CastOp::create(b, loc, primal.getType(), contribution);
  Value &sum = sums[primal];
  sum = sum ? addCotangents(b, loc, sum, contribution) : contribution;
}

bool Cotangents::anyResultHasCotangent(Operation *op) const {
  return llvm::any_of(op->getResults(),
                      [&](Value result) { return lookup(result) != nullptr; });
}

LogicalResult mlir::linea::emitAdjoint(Operation *op, OpBuilder &b,
                                       Cotangents &cotangents) {
  for (auto family : {emitLineaAdjoint, emitStructuredAdjoint,
                      emitTensorAdjoint})
    if (std::optional<LogicalResult> done = family(op, b, cotangents))
      return *done;
  return op->emitOpError()
         << "cannot be differentiated: linea-differentiate has no adjoint "
            "rule for it";
}

void mlir::linea::propagateActivity(ArrayRef<Operation *> ops,
                                    Cotangents &cotangents) {
  auto isActive = [&](Value v) { return cotangents.isActive(v); };
  for (Operation *op : ops) {
    bool active = llvm::any_of(op->getOperands(), isActive);
    if (!active && op->getNumRegions()) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      active = llvm::any_of(captured, isActive);
    }
    if (active)
      for (Value r : op->getResults())
        if (isDifferentiableType(r.getType()))
          cotangents.markActive(r);
  }
}

LogicalResult mlir::linea::sweepBackwards(ArrayRef<Operation *> ops,
                                          OpBuilder &b,
                                          Cotangents &cotangents) {
  OpBuilder::InsertPoint at = b.saveInsertionPoint();
  for (Operation *op : llvm::reverse(ops)) {
    if (!cotangents.anyResultHasCotangent(op))
      continue;
    b.restoreInsertionPoint(at);
    if (failed(emitAdjoint(op, b, cotangents)))
      return failure();
  }
  b.restoreInsertionPoint(at);
  return success();
}
