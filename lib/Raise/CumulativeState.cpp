//===- CumulativeState.cpp - causal linear attention, the RNN way ---------===//
//
// Papers write causal linear attention as a recurrence on the state:
//
//   S_i = sum_{t <= i} k_t^T v_t      (a cumsum of outer products along L)
//   o_i = q_i S_i                      (a contraction over the key dim)
//
// which is `linea.linear_attention q, k, v mask = causal`, without the
// `[L, Dk, Dv]` tensor of states. The root is the contraction; its state
// operand is an inclusive add scan (torch.cumsum, or a linea.presum) along
// a dim the root keeps, of a product of two tensors that each read one of
// the root's two contracted and kept dims.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Scores.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Dialect/TMTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;


namespace {

bool isOuterProduct(const Product &p) {
  return p.reads.size() == 2 && p.masks.empty() && p.others.empty();
}

/// The element of `states` at `indices` with the operands of the product
/// that makes it (through the views that unsqueeze them) read as leaves.
FailureOr<const ElementExpr *>
traceOuterProductOperands(ElementTracer &tracer, Value states,
                          ArrayRef<AffineExpr> indices) {
  auto product = states.getDefiningOp<linalg::LinalgOp>();
  if (!product)
    return failure();
  for (Value operand : product.getDpsInputs()) {
    while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
        operand.getDefiningOp()))
      operand = operand.getDefiningOp()->getOperand(0);
    tracer.stopAt(operand);
  }
  return tracer.traceElement(states, indices);
}

/// One factor of the outer product: a tensor read through `view`, or an
/// expression `expr` of the loops it is indexed by.
struct Factor {
  std::optional<LoopView> view;
  const ElementExpr *expr = nullptr;

  bool isF32() const {
    return view ? cast<ShapedType>(view->tensor.getType())
                      .getElementType()
                      .isF32()
                : expr->type.isF32();
  }
};

/// Whether `e` can be built again at any point of the loops it reads (no
/// accumulator in it).
bool rebuildable(const ElementExpr *e) {
  return !e->isa(ElementExpr::Kind::Output) &&
         llvm::all_of(e->operands, rebuildable);
}

/// `e` as `key * value` with `key` reading only `keyLoops` and `value` only
/// `valueLoops` (of the root's `numLoops`): a feature map fused into the
/// outer product of the states.
std::optional<std::pair<Factor, Factor>>
splitFactors(const ElementExpr *e, ArrayRef<unsigned> keyLoops,
             ArrayRef<unsigned> valueLoops, unsigned numLoops) {
  if (!e->getOp<arith::MulFOp>())
    return std::nullopt;
  auto within = [&](const ElementExpr *x, ArrayRef<unsigned> loops) {
    SmallVector<unsigned> others;
    for (unsigned loop = 0; loop < numLoops; ++loop)
      if (!llvm::is_contained(loops, loop))
        others.push_back(loop);
    return rebuildable(x) && !dependsOnLoops(x, others);
  };
  for (int k : {0, 1}) {
    const ElementExpr *a = e->operands[k], *b = e->operands[1 - k];
    if (within(a, keyLoops) && within(b, valueLoops))
      return std::make_pair(Factor{std::nullopt, a}, Factor{std::nullopt, b});
  }
  return std::nullopt;
}

/// `e` as a tensor whose dim p is indexed by loop `order[p]`, sized as
/// `sizes` reads those loops; failure, building nothing, where `e` cannot
/// be built there (an index that is not affine in them).
FailureOr<Value> buildFactor(OpBuilder &b, Location loc, const ElementExpr *e,
                  ArrayRef<unsigned> order, unsigned numLoops,
                  const LoopView &sizes) {
  SmallVector<OpFoldResult> shape;
  for (unsigned loop : order)
    shape.push_back(
        tensor::getMixedSize(b, loc, sizes.tensor, *sizes.position(loop)));
  Value empty = tensor::EmptyOp::create(b, loc, shape, e->type);
  AffineMap identity = b.getMultiDimIdentityMap(order.size());
  SmallVector<utils::IteratorType> parallel(order.size(),
                                            utils::IteratorType::parallel);
  bool built = true;
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{identity}, parallel,
      [&](OpBuilder &nested, Location l, ValueRange) {
        SmallVector<Value> loops(numLoops);
        for (auto [p, loop] : llvm::enumerate(order))
          loops[loop] = linalg::IndexOp::create(nested, l, p);
        FailureOr<Value> v = materialize(nested, l, e, loops);
        built = succeeded(v);
        linalg::YieldOp::create(
            nested, l,
            built ? *v
                  : arith::ConstantOp::create(nested, l,
                                              nested.getZeroAttr(e->type))
                        .getResult());
      });
  if (!built) {
    generic->erase();
    return failure();
  }
  return generic.getResult(0);
}

} // namespace

