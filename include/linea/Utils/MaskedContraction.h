//===- MaskedContraction.h - the one contraction matcher -------*- C++ -*-===//
//
// Every contraction Linea runs or raises has the shape
//   C[batch.., m.., n..] += select(visible, A[..] * B[..], 0)
// with `visible` a predicate of loop indices (a causal or prefix mask) or
// absent. Upstream's linalg::inferContractionDims names the batch, m, n
// and k dims from the indexing maps but rejects a masked body; this is the
// matcher around it that the raise patterns (lib/Raise), the CPU kernels
// (linea-vectorize-contractions) and the GPU grids (linea-contractions-to-
// mma) share: the body is checked here once, the dims come from upstream,
// and each user adds only the layout it needs.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_MASKEDCONTRACTION_H
#define LINEA_UTILS_MASKEDCONTRACTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::linea {

/// The dims of a contraction: `m` read by the left operand and the result,
/// `n` by the right operand and the result, `k` reduced (read by both, not
/// by the result), `batch` read by all three; every loop in exactly one,
/// `k` the reduction loops and the rest parallel.
FailureOr<linalg::ContractionDimensions>
inferMaskedContractionDims(AffineMap lhs, AffineMap rhs, AffineMap out,
                           ArrayRef<utils::IteratorType> iterators);

/// A contraction op's operands, dims and mask.
struct MaskedContraction {
  OpOperand *lhs = nullptr, *rhs = nullptr, *init = nullptr;
  linalg::ContractionDimensions dims;
  /// The select's condition in the body, or null.
  Value visible;
  /// The body ops that compute `visible`, in order (an index predicate).
  SmallVector<Operation *> predicate;
  /// Whether the body widens an operand's elements (`arith.extf`) to the
  /// accumulator's type: a 16-bit product accumulated in f32, as front ends
  /// print a half-precision matmul. The kernels take one element type.
  bool widens = false;
};

/// `op` (two inputs, one init) as a masked contraction: the body is
/// `out + lhs * rhs` or `out + select(visible, lhs * rhs, 0)` (either
/// operand maybe widened by `arith.extf`, see `widens`) with
/// `visible` computed in the body from `linalg.index` of loops that are not
/// reduced, constants and values from above (nothing else in the body but
/// constants), and the dims as inferMaskedContractionDims names them, one
/// each of m, n and k.
FailureOr<MaskedContraction> matchMaskedContraction(linalg::LinalgOp op);

/// A masked contraction laid out as the kernels take it,
/// `C[.., m, n] += A[..] * B[..]`: `n` is C's innermost dim and B the
/// operand that reads it, A the other (so A and B are the op's lhs and rhs,
/// or its rhs and lhs). Each operand's dims are in any order.
struct ContractionLayout {
  OpOperand *a = nullptr, *b = nullptr, *c = nullptr;
  /// The loops: C's rows, C's columns, the reduction; the batch loops.
  unsigned m = 0, n = 0, k = 0;
  SmallVector<unsigned> batch;
  /// Whether A's innermost dim is the reduction `k` (A stored `[.., m, k]`;
  /// else any other of its dims).
  bool aDepthInner = false;
  /// Whether B's innermost dim is `k` (B stored `[.., n, k]`), else `n`
  /// (`[.., k, n]`).
  bool bDepthInner = false;
};

/// `c`, a masked contraction of `op`, laid out as above; failure where an
/// indexing map is not a projected permutation with results, or the
/// innermost dim of C is not m or n, or of B not n or k.
FailureOr<ContractionLayout> layoutContraction(linalg::LinalgOp op,
                                               const MaskedContraction &c);

} // namespace mlir::linea

#endif // LINEA_UTILS_MASKEDCONTRACTION_H
