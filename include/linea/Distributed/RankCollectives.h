//===- RankCollectives.h - MPI collectives on tensors -----------*- C++ -*-===//
//
// The few collectives a sequence-parallel program needs, built at tensor
// level so that they sit among the Linea ops they serve: each stages its
// tensor in a fresh buffer, calls MPI on buffers, and hands the received
// buffer back as a tensor (`bufferization.to_tensor restrict`).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_DISTRIBUTED_RANKCOLLECTIVES_H
#define LINEA_DISTRIBUTED_RANKCOLLECTIVES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::linea {

/// Memory effects for the mpi ops Linea emits on buffers (MLIR 22 declares
/// none, and buffer deallocation refuses ops with unknown effects):
/// `mpi.allreduce` reads its send buffer and writes its receive buffer.
void registerMPIMemoryEffects(DialectRegistry &registry);

/// This process's place in MPI_COMM_WORLD, as `index` values.
struct Ranks {
  Value rank, size;
};
Ranks buildRanks(OpBuilder &b, Location loc);

/// Every rank's 1-D `record` (f32 or i64, the same length everywhere) on
/// every rank: `[P, n]`, row `s` from rank `s`. Declares the runtime's
/// all-gather in `module` on first use.
Value allGather(OpBuilder &b, Location loc, ModuleOp module, Value record,
                Value numRanks);

/// The elementwise sum of `tensor` over all ranks (`mpi.allreduce`).
Value allReduceSum(OpBuilder &b, Location loc, Value tensor);

/// `x` as a 1-D tensor (row-major), and back into the shape of `like`.
Value flatten(OpBuilder &b, Location loc, Value x);
Value unflattenLike(OpBuilder &b, Location loc, Value flat, Value like);

} // namespace mlir::linea

#endif // LINEA_DISTRIBUTED_RANKCOLLECTIVES_H
