//===- SoftmaxAttention.cpp - softmax attention from model IR -------------===//
//
// Front ends print `softmax(s * Q K^T + mask) V` as a chain of tensors:
//
//   S = s * A (+ -inf where the mask fails)      A = Q K^T, the scores
//   M = rowmax(S)                                 over the keys
//   P = exp(S - M)
//   Z = rowsum(P)
//   W = P / Z        (sdpa: select(rowall(S == -inf), 0, P / Z))
//   O = W V
//
// which is `linea.attention Q, K, V` with the mask (none or causal) and
// `scale = s`. The chain is matched tensor by tensor (each reduction reads
// the very tensor the next step reads, over the keys O sums over), the
// logits S through the element tracer and IndexPredicate. A causal or
// bidirectional row always sees a key, so the sdpa guard for rows that see
// none never fires and the raised op (which writes zeros there) is exact.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Scores.h"
#include "SegmentIds.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

namespace {

bool isMinusInfinity(Value v) {
  FloatAttr f;
  return matchPattern(v, m_Constant(&f)) && f.getValue().isInfinity() &&
         f.getValue().isNegative();
}
bool isMinusInfinity(const ElementExpr *e) {
  if (e->kind != ElementExpr::Kind::Constant)
    return false;
  auto f = dyn_cast<FloatAttr>(e->constant);
  return f && f.getValue().isInfinity() && f.getValue().isNegative();
}
bool isZero(const ElementExpr *e) {
  std::optional<double> v = e->getConstantValue();
  return v && *v == 0.0;
}

/// An elementwise generic with identity maps on its full-rank operands:
/// the block argument of its input `tensor` read at every position, or
/// null.
linalg::GenericOp elementwiseProducer(Value v) {
  auto op = v.getDefiningOp<linalg::GenericOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return {};
  return op;
}

/// The element an elementwise `op` yields, before it is rounded to the
/// model's type (see isRounding).
Value normalizedElement(linalg::GenericOp op) {
  Value y = op.getBody()->getTerminator()->getOperand(0);
  while (isRounding(y.getDefiningOp()))
    y = y.getDefiningOp()->getOperand(0);
  return y;
}

/// The input operand of `op` whose block argument is `arg`, read with the
/// identity map (a tensor of the op's full rank), or null.
OpOperand *fullRankInput(linalg::GenericOp op, Value arg) {
  auto block = dyn_cast<BlockArgument>(arg);
  if (!block || block.getOwner() != op.getBody())
    return nullptr;
  OpOperand *operand = op.getMatchingOpOperand(block);
  if (!op.isDpsInput(operand) ||
      !op.getMatchingIndexingMap(operand).isIdentity())
    return nullptr;
  return operand;
}

/// The input operand of `op` whose block argument is `arg`, read at every
/// position but `col` (a row statistic, kept dims of size 1 allowed), or
/// null.
OpOperand *rowInput(linalg::GenericOp op, Value arg, unsigned col) {
  auto block = dyn_cast<BlockArgument>(arg);
  if (!block || block.getOwner() != op.getBody())
    return nullptr;
  OpOperand *operand = op.getMatchingOpOperand(block);
  if (!op.isDpsInput(operand))
    return nullptr;
  FailureOr<LoopView> view = getLoopView(op, *operand);
  if (failed(view))
    return nullptr;
  SmallVector<unsigned> loops;
  for (unsigned loop : view->loops)
    if (loop != LoopView::kUnitDim)
      loops.push_back(loop);
  SmallVector<unsigned> expected;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (d != col)
      expected.push_back(d);
  return loops == expected ? operand : nullptr;
}

enum class RowStatistic { max, sum, allMinusInfinity };

/// Whether `reduced` is `statistic` of `input` over its position `col`:
/// one reduced loop indexing `input` there, the others its other dims in
/// order, from the statistic's identity.
bool isRowStatistic(Value reduced, Value input, unsigned col,
                    RowStatistic statistic) {
  auto op = reduced.getDefiningOp<linalg::GenericOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return false;
  // The test of "all -inf" may be an elementwise producer of its own.
  Value reducedInput = op.getDpsInputs()[0];
  if (reducedInput != input && statistic != RowStatistic::allMinusInfinity)
    return false;
  unsigned reducedLoop = *llvm::find_if(
      llvm::seq<unsigned>(0, op.getNumLoops()), [&](unsigned d) {
        return op.getIteratorTypesArray()[d] == utils::IteratorType::reduction;
      });
  if (reducedLoop != col)
    return false;
  Block *body = op.getBody();
  Value in = body->getArgument(0), out = body->getArgument(1);
  Value yielded = body->getTerminator()->getOperand(0);
  auto isPair = [&](Operation *o) {
    return o && o->getNumOperands() == 2 &&
           ((o->getOperand(0) == in && o->getOperand(1) == out) ||
            (o->getOperand(0) == out && o->getOperand(1) == in));
  };
  ElementTracer tracer(op);
  FailureOr<const ElementExpr *> init = tracer.traceElement(
      op.getDpsInits()[0],
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults());
  if (failed(init))
    return false;
  switch (statistic) {
  case RowStatistic::max:
    return isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(
               yielded.getDefiningOp()) &&
           isPair(yielded.getDefiningOp()) && isMinusInfinity(*init);
  case RowStatistic::sum:
    return isa_and_nonnull<arith::AddFOp>(yielded.getDefiningOp()) &&
           isPair(yielded.getDefiningOp()) && isZero(*init);
  case RowStatistic::allMinusInfinity: {
    auto both = yielded.getDefiningOp<arith::AndIOp>();
    if (!both)
      return false;
    Value test = both.getLhs() == out ? both.getRhs() : both.getLhs();
    if (both.getLhs() != out && both.getRhs() != out)
      return false;
    std::optional<double> v = (*init)->getConstantValue();
    if (!v || *v == 0.0)
      return false;
    // x == -inf (x maybe extended to f64), in this body or in an
    // elementwise producer of the reduced tensor.
    auto isMinusInfinityTest = [&](Value t, function_ref<bool(Value)> isX) {
      auto cmp = t.getDefiningOp<arith::CmpFOp>();
      if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ ||
          !isMinusInfinity(cmp.getRhs()))
        return false;
      Value x = cmp.getLhs();
      if (auto ext = x.getDefiningOp<arith::ExtFOp>())
        x = ext.getIn();
      return isX(x);
    };
    if (reducedInput == input)
      return isMinusInfinityTest(test, [&](Value x) { return x == in; });
    linalg::GenericOp producer = elementwiseProducer(reducedInput);
    if (test != in || !producer)
      return false;
    return isMinusInfinityTest(
        producer.getBody()->getTerminator()->getOperand(0), [&](Value x) {
          OpOperand *operand = fullRankInput(producer, x);
          return operand && operand->get() == input;
        });
  }
  }
  return false;
}

