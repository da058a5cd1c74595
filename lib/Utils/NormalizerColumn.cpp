//===- NormalizerColumn.cpp - the normalizer as a value column ----------===//
//
// A normalized PrefixLM op becomes the unnormalized op over `[v, 1]`: the
// normalizer crosses a split (linea-split-prefix, linea-split-segments) as
// a state column.
//
//===----------------------------------------------------------------------===//

#include "linea/Utils/NormalizerColumn.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

Value dropLastColumn(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t last = type.getRank() - 1;
  return sliceAlong(b, loc, x, last, b.getIndexAttr(0),
                    b.getIndexAttr(type.getDimSize(last) - 1));
}

/// `type` with f32 elements and one more entry in its last dim: room for
/// the normalizer's column.
RankedTensorType withNormalizerColumn(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  if (!ShapedType::isDynamic(shape.back()))
    ++shape.back();
  return RankedTensorType::get(shape, Float32Type::get(type.getContext()));
}

/// A normalized PrefixLM op -> the unnormalized op over `[v, 1]`: the ones
/// column's output is the normalizer `phi(q) z` of each row (z = sum phi(k)
/// over the keys the row sees), so dividing by it afterwards (and scaling)
/// is the op. Its state carries `z` as an extra column, which is what lets
/// a split pass `z` across: SplitPrefix splits only unnormalized ops.
struct NormalizerAsValueColumn
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  NormalizerAsValueColumn(MLIRContext *context, bool packedOnly,
                          PatternBenefit benefit)
      : OpInterfaceRewritePattern(context, benefit), packedOnly(packedOnly) {}

  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (op.getEffectiveMask() != Mask::prefix || !op.getNormalize())
      return rewriter.notifyMatchFailure(op, "not a normalized prefix op");
    if (packedOnly && !op.isPacked())
      return rewriter.notifyMatchFailure(op, "one sequence: left to the split");
    Location loc = op.getLoc();
    LinearAttentionSpec spec = op.getSpec();
    spec.query = castToF32(rewriter, loc, spec.query);
    spec.key = castToF32(rewriter, loc, spec.key);
    spec.value =
        appendOnesColumn(rewriter, loc, castToF32(rewriter, loc, spec.value));
    spec.normalize = false;
    spec.scale = 1.0f;
    spec.outputType = withNormalizerColumn(op.getOutput().getType());
    if (Value finalState = op.getFinalState())
      spec.finalStateType = withNormalizerColumn(finalState.getType());
    Operation *unnormalized = op.createLike(rewriter, loc, spec);

    SmallVector<Value> results{
        finishRows(rewriter, loc, op, unnormalized->getResult(0))};
    if (Value finalState = op.getFinalState()) {
      Value state = dropLastColumn(rewriter, loc, unnormalized->getResult(1));
      if (state.getType() != finalState.getType())
        state =
            tensor::CastOp::create(rewriter, loc, finalState.getType(), state);
      results.push_back(state);
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  bool packedOnly;
};

} // namespace

void mlir::linea::populateNormalizerAsValueColumnPatterns(
    RewritePatternSet &patterns, bool packedOnly, PatternBenefit benefit) {
  patterns.add<NormalizerAsValueColumn>(patterns.getContext(), packedOnly,
                                        benefit);
}
