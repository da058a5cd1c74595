//===- Presum.cpp - prefix sums from model IR -----------------------------===//
//
// Prefix sums as models write them:
// - torch-mlir prints `torch.cumsum` as `tm_tensor.scan` adding floats along
//   a dimension: an inclusive scan is `linea.presum` along that dimension;
//   an exclusive one is an exclusive presum where its accumulator starts at
//   zero.
// - a product with a triangular 0/1 matrix, `tril(ones) @ x`: which
//   triangle (`t <= i`, `t < i`, `t >= i`, `t > i`, decided by
//   IndexPredicate) says inclusive or exclusive, forward or reverse.
// - a cumsum between two flips, `flip(cumsum(flip(x, k), k), k)`: the sum of
//   the later elements, a reverse presum.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Scores.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Dialect/TMTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

LogicalResult raise::raiseScan(RewriterBase &rewriter, Operation *op,
                               RaiseLog &log, Rejection &why) {
  auto scan = dyn_cast<tm_tensor::ScanOp>(op);
  if (!scan)
    return failure();
  auto type = cast<RankedTensorType>(scan.getInput().getType());
  Operation *combiner = scan.getCommutativeCombiner();
  if (!combiner || !isa<arith::AddFOp>(combiner))
    return reject(why, "the scan does not add (a linea.presum adds)");
  if (!isOpElementType(type.getElementType()))
    return reject(why, "the scan adds values other than f32, f16 or bf16");
  // The output's initial value is overwritten row by row; an exclusive
  // scan starts from its accumulator, which must be zero.
  bool exclusive = !scan.getInclusive();
  if (exclusive) {
    DenseElementsAttr init;
    Value accumulator = scan.getAccumulator();
    auto fill = accumulator.getDefiningOp<linalg::FillOp>();
    FloatAttr value;
    bool zero = (fill && matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
                 value.getValue().isZero()) ||
                (matchPattern(accumulator, m_Constant(&init)) &&
                 init.isSplat() && init.getSplatValue<APFloat>().isZero());
    if (!zero)
      return reject(why, "the exclusive scan starts from an accumulator that "
                         "is not zero");
  }
  if (!scan.getResult(1).use_empty())
    return reject(why, "the scan's accumulator result is used");
  Location loc = scan.getLoc();
  rewriter.setInsertionPoint(scan);
  auto presum = PresumOp::create(
      rewriter, loc, type, scan.getInput(), /*decay=*/Value(), /*offsets=*/Value(),
      rewriter.getI64IntegerAttr(scan.getDimension()),
      exclusive ? rewriter.getUnitAttr() : nullptr, /*reverse=*/nullptr,
      /*form=*/nullptr);
  log.raised(scan, "linea.presum dim = " + Twine(scan.getDimension()) +
                       (exclusive ? " exclusive" : ""));
  // The accumulator result has no uses: any value of its type will do.
  rewriter.replaceOp(scan, {presum.getOutput(), scan.getAccumulator()});
  return success();
}

namespace {

/// The prefix sum a lower or upper triangular 0/1 matrix applies:
/// `sum_t M[i, t] x[t]` with `M` one of `t <= i`, `t < i`, `t >= i`,
/// `t > i`.
struct TriangularSum {
  bool exclusive = false, reverse = false;
};

std::optional<TriangularSum> triangularSum(const IndexPredicate &mask,
                                           std::optional<int64_t> length) {
  if (mask.equals(IndexPredicate::causal(), length))
    return TriangularSum{false, false};
  if (mask.equals(IndexPredicate::before(), length))
    return TriangularSum{true, false};
  if (mask.equals(IndexPredicate::after(/*inclusive=*/true), length))
    return TriangularSum{false, true};
  if (mask.equals(IndexPredicate::after(/*inclusive=*/false), length))
    return TriangularSum{true, true};
  return std::nullopt;
}

} // namespace

