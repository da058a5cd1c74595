//===- LinearAttentionGated.cpp - gated linear attention from model IR ----===//
//
// The gated forms of masked linear attention, both raised to
// `linea.gated_linear_attention` under the causal mask: GLA's parallel form,
// queries and keys decayed by `exp(+-cumsum(g))` (matchGatedParallel; the
// raise itself is raiseMaskedLinearAttention's, in LinearAttention.cpp), and
// RetNet's retention, the product decayed by `base^(i - t)` or
// `exp(c * (i - t))` with a per-token log-decay rebuilt from it
// (raiseDecayedLinearAttention).
//
//===----------------------------------------------------------------------===//

#include "LinearAttention.h"
#include "Patterns.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

namespace {

/// A float scalar as f32 (widened or rounded).
Value toF32(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  if (x.getType() == f32)
    return x;
  if (cast<FloatType>(x.getType()).getWidth() < 32)
    return arith::ExtFOp::create(b, loc, f32, x);
  return arith::TruncFOp::create(b, loc, f32, x);
}

/// Whether the two views are indexed by the same loops, in any order.
bool sameLoops(const LoopView &a, const LoopView &b) {
  SmallVector<unsigned> x(a.loops), y(b.loops);
  llvm::sort(x);
  llvm::sort(y);
  return x == y;
}

} // namespace

//===----------------------------------------------------------------------===//
// GLA's parallel form
//===----------------------------------------------------------------------===//

std::optional<GatedParallel>
raise::matchGatedParallel(const MaskedAttention &m) {
  linalg::LinalgOp scoresOp = m.scores.op;
  MLIRContext *ctx = scoresOp.getContext();
  ElementTracer tracer(scoresOp);
  auto trace = [&](const LoopView &view) -> const ElementExpr * {
    SmallVector<AffineExpr> indices;
    for (unsigned loop : view.loops)
      indices.push_back(getAffineDimExpr(loop, ctx));
    FailureOr<const ElementExpr *> e = tracer.traceElement(view.tensor, indices);
    return succeeded(e) ? *e : nullptr;
  };
  // x * exp(+-b): the tensor x and the read of b.
  auto split = [](const ElementExpr *e, bool negated)
      -> std::optional<std::pair<const ElementExpr *, const ElementExpr *>> {
    if (!e || !e->getOp<arith::MulFOp>())
      return std::nullopt;
    for (int k : {0, 1}) {
      const ElementExpr *x = e->operands[k], *y = e->operands[1 - k];
      if (!x->isa(ElementExpr::Kind::Read) || !y->getOp<math::ExpOp>())
        continue;
      const ElementExpr *b = y->operands[0];
      if (negated) {
        if (b->getOp<arith::NegFOp>())
          b = b->operands[0];
        else if (b->getOp<arith::SubFOp>() &&
                 b->operands[0]->getConstantValue() == 0.0)
          b = b->operands[1];
        else
          continue;
      }
      if (b->isa(ElementExpr::Kind::Read))
        return std::make_pair(x, b);
    }
    return std::nullopt;
  };
  auto q = split(trace(m.query), /*negated=*/false);
  auto k = split(trace(m.key), /*negated=*/true);
  if (!q || !k || q->second->value != k->second->value)
    return std::nullopt;
  std::optional<AddScan> scan = inclusiveAddScan(q->second->value);
  FailureOr<LoopView> queryView = getLoopView(q->first);
  FailureOr<LoopView> keyView = getLoopView(k->first);
  FailureOr<LoopView> gateView = getLoopView(q->second);
  FailureOr<LoopView> keyGateView = getLoopView(k->second);
  if (!scan || failed(queryView) || failed(keyView) || failed(gateView) ||
      failed(keyGateView) ||
      gateView->position(m.queryRow) != std::optional<unsigned>(scan->dim))
    return std::nullopt;
  // Each of q and k is decayed by the gate at its own element: the same
  // loops index both (in any layout: a head split after `x @ W` reads q
  // through a transpose the cumsum of the gates does not have), and the
  // gate read by the keys is the gate read by the queries with the key row
  // in place of the query row.
  if (!sameLoops(*queryView, *gateView) || !sameLoops(*keyView, *keyGateView))
    return std::nullopt;
  SmallVector<unsigned> gateOfKeys(gateView->loops);
  for (unsigned &loop : gateOfKeys)
    if (loop == m.queryRow)
      loop = m.keyRow;
  if (gateOfKeys != keyGateView->loops)
    return std::nullopt;
  gateView->tensor = scan->input;
  return GatedParallel{*queryView, *keyView, *gateView};
}

