//===- ElementExpr.cpp - one element of a tensor program, as an expression ===//
//
// The expressions themselves (their constants and their rendering for the
// remarks), the ElementTracer that builds them over a root op's loops, and
// `getAffineExpr`, an integer expression read as an affine expr. Reading
// float positions is in FloatPosition.cpp; evaluating and rebuilding an
// expression, and constant tensors, in ElementExprEval.cpp.
//
//===----------------------------------------------------------------------===//

#include "ElementExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::linea;

namespace {
/// Bounds that keep a pathological program from making the tracer slow:
/// the idioms it exists for are a few dozen nodes deep.
constexpr unsigned kMaxNodes = 4096;
constexpr unsigned kMaxDepth = 64;

SmallVector<AffineExpr> applyMap(AffineMap map, ArrayRef<AffineExpr> loops) {
  SmallVector<AffineExpr> out;
  for (AffineExpr e : map.getResults())
    out.push_back(e.replaceDims(loops));
  return out;
}

bool isAllParallel(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops();
}
} // namespace

//===----------------------------------------------------------------------===//
// ElementExpr
//===----------------------------------------------------------------------===//

std::optional<double> ElementExpr::getConstantValue() const {
  // A constant rounded to another float type (torch-mlir prints Python's
  // float literals as f64 constants truncated in the body).
  if (kind == Kind::Op && llvm::isa<arith::TruncFOp, arith::ExtFOp>(op)) {
    std::optional<double> v = operands[0]->getConstantValue();
    if (!v)
      return std::nullopt;
    auto floatType = dyn_cast<FloatType>(type);
    if (!floatType)
      return std::nullopt;
    llvm::APFloat rounded(*v);
    bool losesInfo = false;
    rounded.convert(floatType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return rounded.convertToDouble();
  }
  if (kind != Kind::Constant)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(constant))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(constant))
    return double(i.getValue().getSExtValue());
  return std::nullopt;
}

namespace {
/// How tightly an expression binds, for the parentheses of `printMath`.
enum Precedence { kSelect = 0, kLogical, kCompare, kSum, kProduct, kUnary, kAtom };

const char *comparison(const ElementExpr *e) {
  if (auto cmp = e->getOp<arith::CmpFOp>()) {
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OEQ: case arith::CmpFPredicate::UEQ: return "==";
    case arith::CmpFPredicate::ONE: case arith::CmpFPredicate::UNE: return "!=";
    case arith::CmpFPredicate::OLT: case arith::CmpFPredicate::ULT: return "<";
    case arith::CmpFPredicate::OLE: case arith::CmpFPredicate::ULE: return "<=";
    case arith::CmpFPredicate::OGT: case arith::CmpFPredicate::UGT: return ">";
    case arith::CmpFPredicate::OGE: case arith::CmpFPredicate::UGE: return ">=";
    default: return nullptr;
    }
  }
  if (auto cmp = e->getOp<arith::CmpIOp>()) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq: return "==";
    case arith::CmpIPredicate::ne: return "!=";
    case arith::CmpIPredicate::slt: return "<";
    case arith::CmpIPredicate::sle: return "<=";
    case arith::CmpIPredicate::sgt: return ">";
    case arith::CmpIPredicate::sge: return ">=";
    case arith::CmpIPredicate::ult: return "<u";
    case arith::CmpIPredicate::ule: return "<=u";
    case arith::CmpIPredicate::ugt: return ">u";
    case arith::CmpIPredicate::uge: return ">=u";
    }
  }
  return nullptr;
}

