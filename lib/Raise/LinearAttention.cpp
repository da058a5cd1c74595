//===- LinearAttention.cpp - masked linear attention from model IR --------===//
//
// Model code writes linear attention the quadratic way:
//
//   A = s X Y^T              (the scores: a contraction over the features)
//   O = (A .* M) V           (the mask M[i, t] and a contraction over keys)
//   O / (rowsum(A .* M) + eps)   (optionally, the normalizer)
//
// which is `linea.linear_attention X, Y, V` with the mask M names (none,
// causal, prefix(j)), `scale = s` and `normalize` where eps is SPEC's. The
// matchers below read the two contractions through the contraction matcher
// Linea shares (MaskedContraction.h, on upstream's inferContractionDims) and
// the mask through IndexPredicate; the batch dims
// of the scores and of the values are paired through the scores' own dims,
// so heads split by reshape and transpose, in any order, meet as one.
//
// The gated forms, GLA's parallel form (matched here by matchGatedParallel)
// and RetNet's decayed retention, are in LinearAttentionGated.cpp; what the
// two files share is in LinearAttention.h.
//
//===----------------------------------------------------------------------===//

#include "LinearAttention.h"
#include "Patterns.h"
#include "Scores.h"
#include "SegmentIds.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

namespace {

Type elementTypeOf(Value tensor) {
  return cast<ShapedType>(tensor.getType()).getElementType();
}

/// Pairs the root's view of the scores with the scores' own loops.
LogicalResult pairWithScores(MaskedAttention &m, Rejection &why) {
  FailureOr<ScoresPairing> pairing =
      pairScores(m.scores, m.scoresView, m.row, m.col, why);
  if (failed(pairing))
    return failure();
  m.query = pairing->query, m.key = pairing->key;
  m.queryRow = pairing->queryRow, m.keyRow = pairing->keyRow;
  m.feature = pairing->feature;
  for (unsigned loop : m.batch) {
    auto it = pairing->scoresLoopOf.find(loop);
    if (it == pairing->scoresLoopOf.end() ||
        !llvm::is_contained(m.scores.dims.batch, it->second))
      return reject(why, "batch loop d" + Twine(loop) +
                             " of the output is not a batch dim of the scores");
    m.scoresBatch.push_back(it->second);
  }
  if (m.scoresBatch.size() != m.scores.dims.batch.size())
    return reject(why, "the scores have batch dims the output does not");
  return success();
}

/// The mask of the product over (i, t), and which Linea mask it is.
LogicalResult classifyMask(MaskedAttention &m, const Product &product,
                           Rejection &why) {
  std::optional<int64_t> rows = staticLoopSize(m.op, m.row);
  std::optional<int64_t> cols = staticLoopSize(m.op, m.col);
  if (rows && cols && *rows != *cols)
    return reject(why, "queries (" + Twine(*rows) + ") and keys (" +
                           Twine(*cols) + ") differ in length");
  m.length = rows ? rows : cols;
  std::string reason;
  MLIRContext *ctx = m.op.getContext();
  m.segments = findSegmentIds(product, m.row, m.col);
  FailureOr<IndexPredicate> mask =
      m.segments
          ? maskWithinSegments(product, *m.segments, m.row, m.col, ctx, reason)
          : getMask(product, m.row, m.col, ctx, reason);
  if (failed(mask))
    return reject(why, reason);
  m.mask = *mask;
  m.maskClass = mask->classify(m.length);
  if (m.maskClass.kind == MaskClass::Kind::other)
    return reject(
        why, Twine(m.segments ? "within segments the mask is " : "mask is ") +
                 mask->str() + ": " + m.maskClass.mismatch);
  // A prefix counts from the row's start, not from each segment's.
  if (m.segments && m.maskClass.kind == MaskClass::Kind::prefix)
    return reject(why, "within segments the mask is " + mask->str() +
                           ": a prefix of the packed row, not of each "
                           "segment");
  return success();
}

/// Whether `root` reads the scores `read` (a contraction's result) as
/// attention does: every index a loop (or a unit dim), one reduction loop,
/// over one of the scores' two kept dims (the keys), and a parallel loop
/// over the other (the rows).
bool readsAsScores(linalg::LinalgOp root, const ElementExpr *read) {
  FailureOr<Scores> s = matchScores(read->value);
  FailureOr<LoopView> view = getLoopView(read);
  if (failed(s) || failed(view))
    return false;
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  unsigned reduced = 0;
  bool rows = false;
  for (auto [p, loop] : llvm::enumerate(view->loops)) {
    unsigned scoresLoop = s->out.loops[p];
    if (loop == LoopView::kUnitDim || scoresLoop == LoopView::kUnitDim)
      continue;
    bool kept = llvm::is_contained(s->dims.m, scoresLoop) ||
                llvm::is_contained(s->dims.n, scoresLoop);
    if (iterators[loop] == utils::IteratorType::reduction) {
      if (!kept)
        return false;
      ++reduced;
    } else if (kept) {
      rows = true;
    }
  }
  return reduced == 1 && rows;
}

} // namespace

