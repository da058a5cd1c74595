//===- VectorizeElementwise.cpp - vector rows for the ops around kernels --===//
//
// A model's time outside its contractions goes to elementwise chains, the
// softmax's row maxima and sums, masks built from indices and copies between
// layouts. Lowered to loops, LLVM's vectorizer widens the plainest of them
// and runs the rest (a select on an index, a reduction into a row) one
// element at a time. Tiled to rows of the innermost dim, each is exactly
// what MLIR's linalg vectorizer writes well: one contiguous transfer per
// operand and the body on vectors.
//
//===----------------------------------------------------------------------===//

#include "linea/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAVECTORIZEELEMENTWISE
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A body of scalar arithmetic: what the vectorizer widens op by op.
bool isScalarArithmetic(linalg::GenericOp op) {
  return llvm::all_of(op.getBody()->without_terminator(), [](Operation &inner) {
    Dialect *dialect = inner.getDialect();
    bool arithmetic =
        isa_and_nonnull<arith::ArithDialect, math::MathDialect>(dialect) ||
        isa<linalg::IndexOp>(inner);
    return arithmetic && llvm::all_of(inner.getResultTypes(), [](Type type) {
             return type.isIntOrIndexOrFloat();
           });
  });
}

/// Whether `operand` reads or writes a contiguous run of memory along the
/// innermost loop `inner`: the loop indexes its innermost dim, with unit
/// stride, or none of its dims (the operand is broadcast along the run).
bool isContiguousAlong(linalg::GenericOp op, OpOperand &operand,
                       unsigned inner) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto innerDim = getAffineDimExpr(inner, op.getContext());
  if (!llvm::is_contained(map.getResults(), innerDim))
    return true;
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (!type || map.getResults().back() != innerDim)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// Whether `operand`'s elements are whole bytes: a vector of i1 in memory
/// is packed bits, a buffer of i1 (a boolean mask) one byte per element.
bool hasByteElements(OpOperand &operand) {
  Type element = getElementTypeOrSelf(operand.get().getType());
  return element.isIndex() ||
         (element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0);
}

/// Elements of the innermost dim in one tile: all of a dim of at most
/// `most`, else the largest of most, most / 2, ... (down to 8) that
/// divides it; none (0) where no tile fits, or where a row is one element
/// (a vector of one lane is a scalar with extra steps).
int64_t rowTile(int64_t size, int64_t most) {
  if (ShapedType::isDynamic(size) || size == 1)
    return 0;
  if (size <= most)
    return size;
  for (int64_t tile = most; tile >= std::min<int64_t>(most, 8); tile /= 2)
    if (size % tile == 0)
      return tile;
  return 0;
}

/// Tile sizes putting one index of every outer loop and `rowTile` elements
/// of the innermost in a tile, or none where the op is not one this pass
/// vectorizes.
std::optional<SmallVector<int64_t>> rowTiles(linalg::GenericOp op,
                                             int64_t most) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !isScalarArithmetic(op) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  unsigned inner = op.getNumLoops() - 1;
  for (OpOperand &operand : op->getOpOperands())
    if (!isContiguousAlong(op, operand, inner) || !hasByteElements(operand))
      return std::nullopt;
  int64_t tile = rowTile(op.getStaticLoopRanges()[inner], most);
  if (tile == 0)
    return std::nullopt;
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes[inner] = tile;
  return sizes;
}

/// The row tiles of `op` as vector code, in the loops over the tiles that
/// it returns (none where the op is one tile); failure where the vectorizer
/// declined (the tile stays a generic, for convert-linalg-to-loops).
FailureOr<Operation *> vectorizeRows(RewriterBase &rewriter,
                                     linalg::GenericOp op,
                                     ArrayRef<int64_t> sizes) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
      rewriter, op, linalg::LinalgTilingOptions().setTileSizes(sizes));
  if (failed(tiled))
    return failure();
  rewriter.eraseOp(op);
  // A dynamic outer dim leaves a tile whose sizes only the loop bounds
  // prove to be one: the vector sizes say so.
  FailureOr<linalg::VectorizationResult> vectors = linalg::vectorize(
      rewriter, tiled->op, sizes, SmallVector<bool>(sizes.size(), false),
      /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/true);
  if (failed(vectors))
    return failure();
  rewriter.eraseOp(tiled->op);
  return tiled->loops.empty() ? nullptr : tiled->loops.front();
}

/// A row's sum (or maximum...) in any order: a linalg reduction fixes none,
/// and without `reassoc` LLVM adds the lanes one after another.
void reduceInAnyOrder(Operation *tiles) {
  tiles->walk([](vector::ReductionOp reduction) {
    if (isa<FloatType>(reduction.getType()))
      reduction.setFastmath(arith::FastMathFlags::reassoc);
  });
}

/// A 0-d read of a buffer of any rank (a row's scalar that is broadcast
/// along it) as the load it is: convert-vector-to-llvm has no lowering for
/// a 0-d transfer from a strided view of rank one or more.
struct ScalarReadAsLoad : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (read.getVectorType().getRank() != 0 || read.getMask() ||
        !isa<MemRefType>(read.getBase().getType()))
      return failure();
    Value scalar = memref::LoadOp::create(rewriter, read.getLoc(),
                                          read.getBase(), read.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(read, read.getVectorType(),
                                                     scalar);
    return success();
  }
};

/// The vectorizer's n-D vectors of leading ones as 1-D vectors on
/// rank-reduced views, then its reductions and permuted transfers as the
/// ops convert-vector-to-llvm takes. First, a reduction over unit dims (a
/// tile of a sum down the rows) is the elementwise combine it is, not a
/// transpose and one reduction per lane. (The broadcasts go to LLVM as they
/// are: upstream's broadcast lowering and the unit-dim patterns undo each
/// other.)
void lowerToRows(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet rows(context);
  vector::populateCastAwayVectorLeadingOneDimPatterns(rows);
  vector::populateVectorTransferDropUnitDimsPatterns(rows);
  vector::MultiDimReductionOp::getCanonicalizationPatterns(rows, context);
  vector::TransferReadOp::getCanonicalizationPatterns(rows, context);
  vector::TransferWriteOp::getCanonicalizationPatterns(rows, context);
  (void)applyPatternsGreedily(root, std::move(rows));

  RewritePatternSet lowering(context);
  vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
  vector::populateVectorMultiReductionLoweringPatterns(
      lowering, vector::VectorMultiReductionLowering::InnerReduction);
  vector::populateVectorShapeCastLoweringPatterns(lowering);
  lowering.add<ScalarReadAsLoad>(context);
  (void)applyPatternsGreedily(root, std::move(lowering));
}

struct LineaVectorizeElementwisePass
    : linea::impl::LineaVectorizeElementwiseBase<
          LineaVectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(linea::checkTileOption(getOperation(), "tile", tile, 1024)))
      return signalPassFailure();
    SmallVector<std::pair<linalg::GenericOp, SmallVector<int64_t>>> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<SmallVector<int64_t>> sizes = rowTiles(op, tile))
        candidates.emplace_back(op, std::move(*sizes));
    });
    if (candidates.empty())
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> tiles;
    for (auto &[op, sizes] : candidates) {
      FailureOr<Operation *> loops = vectorizeRows(rewriter, op, sizes);
      if (succeeded(loops) && *loops)
        tiles.push_back(*loops);
    }
    lowerToRows(getOperation());
    for (Operation *loops : tiles)
      reduceInAnyOrder(loops);
  }
};

} // namespace
