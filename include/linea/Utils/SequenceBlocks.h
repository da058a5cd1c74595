//===- SequenceBlocks.h - loops whose iterations are GPU blocks -*- C++ -*-===//
//
// A sequence block is one iteration of an `scf.forall` mapped to GPU blocks
// (`#gpu.block<linear_dim_N>`): Linea tiles a chunked causal op over its
// sequences and value columns into such a loop, and each iteration, the
// whole chunk loop of one sequence included, runs as one block. The mapping
// attribute is the record of that decision; these helpers read and write it
// in one place.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_SEQUENCEBLOCKS_H
#define LINEA_UTILS_SEQUENCEBLOCKS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::linea {

/// The GPU block mapping names at most this many loops (linear_dim_0..9).
constexpr unsigned kMaxSequenceBlockLoops = 10;

/// The mapping of an `scf.forall` of `numLoops` dims whose iterations are
/// GPU blocks (linear block dims, so any number of loops).
SmallVector<Attribute> sequenceBlockMapping(MLIRContext *ctx,
                                            unsigned numLoops);

/// True for an `scf.forall` mapped to GPU blocks.
bool isSequenceBlockLoop(Operation *op);

/// The sequence block `op` runs in (one block runs it, with its threads),
/// or null.
Operation *enclosingSequenceBlock(Operation *op);

/// True when `op` runs inside one.
bool isInSequenceBlock(Operation *op);

/// The value columns one sequence block takes of `columns`: `valueTile`
/// when that splits them evenly into several tiles, else all of them.
int64_t sequenceBlockColumns(int64_t columns, int64_t valueTile);

} // namespace mlir::linea

#endif // LINEA_UTILS_SEQUENCEBLOCKS_H
