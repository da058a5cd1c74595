//===- Patterns.h - the raise patterns, one family per file ----*- C++ -*-===//
//
// Each raise is a function of a root op: it either replaces the root (and
// returns success) or leaves the IR untouched and says why in `why`. The
// pass tries them on every linalg op of a normalized function, consumers
// first, so that a pattern that absorbs several ops (the normalized form
// absorbs the value contraction and the row sum) sees them before a
// pattern that would raise a part.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_PATTERNS_H
#define LINEA_LIB_RAISE_PATTERNS_H

#include "RaiseUtils.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::linea::raise {

using RaiseFn = LogicalResult (*)(RewriterBase &, Operation *, RaiseLog &,
                                  Rejection &);

/// `O / (rowsum(A .* M) + 1e-6)` with `O = (A .* M) V`: normalized linear
/// attention (LinearAttention.cpp).
LogicalResult raiseNormalizedLinearAttention(RewriterBase &rewriter,
                                             Operation *root,
                                             RaiseLog &log, Rejection &why);
/// `O = (A .* M) V` with `A = s X Y^T` (LinearAttention.cpp).
LogicalResult raiseMaskedLinearAttention(RewriterBase &rewriter,
                                         Operation *root, RaiseLog &log,
                                         Rejection &why);
/// `O = (A .* M .* D) V` with a decay `D[i, t] = base^(i - t)` or
/// `exp(c (i - t))` (RetNet's retention) under the causal mask: gated linear
/// attention with a per-token log-decay (LinearAttentionGated.cpp).
LogicalResult raiseDecayedLinearAttention(RewriterBase &rewriter,
                                          Operation *root, RaiseLog &log,
                                          Rejection &why);
/// `rowsum(A .* M)`: linear attention with a column of ones as values
/// (LinearAttention.cpp).
LogicalResult raiseMaskedRowSum(RewriterBase &rewriter, Operation *root,
                                RaiseLog &log, Rejection &why);

/// `o_i = q_i S_i` with `S_i` a cumsum along L of outer products
/// `k_t^T v_t`: causal linear attention (CumulativeState.cpp).
LogicalResult raiseCumulativeState(RewriterBase &rewriter, Operation *root,
                                   RaiseLog &log, Rejection &why);

/// `softmax(s * X Y^T + mask) V` as front ends print it (max-subtract,
/// exp, sum, divide; sdpa's guard): linea.attention (SoftmaxAttention.cpp).
LogicalResult raiseSoftmaxAttention(RewriterBase &rewriter,
                                    Operation *root, RaiseLog &log,
                                    Rejection &why);

/// torch-mlir's `tm_tensor.scan` adding floats (its `torch.cumsum`):
/// linea.presum (Presum.cpp).
LogicalResult raiseScan(RewriterBase &rewriter, Operation *root, RaiseLog &log,
                        Rejection &why);

/// `cumsum(x) - x`: an exclusive linea.presum (Presum.cpp).
LogicalResult raiseScanMinusInput(RewriterBase &rewriter, Operation *root,
                                  RaiseLog &log, Rejection &why);
/// `flip(cumsum(flip(x, k), k), k)`: a reverse linea.presum (Presum.cpp).
LogicalResult raiseFlippedScan(RewriterBase &rewriter, Operation *root,
                               RaiseLog &log, Rejection &why);
/// `sum_t M[i, t] x[t]` with `M` a triangle of ones (`tril(ones) @ x`):
/// linea.presum, exclusive and/or reverse by the triangle (Presum.cpp).
LogicalResult raiseTriangularSum(RewriterBase &rewriter, Operation *root,
                                 RaiseLog &log, Rejection &why);

/// `concat(y_0 .. y_{n-1})` of an unrolled loop over segments, each step a
/// copy of one layer over [previous step's second half; its segment]:
/// linea.fold with the first step as its body (SegmentFold.cpp). Tried
/// after the other raises, so that the steps compare with their layers
/// already raised.
LogicalResult raiseSegmentFold(RewriterBase &rewriter, Operation *root,
                               RaiseLog &log, Rejection &why);

/// A raise and the idiom it takes, as its remarks name it.
struct NamedRaise {
  RaiseFn raise;
  const char *name;
};

/// Every raise, in the order the pass tries them on one root.
ArrayRef<NamedRaise> allRaises();

/// torch-mlir's dynamic-shape idioms made plain: views through
/// tensor.reshape as expand/collapse_shape, broadcast gathers as their
/// source (FrontEndShapes.cpp).
void populateFrontEndShapePatterns(RewritePatternSet &patterns);
/// Folds the size guards front ends print (`select(n < 0, ..., n)` on a
/// size) with the integer range analysis.
LogicalResult foldShapeGuards(Operation *root);

/// The stages that give model IR the shape the matchers read (named ops
/// generalized, unit dims dropped, reshapes propagated, elementwise chains
/// fused; Normalize.cpp), and their application.
SmallVector<FrozenRewritePatternSet> normalizationPatterns(MLIRContext *ctx);
LogicalResult normalize(Operation *root,
                        ArrayRef<FrozenRewritePatternSet> stages);

} // namespace mlir::linea::raise

#endif // LINEA_LIB_RAISE_PATTERNS_H
