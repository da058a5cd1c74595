//===- Passes.td - Linea optimization passes -------------------*- tablegen -*-===//
//
// Optimizations rewrite Linea ops into other Linea ops or into the forms the
// SPEC names; conversions out of the dialect live in Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TRANSFORMS_PASSES_TD
#define LINEA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaExpandFoldedAttention : Pass<"linea-expand-folded-attention"> {
  let summary = "Expand linea.folded_attention into linea.fold + linea.attention";
  let description = [{
    Rewrites every `linea.folded_attention` into the `linea.fold` that SPEC
    defines it as: a body that projects the window with `wq`, `wk`, `wv`
    (one contraction each, producing `[B..., h, 2l, D/h]` directly, so no
    reshape or transpose is materialized), runs one causal
    `linea.attention` over the heads, and projects back with `wo`.

    ```mlir
    // Before
    %y, %m = linea.folded_attention %x, %m0 weights(%wq, %wk, %wv, %wo)
        segment_length = 4 num_heads = 2 : ...
    // After
    %y, %m = linea.fold %x, %m0 segment_length = 4 : ... {
    ^bb0(%w: tensor<8x16xf32>):
      ... linalg.generic (projections) ...
      %a = linea.attention %qh, %kh, %vh mask = causal : ...
      ... linalg.generic (output projection) ...
      linea.yield %r : tensor<8x16xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaFoldToLoop : Pass<"linea-fold-to-loop"> {
  let summary = "Rewrite linea.fold into a loop over segments carrying the memory";
  let description = [{
    `linea.fold` becomes an `scf.for` over the `L / l` segments. The loop
    carries the memory `[B..., l, D]` and the output; each iteration builds
    the window `[M; x_s]` of `2l` rows, runs the body (cloned, so its Linea
    ops stay open to the other rewrites) and writes `R[l:2l]` to both the
    output and the memory. Only one window's data is live at a time: peak
    memory is `O(l * D)` whatever `L` is (plus the input and output).

    ```mlir
    %y, %m = linea.fold %x, %m0 segment_length = 4 : ... { ... }
    // becomes
    %r:2 = scf.for %s = %c0 to %n step %c1 iter_args(%mem = %m0, %out = %empty) {
      %window = ... [%mem; x[s*4 : s*4+4]] ...
      ... body ...
      scf.yield %next, %updated
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaSplitPrefix : Pass<"linea-split-prefix"> {
  let summary = "Split a PrefixLM op into a bidirectional and a causal part";
  let description = [{
    `mask = prefix(j)` becomes a bidirectional op over rows `[0, j)` and a
    causal op over `[j, L)` seeded with the prefix's final state, so each
    region can take its own form: the one-shot state for the first, the
    chunked algorithm for the second. `j` may be static or dynamic.

    For `linear_attention` the first part is `mask = none`. For
    `gated_linear_attention` it is `mask = prefix(j)` over exactly `j` rows
    (bidirectional, reading the state after its last row), which
    `linea-prefix-to-oneshot` recognizes. `normalize` is kept exact by
    appending a ones column to `v`: the extra state column carries
    `z = sum phi(k)` across the split and the output is divided at the end.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = prefix(%j) : ...
    // becomes
    %o1, %s = linea.linear_attention %q1, %k1, %v1 mask = none : ...     // rows [0, j)
    %o2 = linea.linear_attention %q2, %k2, %v2 init(%s) mask = causal : ...  // rows [j, L)
    // and %o1, %o2 inserted into one [B..., L, Dv] tensor
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaPrefixToOneShot : Pass<"linea-prefix-to-oneshot"> {
  let summary = "Bidirectional regions become the one-shot state: two matmuls";
  let description = [{
    A bidirectional `linear_attention` (`mask = none`, or `causal` with
    `L = 1`, the decode step) becomes `S = S0 + phi(K)^T V` and
    `O = scale * phi(Q) S`: two contractions and no loop; with `normalize`,
    `V` gets a ones column so the same two contractions give `phi(q) . z`.

    A gated op whose prefix covers the whole sequence (`prefix(j)` over
    exactly `j` rows, as `linea-split-prefix` makes it) becomes one matmul
    too, exactly: with `b = presum(g)`, every row reads
    `S_{j-1} = diag(exp(b_{j-1})) S0 + sum_t diag(exp(b_{j-1} - b_t)) k_t^T v_t`,
    so the keys are decayed by `exp(b_{j-1} - b_t) <= 1` and
    `S_{j-1} = (K .* decay)^T V`. Every exponent is `<= 0`, so nothing
    overflows for gates down to -20 per step. The data-dependent gate does
    not force the chunked algorithm on the prefix.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = none : ...
    // becomes
    %s = linalg.generic ... ins(%k, %v) ...   // S[d, e] = sum_t k[t, d] v[t, e]
    %o = linalg.generic ... ins(%q, %s) ...   // O[i, e] = sum_d q[i, d] S[d, e]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LineaCausalToChunked : Pass<"linea-causal-to-chunked"> {
  let summary = "Causal regions become the chunked algorithm";
  let description = [{
    A causal `linear_attention` or `gated_linear_attention` becomes an
    `scf.for` over chunks of `C` rows carrying the state `S`:
    `O_c = Q_c S + tril(Q_c K_c^T) V_c`, then `S += K_c^T V_c`. The last chunk
    is shorter when `L % C != 0`; `L` may be dynamic. The initial state seeds
    `S`, the final state is the carried `S` after the loop.

    With gates, decays are taken relative to the chunk start
    (`b = presum(g_c)` within the chunk): the inter-chunk term uses
    `exp(b_i)`, the intra-chunk term `exp(b_i - b_t)` for `t <= i`, and the
    state update `exp(b_last - b_t)` and `exp(b_last)`: every exponent is
    `<= 0`, so nothing overflows for `g` down to -20.

    `chunk-size = 0` lets the cost model choose (`linea-select-forms` may
    also have annotated the op with `linea.chunk_size`).

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal : ...
    // becomes
    %r:2 = scf.for %c = %c0 to %L step %C iter_args(%s = %s0, %out = %empty) { ... }
    ```
  }];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Rows per chunk (0 = let the cost model choose)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def LineaDistributeSequences : Pass<"linea-distribute-sequences"> {
  let summary = "One program instance per sequence for the chunked forms";
  let description = [{
    A causal `linear_attention` or `gated_linear_attention` chosen to be
    chunked carries its state along the sequence only: every (batch, head)
    and every tile of value columns is independent. This pass makes that
    explicit: the op becomes an `scf.forall` over the leading batch dims
    (and over `value-tile`-wide column tiles of `v` when `Dv` is a static
    multiple of the tile) around a rank-2 op on one sequence. The chunked
    rewrite then builds its chunk loop inside the `scf.forall`, so that loop
    can run inside one GPU block that keeps `S` in shared memory
    (`linea-map-to-gpu` maps the `scf.forall` to blocks).

    Ops not annotated `linea.form = "chunked"` are left alone, as are ops
    that are one sequence already and are not split over value tiles.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal {linea.form = "chunked"}
        : tensor<2x4x256x64xf32>, ... -> tensor<2x4x256x64xf32>
    // becomes
    %o = scf.forall (%b, %h) in (2, 4) shared_outs(%out = %empty) -> (tensor<2x4x256x64xf32>) {
      %qs = tensor.extract_slice %q[%b, %h, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1]
          : tensor<2x4x256x64xf32> to tensor<256x64xf32>
      ...
      %os = linea.linear_attention %qs, %ks, %vs mask = causal {linea.form = "chunked"} : ...
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %os into %out[%b, %h, 0, 0] [1, 1, 256, 64] [1, 1, 1, 1] : ...
      }
    }
    ```
  }];
  let options = [
    Option<"valueTile", "value-tile", "int64_t", /*default=*/"64",
           "Value columns per instance (0 = all of them)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

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

def LineaPresumToScan : Pass<"linea-presum-to-scan"> {
  let summary = "Presum becomes a blocked two-level scan";
  let description = [{
    `linea.presum` along a dim of length `N` becomes three steps over blocks
    of `block-size` rows: the sum of each block (independent, parallel), an
    exclusive scan of the `ceil(N / B)` block sums, and a scan inside each
    block seeded with its offset (independent, parallel). Every flavour
    (exclusive, reverse, any dim) is kept exactly; the last block is shorter
    when `N % B != 0`.

    ```mlir
    %y = linea.presum %x : tensor<1000x64xf32>
    // becomes: block sums, scan of the sums, per-block scans with offsets
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Rows per block (0 = about sqrt(N), at least 16)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaTileAttention : Pass<"linea-tile-attention"> {
  let summary = "Softmax attention becomes a tiled online softmax (flash style)";
  let description = [{
    `linea.attention` becomes a loop over key tiles carrying, per query row,
    the running max `m`, the running sum `l` and the unnormalized output:
    for each tile `s = scale * q k_tile^T` (masked), `m' = max(m, rowmax(s))`,
    `p = exp(s - m')`, `l = exp(m - m') l + rowsum(p)`,
    `acc = exp(m - m') acc + p v_tile`; finally `o = acc / l`. No
    `Lq x Lk` matrix is built: the live data is `Lq x tile`.

    ```mlir
    %o = linea.attention %q, %k, %v mask = causal : ...
    // becomes an scf.for over key tiles carrying (m, l, acc)
    ```
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"64",
           "Keys per tile">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LineaSelectForms : Pass<"linea-select-forms"> {
  let summary = "Choose each op's form and chunk size with the cost model";
  let description = [{
    Runs the cost model (`linea/Analysis/CostModel.h`) on every attention op
    and presum and records its choice as `linea.form` (`oneshot`, `chunked`,
    `quadratic`; `scan` or `blocked_scan` for presum) and
    `linea.chunk_size`, which the rewrites obey. The blocked scan pays a
    second pass over the data for parallelism, so it wins only where blocks
    run in parallel (`target=gpu`). The model
    weighs, from the static dims and the target, the FLOPs and bytes of
    the recurrent/one-shot form, the quadratic masked form and the chunked
    form at each candidate chunk size. With `explain`, it emits a remark per
    op with the choice and every alternative's estimate.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal : ...
    // becomes (with explain: remark "chunked, chunk 64: ...")
    %o = linea.linear_attention %q, %k, %v mask = causal
        {linea.chunk_size = 64 : i64, linea.form = "chunked"} : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu or gpu: the machine the costs are weighed for">,
    Option<"form", "form", "std::string", /*default=*/"\"auto\"",
           "auto, or force oneshot, chunked, quadratic, scan or blocked_scan where legal">,
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Force this chunk size (0 = choose)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op with the choice and the alternatives">
  ];
}

#endif // LINEA_TRANSFORMS_PASSES_TD
