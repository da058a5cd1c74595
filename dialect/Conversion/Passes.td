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
  let summary = "Map linalg ops (on buffers) and sequence loops to GPU blocks and threads";
  let description = [{
    For GPU lowering, after bufferization. Two mappings:

    - An `scf.forall` over sequences (from `linea-distribute-sequences`)
      whose temporaries have static sizes that fit in `shared-memory` bytes
      becomes one block per instance: an `scf.parallel` on block x, marked
      `linea.sequence_block`, whose body (the chunk loop) stays sequential.
      Each linalg op inside is spread over the block's `block-size` threads:
      an `scf.parallel` on thread x whose threads stride over the op's
      parallel iterations. The end of each thread loop is a barrier (see
      `linea-sequence-blocks-to-launch`). A forall that does not fit becomes
      a host loop.
    - Every other `linalg.generic` gets its loops reordered parallel dims
      first, becomes one `scf.parallel` over them (the reductions stay
      sequential inside, per thread), which is collapsed to one dimension
      and tiled into blocks of `block-size` threads, and marked for
      `convert-parallel-loops-to-gpu`: the outer loop on block x, the inner
      one on thread x. Host-side loops (segment loops, scans) stay on the
      host and launch one kernel per step.

    Before conversion to `gpu`, the result runs on the CPU as it stands (the
    parallel loops in order), which is how the GPU algorithm is checked.

    ```mlir
    linalg.generic ... ins(%a, %b : memref<2x?x8xf32>, ...) outs(%c : memref<2x?x4xf32>)
    // becomes
    scf.parallel (%block) = ... {
      scf.parallel (%thread) = ... { scf.for %t ... { ... } }
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}

    scf.forall (%b, %h) in (2, 4) { scf.for %chunk ... { linalg.generic ... } }
    // becomes
    scf.parallel (%seq) = (%c0) to (%c8) step (%c1) {
      scf.for %chunk ... {
        scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
          scf.for %i = %t to %n step %c256 { ... }
        } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
      }
    } {linea.sequence_block, mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
    Option<"sharedMemory", "shared-memory", "int64_t", /*default=*/"49152",
           "Bytes of shared memory a sequence block may use for its temporaries">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def LineaSequenceBlocksToLaunch : Pass<"linea-sequence-blocks-to-launch"> {
  let summary = "Sequence blocks from linea-map-to-gpu become gpu.launch with barriers";
  let description = [{
    An `scf.parallel` marked `linea.sequence_block` becomes a `gpu.launch`
    with one block per iteration. Its body, sequential loops included, runs
    in every thread; each thread-mapped `scf.parallel` inside is replaced by
    its body for `thread_id x`, followed by `gpu.barrier`, so the next op
    sees all of this one's writes. Static `memref.alloc`s in the body become
    workgroup (shared) memory, cast to the generic address space, and their
    deallocs disappear.

    ```mlir
    scf.parallel (%seq) = (%c0) to (%c8) step (%c1) {
      %s = memref.alloc() : memref<64x64xf32>
      scf.for %chunk ... { scf.parallel (%t) = (%c0) to (%c256) step (%c1) { ... } {mapping = [...thread_x...]} }
    } {linea.sequence_block, mapping = [...block_x...]}
    // becomes
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, ...) threads(%tx, %ty, %tz) in (%sx = %c256, ...)
        workgroup(%ws : memref<64x64xf32, #gpu.address_space<workgroup>>) {
      %s = memref.memory_space_cast %ws : ... to memref<64x64xf32>
      scf.for %chunk ... { ... body for %tx ...; gpu.barrier }
      gpu.terminator
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
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

def LineaContractionsToMMA : Pass<"linea-contractions-to-mma"> {
  let summary = "Matmul contractions become warp-level tensor-core MMA (mma.sync m16n8k16)";
  let description = [{
    On buffers, before `linea-map-to-gpu`. A `linalg.generic` that is one of
    Linea's two contraction shapes, `O[b, i, e] += A[b, i, t] M[b, t, e]`
    (`O = Q S`, scores times values) or `S[b, d, e] += K[b, t, d] V[b, t, e]`
    (the state update `K^T V`), with static f32 operands whose M and K are
    multiples of 16 and N a multiple of 8, becomes warps of tensor-core
    steps: each warp takes 16 x 8 output tiles in turn, loads the f32
    accumulator fragment, and runs `nvvm.mma.sync` m16n8k16 (row.col, f32
    accumulation) over K. Each lane loads its own fragment elements straight
    from the operands (any strides, the transposed K included), converting
    f32 to `precision` (f16 or bf16) on load: no converted copies.

    Outside a sequence instance the op becomes a grid of blocks of
    `block-size` threads (`block-size / 32` warps each); inside one (an
    `scf.forall` from `linea-distribute-sequences`) it becomes one block's
    thread loop, so the sequence block's chunk loop keeps its contractions
    on tensor cores. Both are GPU-mapped `scf.parallel`s.

    (Linea emits `nvvm.mma.sync` rather than `nvgpu.mma.sync` because the
    latter's NVVM lowering in MLIR 22 refuses bf16 operands.)

    ```mlir
    linalg.generic {... ["parallel", "reduction", "parallel", "parallel"]}
        ins(%k, %v : memref<4x1024x64xf32>, memref<4x1024x64xf32>) outs(%s : memref<4x64x64xf32>)
    // becomes
    scf.parallel (%block) = ... {
      scf.parallel (%thread) = ... {
        scf.for %tile = %warp to %c128 step %numWarps {
          ... scf.for %k ... iter_args(...) {
            ... memref.load, arith.truncf, vector.from_elements ...
            %d = nvvm.mma.sync A[...] B[...] C[...] {layoutA = #nvvm.mma_layout<row>,
                layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} ...
          }
          ... memref.store ...
        }
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f16\"",
           "Tensor-core operand type: f16 or bf16">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (a multiple of 32)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaLaunchBounds : Pass<"linea-launch-bounds", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give every kernel a minimum of resident blocks per SM (nvvm.minctasm)";
  let description = [{
    After kernel outlining. Without launch bounds ptxas picks a register
    budget by its own occupancy heuristic; for a 256-thread sequence-block
    kernel with tensor-core steps it settled on 64 registers and a 4-byte
    spill. `nvvm.minctasm = N` (PTX `.minnctapersm N`, CUDA's
    `__launch_bounds__(threads, N)`) states the occupancy Linea wants, and
    ptxas budgets registers for it: at 256 threads and N = 2, up to 128.

    ```mlir
    gpu.func @k(...) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
    // becomes
    gpu.func @k(...) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32}
    ```
  }];
  let options = [
    Option<"minBlocksPerSM", "min-blocks-per-sm", "int64_t", /*default=*/"2",
           "Blocks each SM must be able to hold at once">
  ];
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
