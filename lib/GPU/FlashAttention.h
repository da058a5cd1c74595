//===- FlashAttention.h - the flash-attention kernel's call ---*- C++ -*-===//
//
// What linea-flash-attention (which ops, as a call) and
// linea-expand-flash-attention (the call as GPU blocks) share: the call's
// attribute and the kernel's tile sizes.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_FLASHATTENTION_H
#define LINEA_LIB_GPU_FLASHATTENTION_H

#include "linea/Dialect/LineaDialect.h"
#include "linea/Utils/FlashAttentionChoice.h"

#include <cstdint>

namespace mlir::linea::flash {

/// The attribute of a call standing for one flash-attention kernel until
/// the program is on buffers: a dictionary of `causal` (bool), `scale`
/// (f32, the scores' factor) and `operand_type` (the tensor-core type).
/// The callee is a private declaration `(q, k, v, out)`, buffers of
/// identity layout `[B..., L, D]`, or `(q, k, v, offsets, out)` for
/// packed sequences (`offsets`: the `N + 1` segment bounds along `L`, as
/// linea.attention's).
inline constexpr llvm::StringLiteral kCallAttr =
    LineaDialect::kFlashAttentionAttrName;

constexpr int64_t kWarp = 32;
constexpr int64_t kWarps = 8;
/// One m16 tile of query rows per warp.
constexpr int64_t kRowsPerWarp = 16;
constexpr int64_t kQueryRows = kWarps * kRowsPerWarp;
constexpr int64_t kKeyRows = 64;
constexpr int64_t kThreads = kWarps * kWarp;

} // namespace mlir::linea::flash

#endif // LINEA_LIB_GPU_FLASHATTENTION_H
