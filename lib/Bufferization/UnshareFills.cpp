//===- UnshareFills.cpp - one zero fill per destination -------------------===//
//
// A fill shared by several destination operands bufferizes to one buffer
// plus a copy per further use; a fill of its own per use bufferizes in place.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"
#include "linea/Utils/Fills.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAUNSHAREFILLS
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The uses of `fill`'s result that one fill each would compute in place,
/// in program order: the destination of a destination-style op (where
/// bufferization would write into the fill's buffer), and the source of
/// an insert_slice (where eliminate-empty-tensors fills the slice of the
/// destination itself: a chunked form's first state, zeros, in the states
/// of every layer).
SmallVector<OpOperand *> destinationUses(Operation *fill) {
  SmallVector<OpOperand *> uses;
  Value zeros = fill->getResult(0);
  fill->getBlock()->walk([&](Operation *op) {
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      if (insert.getSource() == zeros)
        uses.push_back(&insert.getSourceMutable());
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      for (OpOperand &init : dps.getDpsInitsMutable())
        if (init.get() == zeros)
          uses.push_back(&init);
  });
  return uses;
}

/// The empty tensor a fill on tensors fills, where it has one.
tensor::EmptyOp filledEmpty(Operation *fill) {
  auto dps = cast<DestinationStyleOpInterface>(fill);
  return dps.hasPureTensorSemantics()
             ? dps.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>()
             : tensor::EmptyOp();
}

/// Whether parts of `fill`'s result are computed in place: a slice of it
/// is taken (a padded tensor whose producer writes its interior, the
/// result inserted back). Its uses are one buffer's, not several
/// accumulators'.
bool writtenInParts(Operation *fill) {
  return llvm::any_of(fill->getUsers(), [](Operation *user) {
    return isa<tensor::ExtractSliceOp>(user);
  });
}

struct LineaUnshareFillsPass
    : linea::impl::LineaUnshareFillsBase<LineaUnshareFillsPass> {
  void runOnOperation() override {
    // Fills in either form: a model's reach here generalized by the raise.
    SmallVector<Operation *> fills;
    getOperation()->walk([&](Operation *op) {
      if (linea::filledValue(op) && filledEmpty(op) &&
          !op->getResult(0).hasOneUse() && !writtenInParts(op))
        fills.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *fill : fills) {
      SmallVector<OpOperand *> uses = destinationUses(fill);
      // The first destination keeps the original, unless something else
      // reads the zeros too.
      bool othersRead = uses.size() != size_t(std::distance(
                                           fill->use_begin(), fill->use_end()));
      for (OpOperand *use : llvm::drop_begin(uses, othersRead ? 0 : 1)) {
        rewriter.setInsertionPoint(use->getOwner());
        Operation *empty = rewriter.clone(*filledEmpty(fill));
        auto copy = cast<DestinationStyleOpInterface>(rewriter.clone(*fill));
        copy.getDpsInitsMutable()[0].set(empty->getResult(0));
        use->set(copy->getResult(0));
      }
    }
  }
};

} // namespace
