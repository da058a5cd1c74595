//===- ElementExprEval.cpp - evaluating and rebuilding an expression ------===//
//
// What the raise does with an element expression once it has one: whether it
// depends on given loops (`dependsOnLoops`), its value at a point of the
// root's iteration space (`evaluate`, with `compareFloats` as `arith.cmpf`
// decides), the same scalar computation rebuilt at an insertion point
// (`materialize`), and the elements of a constant tensor the evaluation reads
// (`ConstantTensor`: a mask given as a table).
//
//===----------------------------------------------------------------------===//

#include "ElementExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// Reading and rebuilding an expression
//===----------------------------------------------------------------------===//

bool mlir::linea::dependsOnLoops(const ElementExpr *e,
                                 ArrayRef<unsigned> loops) {
  auto mentions = [&](AffineExpr x) {
    bool found = false;
    x.walk([&](AffineExpr d) {
      if (auto dim = dyn_cast<AffineDimExpr>(d))
        found |= llvm::is_contained(loops, dim.getPosition());
    });
    return found;
  };
  if (e->isa(ElementExpr::Kind::Index) && mentions(e->index))
    return true;
  if (llvm::any_of(e->indices, mentions))
    return true;
  return llvm::any_of(e->operands, [&](const ElementExpr *o) {
    return dependsOnLoops(o, loops);
  });
}

static std::optional<int64_t> evaluateAffine(AffineExpr x,
                                             ArrayRef<int64_t> at) {
  if (auto c = dyn_cast<AffineConstantExpr>(x))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(x))
    return d.getPosition() < at.size() ? std::optional(at[d.getPosition()])
                                       : std::nullopt;
  auto bin = dyn_cast<AffineBinaryOpExpr>(x);
  if (!bin)
    return std::nullopt;
  std::optional<int64_t> l = evaluateAffine(bin.getLHS(), at);
  std::optional<int64_t> r = evaluateAffine(bin.getRHS(), at);
  if (!l || !r)
    return std::nullopt;
  switch (x.getKind()) {
  case AffineExprKind::Add: return *l + *r;
  case AffineExprKind::Mul: return *l * *r;
  case AffineExprKind::FloorDiv:
    return *r ? std::optional(llvm::divideFloorSigned(*l, *r)) : std::nullopt;
  case AffineExprKind::CeilDiv:
    return *r ? std::optional(llvm::divideCeilSigned(*l, *r)) : std::nullopt;
  case AffineExprKind::Mod:
    return *r ? std::optional(*l - *r * llvm::divideFloorSigned(*l, *r))
              : std::nullopt;
  default: return std::nullopt;
  }
}

/// `lhs <p> rhs` for integers held exactly as doubles.
static bool compareIntegers(arith::CmpIPredicate p, double lhs, double rhs) {
  switch (p) {
  case arith::CmpIPredicate::eq: return lhs == rhs;
  case arith::CmpIPredicate::ne: return lhs != rhs;
  case arith::CmpIPredicate::slt: case arith::CmpIPredicate::ult: return lhs < rhs;
  case arith::CmpIPredicate::sle: case arith::CmpIPredicate::ule: return lhs <= rhs;
  case arith::CmpIPredicate::sgt: case arith::CmpIPredicate::ugt: return lhs > rhs;
  case arith::CmpIPredicate::sge: case arith::CmpIPredicate::uge: return lhs >= rhs;
  }
  return false;
}

std::optional<bool> mlir::linea::compareFloats(arith::CmpFPredicate p,
                                               double lhs, double rhs) {
  bool unordered = std::isnan(lhs) || std::isnan(rhs);
  switch (p) {
  case arith::CmpFPredicate::OEQ: return !unordered && lhs == rhs;
  case arith::CmpFPredicate::ONE: return !unordered && lhs != rhs;
  case arith::CmpFPredicate::OLT: return !unordered && lhs < rhs;
  case arith::CmpFPredicate::OLE: return !unordered && lhs <= rhs;
  case arith::CmpFPredicate::OGT: return !unordered && lhs > rhs;
  case arith::CmpFPredicate::OGE: return !unordered && lhs >= rhs;
  case arith::CmpFPredicate::UEQ: return unordered || lhs == rhs;
  case arith::CmpFPredicate::UNE: return unordered || lhs != rhs;
  case arith::CmpFPredicate::ULT: return unordered || lhs < rhs;
  case arith::CmpFPredicate::ULE: return unordered || lhs <= rhs;
  case arith::CmpFPredicate::UGT: return unordered || lhs > rhs;
  case arith::CmpFPredicate::UGE: return unordered || lhs >= rhs;
  case arith::CmpFPredicate::AlwaysTrue: return true;
  case arith::CmpFPredicate::AlwaysFalse: return false;
  default: return std::nullopt;
  }
}

