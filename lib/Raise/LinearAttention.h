//===- LinearAttention.h - the match the linear raises share ----*- C++ -*-===//
//
// The match of a masked linear attention's value contraction or row sum
// (MaskedAttention), which LinearAttention.cpp (masked, row sum, normalized)
// and LinearAttentionGated.cpp (GLA's parallel form, RetNet's decay) both
// start from, and GLA's parallel form of its queries and keys.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_LINEARATTENTION_H
#define LINEA_LIB_RAISE_LINEARATTENTION_H

#include "RaiseUtils.h"
#include "Scores.h"
#include "SegmentIds.h"

#include <memory>
#include <optional>

namespace mlir::linea::raise {

/// `O[b.., i, e] = c * sum_t (A .* M)[b.., i, t] V[b.., t, e]` (or, for a
/// row sum, `V = 1` and no e): the match, in the loops of the root.
struct MaskedAttention {
  linalg::LinalgOp op;
  /// Owns the expressions below (the decay's).
  std::shared_ptr<ElementTracer> tracer;
  /// A factor of the product that is neither a mask nor a constant, where
  /// the caller allowed one (a decay).
  const ElementExpr *decay = nullptr;
  Scores scores;
  /// The root's view of the scores and of the values (none for a row sum).
  LoopView scoresView;
  std::optional<LoopView> values;
  LoopView out;
  /// The root's loops: batch (in the output's order), rows i, keys t,
  /// value columns e (none for a row sum).
  SmallVector<unsigned> batch;
  unsigned row = 0, col = 0;
  std::optional<unsigned> valueColumn;
  /// The scores' loops paired with them: batch[k] is scoresBatch[k].
  SmallVector<unsigned> scoresBatch;
  /// Which scores operand is the query (indexed by i) and which the key.
  LoopView query, key;
  unsigned queryRow = 0, keyRow = 0, feature = 0;
  /// The mask within each packed segment where the mask keeps to segments
  /// of ids (`segments`), else the mask.
  IndexPredicate mask = IndexPredicate::always();
  MaskClass maskClass;
  std::optional<SegmentIds> segments;
  std::optional<int64_t> length;
  double scale = 1.0;

  /// The largest length for which the mask's float positions are exact.
  std::optional<int64_t> exactExtent() const { return mask.getExactExtent(); }
};

/// The shared part of the value contraction and the row sum: `root` is
/// `out + prod` with the scores as one factor and masks and constants as
/// the others; `withValues` asks for a second tensor factor, the values.
FailureOr<MaskedAttention> matchMaskedAttention(Operation *op,
                                                bool withValues,
                                                Rejection &why,
                                                bool allowDecay = false);

/// The values of `m` laid out `[batch.., L, Dv]`.
Value valuesInOrder(OpBuilder &b, Location loc, const MaskedAttention &m);

/// GLA's parallel form: queries `q exp(b)` and keys `k exp(-b)` with `b` an
/// inclusive cumsum along the sequence of log-decays `g` (one per key dim):
/// `q`, `k` and `g` over the scores' loops.
struct GatedParallel {
  LoopView query, key, gate;
};

/// `m`'s queries and keys as GLA's parallel form, if they are
/// (LinearAttentionGated.cpp).
std::optional<GatedParallel> matchGatedParallel(const MaskedAttention &m);

} // namespace mlir::linea::raise

#endif // LINEA_LIB_RAISE_LINEARATTENTION_H
