//===- ScalarAdjoints.cpp - Reverse mode inside a scalar region ------------===//
//
// The body of a linalg.generic is straight-line scalar code. Its adjoint is
// built inside the adjoint generic: the caller recomputes the body there
// (`primalOf`), then this walks the body's ops backwards and applies the
// derivative of each arith / math op to the cotangents of its results.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The scalar cotangents of one body's values, summed as they arrive.
class ScalarSweep {
public:
  ScalarSweep(OpBuilder &b, Location loc,
              const llvm::DenseMap<Value, Value> &primalOf)
      : b(b), loc(loc), primalOf(primalOf) {}

  void add(Value original, Value contribution) {
    if (!contribution || !isa<FloatType>(original.getType()))
      return;
    if (contribution.getType() != original.getType())
      contribution = castTo(contribution, original.getType());
    Value &sum = sums[original];
    sum = sum ? arith::AddFOp::create(b, loc, sum, contribution) : contribution;
  }
  Value get(Value original) const { return sums.lookup(original); }

  /// Applies `op`'s derivative to the cotangent `d` of its result.
  LogicalResult propagate(Operation *op, Value d);

private:
  /// The recomputed value of `original`; a value the body reads from
  /// outside (a constant, an inactive operand captured from the function,
  /// such as a layer norm's epsilon) is its own primal: it dominates the
  /// adjoint generic, which is built after the forward op.
  Value primal(Value original) const {
    Value recomputed = primalOf.lookup(original);
    return recomputed ? recomputed : original;
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value constant(Type type, double value) {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value castTo(Value x, Type type) {
    unsigned from = cast<FloatType>(x.getType()).getWidth();
    unsigned to = cast<FloatType>(type).getWidth();
    if (from < to)
      return arith::ExtFOp::create(b, loc, type, x);
    return arith::TruncFOp::create(b, loc, type, x);
  }
  /// `d` to the operand `pick` chooses, zero to the other.
  void route(Value pick, Value lhs, Value rhs, Value d) {
    Value zero = constant(d.getType(), 0.0);
    add(lhs, select(pick, d, zero));
    add(rhs, select(pick, zero, d));
  }
  Value cmp(arith::CmpFPredicate pred, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, pred, x, y);
  }

  OpBuilder &b;
  Location loc;
  const llvm::DenseMap<Value, Value> &primalOf;
  llvm::DenseMap<Value, Value> sums;
};

} // namespace

