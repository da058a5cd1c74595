//===- Scores.cpp - the scores contraction A = s X Y^T --------------------===//

#include "Scores.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

bool raise::hasUnitDim(const LoopView &view) {
  return llvm::is_contained(view.loops, LoopView::kUnitDim);
}

LogicalResult raise::reject(Rejection &why, const Twine &reason) {
  why.candidate = true;
  why.reason = reason.str();
  return failure();
}

/// The scores contraction that produces `value`, if it is one: a multiply
/// of two operands accumulated from zero over one feature dim, times
/// constants.
FailureOr<Scores> raise::matchScores(Value value) {
  // Unmasked: a mask on the scores is the reader's to see.
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return failure();
  FailureOr<MaskedContraction> c = matchMaskedContraction(op);
  if (failed(c) || c->visible || !hasZeroInit(op))
    return failure();
  Scores scores;
  scores.op = op;
  scores.dims = c->dims;
  FailureOr<LoopView> lhs = getLoopView(op, *c->lhs);
  FailureOr<LoopView> rhs = getLoopView(op, *c->rhs);
  FailureOr<LoopView> out = getLoopView(op, *c->init);
  if (failed(lhs) || failed(rhs) || failed(out) || hasUnitDim(*lhs) ||
      hasUnitDim(*rhs) || hasUnitDim(*out))
    return failure();
  scores.lhs = *lhs, scores.rhs = *rhs, scores.out = *out;
  return scores;
}

FailureOr<ScoresPairing> raise::pairScores(const Scores &s,
                                           const LoopView &view, unsigned row,
                                           unsigned col, Rejection &why) {
  ScoresPairing pairing;
  DenseMap<unsigned, unsigned> readerOf; // scores loop -> reader loop
  for (auto [p, loop] : llvm::enumerate(s.out.loops)) {
    readerOf[loop] = view.loops[p];
    pairing.scoresLoopOf[view.loops[p]] = loop;
  }
  unsigned lhsRow = s.dims.m[0], rhsRow = s.dims.n[0];
  if (readerOf[lhsRow] == row && readerOf[rhsRow] == col) {
    pairing.query = s.lhs, pairing.key = s.rhs;
    pairing.queryRow = lhsRow, pairing.keyRow = rhsRow;
  } else if (readerOf[rhsRow] == row && readerOf[lhsRow] == col) {
    pairing.query = s.rhs, pairing.key = s.lhs;
    pairing.queryRow = rhsRow, pairing.keyRow = lhsRow;
  } else {
    (void)reject(why, "the scores' rows and columns are not the rows and keys "
                      "of the op that reads them");
    return failure();
  }
  pairing.feature = s.dims.k[0];
  return pairing;
}
