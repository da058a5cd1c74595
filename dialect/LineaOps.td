//===- LineaOps.td - Linea op definitions ----------------------*- tablegen -*-===//
//
// The math of every op is SPEC.md's; each description repeats it in a line
// or two so that the generated documentation stands on its own.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_OPS_TD
#define LINEA_OPS_TD

include "LineaAttrs.td"
include "LineaDialect.td"
include "LineaEnums.td"
include "LineaInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/RuntimeVerifiableOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"

// Tiled over the parallel dims of the iteration domain each op documents
// (never along the sequence, which is a scan); shapes reified for the
// destinations of the tiled loops.
defvar Linea_Tileable = [
  DeclareOpInterfaceMethods<TilingInterface,
      ["getLoopIteratorTypes", "getIterationDomain", "getTiledImplementation",
       "getResultTilePosition", "generateResultTileValue"]>,
  DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
      ["reifyResultShapes"]>,
  // What the verifier checks on static sizes, checked at run time where a
  // size is dynamic (cf.assert; see linea-insert-runtime-checks).
  DeclareOpInterfaceMethods<RuntimeVerifiableOpInterface>
];

// The two linear-attention ops tile alike: TilingInterface and
// ReifyRankedShapedTypeOpInterface come from one pair of external models for
// both (LinearAttentionTiling and LinearAttentionShapes in LineaOps.cpp,
// attached when the dialect loads).
defvar Linea_TileableLinearAttention = [
  DeclareOpInterfaceMethods<RuntimeVerifiableOpInterface>
];

// Sequence operands: f32, or f16/bf16 that accumulate in f32.
def Linea_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
// Recurrent states are always f32; the verifier says so naming the operand.
def Linea_StateTensor : RankedTensorOf<[F32, F16, BF16]>;
// Packed sequences: the N + 1 offsets of N segments along the sequence dim.
def Linea_OffsetsTensor : 1DTensorOf<[Index, I32, I64]>;
// A dynamic prefix length: one `index`, or one per segment of a packed op.
def Linea_PrefixLength : AnyTypeOf<[Index, Linea_OffsetsTensor],
                                   "an index or a 1-D tensor of lengths">;

//===----------------------------------------------------------------------===//
// presum
//===----------------------------------------------------------------------===//

