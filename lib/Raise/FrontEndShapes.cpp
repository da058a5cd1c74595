//===- FrontEndShapes.cpp - torch-mlir's dynamic-shape idioms, simplified -===//
//
// With a dynamic sequence length, torch-mlir prints views and broadcasts in
// a general form that hides the math from the matchers:
//
// - `view` as `tensor.reshape %x(%shape)` with the shape assembled by
//   `tensor.from_elements` from sizes guarded against -1 (`select(n < 0,
//   ..., n)` where n is a tensor.dim, never negative);
// - an operand that might broadcast as a gather: a generic that reads
//   `%x[..., select(dim(%x, p) == 1, 0, i_p), ...]` into a tensor of the
//   broadcast size;
// - a registered buffer converted elementwise and then sliced to the
//   length (`mask[:L, :L]` of a bool mask stored as bytes): the slice is
//   taken of the constant, so that the mask stays a table.
//
// The integer range analysis folds the guards; then a reshape whose sizes
// are proved equal (ValueBoundsConstraintSet) group by group becomes an
// expand_shape or collapse_shape, and a gather whose sizes agree is its
// source. Where they cannot be proved to agree (two arguments' dynamic
// sequence lengths, which torch.export asserts are one symbol), the gather
// becomes its source behind a run-time check of that equality: a call with
// different lengths stops with an error instead of broadcasting.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"


using namespace mlir;

namespace {

/// Whether two sizes are the same for every run: equal constants, or
/// proved equal through the IR that computes them.
bool provedEqual(const ValueBoundsConstraintSet::Variable &a,
                 const ValueBoundsConstraintSet::Variable &b) {
  FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(a, b);
  return succeeded(equal) && *equal;
}

bool isSizeProduct(Value size);

/// A run-time check that two dynamic sizes, which torch.export takes for
/// one symbol, are equal where the model relies on it (`what`).
void checkSameSize(OpBuilder &b, Location loc, Value x, Value y,
                   StringRef what) {
  Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  linea::CheckOp::create(b, loc, same,
                         "linea-raise: " + what.str() +
                             ", {0} and {1} (torch.export asserts they are "
                             "equal)",
                         ValueRange{x, y});
}

/// The size an element of a `tensor.from_elements` shape holds, as an index
/// value or a constant; or, for an integer product of sizes (`B * H` of a
/// merged batch and heads), that integer, cast to an index only once the
/// reshape is rewritten.
std::optional<OpFoldResult> shapeElement(OpBuilder &b, Value element) {
  APInt constant;
  if (matchPattern(element, m_ConstantInt(&constant)))
    return OpFoldResult(b.getIndexAttr(constant.getSExtValue()));
  if (auto cast = element.getDefiningOp<arith::IndexCastOp>())
    if (cast.getIn().getType().isIndex())
      return OpFoldResult(cast.getIn());
  if (element.getType().isIndex() || isSizeProduct(element))
    return OpFoldResult(element);
  return std::nullopt;
}

/// Whether a shape element is an index (not an integer still to be cast):
/// only an index can be a ValueBoundsConstraintSet variable.
bool isIndexSize(OpFoldResult size) {
  auto value = dyn_cast<Value>(size);
  return !value || value.getType().isIndex();
}

/// A size as a product: its constant factor and the sizes it multiplies
/// that nothing further explains (a function argument's dim, an opaque
/// value), in a canonical order. Two sizes with equal products are equal for
/// every run. This proves what ValueBoundsConstraintSet cannot: a merged dim
/// `B * L` of two dynamic sizes (a product of symbols is not affine).
struct SizeProduct {
  int64_t constant = 1;
  SmallVector<std::pair<Value, int64_t>> leaves; // (tensor, dim) or (value, -1)