LogicalResult ScalarSweep::propagate(Operation *op, Value d) {
  auto operands = op->getOperands();
  auto result = [&] { return primal(op->getResult(0)); };
  bool known =
      TypeSwitch<Operation *, bool>(op)
          .Case([&](arith::AddFOp) {
            add(operands[0], d);
            add(operands[1], d);
            return true;
          })
          .Case([&](arith::SubFOp) {
            add(operands[0], d);
            add(operands[1], neg(d));
            return true;
          })
          .Case([&](arith::MulFOp) {
            add(operands[0], mul(d, primal(operands[1])));
            add(operands[1], mul(d, primal(operands[0])));
            return true;
          })
          .Case([&](arith::DivFOp) {
            Value quotient = div(d, primal(operands[1]));
            add(operands[0], quotient);
            add(operands[1], neg(mul(quotient, result())));
            return true;
          })
          .Case([&](arith::NegFOp) {
            add(operands[0], neg(d));
            return true;
          })
          .Case([&](math::FmaOp) {
            add(operands[0], mul(d, primal(operands[1])));
            add(operands[1], mul(d, primal(operands[0])));
            add(operands[2], d);
            return true;
          })
          .Case([&](math::ExpOp) {
            add(operands[0], mul(d, result()));
            return true;
          })
          .Case([&](math::LogOp) {
            add(operands[0], div(d, primal(operands[0])));
            return true;
          })
          .Case([&](math::SqrtOp) {
            // d sqrt(x) = 1 / (2 sqrt(x))
            Value twice = mul(constant(d.getType(), 2.0), result());
            add(operands[0], div(d, twice));
            return true;
          })
          .Case([&](math::RsqrtOp) {
            // d x^-1/2 = -x^-3/2 / 2
            Value r = result();
            Value cube = mul(mul(r, r), r);
            add(operands[0], mul(d, mul(constant(d.getType(), -0.5), cube)));
            return true;
          })
          .Case([&](math::ErfOp) {
            // d erf(x) = 2 / sqrt(pi) exp(-x^2) (GELU's exact form)
            Value x = primal(operands[0]);
            Value gauss = math::ExpOp::create(b, loc, neg(mul(x, x)));
            Value scale = constant(d.getType(), 1.1283791670955126);
            add(operands[0], mul(d, mul(scale, gauss)));
            return true;
          })
          .Case([&](math::Log1pOp) {
            Value one = constant(d.getType(), 1.0);
            add(operands[0],
                div(d, arith::AddFOp::create(b, loc, one,
                                             primal(operands[0]))));
            return true;
          })
          .Case([&](math::ExpM1Op) {
            Value one = constant(d.getType(), 1.0);
            add(operands[0],
                mul(d, arith::AddFOp::create(b, loc, result(), one)));
            return true;
          })
          .Case([&](math::SinOp) {
            add(operands[0],
                mul(d, math::CosOp::create(b, loc, primal(operands[0]))));
            return true;
          })
          .Case([&](math::CosOp) {
            add(operands[0],
                neg(mul(d, math::SinOp::create(b, loc, primal(operands[0])))));
            return true;
          })
          .Case([&](math::PowFOp) {
            // d x^y = y x^(y-1) dx + log(x) x^y dy; the second only where y
            // is differentiated (a constant exponent passes nothing back).
            Value x = primal(operands[0]), y = primal(operands[1]);
            Value one = constant(d.getType(), 1.0);
            Value lower = math::PowFOp::create(
                b, loc, x, arith::SubFOp::create(b, loc, y, one));
            add(operands[0], mul(d, mul(y, lower)));
            if (!operands[1].getDefiningOp<arith::ConstantOp>())
              add(operands[1],
                  mul(d, mul(math::LogOp::create(b, loc, x), result())));
            return true;
          })
          .Case([&](math::TanhOp) {
            Value r = result();
            Value one = constant(d.getType(), 1.0);
            add(operands[0], mul(d, arith::SubFOp::create(b, loc, one,
                                                          mul(r, r))));
            return true;
          })
          .Case([&](math::AbsFOp) {
            Value zero = constant(d.getType(), 0.0);
            Value nonNegative = cmp(arith::CmpFPredicate::OGE,
                                    primal(operands[0]), zero);
            add(operands[0], select(nonNegative, d, neg(d)));
            return true;
          })
          .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](Operation *) {
            route(cmp(arith::CmpFPredicate::OGE, primal(operands[0]),
                      primal(operands[1])),
                  operands[0], operands[1], d);
            return true;
          })
          .Case<arith::MinimumFOp, arith::MinNumFOp>([&](Operation *) {
            route(cmp(arith::CmpFPredicate::OLE, primal(operands[0]),
                      primal(operands[1])),
                  operands[0], operands[1], d);
            return true;
          })
          .Case([&](arith::SelectOp select) {
            route(primal(select.getCondition()), select.getTrueValue(),
                  select.getFalseValue(), d);
            return true;
          })
          .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
            add(operands[0], d); // `add` casts to the operand's type
            return true;
          })
          .Default([&](Operation *) {
            // Ops without float operands (constants, int-to-float casts,
            // index arithmetic) pass nothing back.
            return llvm::none_of(operands, [](Value v) {
              return isa<FloatType>(v.getType());
            });
          });
  if (known)
    return success();
  return op->emitOpError()
         << "in a linalg body cannot be differentiated: "
            "linea-differentiate has no derivative for it";
}

llvm::DenseMap<Value, Value> mlir::linea::primalValues(Block &body,
                                                       const IRMapping &primal) {
  llvm::DenseMap<Value, Value> primalOf;
  for (BlockArgument arg : body.getArguments())
    primalOf[arg] = primal.lookup(arg);
  for (Operation &inner : body.without_terminator())
    for (Value r : inner.getResults())
      primalOf[r] = primal.lookup(r);
  return primalOf;
}

FailureOr<SmallVector<Value>> mlir::linea::differentiateScalarBody(
    OpBuilder &b, Location loc, Block &body,
    const llvm::DenseMap<Value, Value> &primalOf,
    ArrayRef<Value> yieldCotangents, ArrayRef<Value> wrt) {
  ScalarSweep sweep(b, loc, primalOf);
  Operation *terminator = body.getTerminator();
  for (auto [yielded, d] : llvm::zip(terminator->getOperands(),
                                     yieldCotangents))
    sweep.add(yielded, d);
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    bool reached = llvm::any_of(
        op.getResults(), [&](Value r) { return sweep.get(r) != nullptr; });
    if (!reached)
      continue;
    if (op.getNumResults() != 1)
      return op.emitOpError() << "in a linalg body cannot be differentiated: "
                                 "it has several results";
    if (failed(sweep.propagate(&op, sweep.get(op.getResult(0)))))
      return failure();
  }
  SmallVector<Value> result;
  for (Value arg : wrt)
    result.push_back(sweep.get(arg));
  return result;
}
