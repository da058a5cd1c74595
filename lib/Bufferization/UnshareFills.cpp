//===- UnshareFills.cpp - one zero fill per destination -------------------===//
//
// A fill shared by several destination operands bufferizes to one buffer
// plus a copy per further use; a fill of its own per use bufferizes in place.
// So do zeros made of several ops (the first of a chunked form's states).
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"
#include "linea/Utils/Fills.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAUNSHAREFILLS
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The uses of `fill`'s result that zeros of their own would compute in place,
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

/// Whether parts of `value` are computed in place: a slice of it is taken
/// (a padded tensor whose producer writes its interior, the result
/// inserted back). Its uses are one buffer's, not several accumulators'.
bool writtenInParts(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    return isa<tensor::ExtractSliceOp>(user);
  });
}

/// The ops that make `value` out of empty tensors and fills alone (empties,
/// slices of what they make, fills, inserts of those), in program order,
/// at least one of them a fill on tensors; empty where `value` reads any
/// other tensor (or is made in another block). A fill of an empty is one
/// such recipe; zeros in the first of a chunked form's states (a filled
/// slice inserted into an empty) another.
SmallVector<Operation *> zerosRecipe(Value value) {
  llvm::SetVector<Operation *> ops;
  bool filled = false;
  std::function<bool(Value)> visit = [&](Value made) {
    Operation *def = made.getDefiningOp();
    if (!def || def->getBlock() != value.getDefiningOp()->getBlock())
      return false;
    if (ops.contains(def))
      return true;
    bool isFill =
        linea::filledValue(def) &&
        cast<DestinationStyleOpInterface>(def).hasPureTensorSemantics();
    if (!isFill &&
        !isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::InsertSliceOp>(
            def))
      return false;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()) && !visit(operand))
        return false;
    filled |= isFill;
    ops.insert(def);
    return true;
  };
  if (!value.getDefiningOp() || !visit(value) || !filled)
    return {};
  SmallVector<Operation *> ordered = ops.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct LineaUnshareFillsPass
    : linea::impl::LineaUnshareFillsBase<LineaUnshareFillsPass> {
  void runOnOperation() override {
    // Fills in either form (a model's reach here generalized by the raise),
    // and inserts of them: the roots of shared zeros.
    SmallVector<Operation *> shared;
    getOperation()->walk([&](Operation *op) {
      if ((linea::filledValue(op) || isa<tensor::InsertSliceOp>(op)) &&
          op->getNumResults() == 1 && !op->getResult(0).hasOneUse() &&
          !writtenInParts(op->getResult(0)) &&
          !zerosRecipe(op->getResult(0)).empty())
        shared.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *root : shared) {
      SmallVector<Operation *> recipe = zerosRecipe(root->getResult(0));
      SmallVector<OpOperand *> uses = destinationUses(root);
      // The first destination keeps the original, unless something else
      // reads the zeros too.
      bool othersRead = uses.size() != size_t(std::distance(root->use_begin(),
                                                            root->use_end()));
      for (OpOperand *use : llvm::drop_begin(uses, othersRead ? 0 : 1)) {
        rewriter.setInsertionPoint(use->getOwner());
        IRMapping fresh;
        for (Operation *op : recipe)
          rewriter.clone(*op, fresh);
        use->set(fresh.lookup(root->getResult(0)));
      }
    }
  }
};

} // namespace
