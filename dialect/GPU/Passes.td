//===- Passes.td - Linea's GPU passes --------------------------*- tablegen -*-===//
//
// linalg and scf (and Linea's tileable ops) to GPU blocks, threads, tensor
// cores and kernels; their numbers come from the GPU target description
// (linea/Target/Target.h). One converts a Linea op: linea-flash-attention,
// softmax attention as a kernel of its own.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_GPU_PASSES_TD
#define LINEA_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaDistributeSequences : Pass<"linea-distribute-sequences"> {
  let summary = "Tile chunked causal ops and state scans into one GPU block per sequence";
  let description = [{
    A causal `linear_attention` or `gated_linear_attention` whose form is
    chunked carries its state along the sequence only: every (batch, head)
    and every tile of value columns is independent. This pass tiles such an
    op through its `TilingInterface` (upstream `scf::tileUsingSCF`) with
    tile size 1 over the batch dims and `value-tile` over the value columns
    (when `Dv` is a static multiple of it, with at least two tiles), into an
    `scf.forall` mapped to GPU blocks (`#gpu.block<linear_dim_N>`): each
    iteration is one sequence block. The chunked rewrite then builds its
    chunk loop inside, and `linea-map-to-gpu` runs each iteration as one
    block that keeps `S` in shared memory.

    A `linea.presum` whose form is the sequential scan (the chunk-parallel
    form's scan of the chunk states `[B..., N + 1, Dk, Dv]`) is distributed
    the same way: tile size 1 over the dims before the scanned one and
    `value-tile` over its last dim, so each block walks the steps of one
    slice (`[Dk, tile]` of the states) instead of a launch per step.

    Ops of other forms are left alone, as are ops that are one sequence
    already and are not split over value tiles.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal
        form = chunked(64) : tensor<2x4x256x64xf32>, ...
    // becomes
    %o = scf.forall (%b, %h) in (2, 4) shared_outs(%out = %empty) -> (tensor<2x4x256x64xf32>) {
      %qs = tensor.extract_slice %q[%b, %h, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1]
          : tensor<2x4x256x64xf32> to tensor<1x1x256x64xf32>
      ...
      %os = linea.linear_attention %qs, %ks, %vs mask = causal
          form = chunked(64) : ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %os into %out[%b, %h, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1] : ...
      }
    } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
    ```
  }];
  let options = [
    Option<"valueTile", "value-tile", "int64_t", /*default=*/"-1",
           "Value columns per block (0 = all of them; -1: the planned "
           "target's, `#linea.target`)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::gpu::GPUDialect"];
}

def LineaFlashAttention : Pass<"linea-flash-attention", "::mlir::ModuleOp"> {
  let summary = "Choose flash-attention kernels for softmax attention planned for the GPU";
  let description = [{
    A `linea.attention` planned for the GPU (`#linea.target`) that
    flash attention can take becomes a call standing for that kernel
    (linea-expand-flash-attention builds it once the program is on
    buffers): its operands as the buffers they have, of any strides
    (`bufferization.to_buffer`, read only: no copy into another layout
    first; the kernel checks at run time that rows are whole 16-byte
    lines), its output a buffer of its own (`bufferization.to_tensor
    restrict writable`). An operand that is a transpose keeping the
    innermost dim innermost (heads split from a model's rows:
    `linalg.transpose`, or a generic that is one) is read through a
    transposed view of the transpose's source instead; an output whose
    only use is such a transpose (the heads
    merged back) is written through a transposed view of a buffer in the
    merged shape, which replaces the transpose. Neither transpose is then
    a copy of its own. The call is marked
    `linea.flash_attention = {causal, scale, operand_type}` to a private
    declaration. A call rather than the kernel itself: the deallocation
    pass after bufferization refuses ops that declare no memory effects,
    as mma.sync, cp.async's groups and barriers do.

    It takes ops whose query/key and value head sizes are static multiples
    of 16 up to 128 and whose mask is none or causal, with bf16/f16
    operands (all three of one type) or, under `precision=bf16|f16`,
    operands of any float type, rounded to it, but not ops already inside
    a sequence block. A packed op (`offsets`, which linea-split-segments
    leaves whole where this pass takes it) passes its offsets to the
    kernel: `(q, k, v, offsets, out)`. The others stay for
    linea-tile-attention.

    ```mlir
    %o = linea.attention %q, %k, %v mask = causal
           : tensor<2x16x4096x128xbf16>, tensor<2x16x4096x128xbf16>,
             tensor<2x16x4096x128xbf16> -> tensor<2x16x4096x128xbf16>
    // becomes
    %qb = bufferization.to_buffer %q read_only : ... to memref<2x16x4096x128xbf16, strided<[?, ?, ?, ?], offset: ?>>
    ...
    %out = memref.alloc() : memref<2x16x4096x128xbf16>
    call @linea_flash_attention(%qb, %kb, %vb, %out) {linea.flash_attention =
        {causal = true, operand_type = bf16, scale = 0.0883883461 : f32}} : ...
    %o = bufferization.to_tensor %out restrict writable : ...
    ```
  }];
  let options = [
    Option<"precision", "precision", "::mlir::linea::Precision",
           /*default=*/"::mlir::linea::Precision::automatic",
           "Tensor-core operand type: auto (16-bit operands' own), bf16 or "
           "f16 (any operands, rounded), f32 (no op is taken)",
           "::mlir::linea::precisionValues()">
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LineaExpandFlashAttention : Pass<"linea-expand-flash-attention", "::mlir::ModuleOp"> {
  let summary = "Build linea-flash-attention's calls as flash-attention GPU blocks on tensor cores";
  let description = [{
    On buffers, each call linea-flash-attention left becomes one GPU block
    per (sequence, 128 query rows), FlashAttention-2's forward: 8 warps of
    16 query rows each walk the 64-key tiles their rows see (under a causal
    mask none past the tile's last row; the longest tiles first). The
    block stages each tile's keys and values in shared memory (rows padded
    by 16 bytes), by cp.async lines where the operands are stored in the
    tensor-core type, their rows are whole 16-byte lines (checked at run
    time) and the tiles whole rounds of the threads' lines (heads of 32,
    64, 96, 128; else by 16-byte loads; element by element, converted,
    where rows are not whole lines): a tile's values land while the warps
    multiply by its keys, the next tile's keys while they multiply by its
    values. Packed sequences: a block per (sequence, tile of a segment),
    found by binary search over the offsets. Each warp computes its 16 x 64 scores on
    `mma.sync` m16n8k16 (f32 accumulators, fragments by `ldmatrix`), scales
    them into the log2 domain, masks keys past the end or (causal) after a
    row's last key (key `t` is seen by row `i` where `t <= i + Lk - Lq`),
    and updates its rows' running max and sum in registers (the four lanes
    of a row meet by `gpu.shuffle xor`); the probabilities, rounded to the
    operand type, are P V's A fragments as they sit in the accumulator
    registers. Output rows are divided by their sum (0 for a row that saw
    no key) and stored in the output's type. Only the staged tiles go
    through shared memory (52-70 KiB a block). The declarations go.

    ```mlir
    call @linea_flash_attention(%q, %k, %v, %out) {linea.flash_attention = {...}}
    // becomes
    scf.forall (%b, %h, %t) in (2, 16, 32) {
      %qs = memref.alloc() : memref<128x136xbf16>   // and the key and value tiles
      scf.parallel (%thread) = (%c0) to (%c256) step (%c1) {
        // cp.async, ldmatrix, nvvm.mma.sync, gpu.shuffle xor, math.exp2
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } {mapping = [#gpu.block<linear_dim_0>, ...]}
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def LineaEpiloguesInContractionShape
    : Pass<"linea-epilogues-in-contraction-shape", "::mlir::func::FuncOp"> {
  let summary = "Elementwise ops around a contraction take its shape, across reshapes";
  let description = [{
    On tensors, in `linea-lower-to-nvvm` before bufferization. A model's
    `Linear` on `[B, L, D]` is a contraction on `[B L, D]` between a
    `tensor.collapse_shape` and a `tensor.expand_shape`; its bias, GELU or
    residual add then runs on `[B, L, N]`, and its zero fill on the
    uncollapsed init. On buffers the contraction's grid takes an
    elementwise op that reads its output (`linea-contractions-to-mma`'s
    epilogue) and a fill of its output (accumulators starting at zero) only
    where they read and write the output itself, not a reshaped view of it.
    Where B is static 1 the reshapes fold away; where B is dynamic they do
    not, and each is a kernel and a pass over the output of its own.

    This pass collapses them instead (upstream's fold-reshape-by-collapsing
    patterns, `linalg::populateFoldReshapeOpsByCollapsingPatterns`, and
    the reshapes' canonicalizations): an all-parallel generic that reads an
    expand_shape of a contraction's result runs over the collapsed dims
    (its other operands collapsed alike, its result expanded), and an
    all-parallel generic (a fill) whose result is collapsed into a
    contraction's init runs collapsed too. Nothing else is touched.

    ```mlir
    %p = linalg.generic {... ["parallel", "parallel", "reduction"]}
        ins(%x, %w : tensor<?x128xf32>, tensor<512x128xf32>) outs(%init : tensor<?x512xf32>)
    %e = tensor.expand_shape %p [[0, 1], [2]] output_shape [%b, %l, 512] : ...
    %g = linalg.generic {... ["parallel", "parallel", "parallel"]}
        ins(%e, %bias : tensor<?x?x512xf32>, tensor<512xf32>) outs(...)
    // becomes
    %g2 = linalg.generic {... ["parallel", "parallel"]}
        ins(%p, %bias : tensor<?x512xf32>, tensor<512xf32>) outs(...)
    %g = tensor.expand_shape %g2 [[0, 1], [2]] output_shape [%b, %l, 512] : ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LineaPaddedWrites : Pass<"linea-padded-writes"> {
  let summary = "A fill and a write into part of the filled buffer: one op that writes each element once";
  let description = [{
    On buffers, before `linea-row-reductions` and `linea-map-to-gpu`. A
    chunked form pads each sequence to whole chunks: a buffer is filled
    (zeros; the ones column of a normalized op's values) and the rows are
    then written into the front of it. Two kernels would write the part
    twice. Where a fill of a whole buffer (`linalg.fill`, or the generic or
    `linalg.map` a fill is) is followed, with only ops without memory
    effects between, by an op writing every element of a unit-stride
    subview of it (a copy, an elementwise op, all loops parallel, the
    output at the identity map and not read) from other buffers read by
    loop dims or constants, both become one `linalg.generic` over the
    buffer: inside the subview the write's value (its inputs loaded at the
    element less the subview's offsets), the fill's value elsewhere. One
    kernel, each element written once. Ops in a sequence block, which runs
    as one GPU block already, stay.

    A pad of a pad (a normalized op's values beside their ones column, then
    padded to whole chunks) is one op too: where the write copies from a
    buffer that an earlier padded write made, that nothing else reads
    (deallocations aside) and whose write's inputs nothing writes between
    the two, the earlier write's element is computed where it would have
    been loaded (its own `scf.if`), and its buffer goes.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%padded : memref<4x?x64xf32>)
    %rows = memref.subview %padded[0, 0, 0] [4, %l, 64] [1, 1, 1] : ...
    linalg.copy ins(%x : memref<4x?x64xf32>) outs(%rows : ...)
    // becomes
    linalg.generic {... ["parallel", "parallel", "parallel"]} outs(%padded : memref<4x?x64xf32>) {
    ^bb0(%out: f32):
      // inside = (index - offset) < size for every dim, unsigned
      %v = scf.if %inside -> (f32) {
        %e = memref.load %x[%i, %j, %k] : memref<4x?x64xf32>
        scf.yield %e : f32
      } else {
        scf.yield %zero : f32
      }
      linalg.yield %v : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LineaRowReductions : Pass<"linea-row-reductions"> {
  let summary = "Reductions along rows and the elementwise ops around them: one launch, a warp per row";
  let description = [{
    On buffers, before `linea-map-to-gpu`. A LayerNorm, an RMSNorm or a
    softmax over the last dim reaches the GPU lowering as a handful of
    linalg ops over the rows of an `[R, C]` space: widening casts, fills,
    sums (or maxima) along each row into `[R]` buffers, and the
    elementwise op that normalizes with them. One kernel each would write
    and read every intermediate in global memory, and each reduction would
    run a thread per row. Here such a group becomes one `gpu.launch`:
    `L` lanes per row (32 where `C >= 32`, else the power of two at or
    above `C`), rows of the block's threads side by side. Each reduction
    is a strided loop over the row's columns (coalesced loads), then an
    xor butterfly of `gpu.shuffle`s, and starts from the value its output
    held before it (the fill's); every lane then holds the row's value.
    Elementwise ops are recomputed where they are read, never stored,
    unless something after the group reads their buffer: those outputs are
    stored in one pass over the columns at the end (and row values by the
    row's first lane). Intermediates nothing else reads are erased with
    their allocations.

    A group is the linalg ops of a run in one block (only allocations and
    ops without memory effects between them) joined by a shared buffer
    indexed by the row dim: ops with one output whose loops are one row
    dim `[R]` (parallel), or a row dim and a static column dim `[R, C]`
    (parallel, or a reduction into `[R]` whose body is one combining op of
    the output, `arith.addf` / `maximumf` / `minimumf` / ..., over a 32 or
    64-bit element), bodies without memory effects, every read of a
    buffer the group writes by its own row (and column) index, no two
    views of one allocation where one is written, every reduction's
    output written first inside the group (its fill), at least one
    reduction. The rows may be several leading dims (a `[B, L, D]`
    LayerNorm with B and L dynamic): each warp's row index is split back
    into them. Anything else stays for `linea-map-to-gpu`, one kernel per
    op; so does everything where a block is less than a warp.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {[par, red]} ins(%x : memref<?x256xf32>) outs(%sum : memref<?xf32>) { addf }
    linalg.generic {[par, par]} ins(%x, %sum : ...) outs(%y : memref<?x256xf32>) { x - sum / 256 }
    // becomes
    gpu.launch blocks(%b, ...) in (%nb = ceildiv(R, 8), ...) threads(%t, ...) in (%nt = 256, ...) {
      // row = b * 8 + t / 32, lane = t % 32
      %part = scf.for %j = %lane to %c256 step %c32 iter_args(%acc = -0.0) { addf }
      // gpu.shuffle xor 16, 8, 4, 2, 1, each added; then added to the fill's 0
      scf.for %j = %lane to %c256 step %c32 { memref.store x - sum / 256, %y[row, %j] }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block (0: the planned target's, `#linea.target`)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaMapToGPU : Pass<"linea-map-to-gpu"> {
  let summary = "Map linalg ops (on buffers) and sequence loops to GPU blocks and threads";
  let description = [{
    For GPU lowering, after bufferization. Two mappings:

    - An `scf.forall` mapped to GPU blocks (a sequence block, from
      `linea-distribute-sequences`) whose temporaries have static sizes that
      fit in the planned target's shared memory (`#linea.target`'s
      `shared_memory`) stays: each iteration is one block, whose
      body (the chunk loop) stays sequential. Each linalg op inside is
      spread over the block's `block-size` threads: an `scf.parallel` on
      thread x whose threads stride over the op's parallel iterations. The
      end of each thread loop is a barrier (see
      `linea-sequence-blocks-to-launch`). A forall that does not fit, or
      that is not mapped to blocks, becomes a host loop.
    - Every other `linalg.generic` gets its loops reordered parallel dims
      first, becomes one `scf.parallel` over them (the reductions stay
      sequential inside, per thread), which is collapsed to one dimension
      and tiled into blocks of `block-size` threads, and marked for
      `convert-parallel-loops-to-gpu`: the outer loop on block x, the inner
      one on thread x. An op with at most one parallel iteration (no
      parallel dims, or each of size 1: a step of a host scan, a 0-d op)
      is a `gpu.launch` of one thread, never host code reading device
      memory. Host-side loops (segment loops, scans) stay on the host and
      launch one kernel per step. A `cf.assert` in the op's body (the range
      check of an embedding's ids) goes under an `scf.if` on its failure:
      `convert-parallel-loops-to-gpu` leaves a loop whose body holds a bare
      one on the host, and takes it nested. A band of static size is
      blocks of threads with the block's base computed before the thread
      loop and a bounds guard (one block's threads where it fits): tiled,
      its two loops would have constant bounds, and the canonicalizer would
      merge them (or fold a one-trip block loop), dropping their mapping.
      The reduction's accumulators live in registers; where a fill of its
      output comes right before it (only ops without memory effects
      between them: a LayerNorm's sums, a projection on the CUDA cores),
      they start at the fill's value and the fill is no kernel of its own.
    - Sibling kernels: elementwise ops (no reduction loops) side by side in
      one block, with only ops without memory effects, views and
      allocations between them, where none reads or writes a buffer another
      writes and every buffer they write is an allocation of the function
      (a caller's buffers may alias), are one launch: their bands, each
      collapsed to one dim, laid end to end, iteration t running the first
      op's element t, the second's t - n1 (under `(t - n1) < n2`,
      unsigned), and so on. A linear attention's q, k and v padded to whole
      chunks and its first state zeroed are one launch, not four.

    Before both, a host loop nest that adds into one f32 buffer at indices
    its body computes, and touches that buffer no other way (the gradient of
    a lookup: `linea-differentiate`'s scatter-add), becomes one band over
    all its loops whose adds are `memref.atomic_rmw addf`, mapped as an
    op's band: its points are independent but for the sums, whose order is
    all that changes.

    In both, a reduction loop keeps its output element in a register (an
    `iter_args` value loaded before the loop and stored after it) instead of
    a load and a store per iteration, unless something else in the loop may
    touch that buffer (a view of the same allocation).

    Before conversion to `gpu`, the result runs on the CPU as it stands (the
    parallel loops in order), which is how the GPU algorithm is checked.

    ```mlir
    linalg.generic ... ins(%a, %b : memref<2x?x8xf32>, ...) outs(%c : memref<2x?x4xf32>)
    // becomes
    scf.parallel (%block) = ... {
      scf.parallel (%thread) = ... {
        %init = memref.load %c[...]
        %sum = scf.for %t ... iter_args(%acc = %init) -> (f32) { ... }
        memref.store %sum, %c[...]
      }
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}

    scf.forall (%b, %h) in (2, 4) { scf.for %chunk ... { linalg.generic ... } }
        {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
    // becomes
    scf.forall (%b, %h) in (2, 4) {
      scf.for %chunk ... {
        scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
          scf.for %i = %t to %n step %c256 { ... }
        } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
      }
    } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block (0: the planned target's, `#linea.target`)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}


def LineaSequenceBlocksToLaunch : Pass<"linea-sequence-blocks-to-launch"> {
  let summary = "Sequence blocks from linea-map-to-gpu become gpu.launch with barriers";
  let description = [{
    An `scf.forall` mapped to GPU blocks (a sequence block, as
    `linea-map-to-gpu` leaves it) becomes a `gpu.launch` with one block per
    iteration (the loop's dims linearized into block x). Its body,
    sequential loops included, runs
    in every thread; each thread-mapped `scf.parallel` inside is replaced by
    its body for `thread_id x`, followed by `gpu.barrier`, so the next op
    sees all of this one's writes. Static `memref.alloc`s in the body become
    views of the block's dynamic shared memory (`gpu.dynamic_shared_memory`,
    its size given to the launch, so a block may use more than the 48 KiB of
    static shared memory; Linea's CUDA runtime opts the kernel in), cast to
    the generic address space, and their deallocs disappear. A block whose
    temporaries take more than half of a block's shared memory on the
    planned GPU runs alone on its SM: its location says so
    (`linea.blocks_per_sm` = 1), and `linea-launch-bounds` gives its kernel
    the registers of one block rather than making it spill to fit a second.

    ```mlir
    scf.forall (%b, %h) in (2, 4) {
      %s = memref.alloc() : memref<64x64xf32>
      scf.for %chunk ... { scf.parallel (%t) = (%c0) to (%c256) step (%c1) { ... } {mapping = [...thread_x...]} }
    } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
    // becomes
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, ...) threads(%tx, %ty, %tz) in (%sx = %c256, ...)
        dynamic_shared_memory_size %c16384_i32 {
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %ws = memref.view %bytes[%c0][] : ... to memref<64x64xf32, #gpu.address_space<workgroup>>
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
  let summary = "Host buffers become device memory, or managed memory where the host touches them";
  let description = [{
    After `convert-parallel-loops-to-gpu`, every `memref.alloc` and
    `memref.dealloc` outside the kernels becomes a GPU allocation. A buffer
    whose elements only kernels read and write (the host passes it, views
    it, returns it) is device memory, allocated and freed in stream order
    (`gpu.alloc async` and `gpu.dealloc async` on the stream `gpu.wait
    async` names; the runtime keeps freed memory in its pool, and nothing
    waits). A buffer some host op reads or writes, through any view (an
    op that says nothing of its effects, a call, counts as both), is
    managed memory (`gpu.alloc host_shared`), freed between two `gpu.wait`s
    once the kernels are done with it. Function arguments are the caller's
    device memory.

    ```mlir
    %a = memref.alloc() : memref<16x64xf32>   // only kernels use it
    // becomes
    %s = gpu.wait async
    %a, %t = gpu.alloc async [%s] () : memref<16x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}


def LineaAsyncLaunches : Pass<"linea-async-launches", "::mlir::ModuleOp"> {
  let summary = "Kernels queued on the stream, waited for only where the host needs them";
  let description = [{
    After `linea-host-shared-allocs`. A synchronous `gpu.launch` waits for
    its kernel before the host goes on (gpu-to-llvm lowers it to a launch
    and a stream synchronization): a host loop of small launches pays the
    round trip every time. Here every synchronous launch of a function
    becomes asynchronous on the one stream the function's entry names
    (`gpu.wait async`: the runtime's stream of the calling thread, on which
    the allocations and frees are queued too), and the host waits for that
    stream (`call @linea_cuda_synchronize()`, a runtime function) only
    before an op that reads or writes a buffer's elements itself (managed
    memory, a call given a buffer) and before the function returns, so
    that its results are ready when the call is.

    ```mlir
    gpu.launch blocks(...) threads(...) { ... }
    // becomes (with %s = gpu.wait async at the function's entry)
    %t = gpu.launch async [%s] blocks(...) threads(...) { ... }
    ...
    call @linea_cuda_synchronize() : () -> ()
    return
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::func::FuncDialect"];
}


def LineaStageHostReads : Pass<"linea-stage-host-reads", "::mlir::ModuleOp"> {
  let summary = "Copy the caller's tensors that host code reads into host-readable buffers";
  let description = [{
    On buffers, before `linea-map-to-gpu`: the caller's tensors (a public
    function's buffer arguments) are device memory, yet a packed op's
    run-time checks read its offsets and prefix lengths on the host. Each
    argument that host code reads with a `memref.load` is copied once at the
    function's start into a new buffer (`linalg.copy`, which becomes a
    kernel; the buffer becomes managed memory, and the host waits for the
    copy before reading it), and those loads read the copy. Host code is
    outside every linalg op, `scf.parallel` and sequence block that runs as
    one GPU block; a sequence block whose temporaries exceed the planned
    GPU's shared memory stays a host loop around kernels
    (`linea-map-to-gpu`), and its reads are the host's (a packed op's
    segment bounds on an A100, where an H100 holds the block). Loads of
    views of an argument are left to `linea-check-host-code`'s error.

    ```mlir
    func.func @f(%o: memref<?xindex>) {
      %first = memref.load %o[%c0] : memref<?xindex>
    // becomes
      %n = memref.dim %o, %c0 : memref<?xindex>
      %staged = memref.alloc(%n) : memref<?xindex>
      linalg.copy ins(%o : memref<?xindex>) outs(%staged : memref<?xindex>)
      %first = memref.load %staged[%c0] : memref<?xindex>
      ...
      memref.dealloc %staged : memref<?xindex>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LineaCheckHostCode : Pass<"linea-check-host-code"> {
  let summary = "Refuse device instructions left in host code";
  let description = [{
    After `convert-parallel-loops-to-gpu`: a `gpu.barrier` or an `nvgpu` or
    `nvvm` op (but `nvgpu.tma.create.descriptor`, TMA's host half) outside
    every `gpu.launch` (and GPU module) belongs to a
    thread loop that did not become a kernel, most likely one whose
    mapping a rewrite dropped (the canonicalizer does, folding a dim of one
    iteration). On the host it would fail to link or run as garbage; this
    pass makes it an error naming the op. So is a host op that reads or
    writes the caller's tensors (a public function's buffer arguments, and
    what its calls pass on to private ones): they are device memory, which
    host code cannot touch (Linea's own allocations are managed memory,
    readable from both sides).

    ```mlir
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {  // no mapping
      gpu.barrier  // error: 'gpu.barrier' op is device code left on the host
    }
    ```
  }];
}

def LineaAsyncCopies : Pass<"linea-async-copies"> {
  let summary = "A sequence block's copies of 16-bit rows into shared memory as cp.async";
  let description = [{
    On buffers, after `linea-contractions-to-mma` and before
    `linea-map-to-gpu`, for the GPU. In a sequence block whose temporaries
    fit the target's shared memory (so that `linea-map-to-gpu` keeps it one
    block), a
    `linalg.copy` of a bf16/f16 buffer in global memory into one of the
    block's temporaries (a chunk block's rows of q, k and v), both addressed
    in whole 16-byte lines (innermost stride 1, the other strides and the
    temporary's offset multiples of 8 elements), becomes a thread loop of
    `nvgpu.device_async_copy` (`cp.async.cg`, 16 bytes, bypassing L1) into
    the temporary's workgroup view: thread t takes lines t, t + B, ...,
    commits a group per line and waits for all of them after its last; the
    barrier `linea-sequence-blocks-to-launch` puts after the thread loop
    makes the lines visible to the block. The source's offset is known only
    at run time (a caller's view), so the copy is guarded: where the
    source does not start on a 16-byte boundary the original copy runs.

    ```mlir
    linalg.copy ins(%rows : memref<64x128xbf16, strided<[128, 1], offset: ?>>)
                outs(%own : memref<64x128xbf16, strided<[136, 1]>>)
    // becomes
    scf.if %aligned {
      %w = memref.memory_space_cast %own : ... to memref<64x128xbf16, strided<[136, 1]>, #gpu.address_space<workgroup>>
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        scf.for %line = %t to %c1024 step %c256 {
          %tok = nvgpu.device_async_copy %rows[%i, %j], %w[%i, %j], 8 {bypassL1} : ...
          %g = nvgpu.device_async_create_group %tok
          scf.if %last { nvgpu.device_async_wait %g {numGroups = 0 : i32} }
        }
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } else {
      linalg.copy ins(%rows : ...) outs(%own : ...)
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block (as linea-map-to-gpu is given; 0: the planned "
           "target's)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect"];
}


def LineaReadAsStored : Pass<"linea-read-as-stored"> {
  let summary = "Elementwise and CUDA-core linalg ops read bf16/f16 operands as stored";
  let description = [{
    A bf16/f16 program computes in f32: each 16-bit operand is widened
    into an f32 copy (an elementwise `arith.extf` generic into a fresh
    buffer) that the ops read. After `linea-contractions-to-mma` (whose
    staged grids read the 16-bit buffers themselves), every other
    `linalg.generic` or `linalg.copy` input that is such a copy, or a view
    of one, reads the 16-bit buffer instead (the views rebuilt on it), and
    widens each element in registers: an `arith.extf` at the top of its
    body. A copy nothing reads any more is erased with its f32 buffer: no
    kernel writes it and none reads twice the bytes.

    A sequence block's own copies (its shared-memory temporaries, made to
    be read many times) stay, but a copy of a widened buffer copies the
    16-bit values into a 16-bit temporary (rows padded by 16 bytes for
    ldmatrix) and widens that into the f32 one, which its readers then
    read as stored: the same values in half the shared memory.

    ```mlir
    linalg.generic ins(%q : memref<2x64xbf16>) outs(%wide : memref<2x64xf32>) { extf }
    linalg.generic ins(%wide, %g : memref<2x64xf32>, ...) outs(%o : ...) {
    ^bb0(%x: f32, %y: f32, %out: f32): ...
    }
    // becomes
    linalg.generic ins(%q, %g : memref<2x64xbf16>, ...) outs(%o : ...) {
    ^bb0(%x16: bf16, %y: f32, %out: f32):
      %x = arith.extf %x16 : bf16 to f32
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LineaContractionsToMMA : Pass<"linea-contractions-to-mma"> {
  let summary = "Matmul contractions become tensor-core MMA (mma.sync m16n8k16, or wgmma on sm_90a), or staged FMA grids on the CUDA cores";
  let description = [{
    On buffers, before `linea-map-to-gpu`. A `linalg.generic` that is one of
    Linea's three contraction shapes, `O[b, i, e] += A[b, i, t] M[b, t, e]`
    (`O = Q S`, scores times values), `S[b, d, e] += K[b, t, d] V[b, t, e]`
    (the state update `K^T V`) or `P[b, i, t] += Q[b, i, d] K[b, t, d]` (the
    scores), the product optionally selected by a mask on the output's
    indices (`select(t <= i, q k, 0)`: the causal scores), with static f32
    operands whose M and K are
    multiples of 16 and N a multiple of 8, becomes warps of tensor-core
    steps, `nvvm.mma.sync` m16n8k16 (row.col, f32 accumulation) over K, with
    the operands converted from f32 to `precision` (f16 or bf16) on the way.
    A mask is evaluated per accumulator element after the MMA steps (its
    computation cloned from the generic's body): the new value where it
    holds, the element's old value where it does not.

    Outside a sequence block the op becomes a grid of blocks of
    `block-size` threads (`block-size / 32` warps each), staged through
    shared memory: one block per output tile (the largest of 128 x 128 down
    to 16 x 8 that divides the output, keeps every warp busy and still
    gives the GPU target's SM count of blocks), each warp owning 16 x 8n of
    it. Per 32-deep (or 16-deep) step the block's threads copy the two
    operands' slices into private workgroup globals (static shared memory
    once outlined), converting on the way, so each element is read from
    global memory once per block; after a barrier each warp loads its A
    fragment with one `nvgpu.ldmatrix` x4 and each B fragment with an x2
    (`.trans` for a slice stored depth-major: K of `K^T V`, the values of
    `P V`), reusing A across its tiles. Slices keep the operands'
    orientation, rows padded by 16 bytes so an ldmatrix's eight rows hit
    different banks.

    Contractions into the same output that follow one another in a block
    (the chunk-parallel output `O = P V` then `O += Q S`), none reading the
    output, become one grid: the accumulators stay in registers from one
    contraction to the next (a mask selects in them), and the output is
    stored once. A `linalg.fill` of zeros just before the first becomes
    accumulators that start at zero: the fill and the load of the output
    are gone. A chain whose slices would exceed 48 KiB of static shared
    memory is built one contraction at a time.

    The output's rows may be dynamic where A stores them outer (`x W` over
    a model's dynamic L: `memref<?x256xf32>` by `memref<256x256xf32>`), all
    other sizes static and the op not reading its own output: the grid
    then has `ceil(rows / tile) x` the column tiles' blocks, counted on the
    host (the tile planned as if the rows were 4096), and the last row
    tile is partial: A's rows past the count are loaded clamped and staged
    as zeros (a cp.async line from them reads no source byte, a TMA box
    past them is zero-filled by the hardware), and the accumulators of
    those rows are not stored. A dynamic-row contraction no grid tiles
    stays for the CUDA cores.

    The columns may be ragged, not a multiple of 8: a normalized op's
    values carry their ones column (64 + 1 = 65), and so do the chunk
    loop's `P V`, `Q S` and `K^T V`. Such a contraction takes the lane-load
    form (below; a grid of its own outside a sequence block) over
    `ceil(N / 8)` column tiles: the last tile's lanes load M's columns past
    N clamped and replaced by zeros, and store (and read as the initial
    accumulator) only the columns below N. No ldmatrix reads M there.

    A bf16/f16 program reaches f32 through widening copies (an elementwise
    `extf` into a fresh buffer) and leaves it through narrowing ones
    (`truncf`). A staged grid reads a widened operand's 16-bit buffer
    itself (its views rebuilt on it), and a zero-filled result that only a
    narrowing copy reads is stored narrowed into that copy's buffer
    (reshaped back); copies nothing reads any more are erased with their
    f32 buffers.

    Contractions without a tensor-core type (`precision=f32`, or under
    `auto` an f32 contraction) outside a sequence block take the same
    staged grid on the CUDA cores, for blocks of 256 threads and columns a
    multiple of 16: a block tile up to 128 x 128, its f32 slices staged as
    above, its threads a 16 x 16 grid, thread (ty, tx) accumulating
    outputs (ty + 16 i, tx + 16 j) in registers by `math.fma` from the
    staged slices (up to 8 x 8 a thread; above 4 x 8 the kernel states one
    block per SM, `linea.blocks_per_sm`, for ptxas's registers). Inside a
    sequence block they stay as they are.

    Inside a sequence block (an `scf.forall` mapped to GPU blocks, from
    `linea-distribute-sequences`) it becomes one block's thread loop whose
    warps take strips of 16 x 8 tiles in turn, so the chunk loop keeps its
    contractions on tensor cores; so does a grid whose sizes no block tile
    divides. Both forms are GPU-mapped `scf.parallel`s. The block's
    temporaries that only its tensor-core contractions read (decayed
    queries and keys, its copy of the values) are stored in the tensor-core
    type, rows padded by 16 bytes, their writers narrowing what they write
    (the warps would narrow each element anyway: the same values), and its
    copies of 16-bit operands stay 16-bit; where the block's temporaries
    fit the target's shared memory (so that `linea-map-to-gpu` keeps it one
    block), warps load fragments of 16-bit temporaries with `nvgpu.ldmatrix` from
    their workgroup view (`memref.memory_space_cast`). Other operands (the
    f32 scores, a state in global memory) each lane loads element by
    element.

    On a module planned for sm_90a (`#linea.target`, linea-plan-target) a
    chain whose depths are multiples of 64 and whose output's rows
    and columns are multiples of 64 is staged for warpgroup MMA instead:
    blocks of one or two warpgroups (128 threads each, at most
    `block-size`) over 128 x 128 down to 64 x 64 output tiles (chosen as
    above), each warpgroup owning 64 rows and 64 or 128 columns. Per 64-deep
    step the block's threads stage both slices into one workgroup global
    (1024-byte aligned) in wgmma's 128-byte-swizzled layout (16-byte chunk
    `c` of row `r` at chunk `c ^ (r % 8)`; a row of 64 depth elements per
    output row for an operand stored depth-inner, a row of 64 output rows
    or columns per depth index for one stored depth-outer), by cp.async
    lines where the operand is 16-bit and aligned; an
    `nvvm.fence.proxy` (async.shared, cta) and a barrier publish them; each
    warpgroup then runs four `nvvm.wgmma.mma_async` m64nNk16 (f32
    accumulators, the depth-outer operands read transposed), fenced,
    committed and waited for, their descriptors built from the buffer's
    shared-memory address (leading byte offset 8192 for the transposed
    reads, stride byte offset 1024). The accumulators are those of N / 8
    mma.sync tiles per warp, so masks and stores are as above.

    With TMA too (a chip from sm_90, `tma` on), each operand stored in the tensor-core type in whole
    16-byte rows (in at most 5 dims) gets a tensor map on the host before
    the grid (`nvgpu.tma.create.descriptor`, 128-byte swizzle, boxes of
    the slice's rows x 64 where the depth is inner, 64 x 64 where it is
    outer). In the block thread 0 initializes an mbarrier and fences the
    maps (`nvgpu.tma.fence.descriptor`: the host wrote them to global
    memory), and per step announces the slices' bytes on the mbarrier
    (`nvgpu.mbarrier.arrive.expect_tx`) and issues their
    `nvgpu.tma.async.load`s into the swizzled buffer, which every thread
    then waits for (`nvgpu.mbarrier.try_wait.parity`, the phase's parity
    the step's). The kernel checks that every mapped operand starts on a
    16-byte line; where one does not, the grid copies those slices as
    without TMA.

    A grid outside a sequence block also takes its epilogue: the
    elementwise op right after the chain (a bias, an activation, a
    residual add: torch's Linear, GELU and `x + f(x)`) that reads the
    output only at the element it computes and writes one buffer there.
    Each accumulator element goes through its body as it is stored (the
    other operands loaded at that element, the views and allocation it
    needs moved before the grid), into its output; the op is erased, and
    with it the contraction's own buffer where the epilogue wrote another
    and nothing reads it after. No kernel and no pass over the output of
    its own.

    (Linea emits `nvvm.mma.sync` rather than `nvgpu.mma.sync` because the
    latter's NVVM lowering in MLIR 22 refuses bf16 operands, and
    `nvvm.wgmma.mma_async` rather than `nvgpu.warpgroup.mma` because the
    latter's descriptors come from a TMA descriptor type and its lowering
    handles only a row-major A.)

    ```mlir
    linalg.generic {... ["parallel", "reduction", "parallel", "parallel"]}
        ins(%k, %v : memref<4x1024x64xf32>, memref<4x1024x64xf32>) outs(%s : memref<4x64x64xf32>)
    // becomes
    memref.global "private" @linea_staged_a : memref<32x40xf16, #gpu.address_space<workgroup>>
    ...
    scf.parallel (%block, %thread) = ... {
      %sa = memref.get_global @linea_staged_a : ...
      ... memref.load %s[...] ...                     // the warp's accumulators
      ... scf.for %k = %c0 to %c1024 step %c32 iter_args(...) {
        scf.for %e = %thread to %c1024 step %c256 {   // the block copies K's slice
          ... memref.load %k[...], arith.truncf, memref.store ... %sa[...]
        }
        ...                                           // and V's
        gpu.barrier
        %a = nvgpu.ldmatrix %sa[...] {numTiles = 4 : i32, transpose = true} ...
        %d = nvvm.mma.sync A[...] B[...] C[...] {layoutA = #nvvm.mma_layout<row>,
            layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} ...
        gpu.barrier
      }
      ... memref.store ...
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>,
                  #gpu.loop_dim_map<processor = thread_x, ...>]}
    ```
  }];
  let options = [
    Option<"precision", "precision", "::mlir::linea::Precision",
           /*default=*/"::mlir::linea::Precision::f16",
           "Tensor-core operand type: f16, bf16, or auto (each "
           "contraction's own: that of the 16-bit op it was built from, or "
           "of an operand widened from 16 bits; f32 contractions take FMA "
           "grids), or f32 (every contraction an FMA grid)",
           "::mlir::linea::precisionValues()">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block (a multiple of 32 for tensor cores, 256 for "
           "FMA grids; 0: the planned target's, "
           "`#linea.target`)">,
    Option<"tma", "tma", "bool", /*default=*/"true",
           "Load the warpgroup grids' 16-bit slices by TMA where the planned "
           "chip has it (sm_90 and later); off: by the block's threads">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}


def LineaRequireCudaToolkit : Pass<"linea-require-cuda-toolkit", "::mlir::ModuleOp"> {
  let summary = "Fail before compiling when the CUDA toolkit is not where it is said to be";
  let description = [{
    The first step of `linea-lower-to-nvvm`: checks that `cuda-path` holds
    `bin/ptxas`, which `gpu-module-to-binary` needs for cubins and fat
    binaries. Upstream reports a missing toolkit as an error and may still
    leave a `gpu.binary` behind; this pass fails the run first, with one
    line, so a bad path never ends in exit code 0.

    ```mlir
    // linea-opt in.mlir --linea-lower-to-nvvm="cuda-path=/nonexistent"
    // error: no CUDA toolkit at '/nonexistent': bin/ptxas is missing
    ```
  }];
  let options = [
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"/usr/local/cuda\"",
           "The CUDA toolkit's root">
  ];
}

def LineaSinkConstantGlobals : Pass<"linea-sink-constant-globals"> {
  let summary = "A kernel reads a model's constant weights from device memory, not the host's";
  let description = [{
    A model exported with its weights as constants (`weights="constants"`,
    the default of `linea.from_torch`) holds them as `memref.global`
    constants, which host code reads through `memref.get_global`: a
    `gpu.launch` that used such a value made the host's address a kernel
    argument, and every read of it on the device was an illegal memory
    access. Before kernel outlining, each constant global a launch reads is
    fetched inside the launch instead (the `memref.get_global` cloned into
    its body), so that outlining copies the global into the kernel's
    module: the weights are device memory, loaded with the module, once.
    Part of `linea-lower-to-nvvm`, before `gpu-kernel-outlining`.

    ```mlir
    %w = memref.get_global @__constant_128xf32 : memref<128xf32>
    gpu.launch ... {
      %x = memref.load %w[%i] : memref<128xf32>
    }
    // becomes
    gpu.launch ... {
      %w1 = memref.get_global @__constant_128xf32 : memref<128xf32>
      %x = memref.load %w1[%i] : memref<128xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LineaNameKernels : Pass<"linea-name-kernels", "::mlir::ModuleOp"> {
  let summary = "Name every gpu.launch after what it computes";
  let description = [{
    Before kernel outlining, which names a kernel after its launch's
    `function` attribute (else `<host function>_kernel`, the same name for
    every kernel in a profile). Each `gpu.launch` without one is named
    `linea_<what>`:
    - the kernel name its ops' locations carry, the one most of them carry
      (`loc(fused<{linea.kernel = "..."}>[...])`, set by the forms for each
      stage of a Linea op: `linear_attention_chunk_states`,
      `gla_chunk_outputs`, `simple_gla_state_scan`, `attention_fwd`,
      `linear_attention_chunk_loop`, `presum_scan`, ...);
    - else after its content, for the model's own ops: `matmul` (tensor-core
      steps, or a loop that accumulates products of two different values),
      `reduction` (any other loop), `elementwise` (floating-point
      arithmetic), `copy` (reads and writes only), `fill` (writes only).

    Further launches of a name in the module are numbered in program order
    (`linea_matmul`, `linea_matmul_1`, ...): every kernel has a name of its
    own in a profile, and its stage is the name's prefix (`ncu -k
    regex:linea_gla_chunk_outputs`).

    ```mlir
    gpu.launch blocks(...) in (...) threads(...) in (...) {
      %s = memref.load %k[%i] : memref<4x64xf32> loc(#states)
      ...
    }
    #states = loc(fused<{linea.kernel = "linear_attention_chunk_states"}>["a.mlir":2:12])
    // becomes
    gpu.launch blocks(...) in (...) threads(...) in (...)
        function(@linea_linear_attention_chunk_states) {
    ```
  }];
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


def LineaMarkMinimalTraffic : Pass<"linea-mark-minimal-traffic"> {
  let summary = "Record on each Linea op's location the bytes it moves at least";
  let description = [{
    The yardstick of `linea-kernel-report`'s per-op totals. For every Linea
    op with static shapes (not nested in another Linea op), after
    `linea-select-forms` and before the forms are built: the bytes of its
    distinct tensor operands and results as stored (a bf16 tensor at 2
    bytes an element), plus, for the chunk-parallel form, its per-chunk
    states (`[B..., N + 1, Dk, Dv]` f32, `N = ceil(L / C)`: that form's
    phases pass them through global memory, written once). The count goes
    into the op's location, `loc(fused<{linea.minimal_bytes = N : i64}>[...])`,
    which every op built from it inherits down to the kernel launches, so
    the report can total the launches of one source op and divide.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal
        form = chunk_parallel(64)
        : tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16> -> tensor<4x1024x64xbf16> loc("a.mlir":3:8)
    // becomes (4 x 1024 x 64 x 2 B x 4 tensors + 4 x 17 x 64 x 64 x 4 B)
    %o = linea.linear_attention ... loc(fused<{linea.minimal_bytes = 3211264 : i64}>["a.mlir":3:8])
    ```
  }];
}

def LineaKernelReport : Pass<"linea-kernel-report", "::mlir::ModuleOp"> {
  let summary = "A static cost report per GPU kernel, with a roofline estimate for the planned chip";
  let description = [{
    After kernel outlining: for every `gpu.launch_func` with constant grid and
    block sizes, counts the kernel's floating-point operations and the bytes
    it loads from and stores to global memory (per thread, each access as
    written, with constant-trip-count `scf.for` loops multiplied out, a
    loop strided by thread or warp counted at the average share, so that
    the threads together take every trip once; a `cp.async` line is its
    16 bytes read from global memory; a branch with an else counts as the
    costlier of the two (a cp.async copy and its unaligned fallback); a
    band of sibling kernels (guards `t - start < count` laid end to end)
    counts each part's accesses on its own share of the threads; an
    mma.sync m16n8k16 step is 4096 FLOPs per warp, a wgmma m64nNk16 step
    2048 N per warpgroup, its operands read from shared memory). Accesses to shared
    memory (the workgroup address space, or views of it such as a sequence
    block's temporaries) move no global bytes and are not counted; caches
    are not modelled, so an element two threads load counts twice. It
    multiplies by the threads launched, and remarks on the totals, the
    arithmetic intensity and a roofline time on the planned GPU's
    description (`#linea.target`, or the built-in sm_90a where the module
    has none; an estimate: dense f16/bf16 tensor cores, f32 CUDA cores,
    HBM bandwidth), named by its chip. Launches with dynamic sizes are reported as such. A
    launch inside host `scf.for` loops runs once per trip: the remark adds
    how many times (the product of their constant trip counts) and the
    totals over all of them, or says the count is unknown.

    Then, per source op whose location carries the bytes it moves at least
    (`linea-mark-minimal-traffic`), one remark at that op: its launches
    (host-loop trips included), bytes, the sum of its kernels' estimates,
    and bytes moved / minimal bytes.

    ```mlir
    scf.for %c = %c0 to %c8 step %c1 {
      gpu.launch_func @k::@k blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) ...
    }
    // remark: kernel @k: 1024 threads in 4 blocks, 2.1e+06 FLOP, 3.1e+05 B, 6.7 FLOP/B,
    //         sm_90a estimate 0.093 us (memory-bound); launched 8 times by host
    //         loops: 1.68e+07 FLOP, 2.48e+06 B, sm_90a estimate 0.744 us in all
    // remark (at the source op): op total: 8 launches, 1.68e+07 FLOP,
    //         2.48e+06 B, sm_90a estimate 0.744 us; minimal 6.2e+05 B (operands
    //         and results as stored, per-chunk states), moved / minimal 4
    ```
  }];
}

def LineaEmulateGpuThreads : Pass<"linea-emulate-gpu-threads", "::mlir::ModuleOp"> {
  let summary = "Run GPU launches, warp instructions included, on CPU threads";
  let description = [{
    The last step of `linea-gpu-mapped-to-cpu`: after
    `convert-parallel-loops-to-gpu`, on the CPU, so that the kernels exactly
    as `linea-lower-to-nvvm` outlines them (tensor-core fragments, 16-bit
    shared temporaries, cp.async, the barriers between a sequence block's
    ops and its temporaries' places in shared memory) are checked
    numerically where no GPU is. Each `gpu.launch` runs its blocks in order
    (one block at a time, as one static shared memory and one dynamic
    shared buffer per launch expect); its threads run as loops where its
    body has no `gpu.barrier`, `nvgpu.ldmatrix` or `nvvm.mma.sync`, and
    otherwise as an OpenMP team of the block's size (numbered x fastest, as
    the GPU numbers them for warps):

    - `gpu.barrier` waits for the team;
    - `nvgpu.ldmatrix` and `nvvm.mma.sync` (m16n8k16, f16/bf16 operands,
      f32 accumulators) call Linea's GPU emulation library (in linea-run),
      in which the lanes of a warp put down their addresses or registers,
      wait for each other, and each computes what PTX assigns it;
    - `nvgpu.device_async_copy` copies at once (zero-filling past its
      source elements), and its groups and waits go away;
    - `gpu.dynamic_shared_memory` is a buffer of the launch's size.

    Workgroup memory is plain memory. A barrier or warp instruction outside
    a launch, or a launch it cannot run (asynchronous, clusters,
    attributions, a body of several blocks), is an error.

    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      ...
      gpu.barrier
      %d = nvvm.mma.sync A[...] B[...] C[...] {shape = #nvvm.shape<m = 16, n = 8, k = 16>, ...}
      gpu.terminator
    }
    // becomes
    scf.for %bz = %c0 to %c1 step %c1 {
      scf.for %by = %c0 to %c1 step %c1 {
        scf.for %bx = %c0 to %c4 step %c1 {
          func.call @linea_gpu_emu_begin_block(%c256_i64) : (i64) -> ()
          omp.parallel num_threads(%c256_i32 : i32) {
            %t = func.call @omp_get_thread_num() : () -> i32
            ...
            func.call @linea_gpu_emu_barrier(%t64) : (i64) -> ()
            func.call @linea_gpu_emu_mma_m16n8k16(%t64, %bf16, %a, %b, %c) : (i64, i64, i64, i64, i64) -> ()
            omp.terminator
          }
        }
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // LINEA_GPU_PASSES_TD
