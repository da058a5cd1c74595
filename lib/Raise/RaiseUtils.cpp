//===- RaiseUtils.cpp - what every raise pattern reads and builds ---------===//

#include "RaiseUtils.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

//===----------------------------------------------------------------------===//
// RaiseLog
//===----------------------------------------------------------------------===//

std::string RaiseLog::line(const Twine &text) const {
  std::string full = text.str();
  if (explain >= 2)
    return full;
  // One line: a reason that quotes IR or a long expression spans several.
  std::string one;
  for (char c : full) {
    bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space && (one.empty() || one.back() == ' '))
      continue;
    one.push_back(space ? ' ' : c);
  }
  while (!one.empty() && one.back() == ' ')
    one.pop_back();
  if (one.size() <= kRemarkWidth)
    return one;
  static constexpr llvm::StringLiteral more = " ... (explain=2: all of it)";
  size_t keep = kRemarkWidth - more.size();
  // Cut at a space where one is near, not inside a word.
  size_t space = StringRef(one).substr(0, keep).rfind(' ');
  if (space != StringRef::npos && space + 24 > keep)
    keep = space;
  return one.substr(0, keep) + more.str();
}

void RaiseLog::raised(Operation *op, const Twine &what) {
  ++numRaised;
  if (explain)
    op->emitRemark() << "linea-raise: raised to " << line(what);
}

void RaiseLog::rejected(Operation *op, const Twine &why) {
  if (explain)
    op->emitRemark() << "linea-raise: not raised: " << line(why);
}

void RaiseLog::refused(Location loc, StringRef pattern, const Twine &why) {
  if (explain)
    emitRemark(loc) << "linea-raise: the " << pattern
                    << " pattern refused it: " << line(why);
}

//===----------------------------------------------------------------------===//
// LoopView
//===----------------------------------------------------------------------===//

std::optional<unsigned> LoopView::position(unsigned loop) const {
  for (auto [p, l] : llvm::enumerate(loops))
    if (l == loop)
      return p;
  return std::nullopt;
}

