//===- UnshareFills.cpp - one zero fill per destination -------------------===//
//
// A fill shared by several destination operands bufferizes to one buffer
// plus a copy per further use; a fill of its own per use bufferizes in place.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAUNSHAREFILLS
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The uses of `fill`'s result as the destination of a destination-style
/// op (where bufferization would write into the fill's buffer), in program
/// order.
SmallVector<OpOperand *> destinationUses(linalg::FillOp fill) {
  SmallVector<OpOperand *> uses;
  fill->getBlock()->walk([&](DestinationStyleOpInterface dps) {
    for (OpOperand &init : dps.getDpsInitsMutable())
      if (init.get() == fill.getResult(0))
        uses.push_back(&init);
  });
  return uses;
}

struct LineaUnshareFillsPass
    : linea::impl::LineaUnshareFillsBase<LineaUnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() &&
          fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
          !fill.getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      SmallVector<OpOperand *> uses = destinationUses(fill);
      // The first destination keeps the original, unless something else
      // reads the zeros too.
      bool othersRead = uses.size() != size_t(std::distance(
                                           fill->use_begin(), fill->use_end()));
      for (OpOperand *use : llvm::drop_begin(uses, othersRead ? 0 : 1)) {
        rewriter.setInsertionPoint(use->getOwner());
        Operation *empty = rewriter.clone(
            *fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>());
        Operation *copy = rewriter.clone(*fill);
        copy->setOperand(1, empty->getResult(0));
        use->set(copy->getResult(0));
      }
    }
  }
};

} // namespace
