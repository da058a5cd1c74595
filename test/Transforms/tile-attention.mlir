// RUN: linea-opt %s -linea-tile-attention=tile-size=16 | FileCheck %s

// A loop over key tiles carrying the running max, the running sum and the
// unnormalized output: no Lq x Lk matrix, only Lq x 16 scores per tile.
// CHECK-LABEL: func.func @online_softmax
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x40x8xf32>, %[[K:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x4xf32>)
// CHECK: %[[LK:.+]] = tensor.dim %[[K]], %c1
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[T:.+]] = %c0 to %[[LK]] step %c16 iter_args(%[[M:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<2x40xf32>, tensor<2x40xf32>, tensor<2x40x4xf32>)
// CHECK:   tensor.extract_slice %[[K]][0, %[[T]], 0]
// CHECK:   -> tensor<2x40x?xf32>
// CHECK:   arith.maximumf
// CHECK:   math.exp
// CHECK:   linalg.copy ins(%{{.+}} : tensor<2x40xf32>) outs(%[[M]] : tensor<2x40xf32>)
// CHECK: arith.divf
// CHECK-NOT: tensor<2x40x?xf32>
// CHECK-NOT: linea.attention
func.func @online_softmax(%q: tensor<2x40x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x40x4xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<2x40x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x40x4xf32>
  return %o : tensor<2x40x4xf32>
}