/// A binary operator `e` prints as, with its precedence.
std::optional<std::pair<const char *, Precedence>> infix(const ElementExpr *e) {
  if (e->getOp<arith::AddFOp>() || e->getOp<arith::AddIOp>())
    return std::make_pair("+", kSum);
  if (e->getOp<arith::SubFOp>() || e->getOp<arith::SubIOp>())
    return std::make_pair("-", kSum);
  if (e->getOp<arith::MulFOp>() || e->getOp<arith::MulIOp>())
    return std::make_pair("*", kProduct);
  if (e->getOp<arith::DivFOp>() || e->getOp<arith::DivSIOp>() ||
      e->getOp<arith::DivUIOp>())
    return std::make_pair("/", kProduct);
  if (e->getOp<arith::RemFOp>() || e->getOp<arith::RemSIOp>() ||
      e->getOp<arith::RemUIOp>())
    return std::make_pair("%", kProduct);
  if (e->getOp<arith::AndIOp>())
    return std::make_pair("and", kLogical);
  if (e->getOp<arith::OrIOp>())
    return std::make_pair("or", kLogical);
  if (e->getOp<arith::XOrIOp>())
    return std::make_pair("xor", kLogical);
  if (const char *c = comparison(e))
    return std::make_pair(c, kCompare);
  return std::nullopt;
}

/// Casts and float roundings: the identity in real arithmetic.
bool isConversion(const ElementExpr *e) {
  return e->kind == ElementExpr::Kind::Op && e->operands.size() == 1 &&
         isa<arith::ExtFOp, arith::TruncFOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::SIToFPOp, arith::UIToFPOp,
             arith::FPToSIOp, arith::FPToUIOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp>(e->op);
}

/// `e` in math notation (`t - i <= 0 ? A[d0, d2, d3] : 0`), in parentheses
/// where it binds less tightly than `context` needs.
void printMath(const ElementExpr *e, llvm::raw_ostream &os,
               Precedence context) {
  switch (e->kind) {
  case ElementExpr::Kind::Index:
    if (isa<AffineDimExpr, AffineConstantExpr>(e->index) || context <= kSum)
      os << e->index;
    else
      os << "(" << e->index << ")";
    return;
  case ElementExpr::Kind::Constant:
    if (e->type.isInteger(1)) {
      if (auto b = dyn_cast<IntegerAttr>(e->constant)) {
        os << (b.getValue().isZero() ? "false" : "true");
        return;
      }
    }
    if (auto v = e->getConstantValue()) {
      if (*v < 0 && context > kSum)
        os << "(" << llvm::format("%g", *v) << ")";
      else
        os << llvm::format("%g", *v);
    } else if (isa<ElementsAttr>(e->constant)) {
      // (Its elements would be the whole table: its type says enough.)
      os << "constant<" << e->constant.getType() << ">";
    } else {
      os << e->constant;
    }
    return;
  case ElementExpr::Kind::Read: {
    if (auto arg = dyn_cast<BlockArgument>(e->value))
      os << "arg" << arg.getArgNumber();
    else
      os << e->value.getDefiningOp()->getName().stripDialect();
    os << "[";
    llvm::interleaveComma(e->indices, os);
    os << "]";
    return;
  }
  case ElementExpr::Kind::Scalar:
    os << "scalar";
    return;
  case ElementExpr::Kind::Output:
    os << "out";
    return;
  case ElementExpr::Kind::Op:
    break;
  }
  if (isConversion(e))
    return printMath(e->operands[0], os, context);
  if (auto op = infix(e); op && e->operands.size() == 2) {
    auto [symbol, precedence] = *op;
    // `x xor true` is `not x`.
    if (e->getOp<arith::XOrIOp>())
      for (int k : {0, 1})
        if (auto c = e->operands[k]->getConstantValue(); c && *c != 0.0) {
          if (context > kUnary - 1)
            os << "(";
          os << "not ";
          printMath(e->operands[1 - k], os, kUnary);
          if (context > kUnary - 1)
            os << ")";
          return;
        }
    bool parens = context > precedence;
    if (parens)
      os << "(";
    printMath(e->operands[0], os, precedence);
    os << " " << symbol << " ";
    // The right side of `-` and `/` (and of a comparison) binds tighter.
    printMath(e->operands[1], os, Precedence(precedence + 1));
    if (parens)
      os << ")";
    return;
  }
  if (e->getOp<arith::NegFOp>()) {
    os << "-";
    printMath(e->operands[0], os, kAtom);
    return;
  }
  if (e->getOp<arith::SelectOp>()) {
    bool parens = context > kSelect;
    if (parens)
      os << "(";
    printMath(e->operands[0], os, kLogical);
    os << " ? ";
    printMath(e->operands[1], os, kLogical);
    os << " : ";
    printMath(e->operands[2], os, kSelect);
    if (parens)
      os << ")";
    return;
  }
  StringRef name = e->op->getName().stripDialect();
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp, arith::MaxUIOp>(
          e->op))
    name = "max";
  else if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp,
               arith::MinUIOp>(e->op))
    name = "min";
  else if (isa<math::PowFOp>(e->op))
    name = "pow";
  os << name << "(";
  llvm::interleaveComma(e->operands, os, [&](const ElementExpr *o) {
    printMath(o, os, kSelect);
  });
  os << ")";
}
} // namespace

