//===- FloatPosition.cpp - float positions and their exact extent ---------===//
//
// What the raise reads of integers held in floats: `getFloatPosition` reads a
// float element expression (a `sitofp` of an index, `torch.arange(L,
// dtype=torch.float32)`, and sums, differences and products by constants of
// such) as the integer affine it holds, with each value rounded on the way;
// `exactExtent` bounds the loops over which every one of those roundings is
// exact. `getLinearForm` reads an affine expr as a sum of scaled dims, which
// both the extent and the masks' atoms need.
//
//===----------------------------------------------------------------------===//

#include "ElementExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// FloatPosition
//===----------------------------------------------------------------------===//

/// The magnitude up to which a float type holds every integer: 2^p.
static int64_t exactIntegersUpTo(Type type) {
  auto f = dyn_cast<FloatType>(type);
  if (!f)
    return 0;
  unsigned p = llvm::APFloat::semanticsPrecision(f.getFloatSemantics());
  return p >= 62 ? std::numeric_limits<int64_t>::max() : int64_t(1) << p;
}

/// Whether `e` (sums and products of loop indices and constants) is never
/// negative.
static bool isNonNegative(AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() >= 0;
  if (isa<AffineDimExpr>(e))
    return true;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  return bin &&
         (e.getKind() == AffineExprKind::Add ||
          e.getKind() == AffineExprKind::Mul) &&
         isNonNegative(bin.getLHS()) && isNonNegative(bin.getRHS());
}

FailureOr<FloatPosition> mlir::linea::getFloatPosition(const ElementExpr *e,
                                                       MLIRContext *ctx) {
  int64_t limit = exactIntegersUpTo(e->type);
  if (!limit)
    return failure();
  FloatPosition p;
  auto rounded = [&](AffineExpr value) -> FailureOr<FloatPosition> {
    p.value = value;
    p.rounded.push_back({value, limit});
    return p;
  };
  if (e->isa(ElementExpr::Kind::Constant)) {
    std::optional<double> c = e->getConstantValue();
    if (!c || *c != std::trunc(*c) || std::fabs(*c) > double(limit))
      return failure();
    return rounded(getAffineConstantExpr(int64_t(*c), ctx));
  }
  if (!e->isa(ElementExpr::Kind::Op))
    return failure();
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(e->op)) {
    if (e->operands[0]->type.isInteger(1))
      return failure();
    FailureOr<AffineExpr> index = getAffineExpr(e->operands[0], ctx);
    // An unsigned conversion is the signed one where the integer cannot be
    // negative.
    if (failed(index) ||
        (isa<arith::UIToFPOp>(e->op) && !isNonNegative(*index)))
      return failure();
    return rounded(*index);
  }
  SmallVector<FloatPosition> operands;
  for (const ElementExpr *o : e->operands) {
    FailureOr<FloatPosition> x = getFloatPosition(o, ctx);
    if (failed(x))
      return failure();
    p.rounded.append(x->rounded);
    operands.push_back(*x);
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(e->op))
    return rounded(operands[0].value);
  if (isa<arith::NegFOp>(e->op))
    return rounded(-operands[0].value);
  if (isa<arith::AddFOp>(e->op))
    return rounded(operands[0].value + operands[1].value);
  if (isa<arith::SubFOp>(e->op))
    return rounded(operands[0].value - operands[1].value);
  if (isa<arith::MulFOp>(e->op) &&
      (isa<AffineConstantExpr>(operands[0].value) ||
       isa<AffineConstantExpr>(operands[1].value)))
    return rounded(operands[0].value * operands[1].value);
  return failure();
}

int64_t mlir::linea::exactExtent(const FloatPosition &p,
                                 ArrayRef<unsigned> loops, unsigned numDims) {
  int64_t extent = std::numeric_limits<int64_t>::max();
  for (auto [value, limit] : p.rounded) {
    FailureOr<LinearForm> form = getLinearForm(value, numDims);
    if (failed(form))
      return 0;
    // With every loop in [0, n): c - N (n - 1) <= value <= c + P (n - 1),
    // P and N the sums of the positive and negative coefficients.
    int64_t up = 0, down = 0;
    for (auto [d, a] : llvm::enumerate(form->coefficients)) {
      if (a != 0 && !llvm::is_contained(loops, unsigned(d)))
        return 0;
      (a > 0 ? up : down) += std::abs(a);
    }
    int64_t c = form->constant;
    if (std::abs(c) > limit)
      return 0;
    if (up != 0)
      extent = std::min(extent, (limit - c) / up + 1);
    if (down != 0)
      extent = std::min(extent, (limit + c) / down + 1);
  }
  return extent;
}

//===----------------------------------------------------------------------===//
// LinearForm
//===----------------------------------------------------------------------===//

FailureOr<LinearForm> mlir::linea::getLinearForm(AffineExpr e,
                                                 unsigned numDims) {
  LinearForm form;
  form.coefficients.assign(numDims, 0);
  // Accumulates `scale * e` into `form`.
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr x,
                                                     int64_t scale) -> bool {
    if (auto c = dyn_cast<AffineConstantExpr>(x)) {
      form.constant += scale * c.getValue();
      return true;
    }
    if (auto d = dyn_cast<AffineDimExpr>(x)) {
      if (d.getPosition() >= numDims)
        return false;
      form.coefficients[d.getPosition()] += scale;
      return true;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(x);
    if (!bin)
      return false;
    if (x.getKind() == AffineExprKind::Add)
      return add(bin.getLHS(), scale) && add(bin.getRHS(), scale);
    if (x.getKind() == AffineExprKind::Mul) {
      if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
        return add(bin.getLHS(), scale * c.getValue());
      if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
        return add(bin.getRHS(), scale * c.getValue());
    }
    return false;
  };
  if (!add(e, 1))
    return failure();
  return form;
}