/// The logits `s * A (+ -inf where a mask fails)`, as the tracer reads
/// them: the scores' read, the masks, the scale.
struct Logits {
  const ElementExpr *scores = nullptr;
  SmallVector<std::pair<const ElementExpr *, bool>> masks;
  double scale = 1.0;
};

/// `select(m, x, -inf)`, `select(m, -inf, x)`, `x + select(m, 0, -inf)`,
/// `x + B` with `B` a constant table of 0 and -inf, `x * c`, `x / c`: masks
/// and scale around the scores.
bool collectLogits(const ElementExpr *e, Logits &logits) {
  if (isRounding(e->op))
    return collectLogits(e->operands[0], logits);
  if (e->isa(ElementExpr::Kind::Read)) {
    if (logits.scores)
      return false;
    logits.scores = e;
    return true;
  }
  if (e->getOp<arith::SelectOp>() && e->operands[0]->type.isInteger(1)) {
    if (isMinusInfinity(e->operands[2])) {
      logits.masks.push_back({e->operands[0], false});
      return collectLogits(e->operands[1], logits);
    }
    if (isMinusInfinity(e->operands[1])) {
      logits.masks.push_back({e->operands[0], true});
      return collectLogits(e->operands[2], logits);
    }
    return false;
  }
  if (e->getOp<arith::AddFOp>()) {
    // One side a 0 / -inf bias.
    for (int k : {0, 1}) {
      const ElementExpr *bias = e->operands[k];
      if (!bias->getOp<arith::SelectOp>() ||
          !bias->operands[0]->type.isInteger(1))
        continue;
      if (isZero(bias->operands[1]) && isMinusInfinity(bias->operands[2]))
        logits.masks.push_back({bias->operands[0], false});
      else if (isMinusInfinity(bias->operands[1]) && isZero(bias->operands[2]))
        logits.masks.push_back({bias->operands[0], true});
      else
        continue;
      return collectLogits(e->operands[1 - k], logits);
    }
    // Or a constant bias table of zeros and -inf: keeps where it is zero.
    for (int k : {0, 1}) {
      const ElementExpr *bias = e->operands[k];
      if (!bias->isa(ElementExpr::Kind::Read) ||
          !isConstantTableOf(bias->value, [](double v) {
            return v == 0.0 || v == -std::numeric_limits<double>::infinity();
          }))
        continue;
      logits.masks.push_back({bias, true});
      return collectLogits(e->operands[1 - k], logits);
    }
    return false;
  }
  if (e->getOp<arith::MulFOp>() || e->getOp<arith::DivFOp>()) {
    std::optional<double> c = e->operands[1]->getConstantValue();
    const ElementExpr *x = e->operands[0];
    if (!c && e->getOp<arith::MulFOp>()) {
      c = e->operands[0]->getConstantValue();
      x = e->operands[1];
    }
    if (!c || *c == 0.0)
      return false;
    logits.scale *= e->getOp<arith::DivFOp>() ? 1.0 / *c : *c;
    return collectLogits(x, logits);
  }
  return false;
}

} // namespace