std::string ElementExpr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printMath(this, os, kSelect);
  return s;
}

//===----------------------------------------------------------------------===//
// ElementTracer
//===----------------------------------------------------------------------===//

ElementTracer::ElementTracer(linalg::LinalgOp root)
    : root(root), numLoops(root.getNumLoops()) {}

const ElementExpr *ElementTracer::make(ElementExpr node) {
  nodes.push_back(std::move(node));
  return &nodes.back();
}

const ElementExpr *ElementTracer::leaf(Value tensor,
                                       ArrayRef<AffineExpr> indices) {
  ElementExpr e{ElementExpr::Kind::Read,
                cast<ShapedType>(tensor.getType()).getElementType()};
  e.value = tensor;
  e.indices.assign(indices.begin(), indices.end());
  return make(std::move(e));
}

const ElementExpr *ElementTracer::operandLeaf(OpOperand &operand) {
  return leaf(operand.get(),
              root.getMatchingIndexingMap(&operand).getResults());
}

LogicalResult ElementTracer::fail(const Twine &why) {
  reason = why.str();
  return failure();
}

FailureOr<const ElementExpr *> ElementTracer::traceBodyValue(Value v) {
  reason.clear();
  Frame frame{root, {}};
  for (unsigned d = 0; d < numLoops; ++d)
    frame.loops.push_back(getAffineDimExpr(d, root.getContext()));
  return traceScalar(v, frame);
}

FailureOr<const ElementExpr *> ElementTracer::traceYield(unsigned n) {
  auto yield = cast<linalg::YieldOp>(root.getBlock()->getTerminator());
  return traceBodyValue(yield.getOperand(n));
}

FailureOr<const ElementExpr *>
ElementTracer::traceScalar(Value v, const Frame &frame) {
  if (nodes.size() > kMaxNodes || depth > kMaxDepth)
    return fail("the expression is too large to analyze");
  Block *body = frame.op.getBlock();
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body) {
    OpOperand *operand = frame.op.getMatchingOpOperand(arg);
    if (frame.op == root && frame.op.isDpsInit(operand)) {
      ElementExpr e{ElementExpr::Kind::Output, v.getType()};
      e.resultNumber = operand->getOperandNumber() - frame.op.getNumDpsInputs();
      return make(std::move(e));
    }
    SmallVector<AffineExpr> indices =
        applyMap(frame.op.getMatchingIndexingMap(operand), frame.loops);
    if (!isa<ShapedType>(operand->get().getType())) {
      // A scalar operand of a named op (linalg.fill's value).
      Frame outer{root, {}};
      return traceScalar(operand->get(), outer);
    }
    return traceElement(operand->get(), indices);
  }
  Operation *def = v.getDefiningOp();
  if (def && frame.op->isProperAncestor(def))
    return traceBodyOp(def, frame);
  // Defined above every traced body: a constant or an opaque scalar.
  Attribute attr;
  if (def && matchPattern(v, m_Constant(&attr)) && isa<TypedAttr>(attr)) {
    ElementExpr e{ElementExpr::Kind::Constant, v.getType()};
    e.constant = cast<TypedAttr>(attr);
    return make(std::move(e));
  }
  ElementExpr e{ElementExpr::Kind::Scalar, v.getType()};
  e.value = v;
  return make(std::move(e));
}

