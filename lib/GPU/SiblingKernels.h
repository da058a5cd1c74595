//===- SiblingKernels.h - elementwise siblings, one launch -----*- C++ -*-===//
//
// linea-map-to-gpu makes each linalg op outside a sequence block a kernel
// of its own. Elementwise ops side by side that do not touch each other's
// outputs (a linear attention's q, k and v padded to whole chunks, its
// first state zeroed) need no launch each: their iteration spaces, each
// collapsed to one dim, run as one band, thread t taking the first op's
// element t, or the second's element t - n1, and so on.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_SIBLINGKERNELS_H
#define LINEA_LIB_GPU_SIBLINGKERNELS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// The groups of two or more ops of `candidates` (in program order) that
/// may run as one kernel: each op elementwise on buffers (no reduction
/// loops), writing only allocations of this function; the ops of a group
/// consecutive in one block (only ops without memory effects, views and
/// allocations between them), none reading or writing what another
/// writes. An op is in at most one group.
SmallVector<SmallVector<linalg::LinalgOp>>
siblingGroups(ArrayRef<linalg::LinalgOp> candidates);

/// One 1-d band over the iterations of `bands` (1-d, in program order),
/// placed where the last one was: iteration t runs the body of the band
/// whose range, laid end to end with the others, holds t. Erases `bands`.
scf::ParallelOp mergeBands(RewriterBase &rewriter,
                           ArrayRef<scf::ParallelOp> bands);

} // namespace mlir::linea

#endif // LINEA_LIB_GPU_SIBLINGKERNELS_H