FailureOr<MaskedAttention> raise::matchMaskedAttention(Operation *op,
                                                       bool withValues,
                                                       Rejection &why,
                                                       bool allowDecay) {
  linalg::LinalgOp root = asReductionRoot(op);
  if (!root)
    return failure();
  auto tracer = std::make_shared<ElementTracer>(root);
  std::string reason;
  auto isScores = [](Value v) { return succeeded(matchScores(v)); };
  FailureOr<Product> product =
      matchAccumulation(*tracer, isScores, reason, /*keepOthers=*/allowDecay);
  if (failed(product))
    return failure();
  MaskedAttention m;
  m.op = root;
  m.tracer = tracer;
  // Which factor is the scores: a contraction of two operands.
  const ElementExpr *scoresRead = nullptr, *valuesRead = nullptr;
  for (const ElementExpr *read : product->reads) {
    if (FailureOr<Scores> s = matchScores(read->value); succeeded(s)) {
      m.scores = *s;
      scoresRead = read;
      break;
    }
  }
  // A contraction that reads another one other than as attention reads its
  // scores (a projection of an attention's output, heads merged) is no
  // candidate.
  if (const ElementExpr *seen =
          scoresRead ? scoresRead : product->blockedScores;
      !seen || !readsAsScores(root, seen))
    return failure();
  if (!scoresRead && product->scoresBlockedBy)
    return reject(why, "the scores are multiplied by " +
                           product->scoresBlockedBy->str() +
                           ", which is neither a mask nor a constant");
  if (!scoresRead)
    return failure();
  size_t expected = withValues ? 2 : 1;
  if (withValues && product->reads.size() > expected) {
    // Name a tensor the product multiplies besides the scores (and values).
    const ElementExpr *extra = *llvm::find_if(
        llvm::reverse(product->reads), [&](auto *r) { return r != scoresRead; });
    return reject(why, "a factor of the product, " + extra->str() +
                           ", is neither a mask nor a constant");
  }
  if (product->reads.size() != expected)
    return failure();
  if (withValues)
    valuesRead = product->reads[product->reads[0] == scoresRead ? 1 : 0];
  if (allowDecay && product->others.size() == 1)
    m.decay = product->others.front();
  else if (!product->others.empty())
    return reject(why, "a factor of the product, " +
                           product->others.front()->str() +
                           ", is neither a mask nor a constant");
  FailureOr<LoopView> scoresView = getLoopView(scoresRead);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(scoresView) || failed(out) || hasUnitDim(*scoresView))
    return reject(why, "the scores or the output are read at indices that "
                       "are not loops");
  m.scoresView = *scoresView;
  m.out = *out;
  MLIRContext *ctx = root.getContext();
  unsigned n = root.getNumLoops();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  if (withValues) {
    FailureOr<LoopView> values = getLoopView(valuesRead);
    if (failed(values) || hasUnitDim(*values) || hasUnitDim(*out))
      return reject(why, "the values are read at indices that are not loops");
    m.values = *values;
    FailureOr<linalg::ContractionDimensions> dims = inferMaskedContractionDims(
        scoresView->map(n, ctx), values->map(n, ctx), out->map(n, ctx),
        iterators);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
        dims->k.size() != 1) {
      // Values without the scores' batch dims are a weight: the projection
      // of a contraction's result (an attention's output), no candidate.
      for (auto [p, loop] : llvm::enumerate(scoresView->loops))
        if (llvm::is_contained(m.scores.dims.batch, m.scores.out.loops[p]) &&
            !values->position(loop))
          return failure();
      return reject(why, "the product of the scores and the values is not "
                         "one contraction over the keys");
    }
    m.row = dims->m[0], m.col = dims->k[0], m.valueColumn = dims->n[0];
  } else {
    // A row sum: the reduced loop is the keys; the output holds the rows.
    for (unsigned loop : scoresView->loops) {
      if (iterators[loop] == utils::IteratorType::reduction)
        m.col = loop;
      else if (!out->position(loop))
        return reject(why, "the row sum drops loop d" + Twine(loop));
    }
    // The row is the scores dim paired with the scores' query or key row.
    std::optional<unsigned> colPos = scoresView->position(m.col);
    unsigned scoresCol = m.scores.out.loops[*colPos];
    if (scoresCol != m.scores.dims.m[0] && scoresCol != m.scores.dims.n[0])
      return reject(why, "the row sum reduces a batch dim of the scores");
    unsigned scoresRow = scoresCol == m.scores.dims.m[0] ? m.scores.dims.n[0]
                                                         : m.scores.dims.m[0];
    m.row = scoresView->loops[*m.scores.out.position(scoresRow)];
  }
  for (unsigned loop : out->loops)
    if (loop != LoopView::kUnitDim && loop != m.row &&
        (!m.valueColumn || loop != *m.valueColumn))
      m.batch.push_back(loop);
  if (failed(pairWithScores(m, why)) ||
      failed(classifyMask(m, *product, why)))
    return failure();
  if (!hasZeroInit(root))
    return reject(why, "the output accumulates onto a tensor that is not "
                       "zero");
  // The op's output has the values' type (rounded once; a 16-bit model's
  // f32 accumulator is widened from it).
  SmallVector<Value> inputs{m.query.tensor, m.key.tensor};
  if (m.values)
    inputs.push_back(m.values->tensor);
  if (failed(raisedElementType(inputs, root->getResult(0), reason)))
    return reject(why, reason);
  // Linea's ops take static feature and value dims.
  if (!hasStaticDim(m.query, m.feature) || !hasStaticDim(m.key, m.feature) ||
      (m.values && !hasStaticDim(*m.values, *m.valueColumn)))
    return reject(why, "a feature or value dim is dynamic; Linea's ops take "
                       "them static");
  m.scale = product->scale;
  return m;
}