LogicalResult raise::raiseSoftmaxAttention(RewriterBase &rewriter,
                                           Operation *op,
                                           RaiseLog &log, Rejection &why) {
  // O = W V: two tensors, no mask.
  FailureOr<PlainReduction> reduction =
      matchPlainReduction(op, /*numReads=*/2, /*masked=*/false);
  if (failed(reduction))
    return failure();
  linalg::LinalgOp root = reduction->root;
  const Product *product = &reduction->product;
  std::string reason;
  // W is the operand a softmax normalization produced: P / Z.
  const ElementExpr *wRead = nullptr, *vRead = nullptr;
  linalg::GenericOp normalize;
  for (const ElementExpr *read : product->reads)
    if (auto op = elementwiseProducer(throughRoundings(read->value));
        op && !normalize) {
      Value y = normalizedElement(op);
      if (auto sel = y.getDefiningOp<arith::SelectOp>())
        y = sel.getFalseValue();
      if (y.getDefiningOp<arith::DivFOp>()) {
        normalize = op;
        wRead = read;
      }
    }
  if (!normalize)
    return failure();
  vRead = product->reads[product->reads[0] == wRead ? 1 : 0];
  FailureOr<LoopView> wView = getLoopView(wRead);
  FailureOr<LoopView> vView = getLoopView(vRead);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(wView) || failed(vView) || failed(out))
    return failure();
  MLIRContext *ctx = root.getContext();
  unsigned n = root.getNumLoops();
  FailureOr<linalg::ContractionDimensions> dims = inferMaskedContractionDims(
      wView->map(n, ctx), vView->map(n, ctx), out->map(n, ctx),
      root.getIteratorTypesArray());
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return failure();
  unsigned row = dims->m[0], col = dims->k[0], valueColumn = dims->n[0];
  // Positions in the full-rank tensors (S, P, W share their dims).
  unsigned colPos = *wView->position(col), rowPos = *wView->position(row);

  // A softmax divides an exponential by its sum: the division of anything
  // else (a normalized linear attention's output, a norm) is another idiom,
  // not a softmax to remark on.
  {
    Value y = normalizedElement(normalize);
    if (auto sel = y.getDefiningOp<arith::SelectOp>())
      y = sel.getFalseValue();
    Value numerator = y.getDefiningOp<arith::DivFOp>().getLhs();
    while (isRounding(numerator.getDefiningOp()))
      numerator = numerator.getDefiningOp()->getOperand(0);
    bool exponential = numerator.getDefiningOp<math::ExpOp>() != nullptr;
    if (auto arg = dyn_cast<BlockArgument>(numerator);
        arg && arg.getOwner() == normalize.getBody()) {
      OpOperand *operand = normalize.getMatchingOpOperand(arg);
      linalg::GenericOp producer =
          normalize.isDpsInput(operand)
              ? elementwiseProducer(throughRoundings(operand->get()))
              : linalg::GenericOp();
      exponential =
          producer && normalizedElement(producer).getDefiningOp<math::ExpOp>();
    }
    if (!exponential)
      return failure();
  }

  // W = P / Z, or sdpa's select(all -inf, 0, P / Z).
  Value w = normalizedElement(normalize);
  OpOperand *guard = nullptr;
  if (auto sel = w.getDefiningOp<arith::SelectOp>()) {
    FloatAttr zero;
    if (!matchPattern(sel.getTrueValue(), m_Constant(&zero)) ||
        !zero.getValue().isZero() ||
        !(guard = rowInput(normalize, sel.getCondition(), colPos)))
      return reject(why, "the normalized probabilities are selected by "
                         "something other than sdpa's guard");
    w = sel.getFalseValue();
  }
  auto divide = w.getDefiningOp<arith::DivFOp>();
  OpOperand *pOperand = fullRankInput(normalize, divide.getLhs());
  OpOperand *zOperand = rowInput(normalize, divide.getRhs(), colPos);
  if (!pOperand || !zOperand)
    return reject(why, "not a softmax over the keys: the division is not of "
                       "a tensor by its row sum over the keys the output sums "
                       "over");
  Value p = pOperand->get();
  if (!isRowStatistic(zOperand->get(), p, colPos, RowStatistic::sum))
    return reject(why, "softmax normalizes by a sum that is not the row sum "
                       "over the keys (a softmax along another axis)");

  // P = exp(S - M), M = rowmax(S).
  linalg::GenericOp exponential = elementwiseProducer(p);
  if (!exponential)
    return reject(why, "the probabilities are not exp(S - max)");
  Value e = exponential.getBody()->getTerminator()->getOperand(0);
  auto exp = e.getDefiningOp<math::ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
  OpOperand *sOperand = sub ? fullRankInput(exponential, sub.getLhs()) : nullptr;
  OpOperand *mOperand = sub ? rowInput(exponential, sub.getRhs(), colPos) : nullptr;
  if (!sOperand || !mOperand)
    return reject(why, "the probabilities are not exp(S - max)");
  Value s = sOperand->get();
  if (!isRowStatistic(mOperand->get(), s, colPos, RowStatistic::max))
    return reject(why, "the max subtracted is not the row max of the logits "
                       "over the keys");
  if (guard && !isRowStatistic(guard->get(), s, colPos,
                               RowStatistic::allMinusInfinity))
    return reject(why, "the guard is not 'the whole row is -inf'");

  // S = scale * A (+ -inf where the mask fails).
  ElementTracer logitsTracer(exponential);
  FailureOr<const ElementExpr *> logitsExpr =
      logitsTracer.traceBodyValue(sub.getLhs());
  Logits logits;
  if (failed(logitsExpr) || !collectLogits(*logitsExpr, logits) ||
      !logits.scores)
    return reject(why, "the logits are not a scaled, masked contraction");
  FailureOr<Scores> scores = matchScores(logits.scores->value);
  FailureOr<LoopView> scoresView = getLoopView(logits.scores);
  if (failed(scores) || failed(scoresView))
    return reject(why, "the logits are not a contraction of queries and keys");

  // In the exponential's loops, positions are loops: rows rowPos, keys
  // colPos. Pair the scores' rows and batch dims with the output's.
  FailureOr<ScoresPairing> pairing =
      pairScores(*scores, *scoresView, rowPos, colPos, why);
  if (failed(pairing))
    return failure();
  const ScoresPairing &operands = *pairing;
  std::optional<int64_t> rows = staticLoopSize(root, row);
  std::optional<int64_t> cols = staticLoopSize(root, col);
  if (rows && cols && *rows != *cols)
    return reject(why, "queries (" + Twine(*rows) + ") and keys (" +
                           Twine(*cols) + ") differ in length");
  Product maskProduct;
  maskProduct.masks = logits.masks;
  std::optional<SegmentIds> segments =
      findSegmentIds(maskProduct, rowPos, colPos);
  FailureOr<IndexPredicate> mask =
      segments ? maskWithinSegments(maskProduct, *segments, rowPos, colPos, ctx,
                                    reason)
               : getMask(maskProduct, rowPos, colPos, ctx, reason);
  if (failed(mask))
    return reject(why, reason);
  MaskClass maskClass = mask->classify(rows ? rows : cols);
  if (maskClass.kind != MaskClass::Kind::none &&
      maskClass.kind != MaskClass::Kind::causal)
    return reject(
        why, (segments ? "within segments the mask is " : "mask is ") +
                 mask->str() +
                 ": linea.attention takes "
                 "none or causal" +
                 (maskClass.mismatch.empty() ? "" : ": " + maskClass.mismatch));
  if (product->scale != 1.0)
    return reject(why, "the output is scaled after the softmax");
  if (!hasZeroInit(root))
    return reject(why, "the output accumulates onto a tensor that is not zero");
  FailureOr<Type> element = raisedElementType(
      {operands.query.tensor, operands.key.tensor, vView->tensor},
      root->getResult(0), reason);
  if (failed(element))
    return reject(why, reason);

  if (!hasStaticDim(operands.query, operands.feature) ||
      !hasStaticDim(operands.key, operands.feature) ||
      !hasStaticDim(*vView, valueColumn))
    return reject(why, "a feature or value dim is dynamic; linea.attention "
                       "takes them static");
  // Batch dims: the output's order; the scores' paired through positions.
  SmallVector<unsigned> batch;
  for (unsigned loop : out->loops)
    if (loop != row && loop != valueColumn && loop != LoopView::kUnitDim)
      batch.push_back(loop);
  SmallVector<unsigned> scoresBatch;
  for (unsigned loop : batch) {
    std::optional<unsigned> pos = wView->position(loop);
    auto it = pos ? operands.scoresLoopOf.find(*pos)
                  : operands.scoresLoopOf.end();
    if (it == operands.scoresLoopOf.end() ||
        !llvm::is_contained(scores->dims.batch, it->second))
      return reject(why, "batch loop d" + Twine(loop) +
                             " of the output is not a batch dim of the scores");
    scoresBatch.push_back(it->second);
  }
  double scale = logits.scale;
  Location loc = root.getLoc();
  SmallVector<unsigned> loops(batch);
  loops.append({row, valueColumn});
  std::string what;
  llvm::raw_string_ostream os(what);
  os << "linea.attention mask = "
     << (maskClass.kind == MaskClass::Kind::causal ? "causal" : "none")
     << " scale = " << llvm::format("%g", scale)
     << (segments ? " offsets (mask: same segment id and " : " (mask ")
     << mask->str() << (segments ? ", where the ids run in order" : "")
     << (guard ? "; sdpa's guard for rows with no key never fires" : "") << ")";
  log.raised(root, what);
  checkExactAtRunTime(rewriter, root, {row, col}, mask->getExactExtent());
  // Within a segment the softmax runs over that segment's keys only (the
  // others are -inf): the packed op's, segment by segment.
  replaceRootBySegments(
      rewriter, root, segments, [&](OpBuilder &b, Value offsets) {
        SmallVector<unsigned> qOrder(scoresBatch), kOrder(scoresBatch),
            vOrder(batch);
        qOrder.append({operands.queryRow, operands.feature});
        kOrder.append({operands.keyRow, operands.feature});
        vOrder.append({col, valueColumn});
        Value q = permuteTo(b, loc, operands.query, qOrder);
        Value k = permuteTo(b, loc, operands.key, kOrder);
        Value v = permuteTo(b, loc, *vView, vOrder);
        auto qType = cast<RankedTensorType>(q.getType());
        SmallVector<int64_t> shape(
            cast<RankedTensorType>(v.getType()).getShape());
        shape[shape.size() - 2] = qType.getDimSize(qType.getRank() - 2);
        auto attention = AttentionOp::create(
            b, loc, RankedTensorType::get(shape, *element), q, k, v, offsets,
            MaskAttr::get(ctx, maskClass.kind == MaskClass::Kind::causal
                                   ? Mask::causal
                                   : Mask::none),
            b.getF32FloatAttr(float(scale)));
        return inRootLayout(b, root, attention.getOutput(), loops, *out);
      });
  return success();
}
