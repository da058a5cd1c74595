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

#endif // LINEA_TRANSFORMS_PASSES_TD
