//===- Scores.h - the scores contraction A = s X Y^T ------------*- C++ -*-===//
//
// Linear and softmax attention start alike: scores `A[b.., i, t] =
// s * sum_d X[b.., i, d] Y[b.., t, d]`, one contraction whose operands are
// the queries and the keys. The ops that read the scores (the value
// contraction, the softmax's logits) name its rows and columns by their own
// loops; pairScores says which operand is the query and which loops are the
// same batch dim.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_SCORES_H
#define LINEA_LIB_RAISE_SCORES_H

#include "RaiseUtils.h"

#include "linea/Utils/MaskedContraction.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::linea::raise {

/// `A[b.., i, t] = sum_d X[b.., i, d] Y[b.., t, d]`, in the loops of the
/// op that computes it. (A scale on the scores is a factor of the op that
/// reads them.)
struct Scores {
  linalg::LinalgOp op;
  LoopView lhs, rhs, out;
  linalg::ContractionDimensions dims;
};

/// The scores contraction that produces `value`, if it is one: an unmasked
/// contraction (linea::matchMaskedContraction) accumulated from zero over
/// one feature dim.
FailureOr<Scores> matchScores(Value value);

/// The scores' operands as query and key, seen from an op that reads them.
struct ScoresPairing {
  LoopView query, key;
  unsigned queryRow = 0, keyRow = 0, feature = 0;
  /// The reader's loop -> the scores' loop of the same dim.
  DenseMap<unsigned, unsigned> scoresLoopOf;
};

/// Pairs `view` (how an op reads the scores, over its loops) with the
/// scores: the query is the operand whose rows the reader's `row` loop
/// indexes, the key the one its `col` loop does.
FailureOr<ScoresPairing> pairScores(const Scores &scores, const LoopView &view,
                                    unsigned row, unsigned col, Rejection &why);

/// Whether `view` has a dim of size 1 read at 0.
bool hasUnitDim(const LoopView &view);
/// Sets `why` (a candidate's reason) and fails.
LogicalResult reject(Rejection &why, const Twine &reason);

} // namespace mlir::linea::raise

#endif // LINEA_LIB_RAISE_SCORES_H
