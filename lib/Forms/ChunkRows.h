//===- ChunkRows.h - a chunk's output rows, for both chunked forms -*- C++ -*-===//
//
// The sequential chunked form and the chunk-parallel form compute a chunk's
// output rows the same way from the state entering it: the intra-chunk term
// `tril(Q_c K_c^T) V_c` plus the inter-chunk term `Q_c S`, with gates
// decayed relative to the chunk start. The sequential form calls these on
// one chunk at a time; the chunk-parallel form on every chunk at once, the
// chunk axis one more batch dim (`[B..., N, C, D]`, states `[B..., N, Dk, Dv]`).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_FORMS_CHUNKROWS_H
#define LINEA_FORMS_CHUNKROWS_H

#include "mlir/IR/Builders.h"

namespace mlir::linea {

/// A chunk's f32 operands (`g` null without gates).
struct Chunk {
  Value q, k, v, g;
};

/// `tril(Q K^T) V + Q S`: the unscaled output rows of chunks entered with
/// state `s`.
Value plainChunkRows(OpBuilder &b, Location loc, int64_t numBatch,
                     const Chunk &c, Value s);

/// How the gated intra-chunk scores are built.
struct GatedScoresPlan {
  /// Chunks whose `|b|` stays within kFactorableLogDecay take the scores as
  /// one masked contraction of `q exp(b)` and `k exp(-b)`, chosen at run
  /// time (an `scf.if` on the data: CPU code only).
  bool mayFactor = false;
  /// The safe scores of a static chunk take its 16-row blocks all at once,
  /// a batch dim (no loop: the chunk-parallel form, whose kernels must not
  /// launch from the host), rather than one block column after another
  /// (the temporaries of one column: what a sequence block can hold).
  bool blocksAtOnce = false;
  /// With blocksAtOnce, the exact diagonal blocks are one GPU block each
  /// (a sequence block), which stages its rows in shared memory.
  bool diagonalInBlocks = false;
};

/// The gated rows, with `cum = presum(g)` within each chunk:
/// `sum_{t <= i} (q_i .* exp(b_i - b_t)) . k_t v_t + (q_i .* exp(b_i)) S`.
Value gatedChunkRows(OpBuilder &b, Location loc, int64_t numBatch, bool scalar,
                     const GatedScoresPlan &plan, const Chunk &c, Value cum,
                     Value s);

} // namespace mlir::linea

#endif // LINEA_FORMS_CHUNKROWS_H
