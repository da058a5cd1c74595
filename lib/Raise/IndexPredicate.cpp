//===- IndexPredicate.cpp - what a mask is, decided exactly ---------------===//
//
// The decision: the Linea masks as predicates, their combinations, their
// evaluation, and whether two predicates agree everywhere (one point of each
// realizable combination of the atoms' intervals), which decides what Linea
// mask a predicate is. The predicate of an element expression is built in
// IndexPredicateBuilder.cpp; the node both read is in IndexPredicateNode.h.
//
//===----------------------------------------------------------------------===//

#include "IndexPredicateNode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::index_predicate;

namespace {

/// Bounds the number of interval combinations one decision visits.
constexpr int64_t kMaxCells = 1 << 20;

bool isConstant(const NodePtr &n, bool value) {
  return n && n->kind == Node::Kind::constant && n->value == value;
}

bool holds(Node::Pred pred, __int128 v) {
  switch (pred) {
  case Node::Pred::eq: return v == 0;
  case Node::Pred::ne: return v != 0;
  case Node::Pred::lt: return v < 0;
  case Node::Pred::le: return v <= 0;
  case Node::Pred::gt: return v > 0;
  case Node::Pred::ge: return v >= 0;
  }
  return false;
}

bool evaluateNode(const Node &n, int64_t i, int64_t t) {
  switch (n.kind) {
  case Node::Kind::constant:
    return n.value;
  case Node::Kind::atom:
    return holds(n.pred, __int128(n.ai) * i + __int128(n.at) * t + n.c);
  case Node::Kind::table:
    return i >= 0 && t >= 0 && i < n.rows && t < n.cols &&
           (*n.bits)[i * n.cols + t];
  case Node::Kind::negation:
    return !evaluateNode(*n.lhs, i, t);
  case Node::Kind::conjunction:
    return evaluateNode(*n.lhs, i, t) && evaluateNode(*n.rhs, i, t);
  case Node::Kind::disjunction:
    return evaluateNode(*n.lhs, i, t) || evaluateNode(*n.rhs, i, t);
  case Node::Kind::parity:
    return evaluateNode(*n.lhs, i, t) != evaluateNode(*n.rhs, i, t);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// The decision
//===----------------------------------------------------------------------===//

/// The three quantities atoms compare: i, t and t - i.
enum Axis { kRow = 0, kCol = 1, kDiagonal = 2 };

int64_t floorDiv(int64_t a, int64_t b) { return llvm::divideFloorSigned(a, b); }
int64_t ceilDiv(int64_t a, int64_t b) { return llvm::divideCeilSigned(a, b); }

/// The points where some atom of `n` may change its value, per axis.
void collectCuts(const Node &n, std::array<std::set<int64_t>, 3> &cuts) {
  if (n.lhs)
    collectCuts(*n.lhs, cuts);
  if (n.rhs)
    collectCuts(*n.rhs, cuts);
  if (n.kind != Node::Kind::atom || (n.ai == 0 && n.at == 0))
    return;
  Axis axis = n.at == 0 ? kRow : n.ai == 0 ? kCol : kDiagonal;
  int64_t k = axis == kRow ? n.ai : n.at;
  // k * x + c <pred> 0 changes only between x0 = -c / k rounded either way
  // and the next integer.
  int64_t lo = floorDiv(-n.c, k), hi = ceilDiv(-n.c, k);
  for (int64_t x : {lo, lo + 1, hi, hi + 1})
    cuts[axis].insert(x);
}

/// The largest length over which every table of `n` is defined (none
/// without tables).
std::optional<int64_t> tableExtent(const Node &n) {
  std::optional<int64_t> extent;
  auto meet = [&](std::optional<int64_t> other) {
    if (other)
      extent = extent ? std::min(*extent, *other) : *other;
  };
  if (n.kind == Node::Kind::table)
    meet(std::min(n.rows, n.cols));
  if (n.lhs)
    meet(tableExtent(*n.lhs));
  if (n.rhs)
    meet(tableExtent(*n.rhs));
  return extent;
}

/// An interval of integers; a missing bound is infinite.
struct Interval {
  std::optional<int64_t> lo, hi;
};

/// The intervals between consecutive cuts, clipped to `[lower, upper]`.
SmallVector<Interval> intervals(const std::set<int64_t> &cuts,
                                std::optional<int64_t> lower,
                                std::optional<int64_t> upper) {
  SmallVector<Interval> out;
  std::optional<int64_t> start;
  auto push = [&](std::optional<int64_t> lo, std::optional<int64_t> hi) {
    if (lower && (!lo || *lo < *lower))
      lo = lower;
    if (upper && (!hi || *hi > *upper))
      hi = upper;
    if (lo && hi && *lo > *hi)
      return;
    out.push_back({lo, hi});
  };
  for (int64_t c : cuts) {
    push(start, c - 1);
    start = c;
  }
  push(start, std::nullopt);
  return out;
}

/// A point (i, t) with i in `ri`, t in `rt` and t - i in `rd`, if any.
std::optional<std::pair<int64_t, int64_t>>
witness(const Interval &ri, const Interval &rt, const Interval &rd) {
  // t - i ranges over [rt.lo - ri.hi, rt.hi - ri.lo]; i and t have finite
  // lower bounds (the domain starts at 0).
  std::optional<int64_t> dlo = ri.hi ? std::optional(*rt.lo - *ri.hi) : std::nullopt;
  std::optional<int64_t> dhi = rt.hi ? std::optional(*rt.hi - *ri.lo) : std::nullopt;
  if (rd.lo && (!dlo || *dlo < *rd.lo))
    dlo = rd.lo;
  if (rd.hi && (!dhi || *dhi > *rd.hi))
    dhi = rd.hi;
  if (dlo && dhi && *dlo > *dhi)
    return std::nullopt;
  int64_t d = dlo ? *dlo : dhi ? *dhi : 0;
  int64_t i = std::max(*ri.lo, *rt.lo - d);
  if ((ri.hi && i > *ri.hi) || (rt.hi && i + d > *rt.hi))
    return std::nullopt;
  return std::make_pair(i, i + d);
}

} // namespace

//===----------------------------------------------------------------------===//
// Building nodes
//===----------------------------------------------------------------------===//

NodePtr index_predicate::constant(bool v) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::constant;
  n->value = v;
  return n;
}
NodePtr index_predicate::atom(int64_t ai, int64_t at, int64_t c,
                              Node::Pred pred) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::atom;
  n->ai = ai, n->at = at, n->c = c, n->pred = pred;
  return n;
}
NodePtr index_predicate::combine(Node::Kind kind, NodePtr lhs, NodePtr rhs) {
  // Constants fold away (a mask part the caller fixed, `x and true`), so
  // that what the remarks print is the predicate that is left.
  using K = Node::Kind;
  if (kind == K::negation && lhs->kind == K::constant)
    return constant(!lhs->value);
  if (kind == K::conjunction || kind == K::disjunction) {
    bool absorbing = kind == K::disjunction;
    for (auto [a, b] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
      if (isConstant(a, absorbing))
        return a;
      if (isConstant(a, !absorbing))
        return b;
    }
  }
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  return n;
}