  void multiply(const SizeProduct &other) {
    constant *= other.constant;
    leaves.append(other.leaves.begin(), other.leaves.end());
  }
  void sort() {
    llvm::sort(leaves, [](auto a, auto b) {
      if (a.first != b.first)
        return a.first.getAsOpaquePointer() < b.first.getAsOpaquePointer();
      return a.second < b.second;
    });
  }
  bool operator==(const SizeProduct &other) const {
    return constant == other.constant && leaves == other.leaves;
  }
};

/// How deep `productOfDim` follows producers: a model's chain of
/// elementwise ops and contractions between a merge and its split.
constexpr int kProductDepth = 64;

SizeProduct productOfValue(Value size, int depth);

/// Dim `dim` of `tensor` as a product, followed through the ops that carry
/// a size from their operands: destination-style ops (their init's dim),
/// tensor.empty (its operand), casts, collapse_shape (the group's product).
SizeProduct productOfDim(Value tensor, int64_t dim, int depth) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SizeProduct product;
  if (!type.isDynamicDim(dim)) {
    product.constant = type.getDimSize(dim);
    return product;
  }
  if (depth > 0) {
    Operation *def = tensor.getDefiningOp();
    if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
      if (auto result = dyn_cast<OpResult>(tensor);
          result && dps.hasPureTensorSemantics())
        return productOfDim(dps.getTiedOpOperand(result)->get(), dim,
                            depth - 1);
    }
    if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
      return productOfValue(empty.getDynamicSize(dim), depth - 1);
    if (auto castOp = dyn_cast_or_null<tensor::CastOp>(def))
      return productOfDim(castOp.getSource(), dim, depth - 1);
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
      for (int64_t d : collapse.getReassociationIndices()[dim])
        product.multiply(productOfDim(collapse.getSrc(), d, depth - 1));
      return product;
    }
  }
  product.leaves.push_back({tensor, dim});
  return product;
}

/// An index or integer size as a product: through constants, index casts,
/// `muli`, `affine.apply` of a product of its operands, `tensor.dim`.
SizeProduct productOfValue(Value size, int depth) {
  SizeProduct product;
  APInt constant;
  if (matchPattern(size, m_ConstantInt(&constant))) {
    product.constant = constant.getSExtValue();
    return product;
  }
  if (depth > 0) {
    Operation *def = size.getDefiningOp();
    if (auto castOp = dyn_cast_or_null<arith::IndexCastOp>(def))
      return productOfValue(castOp.getIn(), depth - 1);
    if (auto mul = dyn_cast_or_null<arith::MulIOp>(def)) {
      product = productOfValue(mul.getLhs(), depth - 1);
      product.multiply(productOfValue(mul.getRhs(), depth - 1));
      return product;
    }
    if (auto dimOp = dyn_cast_or_null<tensor::DimOp>(def))
      if (std::optional<int64_t> index = dimOp.getConstantIndex())
        return productOfDim(dimOp.getSource(), *index, depth - 1);
    if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def)) {
      // A map whose one result multiplies its operands (and constants).
      AffineExpr expr = apply.getAffineMap().getResult(0);
      SizeProduct fromMap;
      std::function<bool(AffineExpr)> collect = [&](AffineExpr e) {
        if (auto c = dyn_cast<AffineConstantExpr>(e)) {
          fromMap.constant *= c.getValue();
          return true;
        }
        if (auto d = dyn_cast<AffineDimExpr>(e)) {
          fromMap.multiply(productOfValue(
              apply.getMapOperands()[d.getPosition()], depth - 1));
          return true;
        }
        if (auto s = dyn_cast<AffineSymbolExpr>(e)) {
          fromMap.multiply(productOfValue(
              apply.getMapOperands()[apply.getAffineMap().getNumDims() +
                                     s.getPosition()],
              depth - 1));
          return true;
        }
        auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        return bin && bin.getKind() == AffineExprKind::Mul &&
               collect(bin.getLHS()) && collect(bin.getRHS());
      };
      if (collect(expr))
        return fromMap;
    }
  }
  product.leaves.push_back({size, -1});
  return product;
}

/// Whether the size `small` is the product of the sizes `large` (each a
/// value or a constant): equal products of leaves.
bool provedProduct(const SizeProduct &small, ArrayRef<SizeProduct> large) {
  SizeProduct all;
  for (const SizeProduct &p : large)
    all.multiply(p);
  SizeProduct lhs = small;
  lhs.sort();
  all.sort();
  return !lhs.leaves.empty() && lhs == all;
}