LogicalResult raise::raiseTriangularSum(RewriterBase &rewriter, Operation *op,
                                        RaiseLog &log, Rejection &why) {
  // sum_t M[i, t] x[.., t, ..]: one tensor, the rest a mask.
  FailureOr<PlainReduction> reduction =
      matchPlainReduction(op, /*numReads=*/1, /*masked=*/true);
  if (failed(reduction))
    return failure();
  linalg::LinalgOp root = reduction->root;
  const Product *product = &reduction->product;
  std::string reason;
  FailureOr<LoopView> x = getLoopView(product->reads[0]);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(x) || failed(out) || hasUnitDim(*x) || hasUnitDim(*out))
    return failure();
  // t: the reduced loop, read by x; i: the output's loop x does not read.
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  std::optional<unsigned> t, i;
  for (unsigned loop = 0; loop < root.getNumLoops(); ++loop) {
    bool inX = x->position(loop).has_value();
    bool inOut = out->position(loop).has_value();
    if (iterators[loop] == utils::IteratorType::reduction) {
      if (!inX || inOut)
        return failure();
      t = loop;
    } else if (inOut && !inX) {
      if (i)
        return failure();
      i = loop;
    } else if (!inOut || !inX) {
      return failure();
    }
  }
  if (!t || !i || x->loops.size() != out->loops.size())
    return failure();
  std::optional<int64_t> length = staticLoopSize(root, *t);
  FailureOr<IndexPredicate> mask =
      getMask(*product, *i, *t, root.getContext(), reason);
  if (failed(mask))
    return reject(why, reason);
  std::optional<TriangularSum> sum = triangularSum(*mask, length);
  if (!sum)
    return reject(why, "mask is " + mask->str() +
                           ": not a triangle a prefix sum applies (t <= i, "
                           "t < i, t >= i or t > i)");
  if (failed(checkExactAtStaticSizes(root, {*i, *t}, mask->getExactExtent(),
                                     reason)))
    return reject(why, "mask is " + mask->str() + ": " + reason);
  if (product->scale != 1.0)
    return reject(why, "the triangular sum is scaled");
  if (!hasZeroInit(root))
    return reject(why, "the sum accumulates onto a tensor that is not zero");
  auto type = cast<RankedTensorType>(root->getResult(0).getType());
  if (!type.getElementType().isF32() ||
      !cast<ShapedType>(x->tensor.getType()).getElementType().isF32())
    return reject(why, "the raise takes f32 models");
  // x in the output's order, t where the output has i.
  SmallVector<unsigned> order;
  for (unsigned loop : out->loops)
    order.push_back(loop == *i ? *t : loop);
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  checkExactAtRunTime(rewriter, root, {*i, *t}, mask->getExactExtent());
  Value input = permuteTo(rewriter, loc, *x, order);
  int64_t dim = *out->position(*i);
  auto presum = PresumOp::create(
      rewriter, loc, input.getType(), input, /*decay=*/Value(), /*offsets=*/Value(),
      rewriter.getI64IntegerAttr(dim),
      sum->exclusive ? rewriter.getUnitAttr() : nullptr,
      sum->reverse ? rewriter.getUnitAttr() : nullptr, /*form=*/nullptr);
  log.raised(root, "linea.presum dim = " + Twine(dim) +
                       (sum->exclusive ? " exclusive" : "") +
                       (sum->reverse ? " reverse" : "") + " (mask " +
                       mask->str() + ")");
  rewriter.replaceOp(root, castTo(rewriter, loc, presum.getOutput(), type));
  return success();
}

LogicalResult raise::raiseScanMinusInput(RewriterBase &rewriter, Operation *op,
                                         RaiseLog &log, Rejection &why) {
  // cumsum(x) - x: an elementwise difference of an add scan and its input,
  // read at the same element.
  auto root = dyn_cast<linalg::LinalgOp>(op);
  if (!root || !root.hasPureTensorSemantics() || root.getNumDpsInits() != 1 ||
      root->getNumResults() != 1 ||
      root.getNumLoops() != root.getNumParallelLoops())
    return failure();
  ElementTracer tracer(root);
  FailureOr<const ElementExpr *> body = tracer.traceYield();
  if (failed(body) || !(*body)->getOp<arith::SubFOp>())
    return failure();
  const ElementExpr *sum = (*body)->operands[0], *x = (*body)->operands[1];
  if (!sum->isa(ElementExpr::Kind::Read) || !x->isa(ElementExpr::Kind::Read))
    return failure();
  auto scan = sum->value.getDefiningOp<tm_tensor::ScanOp>();
  if (!scan || sum->value != scan.getResult(0) || !scan.getInclusive() ||
      scan.getInput() != x->value || sum->indices != x->indices ||
      !isa_and_nonnull<arith::AddFOp>(scan.getCommutativeCombiner()))
    return failure();
  FailureOr<LoopView> read = getLoopView(sum);
  FailureOr<LoopView> out = getLoopView(root, *root.getDpsInitOperand(0));
  if (failed(read) || failed(out) || hasUnitDim(*read))
    return failure();
  auto type = cast<RankedTensorType>(scan.getInput().getType());
  if (!type.getElementType().isF32())
    return reject(why, "the raise takes f32 models");
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  auto presum = PresumOp::create(
      rewriter, loc, type, scan.getInput(), /*decay=*/Value(), /*offsets=*/Value(),
      rewriter.getI64IntegerAttr(scan.getDimension()), rewriter.getUnitAttr(),
      /*reverse=*/nullptr, /*form=*/nullptr);
  log.raised(root, "linea.presum dim = " + Twine(scan.getDimension()) +
                       " exclusive (cumsum(x) - x)");
  replaceRoot(rewriter, root, presum.getOutput(), read->loops, *out);
  return success();
}