//===----------------------------------------------------------------------===//
// Decayed: RetNet's retention
//===----------------------------------------------------------------------===//

namespace {

/// A decay `base^(i - t)` or `exp(c * (i - t))` with `base`, `c` free of
/// i and t: the per-step log-decay `log(base)` or `c`; and the largest
/// length for which its float `i - t` is exact.
struct Decay {
  const ElementExpr *logDecay = nullptr; // c
  const ElementExpr *base = nullptr;     // or base
  int64_t exactExtent = 0;
};

/// Where `e` is `i - t` as a float (an integer difference converted, or
/// float positions subtracted): the largest length for which it is exact.
std::optional<int64_t> rowMinusColumn(const ElementExpr *e, unsigned row,
                                      unsigned col, unsigned numLoops,
                                      MLIRContext *ctx) {
  FailureOr<FloatPosition> position = getFloatPosition(e, ctx);
  if (failed(position) || isa<AffineConstantExpr>(position->value))
    return std::nullopt;
  FailureOr<LinearForm> form = getLinearForm(position->value, numLoops);
  if (failed(form) || form->constant != 0)
    return std::nullopt;
  for (auto [d, coefficient] : llvm::enumerate(form->coefficients))
    if (coefficient != (d == row ? 1 : d == col ? -1 : 0))
      return std::nullopt;
  int64_t extent = exactExtent(*position, {row, col}, numLoops);
  if (extent == 0)
    return std::nullopt;
  return extent;
}

std::optional<Decay> matchDecay(const ElementExpr *e, unsigned row,
                                unsigned col, unsigned numLoops,
                                MLIRContext *ctx) {
  auto free = [&](const ElementExpr *x) {
    return !dependsOnLoops(x, {row, col});
  };
  if (e->getOp<math::PowFOp>() && free(e->operands[0]))
    if (std::optional<int64_t> extent =
            rowMinusColumn(e->operands[1], row, col, numLoops, ctx))
      return Decay{nullptr, e->operands[0], *extent};
  if (e->getOp<math::ExpOp>() && e->operands[0]->getOp<arith::MulFOp>()) {
    const ElementExpr *product = e->operands[0];
    for (int k : {0, 1})
      if (free(product->operands[k]))
        if (std::optional<int64_t> extent = rowMinusColumn(
                product->operands[1 - k], row, col, numLoops, ctx))
          return Decay{product->operands[k], nullptr, *extent};
  }
  return std::nullopt;
}

/// Whether `base` is positive for every value of the batch loops (it may
/// depend on them only): evaluated at each, where they are static and few.
bool isPositive(const ElementExpr *base, linalg::LinalgOp root,
                ArrayRef<unsigned> batch) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<unsigned> used;
  for (unsigned loop : batch)
    if (dependsOnLoops(base, {loop}))
      used.push_back(loop);
  int64_t points = 1;
  for (unsigned loop : used) {
    if (ShapedType::isDynamic(ranges[loop]))
      return false;
    points *= ranges[loop];
    if (points > (1 << 16))
      return false;
  }
  SmallVector<int64_t> at(root.getNumLoops(), 0);
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (unsigned loop : used) {
      at[loop] = rest % ranges[loop];
      rest /= ranges[loop];
    }
    std::optional<double> v = evaluate(base, at);
    if (!v || !(*v > 0.0))
      return false;
  }
  return true;
}

} // namespace