static std::optional<double> evaluateNode(const ElementExpr *e,
                                          ArrayRef<int64_t> at,
                                          ReadEvaluator read);

std::optional<double> mlir::linea::evaluate(const ElementExpr *e,
                                            ArrayRef<int64_t> at,
                                            ReadEvaluator read) {
  std::optional<double> v = evaluateNode(e, at, read);
  // A boolean is 0 or 1 (an i1 constant `true` reads -1 signed).
  if (v && e->type.isInteger(1))
    return *v != 0.0 ? 1.0 : 0.0;
  return v;
}

static std::optional<double> evaluateNode(const ElementExpr *e,
                                          ArrayRef<int64_t> at,
                                          ReadEvaluator read) {
  if (e->isa(ElementExpr::Kind::Index)) {
    std::optional<int64_t> v = evaluateAffine(e->index, at);
    return v ? std::optional(double(*v)) : std::nullopt;
  }
  if (std::optional<double> c = e->getConstantValue())
    return c;
  if (e->isa(ElementExpr::Kind::Read) && read) {
    SmallVector<int64_t> indices;
    for (AffineExpr x : e->indices) {
      std::optional<int64_t> index = evaluateAffine(x, at);
      if (!index)
        return std::nullopt;
      indices.push_back(*index);
    }
    return read(e, indices);
  }
  if (!e->isa(ElementExpr::Kind::Op))
    return std::nullopt;
  SmallVector<double> args;
  for (const ElementExpr *o : e->operands) {
    std::optional<double> v = mlir::linea::evaluate(o, at, read);
    if (!v)
      return std::nullopt;
    args.push_back(*v);
  }
  Operation *op = e->op;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return compareIntegers(cmp.getPredicate(), args[0], args[1]) ? 1.0 : 0.0;
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    std::optional<bool> holds =
        compareFloats(cmp.getPredicate(), args[0], args[1]);
    return holds ? std::optional(*holds ? 1.0 : 0.0) : std::nullopt;
  }
  if (isa<arith::SelectOp>(op)) return args[0] != 0.0 ? args[1] : args[2];
  // Bitwise ops on booleans (the masks' and, or, not).
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    if (!e->type.isInteger(1))
      return std::nullopt;
    bool l = args[0] != 0.0, r = args[1] != 0.0;
    bool v = isa<arith::AndIOp>(op) ? l && r : isa<arith::OrIOp>(op) ? l || r : l != r;
    return v ? 1.0 : 0.0;
  }
  if (isa<arith::ExtUIOp>(op)) return args[0];
  // Sign-extended, a true boolean is -1.
  if (isa<arith::ExtSIOp, arith::SIToFPOp>(op) &&
      e->operands[0]->type.isInteger(1))
    return -args[0];
  if (isa<arith::AddFOp, arith::AddIOp>(op)) return args[0] + args[1];
  if (isa<arith::SubFOp, arith::SubIOp>(op)) return args[0] - args[1];
  if (isa<arith::MulFOp, arith::MulIOp>(op)) return args[0] * args[1];
  if (isa<arith::DivFOp>(op)) return args[0] / args[1];
  if (isa<arith::NegFOp>(op)) return -args[0];
  if (isa<arith::SIToFPOp, arith::UIToFPOp, arith::ExtFOp, arith::TruncFOp,
          arith::IndexCastOp, arith::ExtSIOp>(op))
    return args[0];
  if (isa<math::ExpOp>(op)) return std::exp(args[0]);
  if (isa<math::Exp2Op>(op)) return std::exp2(args[0]);
  if (isa<math::LogOp>(op)) return std::log(args[0]);
  if (isa<math::PowFOp>(op)) return std::pow(args[0], args[1]);
  return std::nullopt;
}