/// Groups the dims of the larger shape under the dims of the smaller one:
/// static dims by products, a dynamic dim alone and proved equal
/// (`sameSize(k, j, 1)`: small dim k and large dim j have one size), or a
/// dynamic dim proved the product of a run of large dims
/// (`productOf(k, j, n)`: small dim k is the product of large dims
/// `[j, j + n)`, a merge of a batch and a length).
std::optional<SmallVector<ReassociationIndices>>
groupDims(ArrayRef<OpFoldResult> small, ArrayRef<OpFoldResult> large,
          function_ref<bool(size_t, size_t, size_t)> sameSize,
          function_ref<bool(size_t, size_t, size_t)> productOf) {
  SmallVector<ReassociationIndices> groups;
  size_t j = 0;
  for (size_t k = 0; k < small.size(); ++k) {
    ReassociationIndices group;
    std::optional<int64_t> size = getConstantIntValue(small[k]);
    if (!size) {
      if (j >= large.size())
        return std::nullopt;
      size_t run = 1;
      while (!sameSize(k, j, run) && !productOf(k, j, run)) {
        if (j + ++run > large.size())
          return std::nullopt;
      }
      for (size_t n = 0; n < run; ++n)
        group.push_back(j++);
    } else {
      int64_t product = 1;
      while (j < large.size() && (group.empty() || product < *size)) {
        std::optional<int64_t> s = getConstantIntValue(large[j]);
        if (!s)
          return std::nullopt;
        product *= *s;
        group.push_back(j++);
      }
      if (product != *size)
        return std::nullopt;
    }
    // Trailing unit dims of the large shape join the last group.
    if (k + 1 == small.size())
      while (j < large.size() && getConstantIntValue(large[j]) == 1)
        group.push_back(j++);
    groups.push_back(group);
  }
  if (j != large.size())
    return std::nullopt;
  return groups;
}

/// Where a dynamic size `small` would group a run of sizes `large` that is
/// one dynamic size and units: the two sizes, to be assumed equal.
std::optional<std::pair<Value, Value>>
assumedEqual(OpFoldResult small, ArrayRef<OpFoldResult> large) {
  auto a = dyn_cast<Value>(small);
  if (!a || !a.getType().isIndex())
    return std::nullopt;
  Value b;
  for (OpFoldResult size : large) {
    if (getConstantIntValue(size) == 1)
      continue;
    auto value = dyn_cast<Value>(size);
    if (b || !value || !value.getType().isIndex())
      return std::nullopt;
    b = value;
  }
  if (!b)
    return std::nullopt;
  return std::make_pair(a, b);
}

/// Whether `size` is a product of tensor dims and non-negative constants:
/// never negative (it sizes a tensor that exists).
bool isSizeProduct(Value size) {
  SizeProduct product = productOfValue(size, kProductDepth);
  return product.constant >= 0 && llvm::all_of(product.leaves, [](auto leaf) {
           return leaf.second >= 0;
         });
}

/// torch-mlir guards each size of a view against -1 (`n < 0`, `n >= 0`);
/// a size that merges a dynamic batch with other dims (`B * H`) is a
/// product the integer range analysis cannot bound (it may overflow), so
/// its guard stays. A product of tensor dims is a size: the guard folds.
struct FoldSizeSignTest : OpRewritePattern<arith::CmpIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::CmpIOp op,
                                PatternRewriter &rewriter) const override {
    using Predicate = arith::CmpIPredicate;
    Predicate predicate = op.getPredicate();
    Value size = op.getLhs();
    if (matchPattern(op.getLhs(), m_Zero())) {
      // `0 > n` is `n < 0`, `0 <= n` is `n >= 0`.
      size = op.getRhs();
      predicate = predicate == Predicate::sgt   ? Predicate::slt
                  : predicate == Predicate::sle ? Predicate::sge
                                                : Predicate::eq;
    } else if (!matchPattern(op.getRhs(), m_Zero())) {
      return rewriter.notifyMatchFailure(op, "not a comparison with zero");
    }
    if (predicate != Predicate::slt && predicate != Predicate::sge)
      return rewriter.notifyMatchFailure(op, "not a sign test of a size");
    if (!isSizeProduct(size))
      return rewriter.notifyMatchFailure(op, "not a product of sizes");
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(
        op, op.getType(), predicate == Predicate::sge ? 1 : 0);
    return success();
  }
};