namespace {

/// `mask = ...` as the op spells it.
std::string describe(const MaskedAttention &m, bool normalize) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "linea.linear_attention mask = ";
  switch (m.maskClass.kind) {
  case MaskClass::Kind::none: os << "none"; break;
  case MaskClass::Kind::causal: os << "causal"; break;
  case MaskClass::Kind::prefix:
    os << "prefix(" << m.maskClass.prefixLength << ")";
    break;
  case MaskClass::Kind::other: os << "?"; break;
  }
  if (m.scale != 1.0)
    os << " scale = " << llvm::format("%g", m.scale);
  if (normalize)
    os << " normalize";
  if (m.segments)
    os << " offsets (mask: same segment id"
       << (m.maskClass.kind == MaskClass::Kind::none ? ""
                                                     : " and " + m.mask.str())
       << ", where the ids run in order)";
  else
    os << " (mask " << m.mask.str() << ")";
  return s;
}

/// Builds the Linea op for `m` with values `v` (`[batch.., L, Dv]`) and
/// returns its output, `[batch.., L, Dv]` over the root's loops
/// `batch.., row, ` and the value column; `offsets` are its segments'.
Value buildLinearAttention(OpBuilder &b, Location loc, const MaskedAttention &m,
                           Value v, bool normalize, Value offsets) {
  SmallVector<unsigned> queryOrder(m.scoresBatch), keyOrder(m.scoresBatch);
  queryOrder.append({m.queryRow, m.feature});
  keyOrder.append({m.keyRow, m.feature});
  Value q = permuteTo(b, loc, m.query, queryOrder);
  Value k = permuteTo(b, loc, m.key, keyOrder);
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(vType.getShape());
  shape[shape.size() - 2] = qType.getDimSize(qType.getRank() - 2);
  auto outputType = RankedTensorType::get(shape, vType.getElementType());
  MLIRContext *ctx = b.getContext();
  Mask mask = m.maskClass.kind == MaskClass::Kind::none     ? Mask::none
              : m.maskClass.kind == MaskClass::Kind::causal ? Mask::causal
                                                            : Mask::prefix;
  IntegerAttr prefixLength;
  Value prefixIndex;
  if (mask == Mask::prefix) {
    int64_t j = m.maskClass.prefixLength;
    if (m.length) {
      prefixLength = b.getI64IntegerAttr(j);
    } else {
      // For L < j the mask sees every key: prefix(min(j, L)).
      Value length =
          tensor::DimOp::create(b, loc, q, qType.getRank() - 2).getResult();
      prefixIndex = arith::MinSIOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, j), length);
    }
  }
  auto op = LinearAttentionOp::create(
      b, loc, outputType, /*final_state=*/Type(), q, k, v,
      /*initial_state=*/Value(), offsets, prefixIndex, MaskAttr::get(ctx, mask),
      prefixLength, FeatureMapAttr::get(ctx, FeatureMap::identity),
      b.getF32FloatAttr(float(m.scale)), normalize ? b.getUnitAttr() : nullptr,
      /*form=*/nullptr);
  return op.getOutput();
}

