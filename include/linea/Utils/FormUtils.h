//===- FormUtils.h - what the one-shot and chunked forms share -*- C++ -*-===//
//
// Both forms of linear attention, gated or not, start from the same f32
// operands and end the same way (scale, normalize, cast, final state);
// these helpers are that prologue and epilogue, so each pattern states only
// its own algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_FORMUTILS_H
#define LINEA_UTILS_FORMUTILS_H

#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/KernelNames.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// Checks a pass's chunk- or block-size option (0: the pass's default)
/// against the range a form attribute accepts; reports on `root` otherwise.
LogicalResult verifyFormSizeOption(Operation *root, StringRef option,
                                   int64_t value);

/// f32 operands of a linear attention form: phi(q), phi(k), v (with the
/// normalizer's ones column appended when the op normalizes) and the gate
/// (null without one).
struct FormOperands {
  Value q, k, v, g;
};
FormOperands prepareOperands(OpBuilder &b, Location loc,
                             LinearAttentionOpInterface op);

/// The same of `raw`, rows of `op`'s operands as they are (a chunk's
/// slices): a chunk loop prepares each chunk as it goes, so that no
/// [L, D] copy of an operand is made (which a GPU sequence block could not
/// keep in shared memory).
FormOperands prepareOperands(OpBuilder &b, Location loc,
                             LinearAttentionOpInterface op,
                             const FormOperands &raw);

/// `init` copied into a fresh f32 `[B..., Dk, Dv]` (forms update the state in
/// place), or zeros without one.
Value initialStateOrZeros(OpBuilder &b, Location loc, Value init, Value q,
                          Value v);

/// A form's unscaled f32 output rows made final: scaled, divided by the
/// normalizer column when the op normalizes (the column dropped), cast to
/// the op's element type. Works on any rows, a chunk's as well as all.
Value finishRows(OpBuilder &b, Location loc, LinearAttentionOpInterface op,
                 Value rows);

/// Replaces `op` by a form's final output and its state (the normalizer
/// column dropped from the state when the op normalizes).
void replaceWithFinished(PatternRewriter &rewriter,
                         LinearAttentionOpInterface op, Value output,
                         Value state);

/// replaceWithFinished with the output rows `o` finished first (their own
/// kernel where nothing fuses them: `<family>_finish`).
inline void replaceWithForm(PatternRewriter &rewriter,
                            LinearAttentionOpInterface op, Value o,
                            Value state) {
  Location finish = kernelStageLoc(op, "finish");
  replaceWithFinished(rewriter, op, finishRows(rewriter, finish, op, o),
                      state);
}

} // namespace mlir::linea

#endif // LINEA_UTILS_FORMUTILS_H
