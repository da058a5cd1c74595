//===- LinalgBodies.cpp - a linalg op's body at given loop indices --------===//

#include "linea/Utils/LinalgBodies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

bool linea::hasPlainBody(linalg::LinalgOp op) {
  return llvm::all_of(op.getBlock()->without_terminator(), [](Operation &op) {
    return !op.getNumRegions() && isMemoryEffectFree(&op);
  });
}

bool linea::readsByLoopDims(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    return isa<AffineDimExpr, AffineConstantExpr>(e);
  });
}

SmallVector<Value> linea::indicesByMap(OpBuilder &b, Location loc,
                                       AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr result : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(arith::ConstantIndexOp::create(
          b, loc, cast<AffineConstantExpr>(result).getValue()));
  }
  return indices;
}

Value linea::loadByMap(OpBuilder &b, Location loc, Value buffer, AffineMap map,
                       ValueRange ivs) {
  return memref::LoadOp::create(b, loc, buffer, indicesByMap(b, loc, map, ivs));
}

Value linea::cloneBodyAt(OpBuilder &b, linalg::LinalgOp op, ValueRange ivs,
                         function_ref<Value(OpOperand &)> valueOf, Value result,
                         Operation *skip) {
  Block *body = op.getBlock();
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg.use_empty())
      if (Value value = valueOf(operand))
        mapping.map(arg, value);
  }
  for (Operation &inner : body->without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner))
      mapping.map(index.getResult(), ivs[index.getDim()]);
    else
      b.clone(inner, mapping);
  }
  return mapping.lookupOrDefault(result ? result
                                        : body->getTerminator()->getOperand(0));
}