/// Whether two matches keep to the same segment ids (or both to none):
/// the same tensor, read along the same dim.
bool sameSegments(const std::optional<SegmentIds> &a,
                  const std::optional<SegmentIds> &b) {
  if (!a || !b)
    return !a && !b;
  auto idDim = [](const SegmentIds &s) {
    return llvm::find_if(s.atRow.loops,
                         [](unsigned l) { return l != LoopView::kUnitDim; }) -
           s.atRow.loops.begin();
  };
  return a->atRow.tensor == b->atRow.tensor && idDim(*a) == idDim(*b);
}

} // namespace

Value raise::valuesInOrder(OpBuilder &b, Location loc,
                           const MaskedAttention &m) {
  SmallVector<unsigned> order(m.batch);
  order.append({m.col, *m.valueColumn});
  return permuteTo(b, loc, *m.values, order);
}

LogicalResult raise::raiseMaskedLinearAttention(RewriterBase &rewriter,
                                                Operation *op,
                                                RaiseLog &log, Rejection &why) {
  FailureOr<MaskedAttention> m =
      matchMaskedAttention(op, /*withValues=*/true, why);
  if (failed(m))
    return failure();
  Location loc = op->getLoc();
  SmallVector<unsigned> loops(m->batch);
  loops.append({m->row, *m->valueColumn});
  std::optional<GatedParallel> gated =
      m->maskClass.kind == MaskClass::Kind::causal ? matchGatedParallel(*m)
                                                   : std::nullopt;
  // (16-bit GLA keeps its decayed queries and keys as written.)
  if (gated && elementTypeOf(gated->gate.tensor).isF32() &&
      elementTypeOf(gated->query.tensor).isF32() &&
      elementTypeOf(gated->key.tensor).isF32()) {
    // Within a segment exp(b_i - b_t) is the gates' product from t + 1 to
    // i, whatever came before it: the packed op's, segment by segment.
    log.raised(op, "linea.gated_linear_attention mask = causal" +
                       Twine(m->segments ? " offsets" : "") +
                       " (GLA's parallel form: queries and keys decayed by "
                       "exp(+-cumsum(g)))");
    checkExactAtRunTime(rewriter, m->op, {m->row, m->col}, m->exactExtent());
    replaceRootBySegments(
        rewriter, op, m->segments, [&](OpBuilder &b, Value offsets) {
          SmallVector<unsigned> qOrder(m->scoresBatch), kOrder(m->scoresBatch);
          qOrder.append({m->queryRow, m->feature});
          kOrder.append({m->keyRow, m->feature});
          Value q = permuteTo(b, loc, gated->query, qOrder);
          Value k = permuteTo(b, loc, gated->key, kOrder);
          Value g = permuteTo(b, loc, gated->gate, qOrder);
          Value v = valuesInOrder(b, loc, *m);
          auto qType = cast<RankedTensorType>(q.getType());
          SmallVector<int64_t> shape(
              cast<RankedTensorType>(v.getType()).getShape());
          shape[shape.size() - 2] = qType.getDimSize(qType.getRank() - 2);
          auto gla = GatedLinearAttentionOp::create(
              b, loc, RankedTensorType::get(shape, b.getF32Type()),
              /*final_state=*/Type(), q, k, v, g, /*initial_state=*/Value(),
              offsets, /*prefix_index=*/Value(),
              MaskAttr::get(b.getContext(), Mask::causal),
              /*prefix_length=*/nullptr, b.getF32FloatAttr(float(m->scale)),
              /*form=*/nullptr);
          return inRootLayout(b, op, gla.getOutput(), loops, m->out);
        });
    return success();
  }
  log.raised(op, describe(*m, false));
  checkExactAtRunTime(rewriter, m->op, {m->row, m->col}, m->exactExtent());
  replaceRootBySegments(
      rewriter, op, m->segments, [&](OpBuilder &b, Value offsets) {
        Value v = valuesInOrder(b, loc, *m);
        Value o =
            buildLinearAttention(b, loc, *m, v, /*normalize=*/false, offsets);
        return inRootLayout(b, op, o, loops, m->out);
      });
  return success();
}

