//===- CheckAssumedSizes.cpp - sizes a model's IR assumes, checked --------===//
//
// A tensor.cast that makes a dynamic dim static is an assumption the code
// after it is sized by; canonicalization folds it into its producer, after
// which nothing checks it. Checked first, where the cast makes it, through
// upstream's RuntimeVerifiableOpInterface of tensor.cast; and a linalg op
// into which a front end folded such a cast (a loop static in one operand,
// dynamic in another) checks the dynamic sizes against the static one.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACHECKASSUMEDSIZES
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether the cast makes a dynamic dim of its source static.
bool assumesStaticSize(tensor::CastOp cast) {
  auto source = dyn_cast<RankedTensorType>(cast.getSource().getType());
  auto result = dyn_cast<RankedTensorType>(cast.getType());
  if (!source || !result)
    return false;
  for (int64_t d = 0; d < source.getRank(); ++d)
    if (source.isDynamicDim(d) && !result.isDynamicDim(d))
      return true;
  return false;
}

/// A structured op whose operands give one loop a static extent and a
/// dynamic one (torch-mlir folds a `?x?xD` to `?x1xD` cast into the op that
/// produces it: inputs `?x?xD`, output `?x1xD`): loops sized by one operand
/// would index past the other's end unless the dynamic sizes are the
/// static one. Each such dynamic size is checked, before the op.
void checkLoopExtents(OpBuilder &b, linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return;
  // Per loop: the static extent an operand gives it, and the operand dims
  // that read it dynamically.
  unsigned numLoops = op.getNumLoops();
  SmallVector<std::optional<int64_t>> staticExtent(numLoops);
  SmallVector<SmallVector<std::pair<OpOperand *, unsigned>>> dynamicDims(
      numLoops);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto loop = dyn_cast<AffineDimExpr>(expr);
      if (!loop)
        continue;
      if (type.isDynamicDim(d))
        dynamicDims[loop.getPosition()].push_back({&operand, unsigned(d)});
      else
        staticExtent[loop.getPosition()] = type.getDimSize(d);
    }
  }
  Location loc = op.getLoc();
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (!staticExtent[loop])
      continue;
    for (auto [operand, d] : dynamicDims[loop]) {
      b.setInsertionPoint(op);
      Value size = tensor::DimOp::create(b, loc, operand->get(), d);
      Value expected =
          arith::ConstantIndexOp::create(b, loc, *staticExtent[loop]);
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         size, expected);
      linea::CheckOp::create(
          b, loc, same,
          linea::checkMessageAt(
              loc, (op->getName().getStringRef() + ": dim " + Twine(d) +
                    " of operand " + Twine(operand->getOperandNumber()) +
                    " is {0}, where the op's other operands make it {1} (the "
                    "model's IR assumes that size)")
                       .str()),
          ValueRange{size, expected});
    }
  }
}

struct LineaCheckAssumedSizesPass
    : linea::impl::LineaCheckAssumedSizesBase<LineaCheckAssumedSizesPass> {
  void runOnOperation() override {
    SmallVector<tensor::CastOp> casts;
    getOperation()->walk([&](tensor::CastOp cast) {
      if (assumesStaticSize(cast))
        casts.push_back(cast);
    });
    OpBuilder builder(&getContext());
    SmallVector<linalg::LinalgOp> structured;
    getOperation()->walk(
        [&](linalg::LinalgOp op) { structured.push_back(op); });
    for (linalg::LinalgOp op : structured)
      checkLoopExtents(builder, op);
    for (tensor::CastOp cast : casts) {
      auto verifiable =
          dyn_cast<RuntimeVerifiableOpInterface>(cast.getOperation());
      if (!verifiable) {
        cast->emitError() << "linea-check-assumed-sizes: tensor.cast has no "
                             "run-time verification (register the tensor "
                             "dialect's extensions)";
        return signalPassFailure();
      }
      builder.setInsertionPoint(cast);
      verifiable.generateRuntimeVerification(builder, cast.getLoc(),
                                             linea::runtimeCheckMessage);
    }
  }
};

} // namespace