/// `tensor.reshape %x(from_elements(...))` as expand_shape or
/// collapse_shape, where the sizes are proved to match group by group.
struct ReshapeToExpandOrCollapse : OpRewritePattern<tensor::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto elements = op.getShape().getDefiningOp<tensor::FromElementsOp>();
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    auto sourceType = dyn_cast<RankedTensorType>(op.getSource().getType());
    if (!elements || !resultType || !sourceType)
      return rewriter.notifyMatchFailure(
          op, "not a ranked reshape to a tensor.from_elements shape");
    SmallVector<OpFoldResult> sizes;
    for (Value element : elements.getElements()) {
      std::optional<OpFoldResult> size = shapeElement(rewriter, element);
      if (!size)
        return rewriter.notifyMatchFailure(
          op, "a shape element is neither an index nor a constant");
      sizes.push_back(*size);
    }
    Location loc = op.getLoc();
    Value source = op.getSource();
    SmallVector<OpFoldResult> sourceSizes =
        tensor::getMixedSizes(rewriter, loc, source);
    // A size of the new shape as a product (a constant, or a value).
    auto productOfSize = [&](OpFoldResult size) {
      if (std::optional<int64_t> c = getConstantIntValue(size)) {
        SizeProduct p;
        p.constant = *c;
        return p;
      }
      return productOfValue(cast<Value>(size), kProductDepth);
    };
    SmallVector<SizeProduct> sourceProducts, sizeProducts;
    for (int64_t d = 0; d < sourceType.getRank(); ++d)
      sourceProducts.push_back(productOfDim(source, d, kProductDepth));
    for (OpFoldResult size : sizes)
      sizeProducts.push_back(productOfSize(size));
    bool expands = resultType.getRank() >= sourceType.getRank();
    // The smaller shape's dims group the larger one's.
    ArrayRef<OpFoldResult> small = expands ? ArrayRef(sourceSizes) : ArrayRef(sizes);
    ArrayRef<OpFoldResult> large = expands ? ArrayRef(sizes) : ArrayRef(sourceSizes);
    ArrayRef<SizeProduct> smallProducts = expands ? sourceProducts : sizeProducts;
    ArrayRef<SizeProduct> largeProducts = expands ? sizeProducts : sourceProducts;
    auto variable = [&](ArrayRef<OpFoldResult> shape, size_t d)
        -> ValueBoundsConstraintSet::Variable {
      if (shape.data() == sourceSizes.data())
        return {source, int64_t(d)};
      return ValueBoundsConstraintSet::Variable(shape[d]);
    };
    // Where a grouping needs one pair of dynamic sizes equal that nothing
    // proves (two arguments' lengths, one symbol to torch.export): the pair.
    std::optional<std::pair<Value, Value>> assumed;
    auto group = [&](bool assume) {
      assumed.reset();
      return groupDims(
          small, large,
          [&](size_t k, size_t j, size_t n) {
            return n == 1 && isIndexSize(small[k]) && isIndexSize(large[j]) &&
                   provedEqual(variable(small, k), variable(large, j));
          },
          [&](size_t k, size_t j, size_t n) {
            if (provedProduct(smallProducts[k], largeProducts.slice(j, n)))
              return true;
            if (!assume || assumed)
              return false;
            std::optional<std::pair<Value, Value>> pair =
                assumedEqual(small[k], large.slice(j, n));
            if (pair)
              assumed = pair;
            return pair.has_value();
          });
    };
    std::optional<SmallVector<ReassociationIndices>> groups = group(false);
    if (!groups)
      groups = group(true);
    if (!groups)
      return rewriter.notifyMatchFailure(
          op, "the sizes are not proved to match group by group");
    if (assumed) {
      // The reshape keeps its element count: with every other group equal,
      // the pair is too (unless another size is 0): checked at run time.
      checkSameSize(rewriter, loc, assumed->first, assumed->second,
                    "a view the model takes needs two dynamic sizes equal");
    }
    if (expands) {
      for (OpFoldResult &size : sizes)
        if (!isIndexSize(size))
          size = arith::IndexCastOp::create(rewriter, loc,
                                            rewriter.getIndexType(),
                                            cast<Value>(size))
                     .getResult();
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, source,
                                                         *groups, sizes);
      return success();
    }
    Value collapsed = tensor::CollapseShapeOp::create(rewriter, loc,
                                                      op.getSource(), *groups);
    if (collapsed.getType() != resultType)
      collapsed = tensor::CastOp::create(rewriter, loc, resultType, collapsed);
    rewriter.replaceOp(op, collapsed);
    return success();
  }
};