LogicalResult raise::raiseMaskedRowSum(RewriterBase &rewriter,
                                       Operation *op, RaiseLog &log,
                                       Rejection &why) {
  FailureOr<MaskedAttention> m =
      matchMaskedAttention(op, /*withValues=*/false, why);
  if (failed(m))
    return failure();
  Location loc = op->getLoc();
  SmallVector<unsigned> loops(m->batch);
  loops.push_back(m->row);
  log.raised(op, describe(*m, false) + ", values a column of ones (a row sum)");
  checkExactAtRunTime(rewriter, m->op, {m->row, m->col}, m->exactExtent());
  replaceRootBySegments(
      rewriter, op, m->segments, [&](OpBuilder &b, Value offsets) {
        // The values: a column of ones, [batch.., L, 1].
        SmallVector<unsigned> keyOrder(m->scoresBatch);
        keyOrder.push_back(m->keyRow);
        SmallVector<OpFoldResult> sizes;
        for (unsigned loop : keyOrder)
          sizes.push_back(tensor::getMixedSize(b, loc, m->key.tensor,
                                               *m->key.position(loop)));
        sizes.push_back(b.getIndexAttr(1));
        // In the keys' element type, as the op takes its values.
        Type element = elementTypeOf(m->key.tensor);
        Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
        Value one =
            arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 1.0));
        Value ones = linalg::FillOp::create(b, loc, one, empty).getResult(0);
        Value o = buildLinearAttention(b, loc, *m, ones, /*normalize=*/false,
                                       offsets);
        // [batch.., L, 1] -> [batch.., L], then the output's layout.
        auto oType = cast<RankedTensorType>(o.getType());
        SmallVector<ReassociationIndices> groups;
        for (int64_t d = 0; d + 2 < oType.getRank(); ++d)
          groups.push_back({d});
        groups.push_back({oType.getRank() - 2, oType.getRank() - 1});
        Value rows = tensor::CollapseShapeOp::create(b, loc, o, groups);
        return inRootLayout(b, op, rows, loops, m->out);
      });
  return success();
}

