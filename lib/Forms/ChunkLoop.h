//===- ChunkLoop.h - a loop over chunks of rows ---------------*- C++ -*-===//
//
// The chunked form's loop: full chunks of C rows in an `scf.for` carrying
// the state and the output, then the remainder. The causal chunked form
// builds its rows and state update on it; inside a GPU sequence block the
// one-shot form of a gated, normalized or feature-mapped op runs two of
// them (the state, then the rows), so that no temporary is as long as the
// sequence.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_FORMS_CHUNKLOOP_H
#define LINEA_FORMS_CHUNKLOOP_H

#include "ChunkRows.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// One step: a prepared chunk and the state entering it -> (the chunk's
/// unscaled rows, or null for none; the state after it).
using ChunkStep = function_ref<std::pair<Value, Value>(
    OpBuilder &, Location, const Chunk &, Value state)>;
/// A chunk's rows made output rows.
using RowFinisher = function_ref<Value(OpBuilder &, Location, Value rows)>;
/// A chunk of the operands' rows made the step's f32 operands.
using ChunkPreparer =
    function_ref<Chunk(OpBuilder &, Location, const Chunk &rows)>;

/// The chunked form of one op: its operands as they are, how a chunk of
/// their rows becomes the step's f32 operands (`prepare`: feature map,
/// the normalizer's ones column, chunk by chunk so that no whole-sequence
/// copy is made), the chunk size, what one step computes (`step`) and how
/// rows become output rows (`finish`: scale, normalize, cast). The output
/// has the shape of `outputLike` (the op's value) and the element type
/// `outputType`; a loop whose steps return no rows leaves it unwritten.
struct ChunkLoop {
  Value q, k, v, g;
  ChunkPreparer prepare;
  int64_t chunkSize;
  /// Pad the remainder chunk to C rows (see buildChunkLoop).
  bool padTail;
  /// Whether `prepare` keeps zero key rows zero (see chunkStep).
  bool keysKeepZero;
  ChunkStep step;
  RowFinisher finish;
  Value outputLike;
  Type outputType;
};

/// The loop over chunks carrying (S, O). Full chunks have the static size C
/// (static shapes for the contractions: vectorizable loops on the CPU,
/// tensor-core tiles on the GPU); the remainder, when L % C != 0, is one
/// more step after the loop, padded to C rows when `padTail` (every
/// temporary then has a static size: what a GPU sequence block needs for
/// shared memory). Returns (final state, output).
std::pair<Value, Value> buildChunkLoop(OpBuilder &b, Location loc,
                                       const ChunkLoop &form, Value state);

/// Inside a sequence block the state gets a buffer of its own, which the
/// block keeps in shared memory. Otherwise empty-tensor
/// elimination would place it in the final-state output, so that every
/// chunk updates it in global memory.
Value inOwnBuffer(RewriterBase &rewriter, Value state);

} // namespace mlir::linea

#endif // LINEA_FORMS_CHUNKLOOP_H
