//===- GatherAdjoint.cpp - The adjoint of a lookup inside a linalg body ----===//
//
// A linalg.generic whose body reads a tensor from outside at computed
// indices (`tensor.extract %table[%row, %col]`: an embedding's lookup, a
// gather) sends each point's cotangent back to the element it read. Two
// points may read one element (a token that occurs twice), so the
// cotangent is a scatter-add: loops over the generic's iteration space, in
// order, each recomputing the body at its point and adding its contribution
// into the table's cotangent. After bufferization the loops update one
// buffer in place: O(points) work, as torch's embedding backward.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::linea;

/// The element of `operand` (read through `map`) at the loop point `ivs`;
/// a scalar operand is its own element.
static Value elementAt(OpBuilder &b, Location loc, Value operand, AffineMap map,
                       ValueRange ivs) {
  if (!isa<RankedTensorType>(operand.getType()))
    return operand;
  std::optional<SmallVector<Value, 8>> indices =
      affine::expandAffineMap(b, loc, map, ivs);
  return tensor::ExtractOp::create(b, loc, operand, *indices);
}

/// The body of `op` recomputed at the point `ivs`; `initValues[j]` is what
/// output j's block argument reads there (null: a zero, for an init that is
/// overwritten or summed into). Returns the clones of the body's values.
static llvm::DenseMap<Value, Value>
recomputeBodyAt(OpBuilder &b, Location loc, linalg::GenericOp op,
                ValueRange ivs, ArrayRef<Value> initValues) {
  Block *body = op.getBody();
  IRMapping primal;
  for (OpOperand *input : op.getDpsInputOperands())
    primal.map(op.getMatchingBlockArgument(input),
               elementAt(b, loc, input->get(), op.getMatchingIndexingMap(input),
                         ivs));
  for (auto [j, value] : llvm::enumerate(initValues)) {
    BlockArgument out = body->getArgument(op.getNumDpsInputs() + j);
    primal.map(out, value ? value
                          : arith::ConstantOp::create(
                                b, loc, out.getType(),
                                b.getZeroAttr(out.getType()))
                                .getResult());
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      primal.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, primal);
  }
  return primalValues(*body, primal);
}

LogicalResult mlir::linea::emitGatherAdjoint(linalg::GenericOp op,
                                             tensor::ExtractOp read,
                                             ArrayRef<Value> initsRead,
                                             ArrayRef<Value> resultCotangents,
                                             OpBuilder &b,
                                             Cotangents &cotangents) {
  Location loc = op.getLoc();
  Value table = read.getTensor();
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                          .createLoopRanges(b, loc)) {
    lowerBounds.push_back(
        getValueOrCreateConstantIndexOp(b, loc, range.offset));
    upperBounds.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
    steps.push_back(getValueOrCreateConstantIndexOp(b, loc, range.stride));
  }
  Value zeros = zerosLike(b, loc, table);
  bool failedBody = false;
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lowerBounds, upperBounds, steps, ValueRange{zeros},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange sums) -> scf::ValueVector {
        SmallVector<Value> initValues;
        for (auto [j, init] : llvm::enumerate(initsRead))
          initValues.push_back(
              init ? elementAt(nb, nl, init,
                               op.getMatchingIndexingMap(op.getDpsInitOperand(j)),
                               ivs)
                   : Value());
        llvm::DenseMap<Value, Value> primalOf =
            recomputeBodyAt(nb, nl, op, ivs, initValues);
        SmallVector<Value> yieldCotangents;
        for (auto [j, d] : llvm::enumerate(resultCotangents))
          yieldCotangents.push_back(elementAt(
              nb, nl, d, op.getMatchingIndexingMap(op.getDpsInitOperand(j)),
              ivs));
        FailureOr<SmallVector<Value>> d = differentiateScalarBody(
            nb, nl, *op.getBody(), primalOf, yieldCotangents,
            {read.getResult()});
        if (failed(d)) {
          failedBody = true;
          return {sums[0]};
        }
        if (!(*d)[0]) // nothing the body yields depends on the read
          return {sums[0]};
        SmallVector<Value> at;
        for (Value index : read.getIndices())
          at.push_back(primalOf.lookup(index) ? primalOf.lookup(index) : index);
        Value old = tensor::ExtractOp::create(nb, nl, sums[0], at);
        Value added = arith::AddFOp::create(nb, nl, old, (*d)[0]);
        return {tensor::InsertOp::create(nb, nl, added, sums[0], at)};
      });
  if (failedBody)
    return failure();
  cotangents.accumulate(b, loc, table, nest.results[0]);
  return success();
}