LogicalResult raise::raiseNormalizedLinearAttention(RewriterBase &rewriter,
                                                    Operation *op,
                                                    RaiseLog &log,
                                                    Rejection &why) {
  auto root = dyn_cast<linalg::LinalgOp>(op);
  if (!root)
    return failure();
  if (!root.hasPureTensorSemantics() || root.getNumDpsInits() != 1 ||
      root->getNumResults() != 1 ||
      root.getNumLoops() != root.getNumParallelLoops())
    return failure();
  ElementTracer tracer(root);
  FailureOr<const ElementExpr *> body = tracer.traceYield();
  if (failed(body) || !(*body)->getOp<arith::DivFOp>())
    return failure();
  const ElementExpr *numerator = (*body)->operands[0];
  const ElementExpr *denominator = (*body)->operands[1];
  // The denominator: the row sum plus a constant.
  double eps = 0.0;
  if (denominator->getOp<arith::AddFOp>()) {
    for (int k : {0, 1})
      if (std::optional<double> c =
              denominator->operands[k]->getConstantValue()) {
        eps = *c;
        denominator = denominator->operands[1 - k];
        break;
      }
  }
  if (!numerator->isa(ElementExpr::Kind::Read) ||
      !denominator->isa(ElementExpr::Kind::Read))
    return failure();
  auto valueOp = numerator->value.getDefiningOp<linalg::LinalgOp>();
  auto sumOp = denominator->value.getDefiningOp<linalg::LinalgOp>();
  if (!valueOp || !sumOp)
    return failure();
  Rejection ignored;
  FailureOr<MaskedAttention> o =
      matchMaskedAttention(valueOp, /*withValues=*/true, ignored);
  FailureOr<MaskedAttention> z =
      matchMaskedAttention(sumOp, /*withValues=*/false, ignored);
  if (failed(o) || failed(z) || o->scores.op != z->scores.op)
    return failure();
  // Both read the same scores under the same mask, and the division pairs
  // their rows and batch dims: the root reads o's and z's outputs at loops
  // that come from the same dims of the scores.
  FailureOr<LoopView> numeratorView = getLoopView(numerator);
  FailureOr<LoopView> denominatorView = getLoopView(denominator);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(numeratorView) || failed(denominatorView) || failed(out))
    return reject(why, "the division reads its operands at indices that are "
                       "not loops");
  auto rootLoopOf = [](const MaskedAttention &m, const LoopView &readView,
                       unsigned scoresDim) -> std::optional<unsigned> {
    unsigned loop = m.scoresView.loops[scoresDim];
    std::optional<unsigned> p = m.out.position(loop);
    if (!p)
      return std::nullopt;
    return readView.loops[*p];
  };
  for (auto [p, loop] : llvm::enumerate(o->scoresView.loops)) {
    if (loop == o->col)
      continue;
    std::optional<unsigned> a = rootLoopOf(*o, *numeratorView, p);
    std::optional<unsigned> b = rootLoopOf(*z, *denominatorView, p);
    if (!a || !b || *a != *b)
      return reject(why, "the division does not pair the rows of the output "
                         "with the rows of the row sum");
  }
  if (!o->mask.equals(z->mask, o->length) ||
      !sameSegments(o->segments, z->segments))
    return reject(why, "the row sum's mask (" + z->mask.str() +
                           ") is not the output's (" + o->mask.str() + ")");
  if (float(eps) != float(kNormalizerEpsilon))
    return reject(why, "the normalizer adds " + std::to_string(eps) +
                           ", not 1e-6: raised as two linear attentions");
  if (z->scale != 1.0)
    return reject(why, "the row sum is scaled by " + std::to_string(z->scale) +
                           ": not the normalizer of the scores");
  Location loc = root.getLoc();
  // In the root's loops: the numerator's view of o's output.
  SmallVector<unsigned> loops;
  for (unsigned loop : o->batch)
    loops.push_back(numeratorView->loops[*o->out.position(loop)]);
  loops.push_back(numeratorView->loops[*o->out.position(o->row)]);
  loops.push_back(numeratorView->loops[*o->out.position(*o->valueColumn)]);
  log.raised(root, describe(*o, true));
  std::optional<int64_t> extent = o->exactExtent();
  if (std::optional<int64_t> sumExtent = z->exactExtent())
    extent = std::min(extent.value_or(*sumExtent), *sumExtent);
  checkExactAtRunTime(rewriter, o->op, {o->row, o->col}, extent);
  replaceRootBySegments(
      rewriter, root, o->segments, [&](OpBuilder &b, Value offsets) {
        Value v = valuesInOrder(b, loc, *o);
        Value result =
            buildLinearAttention(b, loc, *o, v, /*normalize=*/true, offsets);
        return inRootLayout(b, root, result, loops, *out);
      });
  return success();
}
