//===- ScanToLoops.cpp - tm_tensor.scan by its definition -----------------===//
//
// The reference lowering of torch-mlir's scan (what runs when linea-raise
// did not make it a linea.presum: --no-raise, or a combiner other than
// add): a loop along its dimension carrying the running row, combined with
// each slice of the input by the scan's own region.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// `combine(running, slice)` elementwise into `running` itself (so that the
/// loop carrying it bufferizes in place), the combiner cloned into the body.
Value combineRows(OpBuilder &b, Location loc, Operation *combiner,
                  Value running, Value slice) {
  auto type = cast<RankedTensorType>(running.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(), kPar);
  return buildGeneric(b, loc, ValueRange{slice}, running, {identity, identity},
                      iterators,
                      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        IRMapping map;
                        map.map(combiner->getOperand(0), args[1]);
                        map.map(combiner->getOperand(1), args[0]);
                        return nb.clone(*combiner, map)->getResult(0);
                      });
}

/// The combiner's identity (x combined with it is x), as a constant.
std::optional<TypedAttr> identityOf(Operation *combiner, Type type) {
  auto f = dyn_cast<FloatType>(type);
  auto i = dyn_cast<IntegerType>(type);
  if (isa<arith::AddFOp>(combiner) && f)
    return TypedAttr(FloatAttr::get(f, 0.0));
  if (isa<arith::MulFOp>(combiner) && f)
    return TypedAttr(FloatAttr::get(f, 1.0));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner) && f)
    return TypedAttr(FloatAttr::get(
        f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true)));
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner) && f)
    return TypedAttr(FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics())));
  if (isa<arith::AddIOp>(combiner) && i)
    return TypedAttr(IntegerAttr::get(i, 0));
  if (isa<arith::MulIOp>(combiner) && i)
    return TypedAttr(IntegerAttr::get(i, 1));
  if (isa<arith::MaxSIOp>(combiner) && i)
    return TypedAttr(IntegerAttr::get(i, APInt::getSignedMinValue(i.getWidth())));
  if (isa<arith::MinSIOp>(combiner) && i)
    return TypedAttr(IntegerAttr::get(i, APInt::getSignedMaxValue(i.getWidth())));
  return std::nullopt;
}

struct LowerScan : OpRewritePattern<tm_tensor::ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tm_tensor::ScanOp op,
                                PatternRewriter &rewriter) const override {
    Operation *combiner = op.getCommutativeCombiner();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    std::optional<TypedAttr> identity =
        combiner ? identityOf(combiner, type.getElementType()) : std::nullopt;
    if (!identity)
      return op.emitOpError()
             << "combines with a region Linea cannot run: one commutative "
                "add, multiply, max or min of its two arguments";
    Location loc = op.getLoc();
    int64_t dim = op.getDimension();
    int64_t rank = type.getRank();
    Value x = op.getInput();
    SmallVector<OpFoldResult> rowSizes = tensor::getMixedSizes(rewriter, loc, x);
    Value length = getValueOrCreateConstantIndexOp(rewriter, loc, rowSizes[dim]);
    rowSizes[dim] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    // The accumulator as one row of the scan (size 1 along `dim`): its dims
    // are the input's but `dim`, which joins a neighbour's group.
    SmallVector<ReassociationIndices> groups;
    for (int64_t a = 0; a + 1 < rank; ++a)
      groups.push_back({a < dim ? a : a + 1});
    if (rank > 1) {
      if (dim + 1 < rank)
        groups[dim].insert(groups[dim].begin(), dim);
      else
        groups.back().push_back(dim);
    }
    SmallVector<int64_t> rowShape(type.getShape());
    rowShape[dim] = 1;
    auto rowType = RankedTensorType::get(rowShape, type.getElementType());
    Value accumulatorRow = tensor::ExpandShapeOp::create(
        rewriter, loc, rowType, op.getAccumulator(), groups);
    Value start = accumulatorRow;
    if (op.getInclusive()) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, rowSizes,
                                            type.getElementType());
      Value c = arith::ConstantOp::create(rewriter, loc, *identity);
      start = linalg::FillOp::create(rewriter, loc, c, empty).getResult(0);
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    bool inclusive = op.getInclusive();
    // Carried: the running row, the output, and the last row stored (the
    // accumulator result; its initial value when the scan is empty).
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, length, one,
        ValueRange{start, op.getOutput(), accumulatorRow},
        [&](OpBuilder &b, Location l, Value p, ValueRange carried) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[dim] = p;
          Value slice = tensor::ExtractSliceOp::create(b, l, x, offsets,
                                                       rowSizes, strides);
          // Exclusive: the row before this step's slice is stored.
          Value before = inclusive ? Value() : carried[0];
          Value next = combineRows(b, l, combiner, carried[0], slice);
          Value stored = inclusive ? next : before;
          Value out = tensor::InsertSliceOp::create(b, l, stored, carried[1],
                                                    offsets, rowSizes, strides);
          Value last = linalg::CopyOp::create(b, l, stored, carried[2])
                           .getResult(0);
          scf::YieldOp::create(b, l, ValueRange{next, out, last});
        });
    Value accumulator = tensor::CollapseShapeOp::create(
        rewriter, loc, op.getAccumulator().getType(), loop.getResult(2), groups);
    rewriter.replaceOp(op, {loop.getResult(1), accumulator});
    return success();
  }
};
} // namespace

void mlir::linea::populateScanToLoopsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerScan>(patterns.getContext());
}