namespace {

/// `e` reads `tensor` at the identity indices `d_0, .., d_{r-1}` of a root
/// with as many loops as the tensor has dims.
bool readsAtIdentity(const ElementExpr *e, Value tensor) {
  if (!e->isa(ElementExpr::Kind::Read) || e->value != tensor)
    return false;
  unsigned rank = e->indices.size();
  for (auto [p, index] : llvm::enumerate(e->indices))
    if (simplifyAffineExpr(index, rank, 0) !=
        getAffineDimExpr(p, index.getContext()))
      return false;
  return true;
}

/// The dim along which `e` reads its tensor backwards: every index is the
/// root's loop of the same position but one, `(n - 1) - d_k` with `n` the
/// tensor's static size along `k`.
std::optional<unsigned> flippedDim(const ElementExpr *e) {
  if (!e->isa(ElementExpr::Kind::Read))
    return std::nullopt;
  auto type = cast<RankedTensorType>(e->value.getType());
  std::optional<unsigned> flipped;
  unsigned rank = e->indices.size();
  for (auto [p, read] : llvm::enumerate(e->indices)) {
    AffineExpr index = simplifyAffineExpr(read, rank, 0);
    AffineExpr d = getAffineDimExpr(p, index.getContext());
    if (index == d)
      continue;
    if (flipped || type.isDynamicDim(p) ||
        index != type.getDimSize(p) - 1 - d)
      return std::nullopt;
    flipped = p;
  }
  return flipped;
}

} // namespace

LogicalResult raise::raiseFlippedScan(RewriterBase &rewriter, Operation *op,
                                      RaiseLog &log, Rejection &why) {
  // root[.., i, ..] = S[.., n - 1 - i, ..] with S = cumsum(X) along that
  // dim and X[.., m, ..] = Y[.., n - 1 - m, ..]: root[i] = sum_{s >= i} Y[s].
  auto root = dyn_cast<linalg::LinalgOp>(op);
  if (!root || !root.hasPureTensorSemantics() || root.getNumDpsInits() != 1 ||
      root->getNumResults() != 1 ||
      root.getNumLoops() != root.getNumParallelLoops() ||
      !root.getMatchingIndexingMap(root.getDpsInitOperand(0)).isIdentity())
    return failure();
  ElementTracer tracer(root);
  FailureOr<const ElementExpr *> element = tracer.traceYield();
  if (failed(element))
    return failure();
  std::optional<unsigned> dim = flippedDim(*element);
  std::optional<AddScan> scan =
      dim ? inclusiveAddScan((*element)->value) : std::nullopt;
  // The flips and the scan of one shape: every element of the scan's input
  // is an element of Y, read once.
  auto type = cast<RankedTensorType>(root->getResult(0).getType());
  if (!scan || scan->dim != int64_t(*dim) ||
      (*element)->value.getType() != type)
    return failure();
  // The scan's input read where the root reads the scan: Y at the root's
  // own indices when the input is Y flipped along the same dim.
  FailureOr<const ElementExpr *> input =
      tracer.traceElement(scan->input, (*element)->indices);
  if (failed(input) || !(*input)->isa(ElementExpr::Kind::Read) ||
      (*input)->value.getType() != type ||
      !readsAtIdentity(*input, (*input)->value))
    return reject(why, "the cumsum between flips is not of one tensor "
                       "flipped along its dim");
  if (!type.getElementType().isF32())
    return reject(why, "the raise takes f32 models");
  rewriter.setInsertionPoint(root);
  auto presum = PresumOp::create(
      rewriter, root.getLoc(), type, (*input)->value, /*decay=*/Value(), /*offsets=*/Value(),
      rewriter.getI64IntegerAttr(*dim), /*exclusive=*/nullptr,
      rewriter.getUnitAttr(), /*form=*/nullptr);
  log.raised(root, "linea.presum dim = " + Twine(*dim) +
                       " reverse (flip, cumsum, flip)");
  rewriter.replaceOp(root, presum.getOutput());
  return success();
}
