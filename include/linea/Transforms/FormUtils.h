//===- FormUtils.h - what the one-shot and chunked forms share -*- C++ -*-===//
//
// Both forms of linear attention start from the same f32 operands and end
// the same way (scale, normalize, cast, final state); these helpers are that
// prologue and epilogue, so each pattern states only its own algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TRANSFORMS_FORMUTILS_H
#define LINEA_TRANSFORMS_FORMUTILS_H

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// f32 operands of a linear attention form: phi(q), phi(k) and v, with the
/// normalizer's ones column appended to v when the op normalizes.
struct FormOperands {
  Value q, k, v;
};
FormOperands prepareOperands(OpBuilder &b, Location loc, LinearAttentionOp op);

/// f32 operands of a gated form: q, k, v and the gate g.
struct GatedFormOperands {
  Value q, k, v, g;
};
GatedFormOperands prepareOperands(OpBuilder &b, Location loc,
                                  GatedLinearAttentionOp op);

/// `init` copied into a fresh f32 `[B..., Dk, Dv]` (forms update the state in
/// place), or zeros without one.
Value initialStateOrZeros(OpBuilder &b, Location loc, Value init, Value q,
                          Value v);

/// A form's unscaled f32 output rows made final: scaled, divided by the
/// normalizer column when the op normalizes (the column dropped), cast to
/// the op's element type. Works on any rows, a chunk's as well as all.
Value finishRows(OpBuilder &b, Location loc, LinearAttentionOp op, Value rows);
Value finishRows(OpBuilder &b, Location loc, GatedLinearAttentionOp op,
                 Value rows);

/// Replaces `op` by a form's final output and its state (the normalizer
/// column dropped from the state when the op normalizes).
void replaceWithFinished(PatternRewriter &rewriter, LinearAttentionOp op,
                         Value output, Value state);
void replaceWithFinished(PatternRewriter &rewriter, GatedLinearAttentionOp op,
                         Value output, Value state);

/// replaceWithFinished with the output rows `o` finished first.
template <typename OpTy>
void replaceWithForm(PatternRewriter &rewriter, OpTy op, Value o,
                     Value state) {
  replaceWithFinished(rewriter, op, finishRows(rewriter, op.getLoc(), op, o),
                      state);
}

/// False when linea-select-forms recorded a form other than `form` on `op`.
bool formAllows(Operation *op, Form form);

} // namespace mlir::linea

#endif // LINEA_TRANSFORMS_FORMUTILS_H
