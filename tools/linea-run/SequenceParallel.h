//===- SequenceParallel.h - linea-run across MPI ranks ---------*- C++ -*-===//
//
// linea-run --sequence-parallel under mpirun: every rank reads the same full
// inputs, keeps its block of rows of each sharded argument, runs the
// sequence-parallel function, and rank 0 writes the full results with the
// other ranks' rows gathered: files equal to a one-process run's.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_LINEA_RUN_SEQUENCEPARALLEL_H
#define LINEA_TOOLS_LINEA_RUN_SEQUENCEPARALLEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace mlir::linea::run {

/// This process's place in MPI_COMM_WORLD.
struct Job {
  int rank = 0, size = 1;
};

/// Initialises MPI (once per process) and finalises it at exit.
Job beginJob();
void endJob();
/// Stops every rank after an error on this one.
[[noreturn]] void abortJob();

/// This rank's rows of a dense row-major array along `dim`: rows
/// `[floor(r n / P), floor((r + 1) n / P))`. Updates `shape`.
std::vector<float> takeRows(const std::vector<float> &full,
                            llvm::SmallVectorImpl<int64_t> &shape, int64_t dim,
                            const Job &job);

/// On rank 0, every rank's rows concatenated along `dim` in rank order
/// (`shape` becomes the full shape); elsewhere nothing.
std::vector<float> gatherRows(llvm::ArrayRef<float> local,
                              llvm::SmallVectorImpl<int64_t> &shape,
                              int64_t dim, const Job &job);

/// Rank 0 prints one line per rank: `rank R sent N bytes`, the bytes the
/// program's own MPI calls sent in one call of it (of `calls`, all alike;
/// linea-run's own gathers not counted).
void printBytesSent(const Job &job, int calls);

/// The counting MPI_Allreduce the JIT binds in place of MPI's.
void *countingAllreduce();

} // namespace mlir::linea::run

#endif // LINEA_TOOLS_LINEA_RUN_SEQUENCEPARALLEL_H