AffineMap LoopView::map(unsigned numLoops, MLIRContext *ctx) const {
  SmallVector<AffineExpr> exprs;
  for (unsigned loop : loops)
    exprs.push_back(loop == kUnitDim ? getAffineConstantExpr(0, ctx)
                                     : getAffineDimExpr(loop, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

static FailureOr<LoopView> viewOf(Value tensor, ArrayRef<AffineExpr> indices) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type)
    return failure();
  LoopView view{tensor, {}};
  for (auto [p, index] : llvm::enumerate(indices)) {
    if (auto dim = dyn_cast<AffineDimExpr>(index)) {
      if (view.position(dim.getPosition()))
        return failure(); // a diagonal read
      view.loops.push_back(dim.getPosition());
      continue;
    }
    auto zero = dyn_cast<AffineConstantExpr>(index);
    if (!zero || zero.getValue() != 0 || type.getDimSize(p) != 1)
      return failure();
    view.loops.push_back(LoopView::kUnitDim);
  }
  return view;
}

FailureOr<LoopView> raise::getLoopView(const ElementExpr *read) {
  if (!read->isa(ElementExpr::Kind::Read))
    return failure();
  return viewOf(read->value, read->indices);
}

FailureOr<LoopView> raise::getLoopView(linalg::LinalgOp op,
                                       OpOperand &operand) {
  return viewOf(operand.get(),
                op.getMatchingIndexingMap(&operand).getResults());
}

//===----------------------------------------------------------------------===//
// Products
//===----------------------------------------------------------------------===//

static bool isZero(const ElementExpr *e) {
  std::optional<double> v = e->getConstantValue();
  return v && *v == 0.0;
}

static bool isBool(const ElementExpr *e) { return e->type.isInteger(1); }

bool raise::isConstantTableOf(Value tensor,
                              function_ref<bool(double)> allowed) {
  std::optional<ConstantTensor> table = ConstantTensor::get(tensor);
  if (!table || !isa<FloatType>(getElementTypeOrSelf(tensor.getType())))
    return false;
  for (int64_t k = 0, n = table->getNumElements(); k < n; ++k)
    if (!allowed(table->at(k)))
      return false;
  return true;
}

/// A constant float tensor whose every element is 0 or 1.
static bool isIndicatorTable(Value tensor) {
  return isConstantTableOf(tensor,
                           [](double v) { return v == 0.0 || v == 1.0; });
}

bool raise::isRounding(Operation *op) {
  return isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(op);
}

Value raise::throughRoundings(Value tensor) {
  while (auto op = tensor.getDefiningOp<linalg::GenericOp>()) {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumLoops() != op.getNumParallelLoops() ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      break;
    Value yielded = op.getBody()->getTerminator()->getOperand(0);
    Operation *rounding = yielded.getDefiningOp();
    if (!isRounding(rounding) ||
        rounding->getOperand(0) != op.getBody()->getArgument(0))
      break;
    tensor = op.getDpsInputs()[0];
  }
  return tensor;
}

bool raise::isOpElementType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

FailureOr<Type> raise::raisedElementType(ArrayRef<Value> inputs, Value output,
                                         std::string &why) {
  Type element = getElementTypeOrSelf(inputs.front().getType());
  Type result = getElementTypeOrSelf(output.getType());
  if (!isOpElementType(element) ||
      llvm::any_of(inputs,
                   [&](Value v) {
                     return getElementTypeOrSelf(v.getType()) != element;
                   }) ||
      (result != element && !result.isF32())) {
    why = "the queries, keys and values are not of one element type f32, "
          "f16 or bf16 (with the output that or f32)";
    return failure();
  }
  return element;
}

static void collectFactors(const ElementExpr *e, Product &product) {
  if (std::optional<double> v = e->getConstantValue();
      v && isa<FloatType>(e->type)) {
    product.scale *= *v;
    return;
  }
  // A constant table of zeros and ones (a registered mask buffer).
  if (e->isa(ElementExpr::Kind::Read) && isIndicatorTable(e->value)) {
    product.masks.push_back({e, false});
    return;
  }
  if (e->isa(ElementExpr::Kind::Read)) {
    product.reads.push_back(e);
    return;
  }
  if (e->getOp<arith::MulFOp>()) {
    collectFactors(e->operands[0], product);
    collectFactors(e->operands[1], product);
    return;
  }
  if (e->getOp<arith::DivFOp>()) {
    if (std::optional<double> d = e->operands[1]->getConstantValue();
        d && *d != 0.0) {
      collectFactors(e->operands[0], product);
      product.scale /= *d;
      return;
    }
  }
  if (e->getOp<arith::NegFOp>()) {
    product.scale = -product.scale;
    collectFactors(e->operands[0], product);
    return;
  }
  if (isRounding(e->op)) {
    collectFactors(e->operands[0], product);
    return;
  }
  // select(m, x, 0) keeps x where m holds; select(m, 0, x) where it fails.
  if (e->getOp<arith::SelectOp>() && isBool(e->operands[0])) {
    if (isZero(e->operands[2])) {
      product.masks.push_back({e->operands[0], false});
      collectFactors(e->operands[1], product);
      return;
    }
    if (isZero(e->operands[1])) {
      product.masks.push_back({e->operands[0], true});
      collectFactors(e->operands[2], product);
      return;
    }
  }
  // A 0/1 float mask multiplied in.
  if (e->getOp<arith::UIToFPOp>() && isBool(e->operands[0])) {
    product.masks.push_back({e->operands[0], false});
    return;
  }
  product.others.push_back(e);
}

Product raise::factorize(const ElementExpr *e) {
  Product product;
  collectFactors(e, product);
  return product;
}

namespace {
/// The factors of a product in a body, before any producer is looked into.
struct BodyFactors {
  double scale = 1.0;
  SmallVector<std::pair<Value, bool>> masks;
  SmallVector<OpOperand *> operands;
  SmallVector<Value> others;
};

bool isZeroConstant(Value v) {
  return matchPattern(v, m_AnyZeroFloat());
}

void collectBodyFactors(Value v, linalg::LinalgOp root, BodyFactors &f) {
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && arg.getOwner() == root.getBlock()) {
    OpOperand *operand = root.getMatchingOpOperand(arg);
    if (root.isDpsInput(operand)) {
      f.operands.push_back(operand);
      return;
    }
  }
  FloatAttr constant;
  if (matchPattern(v, m_Constant(&constant))) {
    f.scale *= constant.getValueAsDouble();
    return;
  }
  Operation *op = v.getDefiningOp();
  if (auto mul = dyn_cast_or_null<arith::MulFOp>(op)) {
    collectBodyFactors(mul.getLhs(), root, f);
    collectBodyFactors(mul.getRhs(), root, f);
    return;
  }
  if (auto div = dyn_cast_or_null<arith::DivFOp>(op);
      div && matchPattern(div.getRhs(), m_Constant(&constant)) &&
      constant.getValueAsDouble() != 0.0) {
    f.scale /= constant.getValueAsDouble();
    collectBodyFactors(div.getLhs(), root, f);
    return;
  }
  if (auto neg = dyn_cast_or_null<arith::NegFOp>(op)) {
    f.scale = -f.scale;
    collectBodyFactors(neg.getOperand(), root, f);
    return;
  }
  if (isRounding(op)) {
    collectBodyFactors(op->getOperand(0), root, f);
    return;
  }
  if (auto select = dyn_cast_or_null<arith::SelectOp>(op);
      select && select.getCondition().getType().isInteger(1)) {
    if (isZeroConstant(select.getFalseValue())) {
      f.masks.push_back({select.getCondition(), false});
      collectBodyFactors(select.getTrueValue(), root, f);
      return;
    }
    if (isZeroConstant(select.getTrueValue())) {
      f.masks.push_back({select.getCondition(), true});
      collectBodyFactors(select.getFalseValue(), root, f);
      return;
    }
  }
  if (auto cast = dyn_cast_or_null<arith::UIToFPOp>(op);
      cast && cast.getIn().getType().isInteger(1)) {
    f.masks.push_back({cast.getIn(), false});
    return;
  }
  f.others.push_back(v);
}

/// Adds `sub`'s masks and scale to `product`.
void merge(Product &product, const Product &sub) {
  product.scale *= sub.scale;
  product.masks.append(sub.masks.begin(), sub.masks.end());
  product.reads.append(sub.reads.begin(), sub.reads.end());
}
} // namespace

