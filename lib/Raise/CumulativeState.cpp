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

} // namespace

LogicalResult raise::raiseCumulativeState(RewriterBase &rewriter, Operation *op,
                                          RaiseLog &log, Rejection &why) {
  linalg::LinalgOp root = asReductionRoot(op);
  if (!root)
    return failure();
  ElementTracer tracer(root);
  FailureOr<Product> product = matchPlainAccumulation(tracer);
  if (failed(product) || product->reads.size() != 2 ||
      !product->masks.empty() || !product->others.empty())
    return failure();
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
  Product outer = factorize(*element);
  if (!isOuterProduct(outer)) {
    // Each factor computed before the product (a feature map phi(k)):
    // read the product's operands as the tensors they are.
    element = traceOuterProductOperands(tracer, scan->input,
                                        stateRead->indices);
    if (succeeded(element))
      outer = factorize(*element);
  }
  if (!isOuterProduct(outer))
    return reject(why, "the summed states are not an outer product of two "
                       "tensors");
  FailureOr<LoopView> a = getLoopView(outer.reads[0]);
  FailureOr<LoopView> b = getLoopView(outer.reads[1]);
  // (Unit dims read at 0, a batch of one the product's view dropped, are
  // collapsed away where the op's operands are made.)
  if (failed(a) || failed(b))
    return reject(why, "the outer product's factors are read at indices "
                       "that are not loops");
  if (a->position(valueColumn))
    std::swap(a, b);
  LoopView key = *a, value = *b;
  SmallVector<unsigned> batch;
  for (unsigned loop : out->loops)
    if (loop != row && loop != valueColumn)
      batch.push_back(loop);
  auto reads = [](const LoopView &view, ArrayRef<unsigned> loops) {
    SmallVector<unsigned> sorted, expected(loops);
    llvm::copy_if(view.loops, std::back_inserter(sorted),
                  [](unsigned loop) { return loop != LoopView::kUnitDim; });
    llvm::sort(sorted);
    llvm::sort(expected);
    return sorted == expected;
  };
  SmallVector<unsigned> qOrder(batch), kOrder(batch), vOrder(batch);
  qOrder.append({row, feature});
  kOrder.append({row, feature});
  vOrder.append({row, valueColumn});
  if (!reads(*q, qOrder) || !reads(key, kOrder) || !reads(value, vOrder))
    return reject(why, "the query, the keys and the values do not share the "
                       "batch dims and the sequence");
  for (Value t : {q->tensor, key.tensor, value.tensor,
                  Value(root->getResult(0))})
    if (!cast<ShapedType>(t.getType()).getElementType().isF32())
      return reject(why, "the raise takes f32 models");
  if (!hasStaticDim(*q, feature) || !hasStaticDim(value, valueColumn))
    return reject(why, "a feature or value dim is dynamic; Linea's ops take "
                       "them static");
  if (!hasZeroInit(root))
    return reject(why, "the output accumulates onto a tensor that is not zero");
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  Value qv = permuteTo(rewriter, loc, *q, qOrder);
  Value kv = permuteTo(rewriter, loc, key, kOrder);
  Value vv = permuteTo(rewriter, loc, value, vOrder);
  auto qType = cast<RankedTensorType>(qv.getType());
  SmallVector<int64_t> shape(cast<RankedTensorType>(vv.getType()).getShape());
  shape[shape.size() - 2] = qType.getDimSize(qType.getRank() - 2);
  double scale = product->scale * outer.scale;
  auto attention = LinearAttentionOp::create(
      rewriter, loc, RankedTensorType::get(shape, rewriter.getF32Type()),
      /*final_state=*/Type(), qv, kv, vv, /*initial_state=*/Value(),
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
