//===- FlashAttentionChoice.h - which attention runs as flash attention -===//
//
// Two passes turn on the one decision: linea-flash-attention makes each op
// it takes a call to the flash-attention kernel, and linea-split-segments
// leaves a packed op it will take whole (the kernel walks the segments
// itself). Both ask here.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_FLASHATTENTIONCHOICE_H
#define LINEA_UTILS_FLASHATTENTIONCHOICE_H

#include "linea/Dialect/LineaOps.h"
#include "linea/Target/Target.h"

#include <cstdint>

namespace mlir::linea::flash {

/// The head sizes a warp's registers hold (64 accumulators at 128), in
/// whole ldmatrix.x4 loads (16 of them: a k16 step of Q K^T, 16 value
/// columns of P V).
constexpr int64_t kMaxHeadSize = 128;
constexpr int64_t kHeadSizeMultiple = 16;

/// Whether the kernel takes heads of `size` (a static multiple of 16 up
/// to 128).
bool takesHeadSize(int64_t size);

/// The tensor-core operand type `op` runs in as flash attention, or null
/// where it takes the generic route: not planned for the GPU, inside a
/// sequence block already, a mask other than none or causal, head sizes
/// the kernel does not take, f32 operands without a 16-bit `precision`,
/// or `precision=f32`. Packed ops are taken (one launch over every
/// segment).
Type operandTypeFor(AttentionOp op, Precision precision);

} // namespace mlir::linea::flash

#endif // LINEA_UTILS_FLASHATTENTIONCHOICE_H
