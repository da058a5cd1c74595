//===- Passes.td - model IR into Linea ops ---------------------*- tablegen -*-===//
//
// The way in from model IR: linalg / tensor / arith / math as front ends
// (torch-mlir's FX and ONNX importers) print it, raised to Linea ops where
// the replacement is exact.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_RAISE_PASSES_TD
#define LINEA_RAISE_PASSES_TD

include "mlir/Pass/PassBase.td"

def LineaRaise : Pass<"linea-raise", "::mlir::func::FuncOp"> {
  let summary = "Raise sequence-mixing patterns of model IR into Linea ops, exactly";
  let description = [{
    Finds the sequence-mixing layers of a model as its front end printed
    them and replaces each by the Linea op that computes it, only where the
    replacement equals the original for every index and every size:

    - masked linear attention `O = (A .* M) V` with scores
      `A = scale * X Y^T` (a contraction over the feature dim) and a mask
      `M[i, t]` that depends only on the row and column indices: all-true
      becomes `mask = none`, `t <= i` becomes `causal`, `t <= i or t < j`
      becomes `prefix(j)` (`prefix(min(j, L))` for a dynamic `L`);
      scalar factors anywhere in the product become `scale`;
    - normalized linear attention, the output divided by the masked row sum
      of the scores plus `1e-6`, becomes `normalize`;
    - RetNet's decayed scores and GLA's parallel form become
      `linea.gated_linear_attention`; `softmax(s X Y^T + mask) V` becomes
      `linea.attention`; a cumsum, `cumsum - x`, flips around a cumsum and
      triangles of ones become `linea.presum` (docs/Raise.md has the table);
    - a loop over segments as torch.export unrolls it (seed 002: each step
      one layer over [memory; segment], its second half the next memory),
      every step proved the same ops on the same weights, becomes one
      `linea.fold` whose body is the first step (tried after the others).

    Each function is first normalized on a copy (named ops generalized,
    reshapes propagated, elementwise producers fused, as upstream's
    `linalg-fuse-elementwise-ops` does), so batch dims of any count and order
    and heads split by reshape and transpose meet the matchers in one shape.
    The copy replaces the function only where something was raised: a
    function with nothing to raise is left exactly as it was.

    What a mask is, is decided by one analysis (IndexPredicate): its atoms
    compare `i`, `t` or `t - i` with constants, and equality with a Linea
    mask is proved over every `(i, t)`, not sampled. Near misses stay as
    written: `t < i`, `t <= i + 1`, anti-causal, bands and sliding windows,
    masks that read data or a function argument, a contraction over the
    wrong dim. With `explain`, each raise and each rejected candidate gets
    a remark with the reason (`mask is t < i: the diagonal is excluded;
    linea causal includes t = i`), and every other pattern that took an op
    for its idiom and refused it one more (`the cumulative state pattern
    refused it: ...`); a pattern whose first structural check fails says
    nothing. `explain=1` keeps each reason to one line of at most 160
    characters (expressions in math notation); `explain=2` prints it whole.

    ```mlir
    %s = linalg.batch_matmul ins(%q, %kt : tensor<4x64x16xf32>, tensor<4x16x64xf32>) ...
    %m = linalg.generic ... { select(t <= i, %s[b, i, t], 0) } ...
    %o = linalg.batch_matmul ins(%m, %v : tensor<4x64x64xf32>, tensor<4x64x16xf32>) ...
    // becomes
    %o = linea.linear_attention %q, %k, %v mask = causal
        : tensor<4x64x16xf32>, tensor<4x64x16xf32>, tensor<4x64x16xf32>
        -> tensor<4x64x16xf32>
    ```
  }];
  let options = [
    Option<"explain", "explain", "unsigned", /*default=*/"0",
           "Remark on every raise and every rejected candidate, with the "
           "reason: 1 one line each (cut to 160 characters), 2 the whole text">
  ];
  let dependentDialects = ["::mlir::linea::LineaDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaSimplifyFrontEndShapes
    : Pass<"linea-simplify-front-end-shapes", "::mlir::func::FuncOp"> {
  let summary = "torch-mlir's dynamic-shape idioms as plain views and reads";
  let description = [{
    With a dynamic sequence length, torch-mlir prints a `view` as
    `tensor.reshape` with a shape assembled from guarded sizes, and every
    operand that might broadcast as a gather: a generic that copies
    `%x[..., select(dim(%x, p) == 1, 0, i_p), ...]` into a new tensor, at
    L x L a score matrix of its own. `linea-raise` simplifies them on the
    copy it matches; this pass does the same to the model as compiled, for
    what is not raised: the size guards folded by the integer range
    analysis, a reshape whose groups are proved equal an `expand_shape` or
    `collapse_shape`, a gather whose sizes agree its source (behind a
    `linea.check` where two dynamic sizes cannot be proved equal: a call
    whose lengths differ stops with an error instead of broadcasting), and a
    slice of a converted constant the conversion of the constant's slice.
    Only functions as the front end wrote them (no Linea op, no loop): a
    raised function was simplified by the raise, and the loops of Linea's
    forms are left as built. First in `linea-lower-to-cpu`, before
    `linea-fuse-elementwise`.

    ```mlir
    %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], ...}
        outs(%e : tensor<4x?xf32>) {
      %j = linalg.index 1 : index
      %one = arith.cmpi eq, %n, %c1 : index
      %jj = arith.select %one, %c0, %j : index
      %x = tensor.extract %src[%i, %jj] : tensor<4x?xf32>
      linalg.yield %x : f32
    } -> tensor<4x?xf32>
    // becomes %src (with a check that the sizes agree where not proved)
    ```
  }];
  let dependentDialects = ["::mlir::linea::LineaDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // LINEA_RAISE_PASSES_TD
