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

/// Replaces `op` by a form's unscaled output `o` and its state: scales,
/// divides by the normalizer column when the op normalizes (and drops it
/// from the state), casts to the op's element type.
void replaceWithForm(PatternRewriter &rewriter, LinearAttentionOp op, Value o,
                     Value state);
void replaceWithForm(PatternRewriter &rewriter, GatedLinearAttentionOp op,
                     Value o, Value state);

/// False when linea-select-forms recorded a form other than `form` on `op`.
bool formAllows(Operation *op, Form form);

} // namespace mlir::linea

#endif // LINEA_TRANSFORMS_FORMUTILS_H
