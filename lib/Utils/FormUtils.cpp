//===- FormUtils.cpp - what the one-shot and chunked forms share ----------===//

#include "linea/Utils/FormUtils.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

LogicalResult mlir::linea::verifyFormSizeOption(Operation *root,
                                                StringRef option,
                                                int64_t value) {
  if (value >= 0 && value <= kMaxFormSize)
    return success();
  return root->emitError() << option << " must be in [0, " << kMaxFormSize
                           << "], got " << value;
}

FormOperands mlir::linea::prepareOperands(OpBuilder &b, Location loc,
                                          LinearAttentionOpInterface op,
                                          const FormOperands &raw) {
  FeatureMap map = op.getFeatureMap();
  FormOperands operands;
  operands.q = applyFeatureMap(b, loc, castToF32(b, loc, raw.q), map);
  operands.k = applyFeatureMap(b, loc, castToF32(b, loc, raw.k), map);
  operands.v = castToF32(b, loc, raw.v);
  if (op.getNormalize())
    operands.v = appendOnesColumn(b, loc, operands.v);
  if (raw.g)
    operands.g = castToF32(b, loc, raw.g);
  return operands;
}

FormOperands mlir::linea::prepareOperands(OpBuilder &b, Location loc,
                                          LinearAttentionOpInterface op) {
  return prepareOperands(
      b, loc, op,
      FormOperands{op.getQuery(), op.getKey(), op.getValue(), op.getGate()});
}

Value mlir::linea::initialStateOrZeros(OpBuilder &b, Location loc, Value init,
                                       Value q, Value v) {
  int64_t numBatch = numBatchDims(cast<RankedTensorType>(q.getType()));
  Value state = zerosWithBatchOf(
      b, loc, q, numBatch,
      {tensor::getMixedSize(b, loc, q, numBatch + 1),
       tensor::getMixedSize(b, loc, v, numBatch + 1)});
  if (!init)
    return state;
  return linalg::CopyOp::create(b, loc, init, state).getResult(0);
}

Value mlir::linea::finishRows(OpBuilder &b, Location loc,
                              LinearAttentionOpInterface op, Value rows) {
  float scale = op.getScale().convertToFloat();
  Type elementType = op.getOutput().getType().getElementType();
  if (op.getNormalize())
    return divideByLastColumn(b, loc, rows, scale, elementType);
  return scaleAndCast(b, loc, rows, scale, elementType);
}

void mlir::linea::replaceWithFinished(PatternRewriter &rewriter,
                                      LinearAttentionOpInterface op,
                                      Value output, Value state) {
  SmallVector<Value> results{output};
  if (op.getFinalState()) {
    if (op.getNormalize()) {
      int64_t last = featureDim(op.getValue().getType());
      state = sliceAlong(
          rewriter, op.getLoc(), state, last, rewriter.getIndexAttr(0),
          tensor::getMixedSize(rewriter, op.getLoc(), op.getValue(), last));
    }
    results.push_back(state);
  }
  rewriter.replaceOp(op, results);
}