//===----------------------------------------------------------------------===//
// IndexPredicate
//===----------------------------------------------------------------------===//

IndexPredicate IndexPredicate::always() { return IndexPredicate(constant(true)); }

IndexPredicate IndexPredicate::causal() {
  // t - i <= 0
  return IndexPredicate(atom(-1, 1, 0, Node::Pred::le));
}

IndexPredicate IndexPredicate::before() {
  // t - i < 0
  return IndexPredicate(atom(-1, 1, 0, Node::Pred::lt));
}

IndexPredicate IndexPredicate::after(bool inclusive) {
  // t - i >= 0, or > 0
  return IndexPredicate(
      atom(-1, 1, 0, inclusive ? Node::Pred::ge : Node::Pred::gt));
}

IndexPredicate IndexPredicate::prefix(int64_t j) {
  return IndexPredicate(combine(Node::Kind::disjunction, causal().root,
                                atom(0, 1, -j, Node::Pred::lt)));
}

IndexPredicate IndexPredicate::operator&&(const IndexPredicate &other) const {
  return IndexPredicate(combine(Node::Kind::conjunction, root, other.root),
                        std::min(exactExtent, other.exactExtent));
}

IndexPredicate IndexPredicate::operator!() const {
  return IndexPredicate(combine(Node::Kind::negation, root), exactExtent);
}