LogicalResult raise::raiseCumulativeState(RewriterBase &rewriter, Operation *op,
                                          RaiseLog &log, Rejection &why) {
  FailureOr<PlainReduction> reduction =
      matchPlainReduction(op, /*numReads=*/2, /*masked=*/false);
  if (failed(reduction))
    return failure();
  linalg::LinalgOp root = reduction->root;
  ElementTracer &tracer = *reduction->tracer;
  const Product *product = &reduction->product;
  // o = q . S with S a scan of states.
  const ElementExpr *stateRead = nullptr, *queryRead = nullptr;
  std::optional<AddScan> scan;
  for (const ElementExpr *read : product->reads)
    if (!scan && (scan = inclusiveAddScan(read->value)))
      stateRead = read;
  if (!scan) {
    // The states reach the contraction through a reshape (torch.export's
    // `q.unsqueeze(-2) @ S` merges the batch dims and the sequence, which
    // then stay merged where the sequence is dynamic): the idiom, but not
    // in the loops the raise reads it through.
    for (const ElementExpr *read : product->reads) {
      Value v = read->value;
      while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
          v.getDefiningOp()))
        v = v.getDefiningOp()->getOperand(0);
      if (v != read->value && inclusiveAddScan(v))
        return reject(why, "the cumsum of states reaches the contraction "
                           "through a " +
                               read->value.getDefiningOp()->getName()
                                   .getStringRef() +
                               ": its sequence dim is not a loop of the "
                               "contraction");
    }
    return failure();
  }
  queryRead = product->reads[product->reads[0] == stateRead ? 1 : 0];
  FailureOr<LoopView> q = getLoopView(queryRead);
  FailureOr<LoopView> s = getLoopView(stateRead);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(q) || failed(s) || failed(out) || hasUnitDim(*q) ||
      hasUnitDim(*s) || hasUnitDim(*out))
    return failure();
  MLIRContext *ctx = root.getContext();
  unsigned n = root.getNumLoops();
  // o[b, i, e] = sum_d q[b, i, d] S[b, i, d, e]: the row i is a batch dim
  // of this contraction (all three read it), d the reduced, e the kept.
  FailureOr<linalg::ContractionDimensions> dims = inferMaskedContractionDims(
      q->map(n, ctx), s->map(n, ctx), out->map(n, ctx),
      root.getIteratorTypesArray());
  if (failed(dims) || !dims->m.empty() || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return failure();
  unsigned row = s->loops[scan->dim];
  unsigned feature = dims->k[0], valueColumn = dims->n[0];
  if (!llvm::is_contained(dims->batch, row))
    return reject(why, "the states are summed along a dim the output does "
                       "not keep as its rows");
  // The states' input at the root's indices: k[b, i, d] * v[b, i, e].
  FailureOr<const ElementExpr *> element =
      tracer.traceElement(scan->input, stateRead->indices);
  if (failed(element))
    return reject(why, tracer.getFailureReason());
  SmallVector<unsigned> batch;
  for (unsigned loop : out->loops)
    if (loop != row && loop != valueColumn)
      batch.push_back(loop);
  SmallVector<unsigned> qOrder(batch), kOrder(batch), vOrder(batch);
  qOrder.append({row, feature});
  kOrder.append({row, feature});
  vOrder.append({row, valueColumn});
  Product outer = factorize(*element);
  if (!isOuterProduct(outer)) {
    // Each factor computed before the product (a feature map phi(k)):
    // read the product's operands as the tensors they are.
    element = traceOuterProductOperands(tracer, scan->input,
                                        stateRead->indices);
    if (succeeded(element))
      outer = factorize(*element);
  }
  // The keys' and the values' factors: two tensors, or, where a feature
  // map is fused into the product, expressions of the keys' loops and of
  // the values' loops, each built as a tensor of its own.
  Factor key, value;
  if (isOuterProduct(outer)) {
    FailureOr<LoopView> a = getLoopView(outer.reads[0]);
    FailureOr<LoopView> b = getLoopView(outer.reads[1]);
    // (Unit dims read at 0, a batch of one the product's view dropped, are
    // collapsed away where the op's operands are made.)
    if (failed(a) || failed(b))
      return reject(why, "the outer product's factors are read at indices "
                         "that are not loops");
    if (a->position(valueColumn))
      std::swap(a, b);
    key.view = *a, value.view = *b;
  } else if (std::optional<std::pair<Factor, Factor>> split =
                 succeeded(element) ? splitFactors(*element, kOrder, vOrder,
                                                   root.getNumLoops())
                                    : std::nullopt) {
    std::tie(key, value) = *split;
  } else {
    return reject(why, "the summed states are not an outer product of two "
                       "tensors");
  }
  auto reads = [](const LoopView &view, ArrayRef<unsigned> loops) {
    SmallVector<unsigned> sorted, expected(loops);
    llvm::copy_if(view.loops, std::back_inserter(sorted),
                  [](unsigned loop) { return loop != LoopView::kUnitDim; });
    llvm::sort(sorted);
    llvm::sort(expected);
    return sorted == expected;
  };
  if (!reads(*q, qOrder) || (key.view && !reads(*key.view, kOrder)) ||
      (value.view && !reads(*value.view, vOrder)))
    return reject(why, "the query, the keys and the values do not share the "
                       "batch dims and the sequence");
  if (!cast<ShapedType>(q->tensor.getType()).getElementType().isF32() ||
      !cast<ShapedType>(root->getResult(0).getType()).getElementType().isF32() ||
      !key.isF32() || !value.isF32())
    return reject(why, "the raise takes f32 models");
  if (!hasStaticDim(*q, feature) ||
      !hasStaticDim(value.view ? *value.view : *out, valueColumn))
    return reject(why, "a feature or value dim is dynamic; Linea's ops take "
                       "them static");
  if (!hasZeroInit(root))
    return reject(why, "the output accumulates onto a tensor that is not zero");
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  // The factors built first: where one cannot be, nothing else is.
  unsigned numLoops = root.getNumLoops();
  FailureOr<Value> kv = Value(), vv = Value();
  if (!key.view)
    kv = buildFactor(rewriter, loc, key.expr, kOrder, numLoops, *q);
  if (!value.view && succeeded(kv))
    vv = buildFactor(rewriter, loc, value.expr, vOrder, numLoops, *out);
  if (failed(kv) || failed(vv)) {
    if (succeeded(kv) && !key.view)
      rewriter.eraseOp(kv->getDefiningOp());
    return reject(why, "a factor of the summed states cannot be built per "
                       "key or per value");
  }
  if (key.view)
    kv = permuteTo(rewriter, loc, *key.view, kOrder);
  if (value.view)
    vv = permuteTo(rewriter, loc, *value.view, vOrder);
  Value qv = permuteTo(rewriter, loc, *q, qOrder);
  auto qType = cast<RankedTensorType>(qv.getType());
  SmallVector<int64_t> shape(cast<RankedTensorType>(vv->getType()).getShape());
  shape[shape.size() - 2] = qType.getDimSize(qType.getRank() - 2);
  double scale = product->scale * (isOuterProduct(outer) ? outer.scale : 1.0);
  auto attention = LinearAttentionOp::create(
      rewriter, loc, RankedTensorType::get(shape, rewriter.getF32Type()),
      /*final_state=*/Type(), qv, *kv, *vv, /*initial_state=*/Value(),
      /*offsets=*/Value(), /*prefix_index=*/Value(),
      MaskAttr::get(ctx, Mask::causal),
      /*prefix_length=*/nullptr, FeatureMapAttr::get(ctx, FeatureMap::identity),
      rewriter.getF32FloatAttr(float(scale)), /*normalize=*/nullptr,
      /*form=*/nullptr);
  SmallVector<unsigned> loops(batch);
  loops.append({row, valueColumn});
  log.raised(root, "linea.linear_attention mask = causal (the states as a "
                   "cumulative sum of outer products)");
  replaceRoot(rewriter, root, attention.getOutput(), loops, *out);
  return success();
}
