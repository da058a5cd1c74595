//===- UnshareEmpties.cpp - one empty tensor per destination --------------===//
//
// CSE merges identical `tensor.empty`s, and one-shot bufferization then
// gives the merged value one buffer that each destination-style op writing
// it reuses in turn: a widened bf16 operand, then a layer's output rows,
// then the next operand, all in one allocation. A buffer with several
// writers is neither read as stored (linea-read-as-stored takes a 16-bit
// buffer for an f32 one only where one widening copy fills it) nor written
// as stored. On the GPU allocations come from a stream-ordered pool, so a
// buffer per destination costs little.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAUNSHAREEMPTIES
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The uses of `empty` as the destination of a destination-style op, in
/// program order.
SmallVector<OpOperand *> destinationUses(tensor::EmptyOp empty) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : empty->getUses()) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    if (dps && dps.isDpsInit(&use))
      uses.push_back(&use);
  }
  llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
    return a->getOwner()->isBeforeInBlock(b->getOwner());
  });
  return uses;
}

struct LineaUnshareEmptiesPass
    : linea::impl::LineaUnshareEmptiesBase<LineaUnshareEmptiesPass> {
  void runOnOperation() override {
    // A sequence block's temporaries live in its shared memory, where
    // reusing one buffer for temporaries that die in turn is worth keeping.
    SmallVector<tensor::EmptyOp> empties;
    getOperation()->walk([&](tensor::EmptyOp empty) {
      if (!linea::isInSequenceBlock(empty))
        empties.push_back(empty);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses = destinationUses(empty);
      // Ops in one block only: program order is what the clone needs.
      if (uses.size() < 2 || llvm::any_of(uses, [&](OpOperand *use) {
            return use->getOwner()->getBlock() !=
                   uses[0]->getOwner()->getBlock();
          }))
        continue;
      for (OpOperand *use : llvm::drop_begin(uses)) {
        rewriter.setInsertionPoint(use->getOwner());
        use->set(rewriter.clone(*empty)->getResult(0));
      }
    }
  }
};

} // namespace
