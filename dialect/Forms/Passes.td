//===- Passes.td - Linea's forms -------------------------------*- tablegen -*-===//
//
// The forms the SPEC names for each op with a choice of them: the cost
// model's choice (linea-select-forms) and the rewrites into each form
// (one-shot, chunked, chunk-parallel, blocked scan, tiled attention), with
// the prefix split that lets each part of a PrefixLM op take its own.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_FORMS_PASSES_TD
#define LINEA_FORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaPlanTarget : Pass<"linea-plan-target"> {
  let summary = "Record the machine a module is compiled for";
  let description = [{
    The first stage of every pipeline: records the target's description
    (`linea/Target/Target.h`: its kind, chip, shared memory, threads per
    block, rates) as `linea.target = #linea.target<...>` on the op it runs
    on, the module. Every later pass reads the machine from there and no
    pass guesses it: a GPU pass on a module with no GPU target recorded
    stops with an error naming this pass, and the tensor-core kernels follow
    the recorded chip (wgmma on `sm_90a`, TMA from `sm_90`).

    A module that already has a target keeps it when the options name none
    (`target` of the same kind, no `chip`, no `target-description`) or the
    same one; naming another is an error: the forms planned for one machine
    are not re-planned for another. `linea-select-forms` and
    `linea-split-segments` take the same options and plan the same way when
    run on their own.

    ```mlir
    module {
      func.func @f(...) { ... }
    }
    // with target=gpu chip=sm_80 becomes
    module attributes {linea.target = #linea.target<kind = gpu,
        chip = "sm_80", units = 108, threads = 256, shared_memory = 166912,
        ...>} {
      func.func @f(...) { ... }
    }
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::linea::TargetKind",
           /*default=*/"::mlir::linea::TargetKind::cpu",
           "The kind of machine: cpu or gpu",
           "::mlir::linea::targetKindValues()">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The NVIDIA chip (target=gpu; empty: the module's planned "
           "target, else the default chip, sm_90a)">,
    Option<"targetDescription", "target-description", "std::string",
           /*default=*/"\"\"",
           "A JSON file with the target's measured rates (written by "
           "`python3 -m linea.calibrate`); empty: the built-in estimates">
  ];
  let dependentDialects = ["::mlir::linea::LineaDialect"];
}

def LineaSplitPrefix : Pass<"linea-split-prefix"> {
  let summary = "Split a PrefixLM op into a bidirectional and a causal part";
  let description = [{
    `mask = prefix(j)` becomes a bidirectional op over rows `[0, j)` and a
    causal op over `[j, L)` seeded with the prefix's final state, so each
    region can take its own form: the one-shot state for the first, the
    chunked algorithm for the second. `j` may be static or dynamic.

    One pattern on `LinearAttentionOpInterface` serves both ops; the first
    part is `mask = none` (for a gated op: every row reads the state after
    the prefix's last row). A normalized op first becomes the unnormalized
    op over f32 `[v, 1]` (a pattern of its own, which
    `linea-split-segments` also uses): the extra state column carries
    `z = sum phi(k)` across the split and the output is divided by it at
    the end.

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
    One pattern on `LinearAttentionOpInterface`, for ops whose form is
    one-shot or that have no form. A bidirectional `linear_attention`
    (`mask = none`, or `causal` with `L = 1`, the decode step) becomes
    `S = S0 + phi(K)^T V` and
    `O = scale * phi(Q) S`: two contractions and no loop; with `normalize`,
    `V` gets a ones column so the same two contractions give `phi(q) . z`.

    A bidirectional gated op (`mask = none`, every row reading the state
    after the last token, as `linea-split-prefix` makes the prefix part)
    becomes one matmul too, exactly: with `b = presum(g)`, every row reads
    `S_{j-1} = diag(exp(b_{j-1})) S0 + sum_t diag(exp(b_{j-1} - b_t)) k_t^T v_t`,
    so the keys are decayed by `exp(b_{j-1} - b_t) <= 1` and
    `S_{j-1} = (K .* decay)^T V`. Every exponent is `<= 0`, so nothing
    overflows for gates down to -20 per step. The data-dependent gate does
    not force the chunked algorithm on the prefix.

    Inside a GPU sequence block (an op on one segment of a packed batch)
    no temporary may be as long as the sequence, and the one-shot form of
    a gated, normalized or feature-mapped op copies the rows (`phi(K)`, the
    ones column, the decayed keys). There it runs over chunks of 64 rows,
    the last padded with zeros: one loop adds each chunk to the state
    (decaying it first when gated), a second multiplies each chunk's
    queries by the final state. The same values, two passes over the rows.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = none : ...
    // becomes
    %s = linalg.generic ... ins(%k, %v) ...   // S[d, e] = sum_t k[t, d] v[t, e]
    %o = linalg.generic ... ins(%q, %s) ...   // O[i, e] = sum_d q[i, d] S[d, e]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def LineaCausalToChunked : Pass<"linea-causal-to-chunked"> {
  let summary = "Causal regions become the chunked algorithm";
  let description = [{
    A causal `linear_attention` or `gated_linear_attention` (one pattern on
    `LinearAttentionOpInterface`) whose form is chunked, or that has no form,
    becomes an `scf.for` over chunks of `C` rows carrying the state `S`:
    `O_c = Q_c S + tril(Q_c K_c^T) V_c`, then `S += K_c^T V_c`. The last chunk
    is shorter when `L % C != 0`; `L` may be dynamic. The initial state seeds
    `S`, the final state is the carried `S` after the loop.

    With gates, decays are taken relative to the chunk start
    (`b = presum(g_c)` within the chunk): the inter-chunk term uses
    `exp(b_i)`, the intra-chunk term `exp(b_i - b_t)` for `t <= i`, and the
    state update `exp(b_last - b_t)` and `exp(b_last)`: every exponent is
    `<= 0`, so nothing overflows for `g` down to -20. On the CPU (outside a
    sequence block, not planned for the GPU) a chunk whose `|b|` stays
    within 30 computes the intra-chunk scores as one masked contraction of
    `q_i exp(b_i)` and `k_t exp(-b_t)` (the decay folded into the operands,
    as fla does), chosen at run time by an `scf.if`. Steeper chunks, and
    every chunk planned for the GPU, take the safe form: in a static chunk
    of 32 rows or more (a multiple of 16), a loop over 16-column blocks
    whose diagonal 16 x 16 block is exact and whose rows below are one
    plain contraction of `q_i exp(b_i - b_r)` and `k_t exp(b_r - b_t)`, `r`
    the block's last row (both exponents `<= 0`; a tensor-core contraction
    on the GPU); in a smaller or dynamic chunk the exact form.

    The chunk size is the op's form (`#linea.form<chunked, C>`, chosen by
    `linea-select-forms`), else the `chunk-size` option; with neither
    (`chunk-size = 0`) it is 64. Inside a sequence block (an `scf.forall`
    mapped to GPU blocks, see `linea-distribute-sequences`) every temporary
    gets a static size, for the block's shared memory: the remainder chunk
    is padded to `C` rows with zeros, and the state gets a buffer of its own.
    There the remainder step runs whether or not rows are left (none: a
    chunk of zeros, which changes nothing): behind an `scf.if` its rows
    could not be bufferized in place where the output is inserted with
    `tensor.insert_slice` (a prefix's causal rows into its segment's).

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal : ...
    // becomes
    %r:2 = scf.for %c = %c0 to %L step %C iter_args(%s = %s0, %out = %empty) { ... }
    ```
  }];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Rows per chunk for ops without a chosen form (0 = 64)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def LineaCausalToChunkParallel : Pass<"linea-causal-to-chunk-parallel"> {
  let summary = "Causal regions become the chunk-parallel form";
  let description = [{
    A causal `linear_attention` or `gated_linear_attention` whose form is
    `#linea.form<chunk_parallel, C>` (or that has no form) becomes three
    phases, each parallel over every chunk of every sequence: the chunk axis
    is one more batch dim of `[B..., N, C, D]` views of q, k, v (and g),
    padded with zero rows to `N = ceil(L / C)` chunks (zero keys add nothing
    to a state, zero gates decay nothing; the padded output rows are
    dropped), so any `L`, static or dynamic, takes the same code.
    1. Each chunk's local state `H_c = K_c^T V_c` (gated: keys decayed to the
       chunk end, `diag(exp(b_last - b_t))`, and the chunk's total log-decay
       `G_c = sum g`).
    2. The states entering the chunks: `linea.presum` along the chunk axis of
       `[S0; H_0; ...; H_(N-1)]` (`[B..., N + 1, Dk, Dv]`), inclusive, with the
       decays `[0; G_0; ...]` when gated, so `S_c = diag(exp(G_c)) S_{c-1} +
       H_c` (seed 000 at the chunk level). Element `c` enters chunk `c`; the
       last is the final state.
    3. Every chunk's rows at once, `O_c = Q_c S_{c-1} + tril(Q_c K_c^T) V_c`
       (gated: decays relative to the chunk start), the same builders as the
       sequential chunked form (ChunkRows.h). As grids over every chunk,
       gated scores safe for any gate take a static chunk's 16-row query
       blocks as one more batch dim, no loop: each block's rows left of its
       diagonal block are one contraction against its own first row (fla's
       reference row); the exact 16 x 16 diagonal blocks are, for the GPU,
       a sequence block per chunk and block that copies its rows first.
    Planned for the GPU, the phases are blocks where the planned target's
    shared memory holds them (`TargetDescription::chunkBlocks`, the cost
    model's decision too). Where a chunk's rows fit a block (a plain
    chunk's with room for a second block on its SM), phases 1 and 3 are
    each an `scf.forall` over the chunks mapped to GPU blocks (a sequence
    block per chunk, as the chunked form has one per sequence): each
    copies its chunk of q, k and v (and the state entering it) and keeps
    the scores (gated: the log-decays and decayed operands too) in shared
    memory. Where an op has sequences enough to keep half the SMs busy in
    blocks of one 64 x 64 state tile each, phases 1 and 2 are one pass
    instead (fla's `chunk_fwd_h`, `chunk_gla_fwd_h`): a block per sequence
    and state tile walks the chunks in order, its tile of the state in
    shared memory in f32, writes the state entering each chunk (in the
    op's own type where that is 16-bit: the rows' tensor cores multiply in
    it anyway) and adds the chunk's `K_c^T V_c` (gated: the state decayed
    by the chunk's total gate, the keys by their suffix sums, as the
    chunked form's step); its state after the last chunk is the final
    state. No local state goes through global memory and no scan runs.
    Every gate exponent is a sum over its own interval (`<= 0`), so gates
    down to -20 a step are safe. Initial and final states, normalize (the
    normalizer as an extra value column) and feature maps as in
    `linea-causal-to-chunked`.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal
           form = chunk_parallel(64) : ...
    // becomes: expand_shape to [B..., N, 64, D]; H = K^T V per chunk;
    // linea.presum of [S0; H] along N; tril(Q K^T) V + Q S per chunk
    ```
  }];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Rows per chunk for ops without a chosen form (0 = 64)">,
    Option<"handOff", "hand-off", "bool", /*default=*/"false",
           "The result goes to another compiler (linea-export), not to "
           "Linea's lowering: a GPU-planned gated op's per-chunk work as "
           "grids over every chunk for that compiler to map (not Linea's "
           "sequence blocks), and the zero step before the chunk states and "
           "gate totals as a pad (not written in place)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::affine::AffineDialect"];
}

def LineaPresumToScan : Pass<"linea-presum-to-scan"> {
  let summary = "Presum becomes a blocked two-level scan";
  let description = [{
    A `linea.presum` whose form is the blocked scan, or that has no form,
    along a dim of length `N` becomes three steps over blocks
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
           "Rows per block for presums without a chosen block size (0 = "
           "about sqrt(N), at least 16)">
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
    `Lq x Lk` matrix is built: the live data is `Lq x tile`. Under a causal
    mask on the CPU a tile works only on the rows that see one of its keys
    (from `max(0, start - (Lk - Lq))` on; the others would add `exp(-inf)`):
    half the work of a causal op.

    Planned for the GPU, the queries go in tiles of `tile-size` rows too,
    each a sequence block (an `scf.forall` over the batch dims and the
    query tiles, mapped to GPU blocks: flash attention's grid, one launch)
    running the key tiles it sees (under a causal mask none past its last
    row's) in a loop. A block's temporaries need static sizes (its shared
    memory), so both tiles are padded to `tile-size` rows, the padded keys
    masked to `-inf`, the padded rows dropped, and the running statistics
    get buffers of their own (`bufferization.alloc_tensor`). Inside a
    sequence block already (a packed segment's attention, see
    `linea-split-segments`) the block runs its query tiles in a loop.

    ```mlir
    %o = linea.attention %q, %k, %v mask = causal : ...
    // becomes an scf.for over key tiles carrying (m, l, acc)
    ```
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", /*default=*/"64",
           "Keys per tile (and queries per tile on the GPU)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::gpu::GPUDialect"];
}

def LineaSelectForms : Pass<"linea-select-forms"> {
  let summary = "Choose each op's form and chunk size with the cost model";
  let description = [{
    Runs the cost model (`linea/Analysis/CostModel.h`) on every op with a
    choice of forms (`FormOpInterface`: the linear-attention ops and presum)
    and records its choice as the op's `form` attribute
    (`#linea.form<oneshot>`, `#linea.form<chunked, 64>`,
    `#linea.form<quadratic>`; `#linea.form<scan>` or
    `#linea.form<blocked_scan>` for presum), which the rewrites obey. Ops
    that already have a form are left alone. The model weighs, from the
    static dims and the target description (`linea/Target/Target.h`), the
    FLOPs and bytes of every legal form, the chunked form at each candidate
    chunk size. The bytes are those Linea's code moves: on the GPU the
    chunked form's sequence blocks read global operands once per 16 x 8
    tensor-core tile (their lanes load their own fragments), the
    chunk-parallel form's grids pass states and scores through memory, and
    with a dynamic batch or length those grids lose tensor cores (dynamic
    sizes). The blocked scan pays a second pass over the data for
    parallelism, so it wins only where blocks run in parallel
    (`target=gpu`, outside a sequence block). With `explain`, it emits a
    remark per op with the choice and every alternative's estimate.

    The machine it plans for is recorded on the op it runs on (the module)
    as `linea.target = #linea.target<...>` with every number of its
    description, which the later passes read; a module that already has
    one is planned for that target, and naming another (`target`, `chip`,
    `target-description`) is an error: forms planned for one machine are
    not re-planned for another.

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal : ...
    // becomes (with explain: remark "form chunked(64); weighed: ...")
    %o = linea.linear_attention %q, %k, %v mask = causal
        form = chunked(64) : ...
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::linea::TargetKind",
           /*default=*/"::mlir::linea::TargetKind::cpu",
           "The machine the costs are weighed for",
           "::mlir::linea::targetKindValues()">,
    Option<"form", "form", "::mlir::linea::FormPreference",
           /*default=*/"::mlir::linea::FormPreference::automatic",
           "Force this form wherever it is legal",
           "::mlir::linea::formPreferenceValues()">,
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Force this chunk size (0 = choose)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op with the choice and the alternatives">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The NVIDIA chip to plan for (target=gpu; empty: the module's "
           "planned target, else sm_90a)">,
    Option<"targetDescription", "target-description", "std::string",
           /*default=*/"\"\"",
           "A JSON file with the target's measured rates (written by "
           "`python3 -m linea.calibrate`); empty: the built-in estimates">
  ];
  // It records `#linea.target` on model IR that may hold no Linea op.
  let dependentDialects = ["::mlir::linea::LineaDialect"];
}

#endif // LINEA_FORMS_PASSES_TD
