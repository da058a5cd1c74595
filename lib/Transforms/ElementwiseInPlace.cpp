//===- ElementwiseInPlace.cpp - an elementwise result over its operand ----===//
//
// Front ends give every elementwise op a fresh `tensor.empty` destination,
// so each step of a chain over an L x L score matrix (the mask, a scale)
// is one more matrix in memory beside its operand. Where the operand is
// read by nothing else, the result can take its place: one-shot
// bufferization then writes it in place, element for element.
//
//===----------------------------------------------------------------------===//

#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// Whether `value` is a tensor only its one user reads, computed by a
/// linalg op, directly or through reshapes read by nothing else (torch-mlir
/// views a batch of score matrices as heads that way): a buffer of the
/// program's own, not the caller's argument or read-only constant memory.
bool isDyingLinalgResult(Value value) {
  while (value.hasOneUse()) {
    Operation *producer = value.getDefiningOp();
    if (isa_and_nonnull<linalg::LinalgOp>(producer))
      return true;
    if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(producer))
      return false;
    value = producer->getOperand(0);
  }
  return false;
}

/// An operand whose memory the result of `op` may take: of the result's
/// type, read at the same index the result is written, and dying here.
OpOperand *dyingOperand(linalg::GenericOp op, OpOperand *init) {
  AffineMap written = op.getMatchingIndexingMap(init);
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value operand = input->get();
    if (operand.getType() == init->get().getType() &&
        op.getMatchingIndexingMap(input) == written &&
        isDyingLinalgResult(operand))
      return input;
  }
  return nullptr;
}

/// An elementwise generic (every loop parallel, one result that its body
/// does not read, written to a fresh `tensor.empty`) takes a dying operand
/// as its destination.
struct WriteOverDyingOperand : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return rewriter.notifyMatchFailure(op, "not elementwise with one result");
    OpOperand *init = op.getDpsInitOperand(0);
    if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
        op.payloadUsesValueFromOperand(init))
      return rewriter.notifyMatchFailure(op, "its destination holds values");
    OpOperand *operand = dyingOperand(op, init);
    if (!operand)
      return rewriter.notifyMatchFailure(op, "no operand dies here");
    rewriter.modifyOpInPlace(op, [&] { init->set(operand->get()); });
    return success();
  }
};

} // namespace

void mlir::linea::populateElementwiseInPlacePatterns(RewritePatternSet &patterns) {
  patterns.add<WriteOverDyingOperand>(patterns.getContext());
}
