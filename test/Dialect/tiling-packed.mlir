// RUN: not linea-opt %s --transform-interpreter 2>&1 | FileCheck %s

// A packed op's states lead with the segment dim, which the iteration
// domain [B..., Dv] does not have: tiling says so (its per-segment ops
// tile as any other, after linea-split-segments).
// CHECK: error: 'linea.linear_attention' op is packed (offsets): tile the per-segment ops after linea-split-segments
func.func @packed_attention(%q: tensor<2x?x8xf32>, %o: tensor<?xindex>) -> tensor<2x?x8xf32> {
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<?xindex> -> tensor<2x?x8xf32>
  return %y : tensor<2x?x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [1, 4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
