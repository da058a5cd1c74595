//===- Passes.td - conversions out of Linea --------------------*- tablegen -*-===//

#ifndef LINEA_CONVERSION_PASSES_TD
#define LINEA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLineaToLinalg : Pass<"convert-linea-to-linalg"> {
  let summary = "Lower every Linea op by its plain definition (the reference)";
  let description = [{
    The reference lowering: each op becomes upstream `linalg`, `scf`,
    `tensor`, `arith` and `math` IR that computes SPEC's definition directly,
    chosen to be obviously correct rather than fast. It is the oracle the
    optimizing rewrites are checked against.

    - linear attention: the masked quadratic form
      `O = scale * ((phi(Q) phi(K)^T) .* M) V (+ phi(Q) S0)`, the mask
      computed from the row and column indices (`t <= p(i)`), the normalizer
      the row sum of the masked scores;
    - gated linear attention: the same with decays `exp(b_p - b_t)`,
      `b = presum(g)`, taken only where `t <= p` so every weight is `<= 1`;
    - attention: masked scores, a row max, `exp`, a row sum (rows with no
      visible key are zero);
    - presum: a sequential `scf.for` carrying the running sum;
    - fold: an `scf.for` over segments carrying the memory, the body inlined.

    f16/bf16 operands are extended to f32 on entry and results truncated on
    exit. Dynamic leading dims and dynamic `L` are supported throughout.

    ```mlir
    %y = linea.presum %x exclusive : tensor<4x8xf32>
    // becomes an scf.for over the 4 rows carrying a tensor<1x8xf32> sum
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LineaLowerCopies : Pass<"linea-lower-copies"> {
  let summary = "memref.copy becomes linalg.copy (compiled loops, not a runtime call)";
  let description = [{
    After bufferization, copies between strided views (a row of a sequence
    tensor, say) are `memref.copy`, which the LLVM lowering turns into a call
    to the generic, element-at-a-time `memrefCopy` of MLIR's C runner
    utilities. As `linalg.copy` they become plain loops that LLVM vectorizes.
    Part of `linea-lower-to-cpu`.

    ```mlir
    memref.copy %a, %b : memref<16x1x64xf32> to memref<16x1x64xf32, strided<[131072, 64, 1], offset: ?>>
    // becomes
    linalg.copy ins(%a : memref<16x1x64xf32>) outs(%b : memref<16x1x64xf32, strided<...>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LineaMapToGPU : Pass<"linea-map-to-gpu"> {
  let summary = "Map every linalg op (on buffers) to GPU blocks and threads";
  let description = [{
    For GPU lowering, after bufferization. Each `linalg.generic` gets its
    loops reordered parallel dims first, becomes one `scf.parallel` over
    them (the reductions stay sequential inside, per thread), which is
    collapsed to one dimension and tiled into blocks of `block-size`
    threads, and marked for `convert-parallel-loops-to-gpu`: the outer loop
    on block x, the inner one on thread x. Host-side loops (chunk loops,
    segment loops, scans) stay on the host and launch one kernel per step.

    ```mlir
    linalg.generic ... ins(%a, %b : memref<2x?x8xf32>, ...) outs(%c : memref<2x?x4xf32>)
    // becomes
    scf.parallel (%block) = ... {
      scf.parallel (%thread) = ... { scf.for %t ... { ... } }
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def LineaHostSharedAllocs : Pass<"linea-host-shared-allocs"> {
  let summary = "Host buffers used by kernels become gpu.alloc host_shared";
  let description = [{
    After `convert-parallel-loops-to-gpu`, every `memref.alloc` and
    `memref.dealloc` outside the kernels becomes `gpu.alloc host_shared` and
    an asynchronous `gpu.dealloc` between two `gpu.wait`s: managed memory,
    which the host loops and the kernels both address. Function arguments
    are the caller's to provide the same way.

    ```mlir
    %a = memref.alloc() : memref<16x64xf32>
    // becomes
    %a = gpu.alloc host_shared () : memref<16x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LineaContractionsToWMMA : Pass<"linea-contractions-to-wmma"> {
  let summary = "Batched matmul contractions become tensor-core (WMMA) kernels";
  let description = [{
    On buffers, before `linea-map-to-gpu`. A `linalg.generic` that is one of
    Linea's two contraction shapes, `O[b, i, e] += A[b, i, t] M[b, t, e]`
    (`O = Q S`, scores times values) or `S[b, d, e] += K[b, t, d] V[b, t, e]`
    (the state update `K^T V`), with static M, N and K that are multiples of
    16 and rows that are contiguous (dense buffers, or chunks of a sequence
    as the chunked form slices them), becomes:
    - f16 copies of both operands (K transposed on the way, so every tile
      loads row-major), the f32 -> f16 conversion the `precision=f16`
      option of `linea-lower-to-nvvm` allows;
    - one `gpu.launch` with a warp per 16 x 16 output tile (grid N/16 x
      M/16 x batch) that loads the f32 accumulator tile, loops over K in
      steps of 16 with `gpu.subgroup_mma_compute` (f16 operands, f32
      accumulation), and stores the tile.
    Other contractions are left to the CUDA-core mapping.

    ```mlir
    linalg.generic {... ["parallel", "reduction", "parallel", "parallel"]}
        ins(%k, %v : memref<4x1024x64xf32>, memref<4x1024x64xf32>) outs(%s : memref<4x64x64xf32>)
    // becomes f16 copies, then
    gpu.launch blocks(...) in (4, 4, 4) threads(...) in (32, 1, 1) {
      ... gpu.subgroup_mma_compute ... : !gpu.mma_matrix<16x16xf16, "AOp"> ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def LineaKernelReport : Pass<"linea-kernel-report", "::mlir::ModuleOp"> {
  let summary = "A static cost report per GPU kernel, with an H100 roofline estimate";
  let description = [{
    After kernel outlining: for every `gpu.launch_func` with constant grid and
    block sizes, counts the kernel's floating-point operations and the bytes
    it loads and stores (per thread, with constant-trip-count `scf.for`
    loops multiplied out; a WMMA m16n16k16 step is 8192 FLOPs per warp),
    multiplies by the threads launched, and remarks on the totals, the
    arithmetic intensity and a roofline time for an H100 (an estimate:
    990 TFLOP/s dense f16 tensor cores, 67 TFLOP/s f32 CUDA cores,
    3.35 TB/s). Launches with dynamic sizes are reported as such.

    ```mlir
    gpu.launch_func @k::@k blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) ...
    // remark: kernel @k: 1024 threads, 2.1e+06 FLOP, 3.1e+05 B, 6.7 FLOP/B,
    //         H100 estimate 0.093 us (memory-bound)
    ```
  }];
}

#endif // LINEA_CONVERSION_PASSES_TD
