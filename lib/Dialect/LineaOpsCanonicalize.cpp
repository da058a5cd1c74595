//===- LineaOpsCanonicalize.cpp - Linea's canonicalizations ---------------===//
//
// The dialect's canonicalization patterns (hasCanonicalizer): rewrites of
// both linear-attention ops' prefix masks into simpler equivalent ones.
// (linea.check's canonicalize method is in LineaRuntimeChecks.cpp.)
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// Canonicalization, for both linear-attention ops
//===----------------------------------------------------------------------===//

namespace {

/// `prefix(%j)` with a constant `%j` becomes `prefix(j)`, so that the static
/// rewrites below and the verifier's bounds check see it.
struct FoldConstantPrefixIndex
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    Value index = op.getPrefixIndex();
    APInt value;
    // (A packed op's lengths are a tensor, one per segment: never folded.)
    if (!index || !index.getType().isIndex() ||
        !matchPattern(index, m_ConstantInt(&value)))
      return rewriter.notifyMatchFailure(op, "no constant prefix operand");
    int64_t length = value.getSExtValue();
    RankedTensorType query = op.getQuery().getType();
    int64_t seqLen = query.getDimSize(seqDim(query));
    // An out-of-range constant stays an operand: folding it would turn a
    // runtime-checked program into one that no longer verifies.
    if (length < 0 || (!ShapedType::isDynamic(seqLen) && length > seqLen))
      return rewriter.notifyMatchFailure(
          op, "the constant prefix is out of range (left to its run-time "
              "check)");
    LinearAttentionSpec spec = op.getSpec();
    spec.prefixIndex = Value();
    spec.prefixLength = length;
    rewriter.replaceOp(op, op.createLike(rewriter, op.getLoc(), spec));
    return success();
  }
};

/// `prefix(0)` is `causal` and `prefix(L)` is `none`: every row reads the
/// state after the last token.
struct SimplifyStaticPrefix
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    // What the op behaves as is the interface's decision; this makes the
    // attribute say it.
    Mask effective = op.getEffectiveMask();
    if (op.getMask() != Mask::prefix || effective == Mask::prefix)
      return rewriter.notifyMatchFailure(
          op, "no prefix mask that behaves as causal or none");
    LinearAttentionSpec spec = op.getSpec();
    spec.mask = effective;
    spec.prefixLength = std::nullopt;
    rewriter.replaceOp(op, op.createLike(rewriter, op.getLoc(), spec));
    return success();
  }
};

} // namespace

void LineaDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<FoldConstantPrefixIndex, SimplifyStaticPrefix>(getContext());
}
