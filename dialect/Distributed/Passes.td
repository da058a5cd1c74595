//===- Passes.td - Linea across processes ----------------------*- tablegen -*-===//
//
// Passes that spread one Linea program over the ranks of an MPI job.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_DISTRIBUTED_PASSES_TD
#define LINEA_DISTRIBUTED_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaSequenceParallel : Pass<"linea-sequence-parallel", "ModuleOp"> {
  let summary = "Split each function's sequences across the ranks of MPI_COMM_WORLD";
  let description = [{
    Rewrites every public function so that each rank computes only its own
    rows of the sequence: rank `r` of `P` holds a contiguous block of rows of
    every sequence operand (any split; linea-run gives rank `r` the rows
    `[floor(r L / P), floor((r + 1) L / P))`), and only `Dk x Dv` states
    cross the network, never the `L x D` activations (LASP-2's scheme; seed
    000's prefix sum once more, at the level of ranks).

    A value a Linea op reads as a sequence (`q`, `k`, `v`, the gate,
    presum's input along its `dim`) is *sharded*, and so, traced backwards,
    is every value it is computed from row by row: the input rows of a
    projection (a linalg op whose loop over the rows is parallel, such as
    `linalg.matmul` of `x` by a weight) and the operands of an elementwise
    map. Sharded function arguments get a dynamic sequence dim and the
    attribute `linea.sharded_dim = <dim>`; so does every result computed
    from one. Row-local ops on sharded values run on this rank's rows (their
    `tensor.empty` / `linalg.fill` inits resized). Everything else
    (initial states, prefix lengths, weights, final states) is replicated:
    the same on every rank.

    - `linear_attention` / `gated_linear_attention`, any mask: the local rows
      split at the prefix boundary (`[0, j)` bidirectional, `[j, L)` causal;
      a rank's share of `j` comes from an all-gather of the ranks' row
      counts). Each rank computes, from a zero state, the state of its
      prefix rows and of its causal rows (gated: with the sum of their
      log-decays), and one all-gather brings every rank's record to every
      rank. The prefix state is the ranks' prefix records folded in rank
      order onto the initial state; rank `r`'s causal rows start from it
      folded with the causal records of ranks `< r` (gated:
      `S = diag(exp(a_s)) S + H_s`, every exponent a sum of gates over one
      rank's rows, so `<= 0`: safe for gates down to -20), and run as a
      local causal op; prefix rows read the prefix state (one matmul). The
      final state folds every record, on every rank. A bidirectional op
      without a gate needs only the sum of the states: one `mpi.allreduce`.
      `normalize` carries its normalizer as an extra state column.
    - `presum` along its `dim`: the local scan plus the sum of the totals of
      the ranks before (after, when `reverse`), from an all-gather.
    - Packed ops (`offsets`, positions in the whole sequence, replicated):
      each rank clamps the offsets to its rows, so every rank runs the same
      N segments and a segment's state passes from rank to rank as one
      sequence's does (`O(P N Dk Dv)` floats). Where a segment's rows read
      its state after a prefix (per-segment prefix lengths; a gated op with
      mask `none`), a rank splits each segment at its prefix: 2N segments,
      the prefix rows' states folded over every rank.
    - `attention` (softmax) reads keys, not a state: the ranks all-gather
      their key and value rows (each padded to the longest rank's) and each
      rank attends its query rows to the keys they see (causal: up to its
      last row's bound `first + rows + Lk - Lq`); packed, each segment's
      rows here to its keys on every rank. `O(L (Dk + Dv))` floats a rank.
    - `fold` and `folded_attention` read every row of their windows: with a
      sharded operand they are an error; with replicated operands they run
      replicated. Any other op reading a sharded value (a reduction over the
      rows, a slice, a concat) is an error too.

    Rank and size are `mpi.comm_rank` / `mpi.comm_size` of `mpi.comm_world`,
    the all-reduce is `mpi.allreduce` (MLIR's mpi dialect, lowered by
    upstream's MPI-to-LLVM conversion for the implementation named by the
    module's DLTI entry `"MPI:Implementation"`, which this pass sets from
    `mpi-implementation` unless present); the all-gather, which the dialect
    lacks, calls `linea_mpi_allgather_f32` / `_i64` of Linea's MPI runtime
    library. Communication per rank and linear-attention op: `O(P Dk Dv)`
    floats, independent of `L`.

    ```mlir
    // before
    func.func @f(%q: tensor<4x1024x64xf32>, %k: tensor<4x1024x64xf32>,
                 %v: tensor<4x1024x64xf32>) -> tensor<4x1024x64xf32>
    // after: each rank's rows
    func.func @f(%q: tensor<4x?x64xf32> {linea.sharded_dim = 1 : i64}, ...)
        -> (tensor<4x?x64xf32> {linea.sharded_dim = 1 : i64})
    ```
  }];
  let options = [
    Option<"mpiImplementation", "mpi-implementation", "std::string",
           /*default=*/"\"OpenMPI\"",
           "The MPI library's ABI, for the mpi dialect's lowering: OpenMPI "
           "or MPICH (a DLTI entry already on the module wins)">,
  ];
  let dependentDialects = [
    "::mlir::mpi::MPIDialect", "::mlir::DLTIDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::linea::LineaDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
  ];
}

def LineaConvertMPIToLLVM : Pass<"linea-convert-mpi-to-llvm", "ModuleOp"> {
  let summary = "The mpi dialect's ops to LLVM calls of the MPI C API";
  let description = [{
    Upstream's MPI-to-LLVM patterns (`mpi::populateMPIToLLVMConversionPatterns`),
    applied as a partial conversion of the mpi ops alone, for the MPI ABI
    named by the module's DLTI entry `"MPI:Implementation"`. A module
    without mpi ops is left as it is. MLIR 22 has no pattern for
    `mpi.comm_size`; Linea's mirrors upstream's `mpi.comm_rank` lowering.
    It also names Open MPI's predefined reductions `ompi_mpi_<op>`, where
    libmpi exports `ompi_mpi_op_<op>`: the globals are renamed.
    (Upstream offers these patterns only
    through `convert-to-llvm`, which with `filter-dialects=mpi` refuses to
    run where the mpi dialect is not loaded: every program linea-lower-to-cpu
    lowers without one.)

    ```mlir
    %rank = mpi.comm_rank(%world) : i32
    // becomes a call of MPI_Comm_rank on ompi_mpi_comm_world (Open MPI)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // LINEA_DISTRIBUTED_PASSES_TD
