//===- IndexPredicate.h - what a mask is, decided exactly ------*- C++ -*-===//
//
// The one analysis that decides what an attention mask is. A mask is a
// predicate of a query row `i` and a key column `t`; front ends build it from
// aranges, comparisons, `or`, `and`, `not` and `select`. Its atoms compare
// one of `i`, `t` or `t - i` with a constant (`t <= i` is `t - i <= 0`,
// `t < j` a threshold on `t`). Beyond the largest constant an atom no longer
// changes, so the cut points of all atoms split each of `i`, `t` and `t - i`
// into finitely many intervals on which the predicate is constant. One point
// of each realizable combination of intervals decides the predicate for
// every `(i, t)` and every `L`: equality with a Linea mask is proved, not
// sampled.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_INDEXPREDICATE_H
#define LINEA_LIB_RAISE_INDEXPREDICATE_H

#include "ElementExpr.h"

#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace mlir::linea {

/// Which Linea mask a predicate equals.
struct MaskClass {
  enum class Kind { none, causal, prefix, other };
  Kind kind = Kind::other;
  /// For `prefix`: rows `i < j` see `t < j`.
  int64_t prefixLength = 0;
  /// For `other`: where the predicate differs from the nearest Linea mask.
  std::string mismatch;
};

class IndexPredicate {
public:
  /// Sub-expressions of a mask whose truth the caller fixes (a comparison
  /// of data, taken as true or as false): their value, or none for the
  /// rest.
  using AtomValues = function_ref<std::optional<bool>(const ElementExpr *)>;

  /// The predicate `mask` (an i1 element expression) of the root loops
  /// `row` (i) and `col` (t); failure, with `why`, when it is not a boolean
  /// combination of comparisons of `i`, `t` and `t - i` with constants.
  static FailureOr<IndexPredicate> get(const ElementExpr *mask, unsigned row,
                                       unsigned col, MLIRContext *ctx,
                                       std::string &why, AtomValues given = {});
  /// True everywhere (no mask).
  static IndexPredicate always();
  /// The Linea masks: `t <= i`, and `t <= i or t < j`.
  static IndexPredicate causal();
  static IndexPredicate prefix(int64_t j);
  /// The prefix sums' windows: `t < i` (exclusive), `t >= i` (reverse),
  /// `t > i` (reverse exclusive).
  static IndexPredicate before();
  static IndexPredicate after(bool inclusive);

  /// Both (a mask applied twice, or two mask factors).
  IndexPredicate operator&&(const IndexPredicate &other) const;
  /// The complement (`masked_fill(~m, 0)` keeps where m holds).
  IndexPredicate operator!() const;

  bool evaluate(int64_t i, int64_t t) const;
  /// Whether the two agree at every `(i, t)` with `0 <= i, t < length`
  /// (every length when none is given); else a point where they differ.
  bool equals(const IndexPredicate &other, std::optional<int64_t> length,
              std::pair<int64_t, int64_t> *difference = nullptr) const;
  /// The Linea mask this equals over `[0, length)^2` (every length).
  MaskClass classify(std::optional<int64_t> length) const;
  /// `t <= i or t < 5`.
  std::string str() const;
  /// The largest length of the rows and columns for which the mask is this
  /// predicate, where it compares float positions (`torch.arange(L,
  /// dtype=torch.float32)`: exact integers up to 2^24); none where it
  /// compares integers only. `classify` of a longer length is `other`; a
  /// raise of a dynamic length checks the length at run time.
  std::optional<int64_t> getExactExtent() const;

  struct Node;

private:
  explicit IndexPredicate(std::shared_ptr<const Node> root,
                          int64_t exactExtent = kUnbounded)
      : root(std::move(root)), exactExtent(exactExtent) {}
  static constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  std::shared_ptr<const Node> root;
  int64_t exactExtent;
};

} // namespace mlir::linea

#endif // LINEA_LIB_RAISE_INDEXPREDICATE_H
