//===- FlashAttentionChoice.cpp - which attention runs as flash attention ===//

#include "linea/Utils/FlashAttentionChoice.h"

#include "linea/Utils/FloatTypes.h"
#include "linea/Utils/SequenceBlocks.h"

using namespace mlir;
using namespace mlir::linea;

bool flash::takesHeadSize(int64_t size) {
  return !ShapedType::isDynamic(size) && size > 0 &&
         size % kHeadSizeMultiple == 0 && size <= kMaxHeadSize;
}

Type flash::operandTypeFor(AttentionOp op, Precision precision) {
  if (!plannedForGPU(op) || isInSequenceBlock(op) ||
      precision == Precision::f32)
    return {};
  if (op.getMask() != Mask::none && op.getMask() != Mask::causal)
    return {};
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  auto v = cast<RankedTensorType>(op.getValue().getType());
  // One linear block dim per leading dim, one for the query tiles.
  int64_t nb = numBatchDims(q);
  if (nb + 1 > int64_t(kMaxSequenceBlockLoops))
    return {};
  if (!takesHeadSize(q.getDimSize(nb + 1)) ||
      !takesHeadSize(v.getDimSize(nb + 1)))
    return {};
  Type element = q.getElementType();
  if (isSixteenBitFloat(element) && k.getElementType() == element &&
      v.getElementType() == element)
    return element;
  Builder b(op.getContext());
  if (precision == Precision::bf16)
    return b.getBF16Type();
  if (precision == Precision::f16)
    return b.getF16Type();
  return {};
}
