// RUN: linea-opt %s --transform-interpreter -split-input-file -verify-diagnostics

// Feature dims are static, so a tile size that leaves a partial column tile
// is refused with the reason, and the transform fails.
func.func @partial_column_tile(%q: tensor<2x9x8xf32>, %v: tensor<2x9x3xf32>) -> tensor<2x9x3xf32> {
  // expected-error @+4 {{tiles its value columns only by a size that divides them: the feature dim must stay static (Dv = 3)}}
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-note @+1 {{when applied to this op}}
  %o = linea.linear_attention %q, %q, %v mask = causal
      : tensor<2x9x8xf32>, tensor<2x9x8xf32>, tensor<2x9x3xf32> -> tensor<2x9x3xf32>
  return %o : tensor<2x9x3xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{transform.structured.tile_using_forall failed to apply}}
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [1, 2]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
