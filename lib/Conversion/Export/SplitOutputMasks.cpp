//===- SplitOutputMasks.cpp - a masked contraction as contraction + mask --===//
//
// Linea's forms write a causal product as one linalg.generic whose body
// zeroes the products the mask hides: `out + select(t <= i, q * k, 0)`.
// Linea's kernels read that body; other compilers see a reduction they do
// not know as a contraction. Where the predicate reads only output indices,
// every product of one output element is kept or dropped together, so the
// mask can come after the sum: a plain contraction (a matmul to them), then
// an elementwise select.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITOUTPUTMASKS
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The body's `out + select(mask, product, 0)`, when the generic has one
/// output and yields exactly that.
struct MaskedAccumulation {
  arith::AddFOp add;
  arith::SelectOp select;
};

std::optional<MaskedAccumulation> maskedAccumulation(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return std::nullopt;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value out = body->getArguments().back();
  Value other = add.getLhs() == out ? add.getRhs()
                : add.getRhs() == out ? add.getLhs()
                                      : Value();
  auto select = other ? other.getDefiningOp<arith::SelectOp>() : nullptr;
  if (!select || !select->hasOneUse() ||
      !matchPattern(select.getFalseValue(), m_AnyZeroFloat()) ||
      !select.getTrueValue().getDefiningOp<arith::MulFOp>())
    return std::nullopt;
  return MaskedAccumulation{add, select};
}

/// The ops computing `mask` in `body`, operands first, when they read only
/// constants, values from outside and `linalg.index` of parallel loops that
/// the output's map names; else nothing.
std::optional<SmallVector<Operation *>>
outputOnlyPredicate(linalg::GenericOp op, Value mask) {
  Block *body = op.getBody();
  AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
  SmallVector<Operation *> slice;
  SmallVector<Value> work = {mask};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (isa<BlockArgument>(value)) {
      if (cast<BlockArgument>(value).getOwner() == body)
        return std::nullopt; // reads an operand's element
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != body || !seen.insert(def).second)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      if (!outMap.getResultPosition(
              getAffineDimExpr(index.getDim(), op.getContext())))
        return std::nullopt; // a reduction loop, or one the output drops
    } else if (!isPure(def) || def->getNumRegions() != 0) {
      return std::nullopt;
    }
    slice.push_back(def);
    llvm::append_range(work, def->getOperands());
  }
  // Operands before users, in the body's order.
  llvm::sort(slice, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return slice;
}

struct SplitOutputMask : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<MaskedAccumulation> masked = maskedAccumulation(op);
    if (!masked)
      return rewriter.notifyMatchFailure(op, "no masked accumulation");
    AffineMap outMap = op.getIndexingMapMatchingResult(op->getResult(0));
    if (!outMap.isProjectedPermutation())
      return rewriter.notifyMatchFailure(op, "output map not a permutation");
    std::optional<SmallVector<Operation *>> predicate =
        outputOnlyPredicate(op, masked->select.getCondition());
    if (!predicate)
      return rewriter.notifyMatchFailure(op, "mask reads more than the output");

    // The mask over the result, its indices those of the output's dims.
    Location loc = op.getLoc();
    rewriter.setInsertionPointAfter(op);
    Value sums = op->getResult(0);
    auto type = cast<RankedTensorType>(sums.getType());
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(type.getRank(), op.getContext());
    // Sized by the init (the result's own sizes would be a use of it).
    Value empty = tensor::EmptyOp::create(
        rewriter, loc,
        tensor::getMixedSizes(rewriter, loc, op.getDpsInits().front()),
        type.getElementType());
    auto mask = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{sums}, ValueRange{empty},
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          IRMapping mapping;
          for (Operation *def : *predicate) {
            if (auto index = dyn_cast<linalg::IndexOp>(def)) {
              unsigned dim = *outMap.getResultPosition(
                  getAffineDimExpr(index.getDim(), op.getContext()));
              mapping.map(index.getResult(),
                          linalg::IndexOp::create(b, l, dim).getResult());
              continue;
            }
            b.clone(*def, mapping);
          }
          Value zero = arith::ConstantOp::create(
              b, l, b.getZeroAttr(type.getElementType()));
          Value kept = arith::SelectOp::create(
              b, l, mapping.lookup(masked->select.getCondition()), args[0],
              zero);
          linalg::YieldOp::create(b, l, kept);
        });
    rewriter.replaceAllUsesExcept(sums, mask->getResult(0), mask);

    // The contraction keeps every product; what computed the mask goes.
    rewriter.modifyOpInPlace(op, [&] {
      masked->select.getResult().replaceAllUsesWith(
          masked->select.getTrueValue());
    });
    rewriter.eraseOp(masked->select);
    for (Operation *def : llvm::reverse(*predicate))
      if (def->use_empty())
        rewriter.eraseOp(def);
    return success();
  }
};

struct LineaSplitOutputMasksPass
    : linea::impl::LineaSplitOutputMasksBase<LineaSplitOutputMasksPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitOutputMask>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