FailureOr<const ElementExpr *>
ElementTracer::traceBodyOp(Operation *op, const Frame &frame) {
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    ElementExpr e{ElementExpr::Kind::Index, index.getType()};
    e.index = frame.loops[index.getDim()];
    return make(std::move(e));
  }
  Attribute attr;
  if (matchPattern(op->getResult(0), m_Constant(&attr)) &&
      isa<TypedAttr>(attr)) {
    ElementExpr e{ElementExpr::Kind::Constant, op->getResult(0).getType()};
    e.constant = cast<TypedAttr>(attr);
    return make(std::move(e));
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    SmallVector<AffineExpr> indices;
    for (Value i : extract.getIndices()) {
      FailureOr<const ElementExpr *> e = traceScalar(i, frame);
      if (failed(e))
        return failure();
      FailureOr<AffineExpr> affine = getAffineExpr(*e, root.getContext());
      if (failed(affine))
        return fail("a tensor.extract index is not affine in the loop indices");
      indices.push_back(*affine);
    }
    return traceElement(extract.getTensor(), indices);
  }
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return fail("the body holds '" + op->getName().getStringRef() +
                "', which is not a scalar arith or math op");
  ElementExpr e{ElementExpr::Kind::Op, op->getResult(0).getType()};
  e.op = op;
  ++depth;
  for (Value operand : op->getOperands()) {
    FailureOr<const ElementExpr *> o = traceScalar(operand, frame);
    if (failed(o)) {
      --depth;
      return failure();
    }
    e.operands.push_back(*o);
  }
  --depth;
  return make(std::move(e));
}

/// Whether `slice` takes a part of a constant tensor, directly or through
/// other slices.
static bool isSliceOfConstant(tensor::ExtractSliceOp slice) {
  Value source = slice.getSource();
  if (auto inner = source.getDefiningOp<tensor::ExtractSliceOp>())
    return isSliceOfConstant(inner);
  return ConstantTensor::get(source).has_value();
}

/// The indices into a static slice's source of the slice's element at
/// `indices`: `offset + stride * index` per kept dim, the offset per dim the
/// slice drops.
static std::optional<SmallVector<AffineExpr>>
sliceSourceIndices(tensor::ExtractSliceOp slice, ArrayRef<AffineExpr> indices) {
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> strides = slice.getStaticStrides();
  if (llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<AffineExpr> source;
  unsigned next = 0;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    if (dropped.test(d)) {
      source.push_back(getAffineConstantExpr(offsets[d], slice.getContext()));
      continue;
    }
    if (next >= indices.size())
      return std::nullopt;
    source.push_back(indices[next++] * strides[d] + offsets[d]);
  }
  if (next != indices.size())
    return std::nullopt;
  return source;
}

FailureOr<const ElementExpr *>
ElementTracer::traceElement(Value tensor, ArrayRef<AffineExpr> indices) {
  if (nodes.size() > kMaxNodes || depth > kMaxDepth)
    return fail("the expression is too large to analyze");
  Operation *def = tensor.getDefiningOp();
  if (!def || stops.contains(tensor))
    return leaf(tensor, indices);
  ++depth;
  auto done = [&](FailureOr<const ElementExpr *> r) {
    --depth;
    return r;
  };
  if (auto producer = dyn_cast<linalg::LinalgOp>(def);
      producer && producer.hasPureTensorSemantics() && isAllParallel(producer))
    return done(traceProducer(producer, cast<OpResult>(tensor).getResultNumber(),
                              indices));
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
    FailureOr<SmallVector<AffineExpr>> source = sourceIndices(def, indices);
    if (failed(source))
      return done(leaf(tensor, indices));
    return done(traceElement(def->getOperand(0), *source));
  }
  if (auto castOp = dyn_cast<tensor::CastOp>(def))
    return done(traceElement(castOp.getSource(), indices));
  // A slice of a constant table (nanoGPT's `bias[:, :, :T, :T]`) reads the
  // table itself; a slice of anything else stays the tensor it is, so that
  // a read remains a read of whole operands.
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def);
      slice && isSliceOfConstant(slice))
    if (std::optional<SmallVector<AffineExpr>> source =
            sliceSourceIndices(slice, indices))
      return done(traceElement(slice.getSource(), *source));
  DenseElementsAttr dense;
  if (matchPattern(tensor, m_Constant(&dense)) && dense.isSplat()) {
    ElementExpr e{ElementExpr::Kind::Constant, dense.getElementType()};
    e.constant = cast<TypedAttr>(dense.getSplatValue<Attribute>());
    return done(make(std::move(e)));
  }
  return done(leaf(tensor, indices));
}

