//===- IndexPredicate.cpp - what a mask is, decided exactly ---------------===//

#include "linea/Analysis/IndexPredicate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

using namespace mlir;
using namespace mlir::linea;

/// A boolean combination of atoms `ai * i + at * t + c <pred> 0`, and of
/// tables: a mask read from constant tensors, tabulated over its
/// `rows x cols` and decided there only.
struct IndexPredicate::Node {
  enum class Kind {
    constant, atom, table, negation, conjunction, disjunction, parity
  };
  enum class Pred { eq, ne, lt, le, gt, ge };
  Kind kind;
  bool value = false;
  int64_t ai = 0, at = 0, c = 0;
  Pred pred = Pred::eq;
  int64_t rows = 0, cols = 0;
  std::shared_ptr<const std::vector<bool>> bits; // row-major
  std::shared_ptr<const Node> lhs, rhs;
};

using Node = IndexPredicate::Node;
using NodePtr = std::shared_ptr<const Node>;

namespace {

/// Atoms' coefficients stay small enough that every evaluation below fits
/// in 128 bits with room to spare.
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;
/// Bounds the number of interval combinations one decision visits.
constexpr int64_t kMaxCells = 1 << 20;
/// Bounds the entries of a table mask (4096 x 4096), each decided by
/// evaluation.
constexpr int64_t kMaxTableEntries = int64_t(1) << 24;

NodePtr constant(bool v) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::constant;
  n->value = v;
  return n;
}
NodePtr atom(int64_t ai, int64_t at, int64_t c, Node::Pred pred) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::atom;
  n->ai = ai, n->at = at, n->c = c, n->pred = pred;
  return n;
}
bool isConstant(const NodePtr &n, bool value) {
  return n && n->kind == Node::Kind::constant && n->value == value;
}
NodePtr combine(Node::Kind kind, NodePtr lhs, NodePtr rhs = nullptr) {
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
// From an element expression
//===----------------------------------------------------------------------===//

std::optional<Node::Pred> signedPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::eq: return Node::Pred::eq;
  case arith::CmpIPredicate::ne: return Node::Pred::ne;
  case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return Node::Pred::lt;
  case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return Node::Pred::le;
  case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return Node::Pred::gt;
  case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return Node::Pred::ge;
  }
  return std::nullopt;
}

bool isUnsigned(arith::CmpIPredicate p) {
  return p == arith::CmpIPredicate::ult || p == arith::CmpIPredicate::ule ||
         p == arith::CmpIPredicate::ugt || p == arith::CmpIPredicate::uge;
}

class PredicateBuilder {
public:
  PredicateBuilder(unsigned row, unsigned col, unsigned numLoops,
                   MLIRContext *ctx, std::string &why,
                   IndexPredicate::AtomValues given)
      : row(row), col(col), numLoops(numLoops), ctx(ctx), why(why),
        given(given) {}

  NodePtr build(const ElementExpr *e) {
    if (given)
      if (std::optional<bool> v = given(e))
        return constant(*v);
    if (auto v = e->getConstantValue(); v && e->type.isInteger(1))
      return constant(*v != 0);
    if (readsTensor(e) && readsOnlyConstants(e))
      return table(e);
    if (e->isa(ElementExpr::Kind::Read))
      return fail("the mask reads a tensor (" + e->str() +
                  "): it depends on data, not only on the indices");
    if (e->isa(ElementExpr::Kind::Scalar))
      return fail("the mask depends on a value known only at run time");
    if (auto cmp = e->getOp<arith::CmpIOp>()) {
      if (e->operands[0]->type.isInteger(1))
        return booleanComparison(cmp.getPredicate(), e);
      return comparison(cmp.getPredicate(), e);
    }
    if (auto cmp = e->getOp<arith::CmpFOp>())
      return floatComparison(cmp.getPredicate(), e);
    if (e->getOp<arith::AndIOp>() || e->getOp<arith::OrIOp>() ||
        e->getOp<arith::XOrIOp>()) {
      NodePtr lhs = build(e->operands[0]), rhs = lhs ? build(e->operands[1]) : nullptr;
      if (!rhs)
        return nullptr;
      Node::Kind kind = e->getOp<arith::AndIOp>()  ? Node::Kind::conjunction
                        : e->getOp<arith::OrIOp>() ? Node::Kind::disjunction
                                                   : Node::Kind::parity;
      return combine(kind, lhs, rhs);
    }
    if (e->getOp<arith::SelectOp>()) {
      NodePtr c = build(e->operands[0]);
      NodePtr a = c ? build(e->operands[1]) : nullptr;
      NodePtr b = a ? build(e->operands[2]) : nullptr;
      if (!b)
        return nullptr;
      return combine(Node::Kind::disjunction,
                     combine(Node::Kind::conjunction, c, a),
                     combine(Node::Kind::conjunction,
                             combine(Node::Kind::negation, c), b));
    }
    if (readsTensor(e))
      return fail("the mask reads a tensor (" + e->str() +
                  "): it depends on data, not only on the indices");
    return fail("the mask computes '" + e->str() +
                "', which is not a comparison of indices");
  }

private:
  static bool readsTensor(const ElementExpr *e) {
    return e->isa(ElementExpr::Kind::Read) ||
           llvm::any_of(e->operands, readsTensor);
  }
  static bool readsOnlyConstants(const ElementExpr *e) {
    if (e->isa(ElementExpr::Kind::Read))
      return ConstantTensor::get(e->value).has_value();
    return !e->isa(ElementExpr::Kind::Scalar) &&
           !e->isa(ElementExpr::Kind::Output) &&
           llvm::all_of(e->operands, readsOnlyConstants);
  }

