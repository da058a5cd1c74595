//===- SequenceParallel.cpp - linea-run across MPI ranks ------------------===//
//
// Compiled only where the MPI runtime library is built (LINEA_HAVE_MPI).
//
//===----------------------------------------------------------------------===//

#ifdef LINEA_HAVE_MPI

#include "SequenceParallel.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

// Linea's MPI runtime library (runtime/LineaMpiRuntime.cpp).
extern "C" {
void linea_mpi_begin();
void linea_mpi_end();
void linea_mpi_abort(int code);
int linea_mpi_rank();
int linea_mpi_size();
int64_t linea_mpi_bytes_sent();
void linea_mpi_gather_i64(int64_t value, int64_t *values);
void linea_mpi_gather_f32(const float *send, int64_t count, float *recv,
                          const int64_t *counts);
int linea_mpi_counted_allreduce();
}

using namespace mlir::linea::run;

namespace {

/// The sizes before `dim` and after it, multiplied out.
std::pair<int64_t, int64_t> outerInner(llvm::ArrayRef<int64_t> shape,
                                       int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (d < dim)
      outer *= shape[d];
    else if (d > dim)
      inner *= shape[d];
  }
  return {outer, inner};
}

} // namespace

Job mlir::linea::run::beginJob() {
  linea_mpi_begin();
  return {linea_mpi_rank(), linea_mpi_size()};
}

void mlir::linea::run::endJob() { linea_mpi_end(); }

void mlir::linea::run::abortJob() {
  llvm::errs().flush();
  linea_mpi_abort(1);
  std::_Exit(1);
}

std::vector<float> mlir::linea::run::takeRows(const std::vector<float> &full,
                                        llvm::SmallVectorImpl<int64_t> &shape,
                                        int64_t dim, const Job &job) {
  auto [outer, inner] = outerInner(shape, dim);
  int64_t rows = shape[dim];
  int64_t first = rows * job.rank / job.size;
  int64_t last = rows * (job.rank + 1) / job.size;
  std::vector<float> mine;
  mine.reserve(outer * (last - first) * inner);
  for (int64_t o = 0; o < outer; ++o) {
    const float *block = full.data() + (o * rows + first) * inner;
    mine.insert(mine.end(), block, block + (last - first) * inner);
  }
  shape[dim] = last - first;
  return mine;
}

std::vector<float> mlir::linea::run::gatherRows(llvm::ArrayRef<float> local,
                                          llvm::SmallVectorImpl<int64_t> &shape,
                                          int64_t dim, const Job &job) {
  auto [outer, inner] = outerInner(shape, dim);
  std::vector<int64_t> rows(job.size), counts(job.size);
  linea_mpi_gather_i64(shape[dim], rows.data());
  linea_mpi_gather_i64(int64_t(local.size()), counts.data());
  int64_t total = 0;
  for (int64_t count : counts)
    total += count;
  std::vector<float> received(job.rank == 0 ? total : 0);
  linea_mpi_gather_f32(local.data(), local.size(), received.data(),
                       counts.data());
  if (job.rank != 0)
    return {};
  // Rank s sent [outer, rows_s, inner]; interleave along `dim`.
  std::vector<float> full;
  full.reserve(total);
  std::vector<int64_t> start(job.size, 0);
  for (int s = 1; s < job.size; ++s)
    start[s] = start[s - 1] + counts[s - 1];
  int64_t allRows = 0;
  for (int64_t r : rows)
    allRows += r;
  for (int64_t o = 0; o < outer; ++o)
    for (int s = 0; s < job.size; ++s) {
      const float *block = received.data() + start[s] + o * rows[s] * inner;
      full.insert(full.end(), block, block + rows[s] * inner);
    }
  shape[dim] = allRows;
  return full;
}

void mlir::linea::run::printBytesSent(const Job &job, int calls) {
  std::vector<int64_t> bytes(job.size);
  linea_mpi_gather_i64(linea_mpi_bytes_sent() / calls, bytes.data());
  if (job.rank != 0)
    return;
  for (int s = 0; s < job.size; ++s)
    llvm::outs() << "rank " << s << " sent " << bytes[s] << " bytes\n";
  llvm::outs().flush();
}

void *mlir::linea::run::countingAllreduce() {
  return reinterpret_cast<void *>(&linea_mpi_counted_allreduce);
}

#endif // LINEA_HAVE_MPI
