//===- FoldBuilders.h - the loops and bodies of folded attention -*- C++ -*-===//
//
// linea.fold is a loop over segments by definition, and linea.folded_attention
// is a fold with one attention layer in its body: the optimizer
// (linea-fold-to-loop, linea-expand-folded-attention) and the reference
// lowering build them the same way, here.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_FOLDBUILDERS_H
#define LINEA_UTILS_FOLDBUILDERS_H

#include "linea/Dialect/LineaOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::linea {

/// `fold` as an `scf.for` over its segments carrying one memory
/// `[B..., l, D]` and the output; the body is cloned into the loop.
/// Returns the fold's results (output, final memory).
SmallVector<Value> buildSegmentLoop(OpBuilder &b, FoldOp fold);

/// `op` as the `linea.fold` it is defined as: projections to the per-head
/// layout, one causal `linea.attention`, the output projection.
FoldOp buildFoldedAttentionFold(OpBuilder &b, FoldedAttentionOp op);

} // namespace mlir::linea

#endif // LINEA_UTILS_FOLDBUILDERS_H