  /// A mask that reads constant tensors (a registered buffer, a literal
  /// table): evaluated at every `(i, t)` its tables cover. Each table is read
  /// at `[.., i + a, .., t + b, ..]` (other dims at constants), so the bounds
  /// of `i` and `t` follow from its sizes along them.
  NodePtr table(const ElementExpr *e) {
    int64_t rows = std::numeric_limits<int64_t>::max(), cols = rows;
    DenseMap<Value, ConstantTensor> tables;
    SmallVector<const ElementExpr *> reads;
    collectReads(e, reads);
    for (const ElementExpr *read : reads) {
      ConstantTensor tensor = *ConstantTensor::get(read->value);
      tables.try_emplace(read->value, tensor);
      for (auto [p, index] : llvm::enumerate(read->indices)) {
        FailureOr<LinearForm> form = getLinearForm(index, numLoops);
        if (failed(form))
          return fail("the mask reads a constant at '" + read->str() +
                      "', not at the row and column");
        int64_t size = tensor.getShape()[p];
        // Read at `i + c` (a slice's offset), `i` spans `size - c`.
        if (form->constant >= 0 && form->coefficients == unitAt(row))
          rows = std::min(rows, size - form->constant);
        else if (form->constant >= 0 && form->coefficients == unitAt(col))
          cols = std::min(cols, size - form->constant);
        else if (llvm::any_of(form->coefficients,
                              [](int64_t c) { return c != 0; }))
          return fail("the mask reads a constant at '" + read->str() +
                      "', not at the row and column");
      }
    }
    SmallVector<unsigned> others;
    for (unsigned d = 0; d < numLoops; ++d)
      if (d != row && d != col)
        others.push_back(d);
    if (dependsOnLoops(e, others))
      return fail("the mask depends on loops other than the row and column");
    if (rows == std::numeric_limits<int64_t>::max() ||
        cols == std::numeric_limits<int64_t>::max())
      return fail("the mask reads a constant (" + e->str() +
                  ") that does not span both the row and the column");
    if (rows <= 0 || cols <= 0)
      return fail("the mask reads a constant (" + e->str() +
                  ") outside its bounds");
    if (rows * cols > kMaxTableEntries)
      return fail("the constant mask has " + Twine(rows * cols) +
                  " entries, more than the raise evaluates");
    auto readConstant = [&](const ElementExpr *read,
                            ArrayRef<int64_t> indices) {
      return tables.find(read->value)->second.at(indices);
    };
    auto bits = std::make_shared<std::vector<bool>>(rows * cols);
    SmallVector<int64_t> at(numLoops, 0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t t = 0; t < cols; ++t) {
        at[row] = i, at[col] = t;
        std::optional<double> v = evaluate(e, at, readConstant);
        if (!v)
          return fail("the mask computes '" + e->str() +
                      "', which the raise cannot evaluate");
        (*bits)[i * cols + t] = *v != 0.0;
      }
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::table;
    n->rows = rows, n->cols = cols;
    n->bits = std::move(bits);
    return n;
  }

  static void collectReads(const ElementExpr *e,
                           SmallVectorImpl<const ElementExpr *> &reads) {
    if (e->isa(ElementExpr::Kind::Read))
      reads.push_back(e);
    for (const ElementExpr *o : e->operands)
      collectReads(o, reads);
  }

  SmallVector<int64_t> unitAt(unsigned loop) const {
    SmallVector<int64_t> unit(numLoops, 0);
    unit[loop] = 1;
    return unit;
  }

