//===- IndexPredicateBuilder.cpp - the predicate of a mask's expression ---===//
//
// From an element expression to an index predicate: the PredicateBuilder
// reads a mask's i1 expression (comparisons of indices and of float
// positions, `and`, `or`, `xor`, `select`, indicators compared with
// constants, tables read from constant tensors) as a tree of atoms
// `ai * i + at * t + c <pred> 0`, or fails with the reason. The decision
// on the tree is in IndexPredicate.cpp.
//
//===----------------------------------------------------------------------===//

#include "IndexPredicateNode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::index_predicate;

namespace {

/// Atoms' coefficients stay small enough that every evaluation below fits
/// in 128 bits with room to spare.
constexpr int64_t kMaxMagnitude = int64_t(1) << 40;
/// Bounds the entries of a table mask (4096 x 4096), each decided by
/// evaluation.
constexpr int64_t kMaxTableEntries = int64_t(1) << 24;

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
