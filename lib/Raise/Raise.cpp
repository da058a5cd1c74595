//===- Raise.cpp - the linea-raise pass ------------------------------------===//
//
// Normalizes a copy of each function, tries every raise on its linalg ops
// (consumers first), and keeps the copy only where something was raised:
// a function with nothing to raise stays exactly as it was written.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SegmentIds.h"

#include "linea/Dialect/TMTensor.h"
#include "linea/Raise/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "linea-raise"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEARAISE
#include "linea/Raise/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

ArrayRef<NamedRaise> raise::allRaises() {
  static const NamedRaise raises[] = {
      {raiseNormalizedLinearAttention, "normalized linear attention"},
      {raiseDecayedLinearAttention, "decayed linear attention"},
      {raiseMaskedLinearAttention, "linear attention"},
      {raiseMaskedRowSum, "row sum"},
      {raiseSoftmaxAttention, "softmax attention"},
      {raiseCumulativeState, "cumulative state"},
      {raiseScanMinusInput, "cumsum minus input"},
      {raiseFlippedScan, "flipped cumsum"},
      {raiseScan, "cumsum"},
      {raiseTriangularSum, "triangular sum"}};
  return raises;
}

namespace {

/// Tries every raise on every op of `f` with results, consumers first; a
/// root an earlier raise absorbed (left without uses) is skipped. Every
/// pattern that took a root for its idiom and refused it says why: on a
/// root left as written the first one heads (`not raised: ...`), the others
/// follow; on a root a later pattern raised, they follow its raise.
void raiseAll(func::FuncOp f, RaiseLog &log) {
  SmallVector<Operation *> roots;
  f.walk([&](Operation *op) {
    if (isa<linalg::LinalgOp, tm_tensor::ScanOp>(op))
      roots.push_back(op);
  });
  IRRewriter rewriter(f.getContext());
  for (Operation *root : llvm::reverse(roots)) {
    // A root with no uses was absorbed; one in the as-written branch of a
    // versioned raise stays as written.
    if (root->use_empty() || isInAsWrittenBranch(root))
      continue;
    Location loc = root->getLoc();
    SmallVector<std::pair<const char *, std::string>> refusals;
    bool raised = false;
    for (const NamedRaise &pattern : allRaises()) {
      Rejection attempt;
      if (succeeded(pattern.raise(rewriter, root, log, attempt))) {
        raised = true;
        break;
      }
      // (Patterns that share a matcher refuse alike: said once.)
      if (attempt.candidate &&
          llvm::none_of(refusals, [&](const auto &refusal) {
            return refusal.second == attempt.reason;
          }))
        refusals.push_back({pattern.name, attempt.reason});
    }
    if (refusals.empty())
      continue;
    auto refusal = refusals.begin();
    if (!raised)
      log.rejected(root, (refusal++)->second);
    for (; refusal != refusals.end(); ++refusal)
      log.refused(loc, refusal->first, refusal->second);
  }
}

/// Erases the function body's ops that nothing reads any more, last op
/// first (so that their producers become dead in turn).
void eraseDeadOps(func::FuncOp f) {
  for (Block &block : f.getBody())
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isOpTriviallyDead(&op))
        op.erase();
}

/// Unrolled loops over segments as linea.fold, once their layers are
/// raised (a step then compares op for op with fewer ops). The steps a fold
/// replaced go at once: their windows are no chains' ends to try.
void raiseSegmentLoops(func::FuncOp f, RaiseLog &log) {
  IRRewriter rewriter(f.getContext());
  llvm::SmallPtrSet<Operation *, 8> tried;
  for (bool raised = true; raised;) {
    raised = false;
    // Chains end in the function body; a fold's body holds one step.
    SmallVector<tensor::ConcatOp> concats;
    for (Block &block : f.getBody())
      llvm::append_range(concats, block.getOps<tensor::ConcatOp>());
    for (tensor::ConcatOp concat : llvm::reverse(concats)) {
      if (!tried.insert(concat).second)
        continue;
      Rejection why;
      if (succeeded(raiseSegmentFold(rewriter, concat, log, why))) {
        eraseDeadOps(f);
        raised = true;
        break;
      }
      if (why.candidate)
        log.rejected(concat, why.reason);
    }
  }
}

struct LineaRaisePass : linea::impl::LineaRaiseBase<LineaRaisePass> {
  using LineaRaiseBase::LineaRaiseBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    normalization = std::make_shared<SmallVector<FrozenRewritePatternSet>>(
        normalizationPatterns(ctx));
    return success();
  }

  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    OwningOpRef<func::FuncOp> copy = f.clone();
    // A normalization that does not settle leaves nothing to raise from.
    if (failed(normalize(*copy, *normalization)))
      return;
    LLVM_DEBUG(llvm::dbgs() << "linea-raise: normalized\n" << *copy << "\n");
    RaiseLog log(explain);
    raiseAll(*copy, log);
    raiseSegmentLoops(*copy, log);
    if (log.getNumRaised() == 0)
      return;
    // A raise must leave valid IR; if one ever does not, the function stays
    // as written (and runs right) rather than fail to compile, or crash the
    // patterns that clean up after it.
    if (failed(verify(*copy))) {
      f.emitWarning() << "linea-raise: the raised function does not verify "
                         "(a bug in the raise); left as written";
      return;
    }
    // What the raised ops absorbed is dead now.
    (void)normalize(*copy, *normalization);
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(*copy);
    eliminateCommonSubExpressions(rewriter, dominance, *copy);
    f.getBody().takeBody(copy->getBody());
  }

  std::shared_ptr<SmallVector<FrozenRewritePatternSet>> normalization;
};

} // namespace