  NodePtr fail(const Twine &reason) {
    why = reason.str();
    return nullptr;
  }

  NodePtr booleanComparison(arith::CmpIPredicate p, const ElementExpr *e) {
    if (p != arith::CmpIPredicate::eq && p != arith::CmpIPredicate::ne)
      return fail("the mask orders two booleans");
    NodePtr lhs = build(e->operands[0]), rhs = lhs ? build(e->operands[1]) : nullptr;
    if (!rhs)
      return nullptr;
    NodePtr differ = combine(Node::Kind::parity, lhs, rhs);
    return p == arith::CmpIPredicate::ne ? differ
                                         : combine(Node::Kind::negation, differ);
  }

  /// A float comparison of a 0/1-style indicator with a constant
  /// (`select(m, 1.0, 0.0) == 0.0`, an ONNX mask): the comparison holds on
  /// each branch or not, so it is a combination of `m`.
  NodePtr floatComparison(arith::CmpFPredicate p, const ElementExpr *e) {
    const ElementExpr *x = e->operands[0];
    std::optional<double> c = e->operands[1]->getConstantValue();
    bool swapped = false;
    if (!c) {
      c = x->getConstantValue();
      x = e->operands[1];
      swapped = true;
    }
    if (std::optional<NodePtr> positions = positionComparison(p, e))
      return *positions;
    if (!c)
      return fail("the mask compares two floats that are not an indicator "
                  "and a constant");
    auto holds = [&](double v) {
      double lhs = swapped ? *c : v, rhs = swapped ? v : *c;
      return compareFloats(p, lhs, rhs).value_or(false);
    };
    // select(m, a, b) with constant a, b; uitofp(m) is select(m, 1, 0).
    const ElementExpr *m = nullptr;
    std::optional<double> a, b;
    if (x->getOp<arith::SelectOp>() && x->operands[0]->type.isInteger(1)) {
      m = x->operands[0];
      a = x->operands[1]->getConstantValue();
      b = x->operands[2]->getConstantValue();
    } else if (x->getOp<arith::UIToFPOp>() &&
               x->operands[0]->type.isInteger(1)) {
      m = x->operands[0];
      a = 1.0, b = 0.0;
    }
    if (!m || !a || !b) {
      if (readsTensor(e))
        return fail("the mask reads a tensor (" + e->str() +
                    "): it depends on data, not only on the indices");
      return fail("the mask compares '" + x->str() +
                  "', which is not an indicator of indices");
    }
    NodePtr cond = build(m);
    if (!cond)
      return nullptr;
    bool onTrue = holds(*a), onFalse = holds(*b);
    if (onTrue == onFalse)
      return constant(onTrue);
    return onTrue ? cond : combine(Node::Kind::negation, cond);
  }

  /// A comparison of float positions (`n[:, None] - n[None, :] >= 0` with
  /// `n = arange(L, dtype=float)`) with each other or with a constant: the
  /// comparison of the integers they hold, where they hold them exactly (up
  /// to `exactExtent`). None where a side is no position; null, having
  /// failed with the reason, where both are but the comparison is no atom.
  std::optional<NodePtr> positionComparison(arith::CmpFPredicate p,
                                            const ElementExpr *e) {
    FailureOr<FloatPosition> lhs = getFloatPosition(e->operands[0], ctx);
    FailureOr<FloatPosition> rhs = getFloatPosition(e->operands[1], ctx);
    if (failed(lhs) || failed(rhs))
      return std::nullopt;
    // Both sides constant is no mask of the indices; leave it to the rest.
    if (isa<AffineConstantExpr>(lhs->value) &&
        isa<AffineConstantExpr>(rhs->value))
      return std::nullopt;
    std::optional<Node::Pred> pred = floatPredicate(p);
    if (!pred)
      return fail("the mask compares float positions with predicate '" +
                  arith::stringifyCmpFPredicate(p) + "'");
    // (A side with a nonzero extent is linear in the row and column: its
    // value is among the values it rounds.)
    FailureOr<LinearForm> l = getLinearForm(lhs->value, numLoops);
    FailureOr<LinearForm> r = getLinearForm(rhs->value, numLoops);
    for (const FloatPosition *side : {&*lhs, &*rhs}) {
      int64_t extent = linea::exactExtent(*side, {row, col}, numLoops);
      if (extent == 0 || failed(l) || failed(r))
        return fail("the mask compares float positions that are not exact "
                    "integers of the row and column");
      exactExtent = std::min(exactExtent, extent);
    }
    return atomOf(*l, *r, *pred);
  }

