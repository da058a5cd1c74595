//===- Differentiate.cpp - Reverse-mode gradients of public functions -----===//
//
// For each public `@f`, `@f_vjp` recomputes the forward ops, seeds the
// results' cotangents from its extra arguments, and runs the reverse sweep:
// each op's adjoint rule (lib/Autodiff) turns its results' cotangents into
// its operands'. The rules emit ops the optimizer knows, so the backward
// pass is optimized like any forward program.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/FoldBuilders.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEADIFFERENTIATE
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

/// Marks the gradient functions this pass made, so a second run skips them.
static constexpr llvm::StringLiteral kGradientOf =
    LineaDialect::kGradientOfAttrName;

namespace {

/// Builds `@f_vjp` for one function.
class GradientBuilder {
public:
  GradientBuilder(func::FuncOp forward, TargetKind target) : forward(forward) {
    cotangents.setTarget(target);
  }

  FailureOr<func::FuncOp> build(StringRef name);

private:
  func::FuncOp createSignature(OpBuilder &b, StringRef name);
  /// folded_attention is the fold SPEC defines it as; fold has the rule.
  void expandFoldedAttention(Block &body);
  /// Named linalg ops become generics: one adjoint rule covers them all.
  LogicalResult generalizeNamedOps(Block &body);
  void markActive(Block &body, ArrayRef<Operation *> ops);

  func::FuncOp forward;
  Cotangents cotangents;
  SmallVector<unsigned> differentiatedResults;
};

} // namespace

func::FuncOp GradientBuilder::createSignature(OpBuilder &b, StringRef name) {
  FunctionType type = forward.getFunctionType();
  SmallVector<Type> inputs(type.getInputs()), outputs;
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (isDifferentiableType(t)) {
      inputs.push_back(t);
      differentiatedResults.push_back(i);
    }
  for (Type t : type.getInputs())
    if (isDifferentiableType(t))
      outputs.push_back(t);
  auto gradient = func::FuncOp::create(b, forward.getLoc(), name,
                                       b.getFunctionType(inputs, outputs));
  gradient->setAttr(kGradientOf, FlatSymbolRefAttr::get(forward.getNameAttr()));
  return gradient;
}

void GradientBuilder::expandFoldedAttention(Block &body) {
  SmallVector<FoldedAttentionOp> folded(body.getOps<FoldedAttentionOp>());
  OpBuilder b(forward.getContext());
  for (FoldedAttentionOp op : folded) {
    b.setInsertionPoint(op);
    op->replaceAllUsesWith(buildFoldedAttentionFold(b, op));
    op.erase();
  }
}

LogicalResult GradientBuilder::generalizeNamedOps(Block &body) {
  SmallVector<linalg::LinalgOp> named;
  body.walk([&](linalg::LinalgOp op) { // fold bodies included
    if (!isa<linalg::GenericOp>(op))
      named.push_back(op);
  });
  IRRewriter rewriter(forward.getContext());
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op->emitOpError()
             << "cannot be differentiated: it has no linalg.generic form";
  }
  return success();
}

/// A value is active when it depends on a floating-point argument.
void GradientBuilder::markActive(Block &body, ArrayRef<Operation *> ops) {
  for (BlockArgument arg : body.getArguments())
    if (isDifferentiableType(arg.getType()))
      cotangents.markActive(arg);
  propagateActivity(ops, cotangents);
}

FailureOr<func::FuncOp> GradientBuilder::build(StringRef name) {
  if (!forward.getBody().hasOneBlock())
    return forward.emitOpError()
           << "cannot be differentiated: its body has "
           << forward.getBody().getBlocks().size()
           << " blocks (linea-differentiate takes one)";
  OpBuilder b(forward.getContext());
  b.setInsertionPointAfter(forward);
  func::FuncOp gradient = createSignature(b, name);
  Block *body = gradient.addEntryBlock();
  Block &forwardBody = forward.getBody().front();
  unsigned numArgs = forward.getNumArguments();

  // The forward pass, recomputed.
  b.setInsertionPointToStart(body);
  IRMapping primal;
  for (unsigned i = 0; i < numArgs; ++i)
    primal.map(forwardBody.getArgument(i), body->getArgument(i));
  for (Operation &op : forwardBody)
    b.clone(op, primal);
  auto fail = [&] {
    gradient.erase();
    return failure();
  };
  expandFoldedAttention(*body);
  if (failed(generalizeNamedOps(*body)))
    return fail();
  // The forward results, read after generalization replaced named ops.
  Operation *ret = body->getTerminator();
  Location loc = ret->getLoc();
  SmallVector<Value> results(ret->getOperands());
  ret->erase();
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body->getOperations(), [](Operation &op) { return &op; });
  markActive(*body, ops);

  // Seed the results' cotangents, then sweep backwards.
  b.setInsertionPointToEnd(body);
  for (auto [k, index] : llvm::enumerate(differentiatedResults))
    cotangents.accumulate(b, loc, results[index],
                          body->getArgument(numArgs + k));
  if (failed(sweepBackwards(ops, b, cotangents)))
    return fail();

  SmallVector<Value> gradients;
  for (BlockArgument arg : body->getArguments().take_front(numArgs))
    if (isDifferentiableType(arg.getType()))
      gradients.push_back(cotangents.lookupOrZeros(b, loc, arg));
  func::ReturnOp::create(b, loc, gradients);

  // Forward ops nothing needed (the outputs, unless a rule read them).
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  return gradient;
}

namespace {
struct DifferentiatePass
    : public linea::impl::LineaDifferentiateBase<DifferentiatePass> {
  using LineaDifferentiateBase::LineaDifferentiateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isDeclaration() && !f->hasAttr(kGradientOf))
        functions.push_back(f);
    for (func::FuncOp f : functions) {
      std::string name = (f.getName() + "_vjp").str();
      if (Operation *existing = symbols.lookup(name)) {
        if (existing->hasAttr(kGradientOf))
          continue; // made by an earlier run
        f.emitOpError() << "cannot get a gradient function: '@" << name
                        << "' is already defined";
        return signalPassFailure();
      }
      FailureOr<func::FuncOp> gradient =
          GradientBuilder(f, plannedForGPU(module) ? TargetKind::gpu : target)
              .build(name);
      if (failed(gradient))
        return signalPassFailure();
      symbols.insert(*gradient);
    }
  }
};
} // namespace
