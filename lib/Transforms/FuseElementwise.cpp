//===- FuseElementwise.cpp - model IR's elementwise chains, fused ---------===//
//
// Model IR writes every elementwise step as a linalg op of its own, each a
// tensor in memory; at L x L (a score matrix) a chain of them is several
// GiB. Upstream's fusion patterns compute a producer inside its consumer;
// this pass keeps them away from contractions, whose plain multiply-add
// body is what the CPU's register-tiled kernels match.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFUSEELEMENTWISE
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `op` only widens its one input (`arith.extf`, elementwise): the
/// f32 copy a 16-bit operand gets for the arithmetic after it.
bool isWidening(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops())
    return false;
  Block *body = op.getBlock();
  auto widen = dyn_cast<arith::ExtFOp>(body->front());
  return widen && widen.getIn() == body->getArgument(0) &&
         body->getTerminator()->getOperand(0) == widen.getResult();
}

/// Whether the producer of `use` is computed inside its user: it has no
/// other user (nothing is computed twice), and the user is no contraction
/// (which stays a kernel's multiply-accumulate). On the GPU a widening
/// copy keeps its producer apart: linea-read-as-stored takes the copy's
/// readers to the 16-bit values, which the producer then writes (half the
/// bytes of the wide ones it would write fused: a gradient's reversed
/// sequences, say).
bool fusesInto(OpOperand *use) {
  Operation *producer = use->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(use->getOwner());
  if (!producer || !producer->hasOneUse() || !consumer ||
      linalg::isaContractionOpInterface(consumer))
    return false;
  linea::TargetAttr target = linea::plannedTarget(consumer);
  return !(target && target.getKind() == linea::TargetKind::gpu &&
           isWidening(consumer));
}

/// The model's own linalg ops: those directly in a function's body. The
/// loops Linea's forms build carry their tensors through iteration
/// arguments that must bufferize in place (upstream's patterns would give
/// an elementwise op a fresh `outs`), so they stay as the forms built them.
SmallVector<Operation *> modelOps(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](FunctionOpInterface function) {
    for (Block &block : function.getFunctionBody())
      for (Operation &op : block)
        if (isa<linalg::LinalgOp>(op))
          ops.push_back(&op);
  });
  return ops;
}

/// The `tensor.pad`s in a function's body whose source is the result of a
/// linalg op that nothing else reads (cloned into the padded tensor, it is
/// computed once).
SmallVector<Operation *> padsOfSoleResults(Operation *root) {
  SmallVector<Operation *> pads;
  root->walk([&](FunctionOpInterface function) {
    for (Block &block : function.getFunctionBody())
      for (auto pad : block.getOps<tensor::PadOp>())
        if (Operation *producer = pad.getSource().getDefiningOp();
            producer && isa<linalg::LinalgOp>(producer) &&
            producer->hasOneUse())
          pads.push_back(pad);
  });
  return pads;
}

struct LineaFuseElementwisePass
    : linea::impl::LineaFuseElementwiseBase<LineaFuseElementwisePass> {
  static constexpr int kMaxRounds = 8;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fusesInto);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // One round can leave a fused op beside its consumer (a chain of three
    // becomes a pair and the third): rounds until nothing fuses. Not
    // converging leaves valid, partly fused IR.
    bool changed = true;
    for (int round = 0; changed && round < kMaxRounds; ++round)
      (void)applyOpPatternsGreedily(modelOps(getOperation()), frozen, config,
                                    &changed);
    // Once fused (an operand taken as a destination has two uses, which
    // would stop its producer's fusion): results over dying operands.
    RewritePatternSet inPlace(context);
    linea::populateElementwiseInPlacePatterns(inPlace);
    (void)applyOpPatternsGreedily(modelOps(getOperation()), std::move(inPlace));
    // A padded elementwise result: computed into the padded tensor's
    // interior, not into a tensor of its own that the pad copies.
    RewritePatternSet pads(context);
    linalg::populateFuseTensorPadWithProducerLinalgOpPatterns(pads);
    (void)applyOpPatternsGreedily(padsOfSoleResults(getOperation()),
                                  std::move(pads));
  }
};

} // namespace