  /// The integer comparison a float comparison of exact integers is (no
  /// NaN: ordered and unordered agree).
  static std::optional<Node::Pred> floatPredicate(arith::CmpFPredicate p) {
    using P = arith::CmpFPredicate;
    switch (p) {
    case P::OEQ: case P::UEQ: return Node::Pred::eq;
    case P::ONE: case P::UNE: return Node::Pred::ne;
    case P::OLT: case P::ULT: return Node::Pred::lt;
    case P::OLE: case P::ULE: return Node::Pred::le;
    case P::OGT: case P::UGT: return Node::Pred::gt;
    case P::OGE: case P::UGE: return Node::Pred::ge;
    default: return std::nullopt;
    }
  }

  /// `lhs <p> rhs` as `(lhs - rhs) <p> 0` over i and t.
  NodePtr comparison(arith::CmpIPredicate p, const ElementExpr *e) {
    std::optional<LinearForm> lhs = linear(e->operands[0]);
    std::optional<LinearForm> rhs = lhs ? linear(e->operands[1]) : std::nullopt;
    if (!rhs)
      return nullptr;
    // An unsigned comparison agrees with the signed one when neither side
    // can be negative (indices and their sums).
    auto nonNegative = [](const LinearForm &f) {
      return f.constant >= 0 &&
             llvm::all_of(f.coefficients, [](int64_t c) { return c >= 0; });
    };
    if (isUnsigned(p) && !(nonNegative(*lhs) && nonNegative(*rhs)))
      return fail("the mask compares indices unsigned where a side can be "
                  "negative");
    return atomOf(*lhs, *rhs, *signedPredicate(p));
  }

  NodePtr atomOf(const LinearForm &lhs, const LinearForm &rhs,
                 Node::Pred pred) {
    int64_t ai = lhs.coefficients[row] - rhs.coefficients[row];
    int64_t at = lhs.coefficients[col] - rhs.coefficients[col];
    int64_t c = lhs.constant - rhs.constant;
    for (unsigned d = 0; d < numLoops; ++d)
      if (d != row && d != col &&
          lhs.coefficients[d] != rhs.coefficients[d])
        return fail("the mask depends on loop d" + Twine(d) +
                    ", not only on the row and column");
    if (std::max({std::abs(ai), std::abs(at), std::abs(c)}) >= kMaxMagnitude)
      return fail("the mask's constants are too large to decide");
    if (ai != 0 && at != 0 && ai != -at)
      return fail("the mask compares " + Twine(ai) + " * i + " + Twine(at) +
                  " * t, which is not a comparison of i, t or t - i");
    return atom(ai, at, c, pred);
  }

  std::optional<LinearForm> linear(const ElementExpr *e) {
    FailureOr<AffineExpr> affine = getAffineExpr(e, ctx);
    if (failed(affine)) {
      fail("the mask compares '" + e->str() +
           "', which is not affine in the indices");
      return std::nullopt;
    }
    FailureOr<LinearForm> form = getLinearForm(*affine, numLoops);
    if (failed(form)) {
      fail("the mask compares '" + e->str() +
           "', which is not linear in the indices");
      return std::nullopt;
    }
    return *form;
  }

public:
  /// The largest length for which the float positions compared so far are
  /// exact.
  int64_t exactExtent = std::numeric_limits<int64_t>::max();

private:
  unsigned row, col, numLoops;
  MLIRContext *ctx;
  std::string &why;
  IndexPredicate::AtomValues given;
};

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
// IndexPredicate
//===----------------------------------------------------------------------===//

FailureOr<IndexPredicate>
IndexPredicate::get(const ElementExpr *mask, unsigned row, unsigned col,
                    MLIRContext *ctx, std::string &why, AtomValues given) {
  unsigned numLoops = std::max(row, col) + 1;
  // The loops the mask's indices may name: every dim of its expressions.
  std::function<void(const ElementExpr *)> scan = [&](const ElementExpr *e) {
    auto note = [&](AffineExpr x) {
      x.walk([&](AffineExpr d) {
        if (auto dim = dyn_cast<AffineDimExpr>(d))
          numLoops = std::max(numLoops, dim.getPosition() + 1);
      });
    };
    if (e->isa(ElementExpr::Kind::Index))
      note(e->index);
    for (AffineExpr x : e->indices)
      note(x);
    for (const ElementExpr *o : e->operands)
      scan(o);
  };
  scan(mask);
  PredicateBuilder builder(row, col, numLoops, ctx, why, given);
  NodePtr root = builder.build(mask);
  if (!root)
    return failure();
  return IndexPredicate(root, builder.exactExtent);
}

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
