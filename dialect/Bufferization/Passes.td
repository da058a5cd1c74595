//===- Passes.td - around bufferization ------------------------*- tablegen -*-===//
//
// Passes both targets run around one-shot bufferization: before it, so that
// accumulators bufferize in their consumers' memory; after it, so that
// copies compile to loops.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_BUFFERIZATION_PASSES_TD
#define LINEA_BUFFERIZATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaUnshareFills : Pass<"linea-unshare-fills"> {
  let summary = "Give every destination its own linalg.fill before bufferization";
  let description = [{
    The forms start many accumulators from zeros, and CSE merges identical
    `linalg.fill`s on tensors into one value with several destination uses.
    Bufferized, every use after the first then costs a buffer and a copy of
    the zeros, and the accumulator can no longer be computed in its
    consumer's memory (a chunk's output rows in the output itself). This pass
    clones a `linalg.fill` of a `tensor.empty` for each further destination
    use, just before the user, so each bufferizes in place
    (`eliminate-empty-tensors` then places it in the consumer's buffer).

    ```mlir
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %a = linalg.generic ... outs(%z : tensor<64x64xf32>)
    %b = linalg.generic ... outs(%z : tensor<64x64xf32>)
    // becomes: %b's destination is a fill of its own
    %e2 = tensor.empty() : tensor<64x64xf32>
    %z2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %b = linalg.generic ... outs(%z2 : tensor<64x64xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}


def LineaUnshareEmpties : Pass<"linea-unshare-empties"> {
  let summary = "Give every destination outside a sequence block its own tensor.empty before bufferization";
  let description = [{
    CSE merges identical `tensor.empty`s, and one-shot bufferization then
    gives the merged value one buffer that every destination-style op
    writing into it reuses as the previous value dies: in a PrefixLM layer,
    one f32 allocation holds the widened bf16 values of the prefix, then
    the prefix's output rows, then the widened values of the tail. A buffer
    with several writers is neither read nor written as stored
    (`linea-read-as-stored` takes the 16-bit buffer for an f32 one only
    where a single widening copy fills it), so each such use costs a
    widening or narrowing kernel and three times the 16-bit bytes. This
    pass clones the `tensor.empty` for each further destination use in the
    same block, just before the user. Temporaries of a sequence block keep
    sharing (its shared memory is scarce). The GPU pipelines run it, whose
    allocations come from a stream-ordered pool; the CPU's do not.

    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %a = linalg.generic ... ins(%x : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>)
    %b = linalg.generic ... ins(%y : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>)
    // becomes: %b writes a tensor.empty of its own
    %e2 = tensor.empty() : tensor<4x8xf32>
    %b = linalg.generic ... ins(%y : tensor<4x8xbf16>) outs(%e2 : tensor<4x8xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LineaEliminateEmptyOuterFirst : Pass<"linea-eliminate-empty-outer-first", "ModuleOp"> {
  let summary = "Empty-tensor elimination, the outermost insertion first";
  let description = [{
    Upstream's `eliminate-empty-tensors` replaces a `tensor.empty` whose
    value is inserted somewhere (`tensor.insert_slice`,
    `tensor.parallel_insert_slice`) by the destination's subset, so the
    value is computed in place. It visits the insertions in program order,
    replacing only the use on each one's chain. Where two parts are joined
    into an empty tensor that is then inserted further out (a PrefixLM op
    on one segment: its bidirectional rows and its causal rows written into
    one tensor, which a GPU sequence block inserts into the output), the
    inner insertions go first and point their parts at the join's empty
    tensor; the outer one then replaces only its own use of it, and the
    join stays a buffer of its own: in a sequence block, a dynamic
    allocation that keeps the block from being one (the loop stays on the
    host). This pass runs the same upstream rewrite
    (`bufferization::eliminateEmptyTensors`, on one one-shot analysis of
    the module) one insertion at a time, the last in program order first,
    so each part lands in the outermost destination. (The pipelines run
    upstream's pass after it as before.)

    ```mlir
    %e = tensor.empty(%n) : tensor<1x?x4xf32>
    %h = tensor.empty(%j) : tensor<1x?x4xf32>
    %head = linalg.generic ... outs(%h : tensor<1x?x4xf32>)
    %0 = tensor.insert_slice %head into %e[0, 0, 0] [1, %j, 4] [1, 1, 1]
    ...
    tensor.parallel_insert_slice %1 into %out[%b, %start, 0] [1, %n, 4] [1, 1, 1]
    // becomes: %e is %out's slice, %h the slice of it
    %e = tensor.extract_slice %out[%b, %start, 0] [1, %n, 4] [1, 1, 1]
    %h = tensor.extract_slice %e[0, 0, 0] [1, %j, 4] [1, 1, 1]
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::tensor::TensorDialect"];
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

def LineaExpandDynamicGroups : Pass<"linea-expand-dynamic-groups"> {
  let summary = "An expand_shape that splits one dim into several dynamic ones becomes a reinterpret_cast";
  let description = [{
    Upstream's `expand-strided-metadata` (MLIR 22) crashes on a
    `memref.expand_shape` one of whose groups holds two or more dynamic
    dims: a model's `[B * L, D]` rows split back into `[B, L, D]` with the
    batch and the length both dynamic. Such an expansion is only new sizes
    and strides over the source's base and offset (each group's innermost
    dim keeps its source dim's stride, the dims outside it multiply by the
    sizes inside), which this pass writes as a `memref.reinterpret_cast` of
    the source's `memref.extract_strided_metadata`; the sizes are the op's
    own `output_shape`. Groups with at most one dynamic dim stay for
    upstream's lowering. Part
    of `linea-lower-to-cpu` and `linea-lower-to-nvvm`, just before
    `expand-strided-metadata`.

    ```mlir
    %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %l, 128]
        : memref<?x128xf32> into memref<?x?x128xf32>
    // becomes (%s = %l * 128)
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %m
    %e = memref.reinterpret_cast %base to offset: [0], sizes: [%b, %l, 128],
        strides: [%s, 128, 1] : memref<f32> to memref<?x?x128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LineaCheckAllocations : Pass<"linea-check-allocations"> {
  let summary = "A failed heap allocation is a run-time check, not a crash";
  let description = [{
    Upstream lowers `memref.alloc` to a `malloc` whose result is used
    unchecked: past the machine's memory (or a process's limit) a model's
    large temporaries come back null and the program dies of a segmentation
    fault. After each `memref.alloc` this pass adds a `linea.check` that its
    buffer's address is not null, whose message says how large a buffer
    could not be had; `linea-route-checks` turns it into the same one-line
    error as every other run-time check (linea-run exits 1, a compiled
    library returns 1 with the message in `linea_last_error()`). One compare
    per allocation. Allocations inside parallel loops (a block's or a
    tile's temporaries, small) are left unchecked: the check's branch would
    split the loop body that OpenMP's lowering keeps in one
    `memref.alloca_scope` block. In `linea-lower-to-cpu`, after the kernels.

    ```mlir
    %buffer = memref.alloc(%n) : memref<?x4096xf32>
    // gains
    %address = memref.extract_aligned_pointer_as_index %buffer : memref<?x4096xf32> -> index
    %allocated = arith.cmpi ne, %address, %c0 : index
    %bytes = ... (%n * 4096 * 4)
    linea.check %allocated, "out of memory: a buffer of {0} bytes could not be allocated"(%bytes : index)
    ```
  }];
  let dependentDialects = ["::mlir::linea::LineaDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LineaFreeAfterLastUse : Pass<"linea-free-after-last-use"> {
  let summary = "Free each temporary buffer right after its last use";
  let description = [{
    Upstream's ownership-based deallocation frees a buffer at the end of
    the block that allocated it. In a model's function body that block is
    the whole function: every temporary of every layer stays allocated
    until the function returns, and a model with an L x L score matrix per
    layer holds all of them at once (two such layers at L = 16384: 8 GiB of
    scores alive where 4 suffice). This pass moves each unconditional
    `memref.dealloc` of a `memref.alloc` in the same block up to just after
    the last op of that block that uses the buffer or any view of it
    (upstream's `BufferViewFlowAnalysis`; a use inside a loop or branch
    counts as its enclosing op). Where an alias could escape what the
    analysis sees (a call, a raw pointer, a view the analysis does not
    know), the dealloc stays where it was. In `linea-lower-to-cpu`, right
    after bufferization.

    ```mlir
    %scores = memref.alloc(%n, %n) : memref<?x?xf32>
    linalg.batch_matmul ins(...) outs(%scores ...)
    linalg.generic ins(%scores ...) outs(%masked ...)
    // ... the rest of the model ...
    memref.dealloc %scores : memref<?x?xf32>
    // becomes: the dealloc right after the linalg.generic, the scores'
    // last reader
    ```
  }];
}

#endif // LINEA_BUFFERIZATION_PASSES_TD