FailureOr<Product> raise::matchAccumulation(ElementTracer &tracer,
                                            function_ref<bool(Value)> isScores,
                                            std::string &why,
                                            bool keepOthers) {
  linalg::LinalgOp root = tracer.getRoot();
  auto yield = cast<linalg::YieldOp>(root.getBlock()->getTerminator());
  auto sum = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!sum) {
    why = "the body is not an accumulation (out + ...)";
    return failure();
  }
  Value out = root.getMatchingBlockArgument(root.getDpsInitOperand(0));
  Value addend = sum.getLhs() == out ? sum.getRhs() : sum.getLhs();
  if (sum.getLhs() != out && sum.getRhs() != out) {
    why = "the body does not add to its own output";
    return failure();
  }
  BodyFactors factors;
  collectBodyFactors(addend, root, factors);
  Product product;
  product.scale = factors.scale;
  auto trace = [&](Value v) -> const ElementExpr * {
    FailureOr<const ElementExpr *> e = tracer.traceBodyValue(v);
    return succeeded(e) ? *e : nullptr;
  };
  for (auto [mask, negated] : factors.masks) {
    const ElementExpr *e = trace(mask);
    if (!e) {
      why = tracer.getFailureReason();
      return failure();
    }
    product.masks.push_back({e, negated});
  }
  for (Value other : factors.others) {
    const ElementExpr *e = trace(other);
    if (!e) {
      why = tracer.getFailureReason();
      return failure();
    }
    Product sub = factorize(e);
    if (sub.reads.empty() && sub.others.empty())
      merge(product, sub);
    else
      product.others.push_back(e);
  }
  for (OpOperand *operand : factors.operands) {
    Value arg = root.getMatchingBlockArgument(operand);
    const ElementExpr *e = trace(arg);
    Product sub = e ? factorize(e) : Product();
    bool holdsScores =
        sub.reads.size() == 1 && isScores(sub.reads[0]->value);
    bool expands = e && ((sub.others.empty() &&
                          (sub.reads.empty() || holdsScores)) ||
                         (keepOthers && holdsScores));
    if (expands) {
      merge(product, sub);
      product.others.append(sub.others.begin(), sub.others.end());
      continue;
    }
    product.reads.push_back(tracer.operandLeaf(*operand));
    // Scores multiplied by something else: say what, for the remark.
    if (e && !product.scoresBlockedBy &&
        llvm::any_of(sub.reads, [&](auto *r) { return isScores(r->value); })) {
      auto blocker = llvm::find_if(
          sub.reads, [&](auto *r) { return !isScores(r->value); });
      product.scoresBlockedBy =
          !sub.others.empty() ? sub.others.front()
          : blocker != sub.reads.end() ? *blocker
                                       : nullptr;
      product.blockedScores = *llvm::find_if(
          sub.reads, [&](auto *r) { return isScores(r->value); });
    }
  }
  return product;
}

FailureOr<Product> raise::matchPlainAccumulation(ElementTracer &tracer) {
  std::string ignored;
  return matchAccumulation(tracer, [](Value) { return false; }, ignored);
}

