// RUN: linea-opt %s -linea-fold-to-loop | FileCheck %s

// The loop carries exactly one l x D memory (and the output); the window is
// 2l rows; the body's Linea ops stay for the other rewrites.
// CHECK-LABEL: func.func @fold
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[M:[a-z0-9_]+]]: tensor<2x4x8xf32>)
// CHECK: %[[N:.+]] = arith.divui %{{.+}}, %c4
// CHECK: %[[LOOP:.+]]:2 = scf.for %{{.+}} = %c0 to %[[N]] step %c1 iter_args(%[[MEM:.+]] = %[[M]], %{{.+}} = %{{.+}}) -> (tensor<2x4x8xf32>, tensor<2x?x8xf32>)
// CHECK:   %[[W:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 4, 0] [2, 4, 8] {{.*}} into tensor<2x8x8xf32>
// CHECK:   linea.attention %[[W]], %[[W]], %[[W]] mask = causal : tensor<2x8x8xf32>
// CHECK:   linalg.copy ins(%{{.+}} : tensor<2x4x8xf32>) outs(%[[MEM]] : tensor<2x4x8xf32>)
// CHECK:   scf.yield %{{.+}}, %{{.+}} : tensor<2x4x8xf32>, tensor<2x?x8xf32>
// CHECK: return %[[LOOP]]#1, %[[LOOP]]#0
func.func @fold(%x: tensor<2x?x8xf32>, %m: tensor<2x4x8xf32>) -> (tensor<2x?x8xf32>, tensor<2x4x8xf32>) {
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<2x?x8xf32>, tensor<2x4x8xf32> {
  ^bb0(%w: tensor<2x8x8xf32>):
    %a = linea.attention %w, %w, %w mask = causal
        : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32> -> tensor<2x8x8xf32>
    linea.yield %a : tensor<2x8x8xf32>
  }
  return %y, %mem : tensor<2x?x8xf32>, tensor<2x4x8xf32>
}