bool IndexPredicate::evaluate(int64_t i, int64_t t) const {
  return evaluateNode(*root, i, t);
}

bool IndexPredicate::equals(const IndexPredicate &other,
                            std::optional<int64_t> length,
                            std::pair<int64_t, int64_t> *difference) const {
  // A table is known over its own size only: compared entry by entry there.
  std::optional<int64_t> extent = tableExtent(*root);
  if (std::optional<int64_t> theirs = tableExtent(*other.root))
    extent = extent ? std::min(*extent, *theirs) : *theirs;
  if (extent) {
    if (!length || *length > *extent)
      return false;
    for (int64_t i = 0; i < *length; ++i)
      for (int64_t t = 0; t < *length; ++t)
        if (evaluate(i, t) != other.evaluate(i, t)) {
          if (difference)
            *difference = {i, t};
          return false;
        }
    return true;
  }
  std::array<std::set<int64_t>, 3> cuts;
  collectCuts(*root, cuts);
  collectCuts(*other.root, cuts);
  std::optional<int64_t> last =
      length ? std::optional(*length - 1) : std::nullopt;
  if (last && *last < 0)
    return true; // no (i, t) at all
  SmallVector<Interval> rows = intervals(cuts[kRow], 0, last);
  SmallVector<Interval> cols = intervals(cuts[kCol], 0, last);
  SmallVector<Interval> diagonals =
      intervals(cuts[kDiagonal], std::nullopt, std::nullopt);
  if (int64_t(rows.size()) * int64_t(cols.size()) * int64_t(diagonals.size()) >
      kMaxCells)
    return false;
  for (const Interval &ri : rows)
    for (const Interval &rt : cols)
      for (const Interval &rd : diagonals) {
        auto point = witness(ri, rt, rd);
        if (!point)
          continue;
        auto [i, t] = *point;
        if (evaluate(i, t) != other.evaluate(i, t)) {
          if (difference)
            *difference = *point;
          return false;
        }
      }
  return true;
}

std::optional<int64_t> IndexPredicate::getExactExtent() const {
  if (exactExtent == kUnbounded)
    return std::nullopt;
  return exactExtent;
}