FailureOr<IndexPredicate> raise::getMask(const Product &product, unsigned row,
                                         unsigned col, MLIRContext *ctx,
                                         std::string &why,
                                         IndexPredicate::AtomValues given) {
  IndexPredicate mask = IndexPredicate::always();
  for (auto [expr, negated] : product.masks) {
    FailureOr<IndexPredicate> factor =
        IndexPredicate::get(expr, row, col, ctx, why, given);
    if (failed(factor))
      return failure();
    mask = mask && (negated ? !*factor : *factor);
  }
  return mask;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// The size of `loop` of `op`, read off the last operand that has it as a
/// dim (the output first): not off the scores, which the raise replaces.
static Value loopSize(OpBuilder &b, linalg::LinalgOp op, unsigned loop) {
  SmallVector<OpOperand *> operands;
  for (OpOperand &init : op.getDpsInitsMutable())
    operands.push_back(&init);
  for (OpOperand *input : llvm::reverse(op.getDpsInputOperands()))
    operands.push_back(input);
  for (OpOperand *operand : operands) {
    if (!isa<RankedTensorType>(operand->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (auto [p, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && dim.getPosition() == loop)
        return tensor::DimOp::create(b, op.getLoc(), operand->get(), p);
  }
  return nullptr;
}

LogicalResult raise::checkExactAtStaticSizes(linalg::LinalgOp root,
                                             ArrayRef<unsigned> loops,
                                             std::optional<int64_t> extent,
                                             std::string &why) {
  if (!extent)
    return success();
  for (unsigned loop : loops)
    if (std::optional<int64_t> size = staticLoopSize(root, loop);
        size && *size > *extent) {
      why = "its float positions hold exact integers only up to length " +
            std::to_string(*extent) + ", not " + std::to_string(*size);
      return failure();
    }
  return success();
}

void raise::checkExactAtRunTime(OpBuilder &b, linalg::LinalgOp root,
                                ArrayRef<unsigned> loops,
                                std::optional<int64_t> extent) {
  if (!extent)
    return;
  Location loc = root.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(root);
  Value limit = arith::ConstantIndexOp::create(b, loc, *extent);
  for (unsigned loop : loops) {
    if (staticLoopSize(root, loop))
      continue;
    Value size = loopSize(b, root, loop);
    if (!size)
      continue;
    Value exact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                        size, limit);
    CheckOp::create(b, loc, exact,
                    "linea-raise: the model's float positions hold exact "
                    "integers only up to length {0}; this length is {1}",
                    ValueRange{limit, size});
  }
}

bool raise::hasZeroInit(linalg::LinalgOp op) {
  ElementTracer tracer(op);
  OpOperand *init = op.getDpsInitOperand(0);
  FailureOr<const ElementExpr *> element = tracer.traceElement(
      init->get(), op.getMatchingIndexingMap(init).getResults());
  if (failed(element))
    return false;
  std::optional<double> v = (*element)->getConstantValue();
  return v && *v == 0.0;
}

std::optional<int64_t> raise::staticLoopSize(linalg::LinalgOp op,
                                             unsigned loop) {
  int64_t size = op.getStaticLoopRanges()[loop];
  if (ShapedType::isDynamic(size))
    return std::nullopt;
  return size;
}

/// The reassociation that joins each unit dim of `loops` to the group of
/// the next real dim (or of the last one): the dims of a tensor with and
/// without its unit dims.
static SmallVector<ReassociationIndices>
unitDimGroups(ArrayRef<unsigned> loops) {
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> pendingUnits;
  for (auto [p, loop] : llvm::enumerate(loops)) {
    if (loop == LoopView::kUnitDim) {
      pendingUnits.push_back(p);
      continue;
    }
    groups.emplace_back(pendingUnits.begin(), pendingUnits.end());
    groups.back().push_back(p);
    pendingUnits.clear();
  }
  if (!groups.empty())
    groups.back().append(pendingUnits.begin(), pendingUnits.end());
  return groups;
}

Value raise::permuteTo(OpBuilder &b, Location loc, const LoopView &view,
                       ArrayRef<unsigned> order) {
  // A view read at 0 along dims of size 1 (a batch of one seen through a
  // collapse) loses them first: the permutation is over its loops.
  LoopView loopsOnly = view;
  if (llvm::is_contained(view.loops, LoopView::kUnitDim)) {
    loopsOnly.tensor = tensor::CollapseShapeOp::create(
        b, loc, view.tensor, unitDimGroups(view.loops));
    llvm::erase(loopsOnly.loops, LoopView::kUnitDim);
  }
  SmallVector<int64_t> permutation;
  for (unsigned loop : order)
    permutation.push_back(*loopsOnly.position(loop));
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return loopsOnly.tensor;
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : permutation)
    sizes.push_back(tensor::getMixedSize(b, loc, loopsOnly.tensor, p));
  auto type = cast<RankedTensorType>(loopsOnly.tensor.getType());
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, loopsOnly.tensor, init,
                                     permutation)
      ->getResult(0);
}

Value raise::relayout(OpBuilder &b, Location loc, Value value,
                      ArrayRef<unsigned> loops, const LoopView &target) {
  // Transpose to the target's order of loops, then insert its unit dims.
  SmallVector<unsigned> order;
  for (unsigned loop : target.loops)
    if (loop != LoopView::kUnitDim)
      order.push_back(loop);
  Value permuted = permuteTo(b, loc, LoopView{value, SmallVector<unsigned>(loops)},
                             order);
  if (order.size() == target.loops.size())
    return permuted;
  SmallVector<ReassociationIndices> groups = unitDimGroups(target.loops);
  auto permutedType = cast<RankedTensorType>(permuted.getType());
  SmallVector<OpFoldResult> sizes;
  SmallVector<int64_t> shape;
  for (unsigned loop : target.loops) {
    if (loop == LoopView::kUnitDim) {
      sizes.push_back(b.getIndexAttr(1));
      shape.push_back(1);
      continue;
    }
    int64_t p = llvm::find(order, loop) - order.begin();
    sizes.push_back(tensor::getMixedSize(b, loc, permuted, p));
    shape.push_back(permutedType.getDimSize(p));
  }
  auto resultType =
      RankedTensorType::get(shape, permutedType.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, permuted, groups,
                                       sizes);
}

Value raise::castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  // A 16-bit op's output where the model kept its f32 accumulator.
  Type element = cast<ShapedType>(type).getElementType();
  if (cast<ShapedType>(value.getType()).getElementType() != element) {
    value = castToF32(b, loc, value);
    value = castFromF32(b, loc, value, element);
    if (value.getType() == type)
      return value;
  }
  return tensor::CastOp::create(b, loc, type, value);
}

