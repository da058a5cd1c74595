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

} // namespace mlir::linea

#endif // LINEA_UTILS_MASKEDCONTRACTION_H
