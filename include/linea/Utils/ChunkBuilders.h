//===- ChunkBuilders.h - sequences cut into chunks and blocks --*- C++ -*-===//
//
// The chunked algorithms cut a sequence `[B..., L, D...]` into N chunks of
// C rows (`[B..., N, C, D...]`, the chunk axis one more batch dim) and a
// chunk into blocks of 16 rows, one tensor-core tile, whose log-decays
// factor against a reference row between a block's queries and the keys
// before it. The chunk-parallel form and the gated backward both build on
// these.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_CHUNKBUILDERS_H
#define LINEA_UTILS_CHUNKBUILDERS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::linea {

/// How the sequence of `[B..., L, D...]` splits into chunks.
struct ChunkGrid {
  int64_t seq;                              // the sequence dim
  int64_t size;                             // C
  OpFoldResult length, count, paddedLength; // L, N = ceil(L / C), N C
};

/// The grid of chunks of `chunk` rows over the sequence of `x`.
ChunkGrid gridFor(OpBuilder &b, Location loc, Value x, int64_t chunk);

/// `x` padded with zero rows to N C along the sequence, viewed as
/// `[B..., N, C, D...]`.
Value splitIntoChunks(OpBuilder &b, Location loc, Value x,
                      const ChunkGrid &grid);

/// `[B..., N, C, D]` rows back to `[B..., L, D]`: the chunks joined, the
/// padding dropped.
Value joinChunks(OpBuilder &b, Location loc, Value rows, const ChunkGrid &grid);

/// `[first; rest]` along `dim`, `first` (f32, lacking that dim) zeros where
/// null. Linea's lowering writes `rest` in place into the joined buffer; a
/// hand-off gets a zero step as a pad instead: the empty tensor filled by
/// two inserts is, for IREE's GPU target, a write to a global buffer
/// outside any workgroup, which it refuses.
Value prependAlong(OpBuilder &b, Location loc, Value first, Value rest,
                   int64_t dim, bool handOff);

/// The rows of one tensor-core tile: the block a chunk's steep-gate scores
/// split into.
constexpr int64_t kSubBlock = 16;

/// `x` with its dim `dim` (C rows) split into blocks of kSubBlock rows:
/// `[..., C, ...]` -> `[..., C / 16, 16, ...]`.
Value splitIntoBlocks(OpBuilder &b, Location loc, Value x, int64_t dim);

/// `x` with the dims `dim` and `dim + 1` merged into one.
Value mergeDims(OpBuilder &b, Location loc, Value x, int64_t dim);

/// `x[B..., t, d] * exp(log[B..., t, d] - ref[B..., d])` for rows `t >
/// after` (0 above; every row without `after`), or with `towardRef`
/// `x * exp(ref - log)` for every row (no `d` in `log` and `ref` for a
/// scalar gate). Each exponent is taken only where the caller guarantees
/// it is `<= 0`.
Value decayAgainst(OpBuilder &b, Location loc, int64_t numBatch, bool scalar,
                   Value x, Value log, Value ref, bool towardRef,
                   Value after = Value());

/// `build`'s `[rows, cols]` result for each index of `counts` (`[B...]`)
/// in a GPU block of its own: an `scf.forall` mapped to GPU blocks (a
/// sequence block, as the chunked form has one per sequence), whose
/// temporaries live in shared memory. `build` gets the indices and returns
/// `[1..., rows, cols]`, inserted at its place in `[B..., rows, cols]`.
Value inSequenceBlocks(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> counts,
    OpFoldResult rows, OpFoldResult cols,
    function_ref<Value(OpBuilder &, Location, ValueRange)> build);

} // namespace mlir::linea

#endif // LINEA_UTILS_CHUNKBUILDERS_H
