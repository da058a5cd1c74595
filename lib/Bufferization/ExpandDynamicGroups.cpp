//===- ExpandDynamicGroups.cpp - multi-dynamic expands as casts -----------===//
//
// A memref.expand_shape that splits one dim into several dynamic ones (a
// `[B * L, D]` buffer back into `[B, L, D]`) crashes upstream's
// expand-strided-metadata in MLIR 22. The expansion is new sizes and
// strides over the same base and offset: a memref.reinterpret_cast of the
// source's strided metadata.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEXPANDDYNAMICGROUPS
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// `a * b` of two sizes, folded where both are constants.
OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x);
  std::optional<int64_t> cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  if (cx == 1)
    return y;
  if (cy == 1)
    return x;
  return arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

struct ExpandAsReinterpretCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    MemRefType source = op.getSrcType();
    MemRefType result = op.getResultType();
    bool severalDynamic =
        llvm::any_of(op.getReassociationIndices(), [&](const auto &group) {
          return llvm::count_if(group, [&](int64_t d) {
                   return result.isDynamicDim(d);
                 }) >= 2;
        });
    if (!severalDynamic)
      return rewriter.notifyMatchFailure(
          op, "no group with two dynamic dims: upstream's");
    SmallVector<int64_t> sourceStrides;
    int64_t sourceOffset;
    if (failed(source.getStridesAndOffset(sourceStrides, sourceOffset)))
      return rewriter.notifyMatchFailure(op, "a layout without strides");
    Location loc = op.getLoc();
    // The source's base, offset and strides (constants where its type
    // knows them); each group's innermost dim keeps its source dim's
    // stride, the ones outside it multiply by the sizes inside.
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    auto known = [&](int64_t value, Value dynamic) -> OpFoldResult {
      if (ShapedType::isDynamic(value))
        return dynamic;
      return rewriter.getIndexAttr(value);
    };
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(sizes.size());
    for (auto [s, group] : llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride =
          known(sourceStrides[s], metadata.getStrides()[s]);
      for (int64_t d : llvm::reverse(group)) {
        strides[d] = stride;
        stride = multiply(rewriter, loc, stride, sizes[d]);
      }
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, result, metadata.getBaseBuffer(),
        known(sourceOffset, metadata.getOffset()), sizes, strides);
    return success();
  }
};

struct LineaExpandDynamicGroupsPass
    : linea::impl::LineaExpandDynamicGroupsBase<LineaExpandDynamicGroupsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandAsReinterpretCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
