//===- Passes.td - Linea optimization passes -------------------*- tablegen -*-===//
//
// Optimizations rewrite Linea ops into other Linea ops; the forms the SPEC
// names (their choice and rewrites) live in Forms/Passes.td, conversions out
// of the dialect in Conversion/Passes.td.
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

def LineaComputeKeptSlices : Pass<"linea-compute-kept-slices"> {
  let summary = "Producers compute only the part of their result a slice keeps";
  let description = [{
    A `tensor.extract_slice` that is its producer's one use moves above the
    producer: the producer is rebuilt on the slice's part of its iteration
    space, reading only the parts of its operands that part needs, so values
    nobody reads are never computed. Each step is exact for every index:

    - linalg ops are rebuilt through their `TilingInterface`, which offsets
      `linalg.index` and keeps reductions whole; one read only through
      static slices no larger together than its result (the q, k and v
      column blocks of one projection) becomes one op per slice;
    - reshapes pass the slice to their source: `tensor.expand_shape`
      (upstream's patterns), `tensor.collapse_shape` where each collapsed
      group is kept whole or cut in its one dim that is not 1;
    - `linea.attention`'s query rows `[a, a + n)` are the attention of those
      queries (batch dims and value columns sliced alike); under `causal`
      (query `i` sees keys `t <= i + Lk - Lq`) over the first
      `max(0, a + n + Lk - Lq)` keys, which keeps every row's visible keys
      and no others.

    The case it is for: a folded layer's step computes all `2l` rows of its
    window and keeps the last `l` (`linea-fold-to-loop`), so the output
    projection, the residual and the attention's queries of the memory's
    rows are dead work. Model IR that keeps part of a sequence (the last
    token's logits) gains the same way.

    ```mlir
    %a = linea.attention %q, %k, %v mask = causal
        : tensor<4x128x64xf32>, tensor<4x128x64xf32>, tensor<4x128x64xf32>
        -> tensor<4x128x64xf32>
    %r = tensor.extract_slice %a[0, 64, 0] [4, 64, 64] [1, 1, 1]
    // becomes
    %q1 = tensor.extract_slice %q[0, 64, 0] [4, 64, 64] [1, 1, 1]
    %r = linea.attention %q1, %k, %v mask = causal
        : tensor<4x64x64xf32>, tensor<4x128x64xf32>, tensor<4x128x64xf32>
        -> tensor<4x64x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LineaSplitSegments : Pass<"linea-split-segments"> {
  let summary = "Packed sequences: an op with offsets becomes the op on each segment";
  let description = [{
    An op with `offsets(%o)` is defined as itself on each segment
    `[o_n, o_{n+1})` alone. This pass writes that definition out: a parallel
    loop (`scf.forall`) over the N segments whose body slices each operand's
    rows of segment n, applies the op without offsets (keeping its mask,
    form and attributes) and inserts its rows into the result. Every form
    the optimizer has then applies to each segment, with its own (dynamic)
    length; segments run in parallel. Exact by construction: no row reads
    another segment's.

    Runs first in `linea-optimize`, after the run-time checks of the
    offsets (`o_0 = 0`, non-decreasing, `o_N = L`). Ops: `linea.presum`,
    `linea.linear_attention` and `linea.gated_linear_attention`, whose
    segment n starts from initial state n, takes prefix length `j_n` and
    writes final state n (states `[N, B..., Dk, Dv]`).
    The machine is the module's `#linea.target` where one is recorded (the
    options must agree with it), else the one the options name, which this
    pass records as linea-select-forms does (`planTarget`): in
    `linea-optimize` it is the first pass that needs the machine.
    For a GPU target the loop also runs over every dim before the sequence
    dim, and is mapped to GPU blocks (`#gpu.block<linear_dim_k>`): each
    segment of each sequence is one sequence block, whose op the later
    passes lower inside it (a causal op's chunk loop, a bidirectional op's
    state, a prefix's both, a presum's scan, softmax attention's query tiles
    over key tiles), and every segment is one launch, whatever N is.
    The offsets are read in the kernel; the run-time checks read a staged
    copy (`linea-stage-host-reads`). More than 9 dims before the sequence
    dim are refused with an error (one linear block dim per loop).
    A packed `linea.attention` that linea-flash-attention will take under
    `precision` (`flash::operandTypeFor`) stays whole on the GPU: the
    flash-attention kernel walks the segments itself.
    A normalized op with a prefix mask first becomes the unnormalized op
    over values with a ones column appended (its output divided by that
    column's afterwards), on every target: the normalizer then crosses each
    segment's prefix split as a state column, and the column is one copy
    of the packed rows rather than one per segment (which a GPU block could
    not hold).

    ```mlir
    %p = linea.presum %x offsets(%o) exclusive
           : tensor<?x5xf32>, tensor<?xindex> -> tensor<?x5xf32>
    // becomes
    %p = scf.forall (%n) in (%segments) shared_outs(%out = %empty) -> (tensor<?x5xf32>) {
      %rows = tensor.extract_slice %x[%start, 0] [%size, 5] [1, 1]
      %sum = linea.presum %rows exclusive : tensor<?x5xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %sum into %out[%start, 0] [%size, 5] [1, 1]
      }
    }
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::linea::TargetKind",
           /*default=*/"::mlir::linea::TargetKind::cpu",
           "The machine the segments will run on",
           "::mlir::linea::targetKindValues()">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The NVIDIA chip (target=gpu; empty: the module's planned "
           "target, else sm_90a)">,
    Option<"targetDescription", "target-description", "std::string",
           /*default=*/"\"\"",
           "A JSON file with the target's measured rates (as "
           "linea-select-forms takes it)">,
    Option<"handOff", "hand-off", "bool", /*default=*/"false",
           "The result goes to another compiler (linea-export): the segments "
           "one after another in an scf.for carrying the outputs, on every "
           "target (IREE 3.13 crashes on a top-level scf.forall)">,
    Option<"precision", "precision", "::mlir::linea::Precision",
           /*default=*/"::mlir::linea::Precision::automatic",
           "The tensor-core operand type linea-flash-attention will be run "
           "with (GPU): packed softmax attention it takes stays whole",
           "::mlir::linea::precisionValues()">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LineaInsertRuntimeChecks : Pass<"linea-insert-runtime-checks"> {
  let summary = "Check at run time what the verifier checks on static sizes";
  let description = [{
    Before each Linea op, asserts (`cf.assert`, through the op's
    `RuntimeVerifiableOpInterface`) every shape relation the verifier checks
    when the sizes are static but cannot when they are dynamic: equal batch
    dims and sequence lengths across operands, state shapes, a dynamic
    prefix length within `[0, L]`, and `L % segment_length == 0` with the
    memory `segment_length` rows long for `fold`. Each message is one line:
    the op's location, its name, the operand and the relation. Upstream's
    `generate-runtime-verification` calls the same interface (with its own,
    multi-line messages, and for every op that has checks).

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal
        : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    // becomes
    %lq = tensor.dim %q, %c0 : tensor<?x8xf32>
    %lk = tensor.dim %k, %c0 : tensor<?x8xf32>
    %same = arith.cmpi eq, %lk, %lq : index
    cf.assert %same, "f.mlir:2:6: linea.linear_attention: 'key' sequence length does not match 'query' sequence length"
    ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LineaCheckAssumedSizes : Pass<"linea-check-assumed-sizes"> {
  let summary = "Check at run time each size a model's IR assumes static";
  let description = [{
    A `tensor.cast` that makes a dynamic dim static assumes that size, and
    what follows it is sized by the assumption: canonicalization folds such
    a cast into its producer, so the buffers before and after it disagree
    when a call breaks it, and the code writes past their ends. Before
    anything else touches the model (the raise canonicalizes its copy), this
    pass asserts each such size where the cast makes it, through upstream's
    `RuntimeVerifiableOpInterface` of `tensor.cast`, with a one-line
    message. torch-mlir (20261001) lowers `x.view(B * L, D)` with B and L
    both dynamic as a cast of `?x?xD` to `?x1xD`: a call at L = 64 then
    stops with "linear.py:134:0: tensor.cast: size mismatch of dim 1
    (compared 64 and 1)" instead of corrupting memory. Where the front end
    already folded such a cast into the op that produces it (a linalg op
    whose operands give a loop a static extent and a dynamic one: inputs
    `?x?x128`, output `?x1x128`), each dynamic size along that loop is
    checked against the static one before the op (`linea.check`).
    `linea-compile` and `linea-run` run it first,
    `linea-lower-to-cpu{runtime-checks=1}` too.

    ```mlir
    %c = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x1x128xf32>
    // becomes
    %d = tensor.dim %x, %c1 : tensor<?x?x128xf32>
    %same = arith.cmpi eq, %d, %c1 : index
    cf.assert %same, "model.py:3:0: tensor.cast: size mismatch of dim 1"
    %c = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x1x128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linea::LineaDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LineaDifferentiate : Pass<"linea-differentiate", "::mlir::ModuleOp"> {
  let summary = "Add a reverse-mode gradient function `@f_vjp` for each public `@f`";
  let description = [{
    For each public function `@f` with one block, adds
    `@f_vjp(args..., d_results...) -> (d_args...)`: one cotangent argument per
    floating-point result of `@f` (tensor or scalar, a final state included)
    and one result per floating-point argument, in argument order (index and
    integer arguments are skipped on the way out; they still come in, since
    the forward pass needs them). `@f_vjp` recomputes `@f`'s forward ops,
    then walks them backwards, turning each op's result cotangents into
    cotangents of its operands. Only values that depend on a floating-point
    argument carry cotangents (activity analysis); dead forward ops fold away.

    The rules build the backward pass out of ops the optimizer knows, so
    `linea-optimize` chooses its forms as for any forward program:
    - `linea.presum`: a presum from the other end (`reverse` flipped); with
      a decay, its decays moved one step, and the decay's cotangent
      `sum g_i exp(a_i) y_prev` over the broadcast dims.
    - `linea.linear_attention` (every mask, static and dynamic prefix,
      feature maps, scale, initial and final state, normalize): three
      `linea.linear_attention` ops per operand group; the keys' and values'
      need the transposed mask: `none` stays `none`, `causal` becomes
      anti-causal (a causal op over reversed sequences), `prefix(j)` becomes
      a bidirectional op over `[0, j)` seeded with the state of an
      anti-causal op over `[j, L)`.
    - `linea.gated_linear_attention` with one decay per token, causal:
      dq a gated op seeded with S0^T; dv and dk gated ops over reversed
      sequences with the decays moved one step back, seeded with the final
      state's cotangent; `dS0 = exp(g_0) G_0`; dg the reverse presum of
      `q . dq - k . dk` (plus `<dF, F>` at the last token). With a
      per-key-dim gate, dq and dk read the states on their value side, where
      the decay does not commute with the read. With `target=gpu` those
      reads run chunked (fla's chunk_gla_bwd: a scan over chunk states, every
      chunk's rows at once, the in-chunk decays exact on 16-row diagonal
      blocks and factored below them) and dv is a gated op over the reversed
      rows: the launches do not grow with L. On the CPU the rule runs the
      forward and the backward state recurrences one token at a time
      (`scf.for`, each step a `[Dk, Dv]` update and read, the state in
      cache), which there is faster. Rows before a prefix length j (all rows
      under `none`) read one state, so their parts are one-shot. Scalar
      gates under prefix / none take the same path.
    - `linea.fold` (and `linea.folded_attention`, expanded into its fold
      first): the forward fold is kept (its output is every segment's
      memory), then one `scf.for` over the segments in reverse rebuilds each
      window from those memories, recomputes the body, seeds its evolved
      half with `dy_s + dM`, and differentiates the body with these same
      rules; values the body captures (weights) sum their cotangents over
      the segments. Backward memory beyond inputs, outputs and the stored
      memories is one window's activations.
    - `linea.attention` (softmax, none or causal, Lq != Lk): the
      probabilities recomputed from the scores (max-subtracted, rows that see
      no key zero), `dv = P^T dO`, `dS = scale P (dO v^T - rowsum(dO o))`,
      `dq = dS k`, `dk = dS^T q`, as linalg generics (f32 operands).
    - linalg ops (named ops are generalized first): one generic per
      differentiated operand over the same loops, writing through the
      operand's own map, parallel over the loops that index it directly and
      a sum over the rest (a loop seen only inside an expression, such as a
      head's column `h * Dh + c` or a shifted read, is summed too), whose
      body recomputes the forward body and differentiates it (arith and
      math: add, sub, mul, div, neg, fma, exp, log, sqrt, rsqrt, tanh, abs,
      min/max, select, extf/truncf). Every reduction must be a sum.
    - tensor ops that move data: extract_slice, insert_slice, concat,
      expand_shape, collapse_shape, cast, extract.
    - a linalg body's `tensor.extract` of a differentiated tensor at computed
      indices (an embedding's lookup, a gather): a scatter-add of each
      point's contribution into the tensor's cotangent, in `scf.for` loops
      over the generic's points (two points may read one element).

    An op without a rule (today: calls, ops with regions other than linalg
    bodies and fold bodies, reductions by max) fails the pass with an error
    naming it.

    ```mlir
    func.func @f(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
      %y = linea.presum %x : tensor<8x4xf32>
      return %y : tensor<8x4xf32>
    }
    // adds
    func.func @f_vjp(%x: tensor<8x4xf32>, %dy: tensor<8x4xf32>) -> tensor<8x4xf32> {
      %dx = linea.presum %dy reverse : tensor<8x4xf32>
      return %dx : tensor<8x4xf32>
    }
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::linea::TargetKind",
           /*default=*/"::mlir::linea::TargetKind::cpu",
           "The kind of machine the gradient is for, cpu or gpu (a module "
           "planned for a GPU is for the GPU whatever this says): it "
           "chooses the per-key-dim gated backward's form",
           "::mlir::linea::targetKindValues()">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect",
                           // The GPU gradient's sequence blocks.
                           "::mlir::gpu::GPUDialect"];
}

def LineaOutlineOps : Pass<"linea-outline-ops", "::mlir::ModuleOp"> {
  let summary = "Move each top-level Linea op into a function of its own";
  let description = [{
    Each Linea op directly in a function body, and each elementwise op or
    linalg op without regions on tensors between them (a residual add),
    becomes a call to a private
    function `@F__linea_N` holding just that op: its operands become the
    function's arguments (constants are cloned in instead, so a constant
    prefix length still folds to `prefix(j)`), its results the function's.
    Static-shape ops that are the same but for their operands and locations
    (the layers of a model) share one function; an op with dynamic sizes or
    an index operand keeps its own, since its run-time checks name its
    location. Ops inside a `fold` body stay where they are.

    This is for compile time. A model lowers to one function with a loop nest
    per op, and one-shot bufferization, empty-tensor elimination and LLVM's
    -O3 all grow faster than linearly with a function's size; per-op
    functions keep each of them linear in the number of distinct ops. linea-run and
    linea-compile run it on the CPU path before optimizing; the calls cost
    nanoseconds against the ops' loops.

    ```mlir
    func.func @model(%x: tensor<4x256x64xf32>) -> tensor<4x256x64xf32> {
      %y = linea.presum %x : tensor<4x256x64xf32>
      return %y : tensor<4x256x64xf32>
    }
    // becomes
    func.func @model(%x: tensor<4x256x64xf32>) -> tensor<4x256x64xf32> {
      %y = call @model__linea_0(%x) : (tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
      return %y : tensor<4x256x64xf32>
    }
    func.func private @model__linea_0(%x: tensor<4x256x64xf32>) -> tensor<4x256x64xf32> {
      %y = linea.presum %x : tensor<4x256x64xf32>
      return %y : tensor<4x256x64xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def LineaFuseElementwise : Pass<"linea-fuse-elementwise"> {
  let summary = "Fuse model IR's elementwise chains, never into a contraction";
  let description = [{
    Each elementwise `linalg.generic` on tensors (all loops parallel) whose
    only user is another linalg op is computed inside that user, as
    upstream's `linalg-fuse-elementwise-ops` does it: the feature maps,
    scalings, residuals and the exp of a softmax become one loop nest each
    instead of one tensor (at L x L, one score matrix) per op. A producer
    with several users stays, so that nothing is computed twice. Only the
    ops in a function's body fuse: those in the loops of Linea's forms stay
    as the forms built them.

    Unlike upstream's pass, nothing is fused into a contraction (a matmul, a
    batch matmul or a generic whose body multiplies and adds): a projection
    or a product of scores stays the plain multiply-accumulate that
    `linea-vectorize-contractions` runs as a register-tiled kernel, where a
    fused body would leave it to scalar loops. Reshapes are not moved
    either: the ops keep the shapes the model wrote.

    Once fused, an elementwise op whose fresh destination (`tensor.empty`)
    could be an operand of the same type that it reads at the index it
    writes, and that nothing else reads (computed by a linalg op, directly
    or through reshapes nothing else reads; so not the caller's argument or
    a constant), takes that operand as its
    destination: bufferized, it writes in place, and a mask over a score
    matrix costs no second L x L buffer.

    A `tensor.pad` of an elementwise result that nothing else reads (the
    chunk-parallel form pads a feature-mapped q and k to whole chunks)
    takes upstream's `FuseTensorPadWithProducerLinalgOp` rewrite: the
    padded tensor is filled, and the producer writes its interior, rather
    than a tensor of its own that the pad then copies.

    ```mlir
    %e = linalg.generic {... ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) ... {
      %0 = math.exp %in : f32
      linalg.yield %0 : f32
    } -> tensor<4x8xf32>
    %s = linalg.generic {... ["parallel", "reduction"]} ins(%e : tensor<4x8xf32>)
        outs(%acc : tensor<4xf32>) { ... arith.addf ... }
    // becomes one reduction that takes the exp of %x as it sums
    %s = linalg.generic {... ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>)
        outs(%acc : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = math.exp %in : f32
      %1 = arith.addf %0, %out : f32
      linalg.yield %1 : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def LineaCollapseContractionGroups : Pass<"linea-collapse-contraction-groups"> {
  let summary = "Merge a contraction's grouped m, n or k dims into one loop";
  let description = [{
    A contraction on tensors (a `linalg.generic` whose body multiplies and
    adds, over projected permutations) whose m, n or k is a group of several
    dims, as the raise leaves a projection `x @ W` whose result the model
    views as heads, `(m, k) x (k, h, d) -> (m, h, d)`, has each such group
    merged into one loop (`linalg::collapseOpIterationDims`) where the
    group's dims are contiguous, in one order, in every operand that reads
    any of them (the loops are first reordered so that the group's are
    consecutive in that order, where they are not): the operands are
    `tensor.collapse_shape` views, the result is expanded back, and the op is
    the plain contraction the register-tiled kernels of
    `linea-vectorize-contractions` take. Batch dims stay as they are (the
    kernels loop over any number). A group that is not contiguous in some
    operand (a transposed view) is left as written.

    ```mlir
    %p = linalg.generic {indexing_maps = [(m, h, d, k) -> (m, k),
                                          (m, h, d, k) -> (k, h, d),
                                          (m, h, d, k) -> (m, h, d)], ...}
        ins(%x, %w : tensor<4096x256xf32>, tensor<256x4x64xf32>)
        outs(%init : tensor<4096x4x64xf32>)
    // becomes
    %w2 = tensor.collapse_shape %w [[0], [1, 2]] : tensor<256x4x64xf32> into tensor<256x256xf32>
    %i2 = tensor.collapse_shape %init [[0], [1, 2]] : ...
    %p2 = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (k, n),
                                           (m, n, k) -> (m, n)], ...}
        ins(%x, %w2 : ...) outs(%i2 : tensor<4096x256xf32>)
    %p = tensor.expand_shape %p2 [[0], [1, 2]] ... into tensor<4096x4x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // LINEA_TRANSFORMS_PASSES_TD