LogicalResult raise::raiseDecayedLinearAttention(RewriterBase &rewriter,
                                                 Operation *op, RaiseLog &log,
                                                 Rejection &why) {
  FailureOr<MaskedAttention> m =
      matchMaskedAttention(op, /*withValues=*/true, why, /*allowDecay=*/true);
  if (failed(m) || !m->decay)
    return failure();
  linalg::LinalgOp root = m->op;
  MLIRContext *ctx = root.getContext();
  std::optional<Decay> decay =
      matchDecay(m->decay, m->row, m->col, root.getNumLoops(), ctx);
  if (!decay)
    return reject(why, "a factor of the product, " + m->decay->str() +
                           ", is neither a mask, a constant nor a decay "
                           "base^(i - t) or exp(c * (i - t))");
  if (m->maskClass.kind != MaskClass::Kind::causal)
    return reject(why, "a decay needs the causal mask (t <= i); the mask is " +
                           m->mask.str());
  if (decay->base && !isPositive(decay->base, root, m->batch))
    return reject(why, "the decay's base " + decay->base->str() +
                           " is not proved positive for every head");
  std::optional<int64_t> extent = m->exactExtent();
  if (decay->exactExtent != std::numeric_limits<int64_t>::max())
    extent = std::min(extent.value_or(decay->exactExtent), decay->exactExtent);
  std::string reason;
  if (failed(checkExactAtStaticSizes(root, {m->row, m->col}, extent, reason)))
    return reject(why, "the decay reads float positions: " + reason);
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  checkExactAtRunTime(rewriter, root, {m->row, m->col}, extent);
  SmallVector<unsigned> queryOrder(m->scoresBatch), keyOrder(m->scoresBatch);
  queryOrder.append({m->queryRow, m->feature});
  keyOrder.append({m->keyRow, m->feature});
  Value q = permuteTo(rewriter, loc, m->query, queryOrder);
  Value k = permuteTo(rewriter, loc, m->key, keyOrder);
  Value v = valuesInOrder(rewriter, loc, *m);
  // The gate, one log-decay per token: [batch.., L], each element the
  // decay's expression at its batch indices.
  auto qType = cast<RankedTensorType>(q.getType());
  int64_t rank = qType.getRank();
  SmallVector<OpFoldResult> gateSizes;
  for (int64_t d = 0; d + 1 < rank; ++d)
    gateSizes.push_back(tensor::getMixedSize(rewriter, loc, q, d));
  Value empty = tensor::EmptyOp::create(rewriter, loc, gateSizes,
                                        rewriter.getF32Type());
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank - 1);
  SmallVector<utils::IteratorType> parallel(rank - 1,
                                            utils::IteratorType::parallel);
  bool built = true;
  auto generic = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{identity}, parallel,
      [&](OpBuilder &b, Location l, ValueRange) {
        SmallVector<Value> loops(root.getNumLoops());
        for (auto [d, loop] : llvm::enumerate(m->batch))
          loops[loop] = linalg::IndexOp::create(b, l, d);
        loops[m->row] = linalg::IndexOp::create(b, l, rank - 2);
        FailureOr<Value> value = materialize(
            b, l, decay->base ? decay->base : decay->logDecay, loops);
        Value g;
        if (succeeded(value)) {
          g = toF32(b, l, *value);
          if (decay->base)
            g = math::LogOp::create(b, l, g);
        } else {
          built = false;
          g = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0.0f));
        }
        linalg::YieldOp::create(b, l, g);
      });
  if (!built) {
    rewriter.eraseOp(generic);
    return reject(why, "the decay cannot be rebuilt per head");
  }
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(vType.getShape());
  shape[shape.size() - 2] = qType.getDimSize(rank - 2);
  SmallVector<unsigned> loops(m->batch);
  loops.append({m->row, *m->valueColumn});
  log.raised(
      root,
      "linea.gated_linear_attention mask = causal" +
          std::string(m->segments ? " offsets" : "") + ", a per-token gate " +
          std::string(decay->base ? "log(" + decay->base->str() + ")"
                                  : decay->logDecay->str()) +
          (m->scale != 1.0 ? " scale = " + std::to_string(m->scale) : ""));
  replaceRootBySegments(
      rewriter, root, m->segments, [&](OpBuilder &b, Value offsets) {
        auto gated = GatedLinearAttentionOp::create(
            b, loc, RankedTensorType::get(shape, vType.getElementType()),
            /*final_state=*/Type(), q, k, v, generic.getResult(0),
            /*initial_state=*/Value(), offsets, /*prefix_index=*/Value(),
            MaskAttr::get(ctx, Mask::causal), /*prefix_length=*/nullptr,
            b.getF32FloatAttr(float(m->scale)), /*form=*/nullptr);
        return inRootLayout(b, root, gated.getOutput(), loops, m->out);
      });
  return success();
}