FailureOr<Value> mlir::linea::materialize(OpBuilder &b, Location loc,
                                          const ElementExpr *e,
                                          ArrayRef<Value> loops) {
  std::function<FailureOr<Value>(AffineExpr)> affine =
      [&](AffineExpr x) -> FailureOr<Value> {
    if (auto c = dyn_cast<AffineConstantExpr>(x))
      return Value(arith::ConstantIndexOp::create(b, loc, c.getValue()));
    if (auto d = dyn_cast<AffineDimExpr>(x)) {
      if (d.getPosition() >= loops.size() || !loops[d.getPosition()])
        return failure();
      return loops[d.getPosition()];
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(x);
    if (!bin || (x.getKind() != AffineExprKind::Add &&
                 x.getKind() != AffineExprKind::Mul))
      return failure();
    FailureOr<Value> l = affine(bin.getLHS()), r = affine(bin.getRHS());
    if (failed(l) || failed(r))
      return failure();
    if (x.getKind() == AffineExprKind::Add)
      return Value(arith::AddIOp::create(b, loc, *l, *r));
    return Value(arith::MulIOp::create(b, loc, *l, *r));
  };
  switch (e->kind) {
  case ElementExpr::Kind::Index: {
    FailureOr<Value> index = affine(e->index);
    if (failed(index))
      return failure();
    if (e->type.isIndex())
      return *index;
    return Value(arith::IndexCastOp::create(b, loc, e->type, *index));
  }
  case ElementExpr::Kind::Constant:
    return Value(arith::ConstantOp::create(b, loc, e->constant));
  case ElementExpr::Kind::Scalar:
    return e->value;
  case ElementExpr::Kind::Read: {
    SmallVector<Value> indices;
    for (AffineExpr x : e->indices) {
      FailureOr<Value> index = affine(x);
      if (failed(index))
        return failure();
      indices.push_back(*index);
    }
    return Value(tensor::ExtractOp::create(b, loc, e->value, indices));
  }
  case ElementExpr::Kind::Output:
    return failure();
  case ElementExpr::Kind::Op: {
    IRMapping map;
    for (auto [operand, expr] : llvm::zip(e->op->getOperands(), e->operands)) {
      FailureOr<Value> v = materialize(b, loc, expr, loops);
      if (failed(v))
        return failure();
      map.map(operand, *v);
    }
    return b.clone(*e->op, map)->getResult(0);
  }
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// ConstantTensor
//===----------------------------------------------------------------------===//

std::optional<ConstantTensor> ConstantTensor::get(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  auto constant = tensor.getDefiningOp<arith::ConstantOp>();
  if (!type || !type.hasStaticShape() || !constant)
    return std::nullopt;
  Type element = type.getElementType();
  if (!isa<FloatType, IntegerType>(element))
    return std::nullopt;
  ConstantTensor result;
  result.type = type;
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue())) {
    result.dense = dense;
    return result;
  }
  // A dense_resource blob holds the elements packed, little-endian.
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  unsigned bits = element.getIntOrFloatBitWidth();
  if (!blob || bits % 8 != 0 || bits > 64 ||
      int64_t(blob->getData().size()) != type.getNumElements() * (bits / 8))
    return std::nullopt;
  result.blob = blob->getData();
  result.elementBytes = bits / 8;
  return result;
}

double ConstantTensor::at(int64_t flat) const {
  Type element = type.getElementType();
  APInt raw;
  if (dense) {
    if (isa<FloatType>(element))
      return dense.getValues<APFloat>()[flat].convertToDouble();
    raw = dense.getValues<APInt>()[flat];
  } else {
    uint64_t word = 0;
    std::memcpy(&word, blob.data() + flat * elementBytes, elementBytes);
    raw = APInt(elementBytes * 8, word);
    if (auto f = dyn_cast<FloatType>(element))
      return APFloat(f.getFloatSemantics(), raw).convertToDouble();
  }
  return element.isInteger(1) ? double(raw.getZExtValue())
                              : double(raw.getSExtValue());
}

std::optional<double> ConstantTensor::at(ArrayRef<int64_t> indices) const {
  ArrayRef<int64_t> shape = getShape();
  if (indices.size() != shape.size())
    return std::nullopt;
  int64_t flat = 0;
  for (auto [index, size] : llvm::zip(indices, shape)) {
    if (index < 0 || index >= size)
      return std::nullopt;
    flat = flat * size + index;
  }
  return at(flat);
}