FailureOr<const ElementExpr *>
ElementTracer::traceProducer(linalg::LinalgOp producer, unsigned result,
                             ArrayRef<AffineExpr> indices) {
  AffineMap out = producer.getIndexingMapMatchingResult(
      producer->getResult(result));
  if (!out.isPermutation())
    return leaf(producer->getResult(result), indices);
  Frame frame{producer, SmallVector<AffineExpr>(producer.getNumLoops())};
  for (unsigned r = 0; r < out.getNumResults(); ++r)
    frame.loops[out.getDimPosition(r)] = indices[r];
  auto yield = cast<linalg::YieldOp>(producer.getBlock()->getTerminator());
  return traceScalar(yield.getOperand(result), frame);
}

/// The index of a tensor in terms of the indices of its reshape: dims of
/// size 1 contribute nothing (their index is 0); a group with one larger dim
/// passes its index through; several static dims are linearized (expand) or
/// delinearized (collapse).
FailureOr<SmallVector<AffineExpr>>
ElementTracer::sourceIndices(Operation *reshape, ArrayRef<AffineExpr> indices) {
  MLIRContext *ctx = reshape->getContext();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape)) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<AffineExpr> source;
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      SmallVector<int64_t> nonUnit(llvm::make_filter_range(
          group, [&](int64_t d) { return shape[d] != 1; }));
      AffineExpr linear = getAffineConstantExpr(0, ctx);
      for (int64_t d : nonUnit) {
        if (d == nonUnit.front()) {
          linear = indices[d];
          continue;
        }
        if (ShapedType::isDynamic(shape[d]))
          return failure();
        linear = linear * shape[d] + indices[d];
      }
      source.push_back(linear);
    }
    return source;
  }
  auto collapse = cast<tensor::CollapseShapeOp>(reshape);
  ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
  SmallVector<AffineExpr> source(shape.size());
  for (auto [g, group] : llvm::enumerate(collapse.getReassociationIndices())) {
    SmallVector<int64_t> nonUnit;
    for (int64_t d : group) {
      source[d] = getAffineConstantExpr(0, ctx);
      if (shape[d] != 1)
        nonUnit.push_back(d);
    }
    if (nonUnit.size() == 1) {
      source[nonUnit.front()] = indices[g];
      continue;
    }
    AffineExpr rest = indices[g];
    for (int64_t d : llvm::reverse(nonUnit)) {
      if (d == nonUnit.front()) {
        source[d] = rest;
        break;
      }
      if (ShapedType::isDynamic(shape[d]))
        return failure();
      source[d] = rest % shape[d];
      rest = rest.floorDiv(shape[d]);
    }
  }
  return source;
}

FailureOr<AffineExpr> mlir::linea::getAffineExpr(const ElementExpr *e,
                                                  MLIRContext *ctx) {
  if (e->kind == ElementExpr::Kind::Index)
    return e->index;
  if (e->kind == ElementExpr::Kind::Constant) {
    if (auto i = dyn_cast<IntegerAttr>(e->constant);
        i && !i.getType().isInteger(1))
      return getAffineConstantExpr(i.getValue().getSExtValue(), ctx);
    return failure();
  }
  if (e->kind != ElementExpr::Kind::Op)
    return failure();
  auto operand = [&](unsigned k) { return getAffineExpr(e->operands[k], ctx); };
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(e->op))
    return operand(0);
  if (isa<arith::ExtUIOp>(e->op)) {
    if (e->operands[0]->type.isInteger(1))
      return failure();
    return operand(0);
  }
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(e->op))
    return failure();
  FailureOr<AffineExpr> lhs = operand(0), rhs = operand(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (isa<arith::AddIOp>(e->op))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(e->op))
    return *lhs - *rhs;
  if (!isa<AffineConstantExpr>(*lhs) && !isa<AffineConstantExpr>(*rhs))
    return failure();
  return *lhs * *rhs;
}
