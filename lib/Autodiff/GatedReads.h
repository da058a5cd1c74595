//===- GatedReads.h - reads of gated states, for the backward --*- C++ -*-===//
//
// The gated backward (GatedAdjoint.cpp) reads gated states on either side;
// where it reads on the value side, the decay does not commute with the
// read, and no gated op computes it. These builders share its shapes.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_AUTODIFF_GATEDREADS_H
#define LINEA_LIB_AUTODIFF_GATEDREADS_H

#include "mlir/IR/Builders.h"

namespace mlir::linea {

/// The shapes the builders share: `numBatch` leading dims, then the
/// sequence; a scalar gate is `[B..., L]`, a per-key-dim one `[B..., L, Dk]`.
struct GateLayout {
  int64_t numBatch;
  bool scalarGate;
  int64_t seq() const { return numBatch; }
};

/// Which side of a `[Dk, Dv]` state a read contracts.
enum class ReadSide {
  value, // out[a] = sum_e S[a, e] x[e]
  key,   // out[e] = sum_a x[a] S[a, e]
};

/// Rows `x` (`[B..., n, D]`) read from `state` on `side`: `[B..., n, Dk]`
/// on the value side, `[B..., n, Dv]` on the key side.
Value readState(OpBuilder &b, Location loc, const GateLayout &layout,
                Value state, Value x, ReadSide side);

/// The rows `out_t[a] = sum_e S_t[a, e] x_t[e]` (`[B..., L, Dz]`) of the
/// gated states `S_t = diag(exp(g_t)) S_(t-1) + z_t^T y_t` from
/// `S_(-1) = seed` (null: zero), read on their value side, chunked (fla's
/// chunk_gla_bwd): no loop over the rows, so a GPU's launches do not grow
/// with L. Where one chunk's temporaries fit `sharedMemory` (one GPU
/// block's), each chunk's rows are a block of their own (a sequence block);
/// elsewhere every chunk's rows are computed at once, on grids.
Value chunkedValueSideReads(OpBuilder &b, Location loc,
                            const GateLayout &layout, Value x, Value y, Value z,
                            Value g, Value seed, int64_t sharedMemory);

} // namespace mlir::linea

#endif // LINEA_LIB_AUTODIFF_GATEDREADS_H
