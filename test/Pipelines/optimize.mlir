// RUN: linea-opt %s --linea-optimize="explain=1" -split-input-file -verify-diagnostics | FileCheck %s

// PrefixLM: the dynamic prefix length is checked against [0, L] first; then
// the prefix becomes the one-shot state (two contractions, no loop) and the
// rest the chunked loop seeded with it.
// CHECK-LABEL: func.func @prefix_lm
// CHECK-SAME: %[[J:[a-z0-9]+]]: index
// CHECK: linea.check %{{.+}}, "{{.*}}optimize.mlir:{{[0-9]+}}:8: linea.linear_attention: prefix length {0} is outside [0, L] of 'query' (L = {1})"(%[[J]], %{{.+}} : index, index)
// CHECK-NOT: = linea.linear_attention
// CHECK: %[[S:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<16x64x64xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[S]] : tensor<16x?x64xf32>, tensor<16x64x64xf32>)
// CHECK: %[[SEED:.+]] = linalg.copy ins(%[[S]] : tensor<16x64x64xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[SEED]], %{{.+}} = %{{.+}}) -> (tensor<16x64x64xf32>, tensor<16x?x64xf32>)
func.func @prefix_lm(%q: tensor<16x4096x64xf32>, %j: index) -> tensor<16x4096x64xf32> {
  // expected-remark @+2 {{form oneshot}}
  // expected-remark @+1 {{form chunked}}
  %o = linea.linear_attention %q, %q, %q mask = prefix(%j)
      : tensor<16x4096x64xf32>, tensor<16x4096x64xf32>, tensor<16x4096x64xf32> -> tensor<16x4096x64xf32>
  return %o : tensor<16x4096x64xf32>
}

// -----

// folded_attention: a loop over segments; inside, the attention is the
// tiled online softmax (a loop over the 128 keys of the window in tiles of
// 64), never a 128 x 128 score matrix, and only for the 64 query rows the
// step keeps (linea-compute-kept-slices).
// CHECK-LABEL: func.func @folded
// CHECK: scf.for {{.*}} -> (tensor<2x64x32xf32>, tensor<2x256x32xf32>)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %c128 step %c64 {{.*}} -> (tensor<2x4x64xf32>, tensor<2x4x64xf32>, tensor<2x4x64x8xf32>)
// CHECK-NOT: tensor<2x4x128x128xf32>
// CHECK-NOT: linea.
func.func @folded(%x: tensor<2x256x32xf32>, %m: tensor<2x64x32xf32>, %w: tensor<32x32xf32>)
    -> (tensor<2x256x32xf32>, tensor<2x64x32xf32>) {
  %y, %mem = linea.folded_attention %x, %m weights(%w, %w, %w, %w)
      segment_length = 64 num_heads = 4
      : tensor<2x256x32xf32>, tensor<2x64x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
        tensor<32x32xf32>, tensor<32x32xf32>
  return %y, %mem : tensor<2x256x32xf32>, tensor<2x64x32xf32>
}