MaskClass IndexPredicate::classify(std::optional<int64_t> length) const {
  MaskClass result;
  if (length && *length > exactExtent) {
    result.mismatch = "its float positions hold exact integers only up to "
                      "length " +
                      std::to_string(exactExtent) + ", not " +
                      std::to_string(*length);
    return result;
  }
  if (equals(always(), length)) {
    result.kind = MaskClass::Kind::none;
    return result;
  }
  std::pair<int64_t, int64_t> difference{0, 0};
  if (equals(causal(), length, &difference)) {
    result.kind = MaskClass::Kind::causal;
    return result;
  }
  // A prefix shows as a threshold on t: try each of the predicate's own.
  std::array<std::set<int64_t>, 3> cuts;
  collectCuts(*root, cuts);
  // A table's prefix is where its first row stops seeing.
  if (tableExtent(*root) && length)
    for (int64_t t = 0; t < *length; ++t)
      if (!evaluate(0, t)) {
        cuts[kCol].insert(t);
        break;
      }
  for (int64_t j : cuts[kCol]) {
    if (j < 2 || (length && j >= *length))
      continue;
    if (equals(prefix(j), length)) {
      result.kind = MaskClass::Kind::prefix;
      result.prefixLength = j;
      return result;
    }
  }
  auto [i, t] = difference;
  llvm::raw_string_ostream os(result.mismatch);
  if (i == t && !evaluate(i, t))
    os << "the diagonal is excluded; linea causal includes t = i";
  else
    os << "at i = " << i << ", t = " << t << " it is "
       << (evaluate(i, t) ? "true" : "false") << ", where causal (t <= i) is "
       << (causal().evaluate(i, t) ? "true" : "false")
       << ", and it is neither none nor a prefix mask";
  return result;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static StringRef spell(Node::Pred p) {
  switch (p) {
  case Node::Pred::eq: return "==";
  case Node::Pred::ne: return "!=";
  case Node::Pred::lt: return "<";
  case Node::Pred::le: return "<=";
  case Node::Pred::gt: return ">";
  case Node::Pred::ge: return ">=";
  }
  return "?";
}

static Node::Pred mirrored(Node::Pred p) {
  switch (p) {
  case Node::Pred::lt: return Node::Pred::gt;
  case Node::Pred::le: return Node::Pred::ge;
  case Node::Pred::gt: return Node::Pred::lt;
  case Node::Pred::ge: return Node::Pred::le;
  default: return p;
  }
}

/// `x <p> rhs + k`, with the strictness that keeps `k` nearest zero
/// (`t <= i - 1` reads `t < i`).
static void printBound(llvm::raw_ostream &os, StringRef x, Node::Pred p,
                       StringRef rhs, int64_t k) {
  if (rhs.empty())
    ; // a threshold reads as written: t < 5
  else if (p == Node::Pred::le && k < 0)
    p = Node::Pred::lt, k += 1;
  else if (p == Node::Pred::lt && k > 0)
    p = Node::Pred::le, k -= 1;
  else if (p == Node::Pred::ge && k > 0)
    p = Node::Pred::gt, k -= 1;
  else if (p == Node::Pred::gt && k < 0)
    p = Node::Pred::ge, k += 1;
  os << x << " " << spell(p) << " ";
  if (rhs.empty()) {
    os << k;
    return;
  }
  os << rhs;
  if (k > 0)
    os << " + " << k;
  else if (k < 0)
    os << " - " << -k;
}

static void printNode(const Node &n, llvm::raw_ostream &os,
                      Node::Kind parent) {
  switch (n.kind) {
  case Node::Kind::constant:
    os << (n.value ? "true" : "false");
    return;
  case Node::Kind::atom: {
    // at * t + ai * i + c <p> 0, solved for t where t appears with a unit
    // coefficient, else for i.
    if (n.at == 1 || n.at == -1) {
      Node::Pred p = n.at == 1 ? n.pred : mirrored(n.pred);
      // t <p> -(ai * i + c) / at
      int64_t ci = -n.ai * n.at, k = -n.c * n.at;
      if (ci == 0 || ci == 1) {
        printBound(os, "t", p, ci ? "i" : "", k);
        return;
      }
    }
    if (n.at == 0 && (n.ai == 1 || n.ai == -1)) {
      Node::Pred p = n.ai == 1 ? n.pred : mirrored(n.pred);
      printBound(os, "i", p, "", -n.c * n.ai);
      return;
    }
    os << n.ai << " * i + " << n.at << " * t + " << n.c << " " << spell(n.pred)
       << " 0";
    return;
  }
  case Node::Kind::table:
    os << "a " << n.rows << " x " << n.cols << " constant table";
    return;
  case Node::Kind::negation:
    os << "not (";
    printNode(*n.lhs, os, n.kind);
    os << ")";
    return;
  default: {
    bool parens = parent != n.kind && parent != Node::Kind::constant;
    StringRef word = n.kind == Node::Kind::conjunction   ? " and "
                     : n.kind == Node::Kind::disjunction ? " or "
                                                         : " xor ";
    if (parens)
      os << "(";
    printNode(*n.lhs, os, n.kind);
    os << word;
    printNode(*n.rhs, os, n.kind);
    if (parens)
      os << ")";
    return;
  }
  }
}

std::string IndexPredicate::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printNode(*root, os, Node::Kind::constant);
  return s;
}