/// The source dim a broadcast gather reads at output dim `p`: `i_p`, or
/// `select(_ == 1, 0, i_p)` (true: the dim may broadcast).
std::optional<bool> readsDimAsIs(Value index, int64_t p) {
  auto isIndexOf = [&](Value v) {
    auto op = v.getDefiningOp<linalg::IndexOp>();
    return op && int64_t(op.getDim()) == p;
  };
  if (isIndexOf(index))
    return false;
  auto select = index.getDefiningOp<arith::SelectOp>();
  if (!select || !isIndexOf(select.getFalseValue()) ||
      !matchPattern(select.getTrueValue(), m_Zero()))
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
      !matchPattern(cmp.getRhs(), m_One()))
    return std::nullopt;
  return true;
}

/// A generic that only gathers `%x[..., select(dim == 1, 0, i_p), ...]`
/// into a tensor of the same rank: `%x`, behind a check that the sizes
/// agree where that is not proved.
struct BroadcastGatherToSource : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 0 || op.getNumDpsInits() != 1 ||
        !op.hasPureTensorSemantics() ||
        !op.getIndexingMapsArray()[0].isIdentity())
      return rewriter.notifyMatchFailure(
          op, "not a one-result generic without inputs, written in order");
    auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
    auto extract = yield.getOperand(0).getDefiningOp<tensor::ExtractOp>();
    if (!extract || extract->getBlock() != op.getBody())
      return rewriter.notifyMatchFailure(
          op, "its body does not yield a tensor.extract");
    if (Operation *def = extract.getTensor().getDefiningOp();
        def && op->isAncestor(def))
      return rewriter.notifyMatchFailure(
          op, "it gathers from a tensor it computes itself");
    Value source = extract.getTensor();
    Value init = op.getDpsInits()[0];
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto initType = cast<RankedTensorType>(init.getType());
    if (sourceType.getRank() != initType.getRank() ||
        sourceType.getElementType() != initType.getElementType())
      return rewriter.notifyMatchFailure(
          op, "the source differs in rank or element type");
    SmallVector<int64_t> mayBroadcast;
    for (auto [p, index] : llvm::enumerate(extract.getIndices())) {
      // A dim of size 1 on both sides, read at 0.
      if (sourceType.getDimSize(p) == 1 && initType.getDimSize(p) == 1 &&
          matchPattern(index, m_Zero()))
        continue;
      std::optional<bool> asIs = readsDimAsIs(index, p);
      if (!asIs)
        return rewriter.notifyMatchFailure(
          op, "an index is neither i_p nor select(dim == 1, 0, i_p)");
      if (*asIs)
        mayBroadcast.push_back(p);
    }
    // Nothing else in the body: the gather is the whole op.
    for (Operation &inner : op.getBody()->without_terminator())
      if (!isa<linalg::IndexOp, arith::CmpIOp, arith::SelectOp,
               arith::ConstantOp, tensor::ExtractOp, tensor::DimOp>(inner))
        return rewriter.notifyMatchFailure(
          op, "its body does more than gather");
    Location loc = op.getLoc();
    for (int64_t p : mayBroadcast) {
      if (provedEqual({source, p}, {init, p}))
        continue;
      checkSameSize(rewriter, loc,
                    tensor::DimOp::create(rewriter, loc, source, p),
                    tensor::DimOp::create(rewriter, loc, init, p),
                    "two dynamic sizes the model broadcasts against each "
                    "other differ");
    }
    Value result = source;
    if (sourceType != initType)
      result = tensor::CastOp::create(rewriter, loc, initType, source);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A constant, or a slice of one (through any number of slices).
