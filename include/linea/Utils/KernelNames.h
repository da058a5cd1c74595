//===- KernelNames.h - what each GPU kernel is called ----------*- C++ -*-===//
//
// A GPU profile reads only if its kernels are named after what they compute.
// The name is decided where that is known: a form names each stage of the
// op it rewrites in the locations of the ops it builds (a fused location
// whose metadata carries the name), the locations travel with those ops
// through bufferization and mapping, and linea-name-kernels gives each
// launch the name its ops carry (or one after its content, for the model's
// own ops).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_KERNELNAMES_H
#define LINEA_UTILS_KERNELNAMES_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace mlir::linea {

/// The key of a kernel name in a fused location's metadata dictionary.
inline constexpr llvm::StringLiteral kKernelNameKey = "linea.kernel";
/// The key of a 16-bit op's element type there.
inline constexpr llvm::StringLiteral kComputeTypeKey = "linea.compute_type";
/// The key of the blocks per SM a kernel is built for, where its builder
/// knows better than linea-launch-bounds' default (a kernel whose warps
/// hold their accumulators in registers wants the registers of fewer).
inline constexpr llvm::StringLiteral kBlocksPerSMKey = "linea.blocks_per_sm";

/// `loc` with the kernel name `name`, unless it carries one already: the
/// first form to name an op's stage keeps the name through later forms (a
/// chunk-parallel form's scan of states stays that when its presum becomes
/// a scan).
Location withKernelName(Location loc, const Twine &name);

/// The kernel name `loc` (or a location nested in it) carries, if any.
std::optional<StringRef> kernelNameOf(Location loc);

/// The family a Linea op's kernels are named after: its math, as fla and
/// the papers call it (`linear_attention`, `gla` for a gate per key,
/// `simple_gla` for a scalar gate per token, `attention` for softmax
/// attention, `presum`, ...).
std::string kernelFamily(Operation *op);

/// The location for the ops of stage `stage` of `op`'s rewrite: named
/// `<family>_<stage>`, and carrying `op`'s element type where it is a
/// 16-bit float (its contractions' tensor-core type under
/// `precision=auto`: computeTypeOf).
Location kernelStageLoc(Operation *op, StringRef stage);

/// The 16-bit float type of the Linea op `loc`'s op was built from, or
/// null.
Type computeTypeOf(Location loc);

/// `loc` marked as a kernel's built for `blocks` blocks per SM.
Location withBlocksPerSM(Location loc, int64_t blocks);

/// The blocks per SM `loc` (or a location nested in it) says its kernel
/// is built for, if any.
std::optional<int64_t> blocksPerSMOf(Location loc);

} // namespace mlir::linea

#endif // LINEA_UTILS_KERNELNAMES_H
