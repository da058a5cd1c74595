//===- EpiloguesInContractionShape.cpp - epilogues across reshapes --------===//
//
// A contraction's grid takes the elementwise op after it, and the fill
// before it, only where they address its output as it stores it. A model's
// Linear over [B, L, D] with a dynamic B leaves both on reshaped views;
// collapsed into the contraction's shape they are its epilogue and its
// zero accumulators.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEPILOGUESINCONTRACTIONSHAPE
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

bool isAllParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}

/// The value `value` is a reshape of, through any chain of them.
Value beforeReshapes(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// Whether `value` is (a reshape of) a contraction's result: a linalg op
/// with reduction loops.
bool isContractionResult(Value value) {
  auto op = beforeReshapes(value).getDefiningOp<linalg::LinalgOp>();
  return op && op.getNumReductionLoops() > 0;
}

/// Whether `value` (through reshapes) is the init of a contraction.
bool initsContraction(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
      if (initsContraction(user->getResult(0)))
        return true;
      continue;
    }
    auto op = dyn_cast<linalg::LinalgOp>(user);
    if (op && op.getNumReductionLoops() > 0 && op.isDpsInit(&use))
      return true;
  }
  return false;
}

/// Which reshapes to fold into a generic by collapsing its loops: an
/// expand_shape of a contraction's result into the elementwise op reading
/// it, and a collapse_shape into a contraction's init out of the
/// elementwise op (a fill) making it.
bool foldsIntoEpilogue(OpOperand *use) {
  Operation *user = use->getOwner();
  if (auto consumer = dyn_cast<linalg::GenericOp>(user))
    return isAllParallel(consumer) && isContractionResult(use->get());
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(user)) {
    auto producer = use->get().getDefiningOp<linalg::GenericOp>();
    return producer && isAllParallel(producer) &&
           initsContraction(collapse.getResult());
  }
  return false;
}

struct LineaEpiloguesInContractionShapePass
    : linea::impl::LineaEpiloguesInContractionShapeBase<
          LineaEpiloguesInContractionShapePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns,
                                                       foldsIntoEpilogue);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    // A reshaped empty tensor is an empty tensor of its own: the collapsed
    // fill does not share its buffer with what else the empty was (CSE
    // merges a layer's empties), which bufferization would copy.
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
