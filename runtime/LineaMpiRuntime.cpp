//===- LineaMpiRuntime.cpp - MPI for sequence-parallel Linea programs -----===//
//
// Two audiences, one small C ABI over the MPI C API:
// - code compiled from `linea-sequence-parallel`: the all-gather of the
//   ranks' state records (MPI_Allgather, which MLIR's mpi dialect lacks),
//   called through `llvm.emit_c_interface` with memref descriptors, and a
//   counting MPI_Allreduce that linea-run binds in place of MPI's own;
// - hosts that split a sequence across ranks (linea-run): initialisation,
//   rank and size, the gather of result rows to rank 0, and the bytes the
//   program itself sent (the harness's own gathers are not counted).
// Everything uses MPI_COMM_WORLD, as the mpi dialect's `mpi.comm_world` does.
//
//===----------------------------------------------------------------------===//

// The C API only (Open MPI and MPICH otherwise pull in C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <vector>

#define LINEA_MPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// A rank-`Rank` memref descriptor as MLIR's C interface passes it.
template <typename T, int Rank> struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

int64_t bytesSent = 0;
bool initializedHere = false;

int checkedCount(int64_t count, const char *what) {
  if (count < 0 || count > INT_MAX) {
    std::fprintf(stderr, "linea: %s of %lld elements exceeds MPI's int count\n",
                 what, static_cast<long long>(count));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return static_cast<int>(count);
}

/// Every rank's `send` (one row of `recv` each, in rank order) into every
/// rank's `recv`. Both buffers are contiguous: the compiler allocates them.
template <typename T>
void allGather(MemRef<T, 1> *send, MemRef<T, 2> *recv, MPI_Datatype type) {
  int count = checkedCount(send->sizes[0], "an all-gather");
  bytesSent += int64_t(count) * int64_t(sizeof(T));
  MPI_Allgather(send->aligned + send->offset, count, type,
                recv->aligned + recv->offset, count, type, MPI_COMM_WORLD);
}

int commSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

} // namespace

LINEA_MPI_EXPORT void
_mlir_ciface_linea_mpi_allgather_f32(MemRef<float, 1> *send,
                                     MemRef<float, 2> *recv) {
  allGather(send, recv, MPI_FLOAT);
}

LINEA_MPI_EXPORT void
_mlir_ciface_linea_mpi_allgather_i64(MemRef<int64_t, 1> *send,
                                     MemRef<int64_t, 2> *recv) {
  allGather(send, recv, MPI_INT64_T);
}

/// MPI_Allreduce that counts what it sends: linea-run binds the JIT's
/// `MPI_Allreduce` (what `mpi.allreduce` lowers to) to this.
LINEA_MPI_EXPORT int linea_mpi_counted_allreduce(const void *send, void *recv,
                                                 int count, MPI_Datatype type,
                                                 MPI_Op op, MPI_Comm comm) {
  int size = 0;
  MPI_Type_size(type, &size);
  bytesSent += int64_t(count) * int64_t(size);
  return MPI_Allreduce(send, recv, count, type, op, comm);
}

LINEA_MPI_EXPORT int64_t linea_mpi_bytes_sent() { return bytesSent; }

/// MPI_Init unless the host already did (mpi4py does on import).
LINEA_MPI_EXPORT void linea_mpi_begin() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_Init(nullptr, nullptr);
    initializedHere = true;
  }
}

/// MPI_Finalize if linea_mpi_begin initialised MPI.
LINEA_MPI_EXPORT void linea_mpi_end() {
  if (initializedHere)
    MPI_Finalize();
  initializedHere = false;
}

/// Stops every rank with exit code `code` (after an error on one of them).
LINEA_MPI_EXPORT void linea_mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

LINEA_MPI_EXPORT int linea_mpi_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

LINEA_MPI_EXPORT int linea_mpi_size() { return commSize(); }

/// Every rank's `value` on rank 0, in rank order (`values` holds size()
/// entries there; ignored elsewhere).
LINEA_MPI_EXPORT void linea_mpi_gather_i64(int64_t value, int64_t *values) {
  MPI_Gather(&value, 1, MPI_INT64_T, values, 1, MPI_INT64_T, 0,
             MPI_COMM_WORLD);
}

/// Every rank's `count` floats, concatenated in rank order into `recv` on
/// rank 0 (`counts` as linea_mpi_gather_i64 gathered them).
LINEA_MPI_EXPORT void linea_mpi_gather_f32(const float *send, int64_t count,
                                           float *recv,
                                           const int64_t *counts) {
  int rank = linea_mpi_rank(), size = commSize();
  std::vector<int> sizes, offsets;
  if (rank == 0) {
    int64_t at = 0;
    for (int s = 0; s < size; ++s) {
      sizes.push_back(checkedCount(counts[s], "a gather of result rows"));
      offsets.push_back(checkedCount(at, "a gather of result rows"));
      at += counts[s];
    }
  }
  MPI_Gatherv(send, checkedCount(count, "a gather of result rows"), MPI_FLOAT,
              recv, sizes.data(), offsets.data(), MPI_FLOAT, 0,
              MPI_COMM_WORLD);
}
