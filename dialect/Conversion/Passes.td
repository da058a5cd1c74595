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

#endif // LINEA_CONVERSION_PASSES_TD
