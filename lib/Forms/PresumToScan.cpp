//===- PresumToScan.cpp - presum -> a blocked two-level scan --------------===//
//
// Three steps over blocks of B rows along the scanned dim: (1) each block's
// sum, independently; (2) an exclusive scan of the ceil(N / B) sums, in the
// same direction as the presum, giving each block its offset; (3) a scan
// inside each block seeded with its offset, independently. Steps 1 and 3
// are the parallel ones; step 2 touches only N / B values.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Forms/Passes.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPRESUMTOSCAN
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

constexpr int64_t kMinBlock = 16, kDynamicBlock = 64;

/// The op's chosen block size, else the option, else about sqrt(N) rows,
/// which balances the two parallel steps against the sequential scan of
/// the block sums.
int64_t blockSizeFor(PresumOp op, int64_t length, int64_t option) {
  if (FormAttr form = op.getFormAttr(); form && form.getSize() > 0)
    return form.getSize();
  if (option > 0)
    return option;
  if (ShapedType::isDynamic(length))
    return kDynamicBlock;
  return std::max<int64_t>(kMinBlock, std::lround(std::sqrt(double(length))));
}

/// A loop over the blocks of `dim`; `body` gets the block index, its first
/// row and its size (the last block may be shorter).
scf::ForOp forEachBlock(OpBuilder &b, Location loc, Value count, Value block,
                        Value length, Value init,
                        function_ref<Value(OpBuilder &, Location, Value index,
                                           Value start, Value size, Value acc)>
                            body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{init},
      [&](OpBuilder &nb, Location l, Value index, ValueRange carried) {
        Value start = arith::MulIOp::create(nb, l, index, block);
        Value size = arith::MinSIOp::create(
            nb, l, block, arith::SubIOp::create(nb, l, length, start));
        Value next = body(nb, l, index, start, size, carried[0]);
        scf::YieldOp::create(nb, l, next);
      });
}

/// The sum of `x` along `dim`, keeping it as a size-1 dim.
Value sumKeepingDim(OpBuilder &b, Location loc, Value x, int64_t dim) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[dim] = b.getIndexAttr(1);
  Value init = buildFilled(b, loc, sizes, b.getF32Type(), 0);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    outExprs.push_back(i == dim ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(i, ctx));
    iterators.push_back(i == dim ? utils::IteratorType::reduction
                                 : utils::IteratorType::parallel);
  }
  return buildGeneric(b, loc, x, init,
                      {AffineMap::getMultiDimIdentityMap(rank, ctx),
                       AffineMap::get(rank, 0, outExprs, ctx)},
                      iterators,
                      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return arith::AddFOp::create(nb, l, args[1], args[0]);
                      });
}

struct BlockedPresum : OpRewritePattern<PresumOp> {
  BlockedPresum(MLIRContext *ctx, int64_t blockSize)
      : OpRewritePattern(ctx), blockSize(blockSize) {}

  LogicalResult matchAndRewrite(PresumOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.formAllows(FormKind::blocked_scan))
      return rewriter.notifyMatchFailure(op, "its form is not the blocked scan");
    if (op.getOffsets())
      return rewriter.notifyMatchFailure(
          op, "packed segments: linea-split-segments makes one op of each");
    int64_t dim = op.getScanDim();
    int64_t staticLength = op.getInput().getType().getDimSize(dim);
    int64_t blockRows = blockSizeFor(op, staticLength, blockSize);
    // A single block is the plain scan already.
    if (!ShapedType::isDynamic(staticLength) && staticLength <= blockRows)
      return rewriter.notifyMatchFailure(
          op, "one block holds the whole scan (the plain scan already)");

    Location loc = kernelStageLoc(op, "scan");
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Value x = castToF32(rewriter, loc, op.getInput());
    Value length = tensor::DimOp::create(rewriter, loc, x, dim);
    Value block = arith::ConstantIndexOp::create(rewriter, loc, blockRows);
    Value count = arith::CeilDivUIOp::create(rewriter, loc, length, block);

    // (1) Block sums.
    SmallVector<OpFoldResult> sumSizes = tensor::getMixedSizes(rewriter, loc, x);
    sumSizes[dim] = count;
    if (!ShapedType::isDynamic(staticLength))
      sumSizes[dim] = rewriter.getIndexAttr(llvm::divideCeil(staticLength, blockRows));
    Value sums = tensor::EmptyOp::create(rewriter, loc, sumSizes,
                                         rewriter.getF32Type());
    sums = forEachBlock(rewriter, loc, count, block, length, sums,
                        [&](OpBuilder &b, Location l, Value index, Value start,
                            Value size, Value acc) {
                          Value rows = sliceAlong(b, l, x, dim, start, size);
                          return insertAlong(b, l, sumKeepingDim(b, l, rows, dim),
                                             acc, dim, index);
                        })
               .getResult(0);
    // (2) Each block's offset: the exclusive scan of the sums.
    Value offsets = buildSequentialScan(rewriter, loc, sums, dim,
                                        /*exclusive=*/true, reverse, Value());
    // (3) Scan inside each block from its offset.
    Value out = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, x),
        rewriter.getF32Type());
    out = forEachBlock(
              rewriter, loc, count, block, length, out,
              [&](OpBuilder &b, Location l, Value index, Value start,
                  Value size, Value acc) {
                Value rows = sliceAlong(b, l, x, dim, start, size);
                Value seed =
                    sliceAlong(b, l, offsets, dim, index, b.getIndexAttr(1));
                Value scanned = buildSequentialScan(b, l, rows, dim, exclusive,
                                                    reverse, seed);
                return insertAlong(b, l, scanned, acc, dim, start);
              })
              .getResult(0);
    rewriter.replaceOp(op, castFromF32(rewriter, loc, out,
                                       op.getOutput().getType().getElementType()));
    return success();
  }

  int64_t blockSize;
};

struct LineaPresumToScanPass
    : linea::impl::LineaPresumToScanBase<LineaPresumToScanPass> {
  using LineaPresumToScanBase::LineaPresumToScanBase;

  void runOnOperation() override {
    if (failed(verifyFormSizeOption(getOperation(), "block-size", blockSize)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populatePresumToScanPatterns(patterns, blockSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::linea::populatePresumToScanPatterns(RewritePatternSet &patterns,
                                               int64_t blockSize) {
  patterns.add<BlockedPresum>(patterns.getContext(), blockSize);
}