def Linea_PresumOp : Linea_Op<"presum", !listconcat([Pure,
    DeclareOpInterfaceMethods<Linea_PackedOpInterface,
                              ["getPackedOperands", "buildOnSegment"]>,
    AttrSizedOperandSegments, AllTypesMatch<["input", "output"]>,
    DeclareOpInterfaceMethods<Linea_FormOpInterface, ["getLegalForms"]>],
    Linea_Tileable)> {
  let summary = "prefix sum along one dimension (seed 000), optionally decayed";
  let description = [{
    Inclusive: `y_i = sum_{j <= i} x_j`; exclusive: `y_i = sum_{j < i} x_j`
    (so `y_0 = 0`). `reverse` sums from the end instead (`j >= i`, or `j > i`
    when exclusive). `dim` defaults to the sequence dim, `rank - 2` (or 0 for
    a rank-1 operand).

    The seed's causal layer is `linea.presum ... exclusive`: token `i` sees
    the sum of the tokens before it, in one linear pass.

    With a `decay` operand `a` (log-space, `<= 0` by the caller's promise),
    the running sum decays at every step: inclusive
    `y_i = exp(a_i) y_{i-1} + x_i` with `y_{-1} = 0` (reverse: the same
    walking from the end, `y_i = exp(a_i) y_{i+1} + x_i`); exclusive
    `y_i` is the inclusive result one step earlier (`0` at the start). So
    `y_i = sum_{j <= i} exp(a_{j+1} + ... + a_i) x_j`: every weight is a sum
    of log-decays over its own interval, a product of factors `<= 1`, and
    nothing overflows for any `a <= 0`. The decay's shape is a leading part
    of the input's that includes `dim` (`[B..., N, Dk]` or `[B..., N]` for an
    input `[B..., N, Dk, Dv]` scanned along `N`); it is broadcast over the
    input's remaining dims. This is the gated state passing of the
    chunk-parallel form: `S_c = diag(exp(G_c)) S_{c-1} + H_c`.

    Packed sequences: with `offsets(%o)` (`N + 1` non-decreasing entries,
    `o_0 = 0`, `o_N` the size of `dim`) each segment `[o_n, o_{n+1})` is
    summed as if it were alone: the running sum (and the exclusive sum's
    zero, and the reverse sum's start) restarts at every boundary. Empty
    segments are allowed. The offsets are checked at run time.

    Forms: `#linea.form<scan>` (sequential) or `#linea.form<blocked_scan>`
    (without `decay` only). Tiling: the iteration domain is every dim but
    `dim`, all parallel.

    ```mlir
    %y = linea.presum %x exclusive : tensor<2x128x64xf32>
    %r = linea.presum %x dim = 0 reverse : tensor<2x128x64xf32>
    %s = linea.presum %h decay(%g : tensor<8x16x64xf32>) dim = 1
           : tensor<8x16x64x64xf32>
    %p = linea.presum %x offsets(%o) exclusive
           : tensor<2x?x5xf32>, tensor<?xindex> -> tensor<2x?x5xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$input,
                       Optional<Linea_FloatTensor>:$decay,
                       Optional<Linea_OffsetsTensor>:$offsets,
                       OptionalAttr<I64Attr>:$dim,
                       UnitAttr:$exclusive,
                       UnitAttr:$reverse,
                       OptionalAttr<Linea_FormAttr>:$form);
  let results = (outs Linea_FloatTensor:$output);
  let assemblyFormat = [{
    $input (`decay` `(` $decay^ `:` type($decay) `)`)?
    (`offsets` `(` $offsets^ `)`)?
    (`dim` `=` $dim^)? (`exclusive` $exclusive^)? (`reverse` $reverse^)?
    (custom<PresumForm>($form)^)?
    attr-dict `:` custom<SequenceTypes>(type($input), type($offsets))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dimension summed along: `dim` when given, else the sequence dim.
    int64_t getScanDim();
    /// Checks the decay's shape against the input's (its leading dims).
    ::mlir::LogicalResult verifyDecay();
  }];
}

//===----------------------------------------------------------------------===//
// linear_attention
//===----------------------------------------------------------------------===//

def Linea_LinearAttentionOp : Linea_Op<"linear_attention", !listconcat([
    Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Linea_LinearAttentionOpInterface, ["createLike"]>,
    DeclareOpInterfaceMethods<Linea_PackedOpInterface,
                              ["getPackedOperands", "buildOnSegment"]>,
    DeclareOpInterfaceMethods<Linea_FormOpInterface, ["getLegalForms"]>],
    Linea_TileableLinearAttention)> {
  let summary = "linear attention with a none, causal or PrefixLM mask (seed 001)";
  let description = [{
    `o_i = scale * phi(q_i) @ S(i)`, with `S0` the initial state (zero when
    absent) and
    - `none`: `S(i) = S0 + sum_{t < L} phi(k_t)^T v_t`,
    - `causal`: `S(i) = S0 + sum_{t <= i} phi(k_t)^T v_t`,
    - `prefix(j)`: rows `i < j` see the whole prefix `t < j`; rows `i >= j`
      see `t <= i`. `j` is a static integer or an `index` operand,
      `0 <= j <= L`.

    `normalize` divides each row by `phi(q_i) . z_i + 1e-6`, where `z_i` sums
    `phi(k_t)` over the same `t` as the state. The optional second result is
    `final_state = S0 + sum_{t < L} phi(k_t)^T v_t`.

    Operands are `q: [B..., L, Dk]`, `k: [B..., L, Dk]`, `v: [B..., L, Dv]`
    and `initial_state: [B..., Dk, Dv]` (f32).

    Packed sequences: with `offsets(%o)` (`N + 1` non-decreasing entries,
    `o_0 = 0`, `o_N = L`) each segment `[o_n, o_{n+1})` is computed as if it
    were alone; the states are then one per segment, `[N, B..., Dk, Dv]`,
    and `prefix(%js)` takes a `tensor<?xindex>` (or i32/i64) of N lengths,
    `0 <= j_n <= o_{n+1} - o_n`. Offsets and lengths are checked at run time.

    Forms: `none` takes `#linea.form<oneshot>` or `<quadratic>`; `causal`
    takes `<chunked, C>` or `<quadratic>` (and `<oneshot>` when `L = 1`, the
    decode step); `prefix(j)` has none until `linea-split-prefix` splits it;
    a packed op has none until `linea-split-segments` writes it per segment.
    Tiling (`TilingInterface`, an external model both linear-attention ops
    share): the iteration domain is `[B..., Dv]`, all parallel (value
    columns are independent; the sequence is a scan and is not tiled).

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = prefix(512)
           feature_map = elu_plus_one
           : tensor<4x2048x64xf32>, tensor<4x2048x64xf32>, tensor<4x2048x64xf32>
           -> tensor<4x2048x64xf32>
    %o2, %s = linea.linear_attention %q, %k, %v init(%s0) mask = prefix(%j)
           : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x32xf32>, tensor<64x32xf32>
           -> tensor<?x32xf32>, tensor<64x32xf32>
    %o3, %s3 = linea.linear_attention %q2, %k2, %v2 init(%s4) offsets(%o)
           mask = prefix(%js)
           : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>,
             tensor<?x2x8x6xf32>, tensor<?xindex>, tensor<?xindex>
           -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$query,
                       Linea_FloatTensor:$key,
                       Linea_FloatTensor:$value,
                       Optional<Linea_StateTensor>:$initial_state,
                       Optional<Linea_OffsetsTensor>:$offsets,
                       Optional<Linea_PrefixLength>:$prefix_index,
                       Linea_MaskAttr:$mask,
                       OptionalAttr<I64Attr>:$prefix_length,
                       DefaultValuedAttr<Linea_FeatureMapAttr,
                                         "::mlir::linea::FeatureMap::identity">:$feature_map,
                       DefaultValuedAttr<F32Attr, "1.0f">:$scale,
                       UnitAttr:$normalize,
                       OptionalAttr<Linea_FormAttr>:$form);
  let results = (outs Linea_FloatTensor:$output,
                      Optional<Linea_StateTensor>:$final_state);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`init` `(` $initial_state^ `)`)?
    (`offsets` `(` $offsets^ `)`)?
    `mask` `=` custom<MaskSpec>($mask, $prefix_length, $prefix_index)
    (custom<FeatureMapSpec>($feature_map)^)? (`scale` `=` $scale^)?
    (`normalize` $normalize^)?
    (custom<LinearAttentionForm>($form)^)?
    attr-dict `:` type($query) `,` type($key) `,`
    custom<StateAndSegmentTypes>(type($value),
        ref($initial_state), type($initial_state), ref($offsets),
        type($offsets), ref($prefix_index), type($prefix_index))
    `->` type($output) (`,` type($final_state)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Ungated: no gate (for LinearAttentionOpInterface).
    ::mlir::Value getGate() { return {}; }
  }];
}

