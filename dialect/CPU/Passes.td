//===- Passes.td - Linea's CPU code generation ------------------*- tablegen -*-===//
//
// Passes that shape buffer-level loops for a CPU's vector units and caches.
// They run in linea-lower-to-cpu between bufferization and the loops.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_CPU_PASSES_TD
#define LINEA_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaVectorizeContractions : Pass<"linea-vectorize-contractions"> {
  let summary = "Register-tiled vector kernels for the attention forms' contractions";
  let description = [{
    Rewrites each `linalg.generic` on buffers that is a contraction
    `C[b.., m, n] += A[b.., m|k] * B[b.., k|n]` (a multiply-add body, one m,
    one n and one reduced k dim, any number of batch dims, all f32) into
    loops around a register tile: `register-rows` rows of C by two vectors
    of `vector-width` lanes, held in registers while the reduction streams
    through a row of B and a column of A (an outer-product kernel with one
    `vector.fma` per row and k). The rows left over take tiles of halving
    heights (8, 4, 2, 1: at most one of each). A contraction outside any
    batch loop or parallel loop (a projection) spreads its row tiles (with
    panels, its column tiles and the packing) over threads as an
    `scf.parallel`. The reduction is blocked by
    `reduction-block` so that the A and B panels of one block stay in cache
    across the tiles of C (the one-shot state `K^T V` reduces over the whole
    sequence).

    Where B's contiguous dim is k (the scores `Q K^T`), each batch's B is
    first packed into a k-major buffer with 2-D vector transposes. A masked
    body, `out + select(visible(m, n), a * b, 0)` with `visible` built from
    `linalg.index` and index arithmetic (the causal and prefix masks), is
    computed unmasked and the mask is applied to the finished tile; a tile
    whose every entry is invisible is skipped, which halves the work of a
    causal chunk's scores.

    Named contractions (`linalg.matmul`, `batch_matmul`, their transposed
    variants, `matvec`: model IR's projections) are generalized first and
    matched like any other; a `linalg.fill` stays named, so that a kernel can
    fold the zero fill before it.

    Contractions of other shapes, element types or layouts (a non-unit
    innermost stride of B or C) are left to `convert-linalg-to-loops`.

    ```mlir
    linalg.generic {indexing_maps = [(b, t, d, e) -> (b, t, d), (b, t, d, e) -> (b, t, e),
                                     (b, t, d, e) -> (b, d, e)], ...}
        ins(%k, %v : memref<16x16384x64xf32>, memref<16x16384x64xf32>)
        outs(%s : memref<16x64x64xf32>)
    // becomes, per batch, reduction block, 4-row tile and 16-column tile:
    %acc = scf.for %t = %t0 to %t1 step %c1 iter_args(%r0 = ..., %r3 = ...) {
      %b = vector.transfer_read %v[%i, %t, %e] ... : vector<16xf32>
      %a0 = memref.load %k[%i, %t, %d] : memref<16x16384x64xf32>
      %s0 = vector.broadcast %a0 : f32 to vector<16xf32>
      %f0 = vector.fma %s0, %b, %r0 : vector<16xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of one vector register (8: AVX2, 16: AVX-512)">,
    Option<"registerRows", "register-rows", "int64_t", /*default=*/"4",
           "Rows of C held in registers by one tile, two vectors each "
           "(linea-lower-to-cpu gives what the host's registers hold: 14 "
           "with AVX-512, 6 otherwise)">,
    Option<"reductionBlock", "reduction-block", "int64_t", /*default=*/"256",
           "Reduction steps per cache block">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaVectorizeScans : Pass<"linea-vectorize-scans"> {
  let summary = "Sequential presums as streaming vector scans";
  let description = [{
    Rewrites each `linea.presum` on f32 whose form is the sequential scan
    (or not chosen yet) and that has a dim after the scanned one into loops
    that stream the tensor once: for every index of the leading dims and
    every tile of up to `registers` vectors of `vector-width` lanes of the
    innermost dim, a running sum held in registers walks the scanned dim,
    reading one row of the input and writing one row of the result per
    step. Exclusive and reverse presums are the same walk with the store
    before the add, or backwards; a decayed presum multiplies the running
    sum by `exp` of the step's decay first (its row of lanes, or its one
    element broadcast when it covers only leading dims). The reference
    lowering's scan instead steps all leading indices together, one strided
    slice per step.

    A presum along the innermost dim, or on another element type, is left
    to `convert-linea-to-linalg`. Part of `linea-lower-to-cpu`.

    ```mlir
    %y = linea.presum %x : tensor<16x16384x64xf32>
    // becomes, per head and 64-lane tile of the last dim:
    %r:2 = scf.for %t = %c0 to %c16384 step %c1
        iter_args(%sum = %zeros, %out = %acc) -> (vector<64xf32>, tensor<16x16384x64xf32>) {
      %row = vector.transfer_read %x[%h, %t, %e], %pad : tensor<16x16384x64xf32>, vector<64xf32>
      %next = arith.addf %sum, %row : vector<64xf32>
      %w = vector.transfer_write %next, %out[%h, %t, %e] : vector<64xf32>, tensor<16x16384x64xf32>
      scf.yield %next, %w : vector<64xf32>, tensor<16x16384x64xf32>
    }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of one vector register (8: AVX2, 16: AVX-512)">,
    Option<"registers", "registers", "int64_t", /*default=*/"8",
           "Vector registers of running sums per tile">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LineaVectorizeElementwise : Pass<"linea-vectorize-elementwise"> {
  let summary = "Rows of vectors for the elementwise ops, reductions and masks around the kernels";
  let description = [{
    What `linea-vectorize-contractions` leaves of a model, the elementwise
    chains, the softmax's row maxima and sums, the masks built from
    `linalg.index`, the copies between layouts that keep the innermost
    dim, would go to `convert-linalg-to-loops` and LLVM's loop vectorizer,
    which runs a select on an index or a reduction into a row in scalar
    code. This pass tiles each such `linalg.generic` on buffers to one
    index of every dim but the innermost, and `tile` elements of that (the
    whole dim where it has at most `tile`, else the largest of `tile`, a
    half, a quarter... that divides it), and writes each tile as vector
    code with MLIR's linalg vectorizer: one transfer per operand, the body
    on vectors, a `vector.multi_reduction` where the innermost dim is
    reduced. The vectors are then made one-dimensional and their
    reductions and broadcasts lowered, ready for LLVM.

    An op is vectorized only where every vector is a contiguous run of
    memory: each operand either reads along the innermost dim with unit
    stride or does not depend on it (a broadcast), and holds whole bytes
    (a buffer of i1 is a byte per element, a vector of i1 in memory packed
    bits). Its body must be scalar arithmetic (`arith`, `math`,
    `linalg.index`). Anything else, the innermost dim transposed, a
    dynamic, one-element or non-dividing innermost size, is left to
    `convert-linalg-to-loops`. Part of `linea-lower-to-cpu`, after the
    contraction kernels.

    ```mlir
    linalg.generic {indexing_maps = [(h, i, j) -> (h, i, j), (h, i, j) -> (h, i)],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s : memref<4x64x64xf32>) outs(%m : memref<4x64xf32>) { maximumf }
    // becomes, for every (h, i):
    %row = vector.transfer_read %s[%h, %i, %c0], %pad : memref<4x64x64xf32>, vector<64xf32>
    %old = memref.load %m[%h, %i] : memref<4x64xf32>
    %max = vector.reduction <maximumf>, %row, %old fastmath<reassoc> : vector<64xf32> into f32
    // %max written back to %m[%h, %i]
    ```
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"64",
           "Most elements of the innermost dim in one tile">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def LineaApproximateExp : Pass<"linea-approximate-exp"> {
  let summary = "f32 math.exp as MLIR's polynomial approximation";
  let description = [{
    The gated forms take an `exp` of a log-decay difference for every pair
    of positions in a chunk (and every key dim with per-key gates). Lowered
    to LLVM's `llvm.exp`, each is a call into libm that no loop vectorizer
    can widen. MLIR's polynomial approximation (range reduction, a
    polynomial and exponent arithmetic) is plain arithmetic, so LLVM
    vectorizes the loops around it. The gated differential suites (gates
    down to -20, long sequences, NaN propagation) hold to the float64
    oracle through it. f64 exps are left alone. Part of `linea-lower-to-cpu`.

    ```mlir
    %d = math.exp %x : f32
    // becomes a few dozen arith ops: clamps, fma, bitcasts, no call
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect"];
}

def LineaNarrowTruncations : Pass<"linea-narrow-truncations"> {
  let summary = "f64 -> 16-bit truncations as a folded constant or through f32";
  let description = [{
    Front ends print a model's float literals as f64 constants truncated in
    the body (`arith.truncf %cst : f64 to bf16`); upstream folds no inexact
    truncation, and `arith-expand` expands only f32 -> bf16, so LLVM called
    compiler-rt's `__truncdfbf2` / `__truncsfbf2`, which libgcc does not
    define: a bf16 model with a literal such as an eps did not link. A
    truncation of a constant becomes the constant rounded to nearest even
    (APFloat, exact); any other f64 -> f16/bf16 truncation becomes f64 -> f32
    -> the 16-bit type (two roundings: the result may differ from one
    rounding by one unit in the last place where the first rounding makes a
    tie). Part of `linea-lower-to-cpu`, before `arith-expand`.

    ```mlir
    %t = arith.truncf %cst : f64 to bf16   // %cst = 1.0e-6
    // becomes
    %t = arith.constant 9.983778e-07 : bf16
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // LINEA_CPU_PASSES_TD