bool isConstantOrSliceOfOne(Value value) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  return matchPattern(value, m_Constant());
}

/// `extract_slice(generic(constants))`: a registered buffer converted
/// elementwise (a bool mask stored as bytes, compared `!= 0`), then sliced to
/// the sequence length (`mask[:L, :L]`). The generic over the constants'
/// slices instead, so that the mask reads constants and stays a table the
/// raise can read.
struct SliceOfConstantMap : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto generic = slice.getSource().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic.getNumDpsInits() != 1 ||
        !generic.hasPureTensorSemantics() ||
        generic.getNumLoops() != generic.getNumParallelLoops() ||
        slice.getType().getRank() != slice.getSourceType().getRank())
      return rewriter.notifyMatchFailure(
          slice, "not a same-rank slice of an all-parallel one-result generic");
    if (!llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return rewriter.notifyMatchFailure(
          slice, "the generic is not elementwise");
    // Elementwise over constants (or slices of them) alone, position-blind,
    // the init unread.
    if (!llvm::all_of(generic.getDpsInputs(), isConstantOrSliceOfOne))
      return rewriter.notifyMatchFailure(
          slice, "the generic reads more than constants");
    Block *body = generic.getBody();
    if (!body->getArguments().back().use_empty() ||
        llvm::any_of(body->getOperations(),
                     [](Operation &op) { return isa<linalg::IndexOp>(op); }))
      return rewriter.notifyMatchFailure(
          slice, "the generic reads its init or its indices");
    Location loc = slice.getLoc();
    SmallVector<Value> inputs;
    for (Value input : generic.getDpsInputs())
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, input, slice.getMixedOffsets(), slice.getMixedSizes(),
          slice.getMixedStrides()));
    Value init = tensor::EmptyOp::create(rewriter, loc, slice.getMixedSizes(),
                                         slice.getType().getElementType());
    auto sliced = linalg::GenericOp::create(
        rewriter, loc, TypeRange{slice.getType()}, inputs, ValueRange{init},
        generic.getIndexingMapsArray(), generic.getIteratorTypesArray());
    rewriter.cloneRegionBefore(generic.getRegion(), sliced.getRegion(),
                               sliced.getRegion().end());
    rewriter.replaceOp(slice, sliced->getResults());
    return success();
  }
};

/// Keeps the solver's state in step with the rewrites.
struct SolverListener : RewriterBase::Listener {
  explicit SolverListener(DataFlowSolver &solver) : solver(solver) {}
  void notifyOperationErased(Operation *op) override {
    solver.eraseState(solver.getProgramPointAfter(op));
    for (Value result : op->getResults())
      solver.eraseState(result);
  }
  DataFlowSolver &solver;
};

} // namespace

void mlir::linea::raise::populateFrontEndShapePatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReshapeToExpandOrCollapse, BroadcastGatherToSource,
               SliceOfConstantMap, FoldSizeSignTest>(patterns.getContext());
}

LogicalResult mlir::linea::raise::foldShapeGuards(Operation *root) {
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(root)))
    return failure();
  SolverListener listener(solver);
  RewritePatternSet patterns(root->getContext());
  arith::populateIntRangeOptimizationsPatterns(patterns, solver);
  GreedyRewriteConfig config;
  config.setListener(&listener);
  return applyPatternsGreedily(root, std::move(patterns), config);
}