//===----------------------------------------------------------------------===//
// gated_linear_attention
//===----------------------------------------------------------------------===//

def Linea_GatedLinearAttentionOp : Linea_Op<"gated_linear_attention", !listconcat([
    Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Linea_LinearAttentionOpInterface, ["createLike"]>,
    DeclareOpInterfaceMethods<Linea_PackedOpInterface,
                              ["getPackedOperands", "buildOnSegment"]>,
    DeclareOpInterfaceMethods<Linea_FormOpInterface, ["getLegalForms"]>],
    Linea_TileableLinearAttention)> {
  let summary = "linear attention with a log-space decay gate (GLA)";
  let description = [{
    `S_t = diag(exp(g_t)) S_{t-1} + k_t^T v_t` with `S_{-1} = S0`, and
    `o_t = scale * q_t @ S_t` (`causal`). With `prefix(j)` the rows `i < j`
    all read `S_{j-1}`, the state after the prefix; the rest continue the
    recurrence. `mask = none` is `prefix(L)`: every row reads `S_{L-1}`. The
    gate `g` is `[B..., L, Dk]` (one decay per key dim) or `[B..., L]` (one
    per token); `g <= 0` is the caller's promise. The optional second result
    is the final state `S_{L-1}`.

    Packed sequences (`offsets`, per-segment states and prefix lengths),
    forms and tiling as for `linea.linear_attention`.

    ```mlir
    %o, %s = linea.gated_linear_attention %q, %k, %v, %g mask = prefix(64)
           : tensor<8x256x32xf32>, tensor<8x256x32xf32>, tensor<8x256x16xf32>,
             tensor<8x256xf32> -> tensor<8x256x16xf32>, tensor<8x32x16xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$query,
                       Linea_FloatTensor:$key,
                       Linea_FloatTensor:$value,
                       Linea_FloatTensor:$gate,
                       Optional<Linea_StateTensor>:$initial_state,
                       Optional<Linea_OffsetsTensor>:$offsets,
                       Optional<Linea_PrefixLength>:$prefix_index,
                       Linea_MaskAttr:$mask,
                       OptionalAttr<I64Attr>:$prefix_length,
                       DefaultValuedAttr<F32Attr, "1.0f">:$scale,
                       OptionalAttr<Linea_FormAttr>:$form);
  let results = (outs Linea_FloatTensor:$output,
                      Optional<Linea_StateTensor>:$final_state);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $gate (`init` `(` $initial_state^ `)`)?
    (`offsets` `(` $offsets^ `)`)?
    `mask` `=` custom<MaskSpec>($mask, $prefix_length, $prefix_index)
    (`scale` `=` $scale^)?
    (custom<GatedLinearAttentionForm>($form)^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
    custom<StateAndSegmentTypes>(type($gate),
        ref($initial_state), type($initial_state), ref($offsets),
        type($offsets), ref($prefix_index), type($prefix_index))
    `->` type($output) (`,` type($final_state)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Gated: the identity feature map and no normalizer (for
    /// LinearAttentionOpInterface).
    ::mlir::linea::FeatureMap getFeatureMap() {
      return ::mlir::linea::FeatureMap::identity;
    }
    bool getNormalize() { return false; }
  }];
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

def Linea_AttentionOp : Linea_Op<"attention", !listconcat([Pure,
    DeclareOpInterfaceMethods<Linea_PackedOpInterface,
                              ["getPackedOperands", "buildOnSegment"]>],
    Linea_Tileable)> {
  let summary = "softmax attention, bidirectional or causal";
  let description = [{
    `o = softmax(scale * q k^T + mask) v` with `scale` defaulting to
    `1/sqrt(Dk)`. With `causal`, query `i` sees keys `t <= i + (Lk - Lq)`: the
    queries are the last `Lq` positions. A row that sees no key is zero.
    Rows stay finite for any finite input.

    Packed sequences: with `offsets(%o)` (`N + 1` non-decreasing entries,
    `o_0 = 0`, `o_N = L`, queries and keys packed alike: `Lq = Lk = L`) the
    queries of segment `[o_n, o_{n+1})` attend to its keys only, as if it
    were alone. The offsets are checked at run time.

    Tiling: the iteration domain is `[B..., Dv]`, all parallel (the
    sequences, and with them the segments, stay whole).

    ```mlir
    %o = linea.attention %q, %k, %v mask = causal
           : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
           -> tensor<2x4x8x16xf32>
    %p = linea.attention %q2, %q2, %q2 offsets(%offs) mask = causal
           : tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>,
             tensor<?xi32> -> tensor<4x?x16xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$query,
                       Linea_FloatTensor:$key,
                       Linea_FloatTensor:$value,
                       Optional<Linea_OffsetsTensor>:$offsets,
                       Linea_MaskAttr:$mask,
                       OptionalAttr<F32Attr>:$scale);
  let results = (outs Linea_FloatTensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`offsets` `(` $offsets^ `)`)?
    `mask` `=` custom<MaskKeyword>($mask) (`scale` `=` $scale^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
    (`,` type($offsets)^)? `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `scale` when given, else `1/sqrt(Dk)`.
    float getEffectiveScale();
  }];
}

//===----------------------------------------------------------------------===//
// fold and yield
//===----------------------------------------------------------------------===//

def Linea_FoldOp : Linea_Op<"fold", [
    RecursiveMemoryEffects, SingleBlock,
    DeclareOpInterfaceMethods<RuntimeVerifiableOpInterface>,
    AllTypesMatch<["input", "output"]>,
    AllTypesMatch<["memory", "final_memory"]>]> {
  let summary = "folded context condensation over segments (seed 002)";
  let description = [{
    For `s = 0 .. L/l - 1`: `W = concat(M, x[s*l : (s+1)*l])` along the
    sequence, `R = body(W)`, `y[s*l : (s+1)*l] = R[l : 2l]` and
    `M = R[l : 2l]`. `M` starts as `memory`; the second result is the last
    `M`. Only `2l` rows are live at a time however long `L` is. The body
    takes the window `[B..., 2l, D]` and yields a tensor of the same type.

    ```mlir
    %y, %m = linea.fold %x, %m0 segment_length = 4
        : tensor<16x8xf32>, tensor<4x8xf32> {
    ^bb0(%w: tensor<8x8xf32>):
      %r = linea.attention %w, %w, %w mask = causal
          : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
      linea.yield %r : tensor<8x8xf32>
    }
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$input,
                       Linea_FloatTensor:$memory,
                       I64Attr:$segment_length);
  let results = (outs Linea_FloatTensor:$output,
                      Linea_FloatTensor:$final_memory);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input `,` $memory `segment_length` `=` $segment_length attr-dict
    `:` type($input) `,` type($memory) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Linea_YieldOp : Linea_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"FoldOp">]> {
  let summary = "yields the evolved window of a linea.fold body";
  let description = [{
    Ends the body of `linea.fold`; its operand has the window's type.

    ```mlir
    linea.yield %r : tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// folded_attention
//===----------------------------------------------------------------------===//

def Linea_FoldedAttentionOp : Linea_Op<"folded_attention", [
    Pure, DeclareOpInterfaceMethods<RuntimeVerifiableOpInterface>,
    AllTypesMatch<["input", "output"]>,
    AllTypesMatch<["memory", "final_memory"]>]> {
  let summary = "folded attention: one causal multi-head layer per 2l window";
  let description = [{
    Exactly `linea.fold` whose body is one causal multi-head softmax
    attention layer over the window `W`: `Q = W wq`, `K = W wk`, `V = W wv`,
    each split into `num_heads` heads of `D / num_heads`,
    `A = attention(Q, K, V, causal)` per head, `R = A wo`. Every weight is
    `[D, D]`. `linea-expand-folded-attention` rewrites it into that fold.

    ```mlir
    %y, %m = linea.folded_attention %x, %m0
        weights(%wq, %wk, %wv, %wo) segment_length = 32 num_heads = 4
        : tensor<2x256x64xf32>, tensor<2x32x64xf32>, tensor<64x64xf32>,
          tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Linea_FloatTensor:$input,
                       Linea_FloatTensor:$memory,
                       Linea_FloatTensor:$wq,
                       Linea_FloatTensor:$wk,
                       Linea_FloatTensor:$wv,
                       Linea_FloatTensor:$wo,
                       I64Attr:$segment_length,
                       I64Attr:$num_heads);
  let results = (outs Linea_FloatTensor:$output,
                      Linea_FloatTensor:$final_memory);
  let assemblyFormat = [{
    $input `,` $memory `weights` `(` $wq `,` $wk `,` $wv `,` $wo `)`
    `segment_length` `=` $segment_length `num_heads` `=` $num_heads attr-dict
    `:` type($input) `,` type($memory) `,` type($wq) `,` type($wk) `,`
    type($wv) `,` type($wo)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// check
//===----------------------------------------------------------------------===//

def Linea_CheckOp : Linea_Op<"check", [MemoryEffects<[MemWrite]>]> {
  let summary = "a run-time check whose failure message shows the values it compared";
  let description = [{
    Holds when `condition` is true. When it is false the program stops with
    `message`, in which `{N}` stands for the decimal value of the N-th of
    `values` (signed). `cf.assert` takes a constant string and so cannot say
    which sizes disagreed; this op can. `{{` is a literal `{`, as is a `{`
    not followed by digits and `}`.

    `linea-insert-runtime-checks` writes these for the sizes the verifier
    cannot see. `linea-route-checks` lowers them: the message is formatted
    when the check fails (and only then) and handed to the check handler, or,
    without one, printed with `puts` before `abort`, as upstream lowers
    `cf.assert`.

    ```mlir
    linea.check %same, "'key' sequence length {0} does not match 'query' sequence length {1}"(%lk, %lq : index, index)
    ```
  }];
  let arguments = (ins I1:$condition, StrAttr:$message,
                       Variadic<AnyTypeOf<[Index, AnySignlessInteger]>>:$values);
  let assemblyFormat =
      "$condition `,` $message (`(` $values^ `:` type($values) `)`)? attr-dict";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// The message as pieces of text and the indices of the values between
    /// them: `text[0] values[refs[0]] text[1] ... text[n]`.
    struct Pieces {
      ::llvm::SmallVector<std::string> text;
      ::llvm::SmallVector<unsigned> refs;
    };
    Pieces splitMessage();
  }];
}

#endif // LINEA_OPS_TD