Value raise::inRootLayout(OpBuilder &b, Operation *root, Value value,
                          ArrayRef<unsigned> loops, const LoopView &out) {
  Location loc = root->getLoc();
  Value result = relayout(b, loc, value, loops, out);
  return castTo(b, loc, result, root->getResult(0).getType());
}

void raise::replaceRoot(RewriterBase &rewriter, Operation *root, Value value,
                        ArrayRef<unsigned> loops, const LoopView &out) {
  rewriter.replaceOp(root, inRootLayout(rewriter, root, value, loops, out));
}

linalg::LinalgOp raise::asReductionRoot(Operation *op) {
  auto root = dyn_cast<linalg::LinalgOp>(op);
  if (!root || !root.hasPureTensorSemantics() || root.getNumDpsInits() != 1 ||
      root->getNumResults() != 1 || root.getNumReductionLoops() != 1)
    return {};
  return root;
}

FailureOr<PlainReduction> raise::matchPlainReduction(Operation *op,
                                                     unsigned numReads,
                                                     bool masked) {
  linalg::LinalgOp root = asReductionRoot(op);
  if (!root)
    return failure();
  auto tracer = std::make_unique<ElementTracer>(root);
  FailureOr<Product> product = matchPlainAccumulation(*tracer);
  if (failed(product) || product->reads.size() != numReads ||
      product->masks.empty() == masked || !product->others.empty())
    return failure();
  return PlainReduction{root, std::move(tracer), std::move(*product)};
}

bool raise::hasStaticDim(const LoopView &view, unsigned loop) {
  std::optional<unsigned> p = view.position(loop);
  return p && !cast<ShapedType>(view.tensor.getType()).isDynamicDim(*p);
}

std::optional<AddScan> raise::inclusiveAddScan(Value value) {
  if (auto scan = value.getDefiningOp<tm_tensor::ScanOp>();
      scan && value == scan.getResult(0) && scan.getInclusive() &&
      isa_and_nonnull<arith::AddFOp>(scan.getCommutativeCombiner()))
    return AddScan{scan.getInput(), int64_t(scan.getDimension())};
  if (auto presum = value.getDefiningOp<PresumOp>();
      presum && !presum.getExclusive() && !presum.getReverse() &&
      !presum.getDecay())
    return AddScan{presum.getInput(), presum.getScanDim()};
  return std::nullopt;
}
