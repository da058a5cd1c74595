// RUN: linea-opt %s -split-input-file -convert-linea-to-linalg | FileCheck %s

// An inclusive scan: a loop along dim 1 carrying the running row (from the
// combiner's identity), the output and the last stored row; the combiner
// cloned into an elementwise generic that updates the running row in place.
// CHECK-LABEL: func.func @cumprod
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[START:.+]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.+}} : tensor<2x1x4xf32>)
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[P:.+]] = %c0 to %c16 step %c1 iter_args(%[[RUNNING:.+]] = %[[START]], %[[OUT:.+]] = %{{.+}}, %[[LAST:.+]] = %{{.+}})
// CHECK:   %[[SLICE:.+]] = tensor.extract_slice %{{.+}}[0, %[[P]], 0] [2, 1, 4] [1, 1, 1]
// CHECK:   %[[NEXT:.+]] = linalg.generic {{.*}} ins(%[[SLICE]] : tensor<2x1x4xf32>) outs(%[[RUNNING]] : tensor<2x1x4xf32>)
// CHECK:     arith.mulf
// CHECK:   %[[STORED:.+]] = tensor.insert_slice %[[NEXT]] into %[[OUT]][0, %[[P]], 0] [2, 1, 4] [1, 1, 1]
// CHECK:   %[[COPY:.+]] = linalg.copy ins(%[[NEXT]] : tensor<2x1x4xf32>) outs(%[[LAST]] : tensor<2x1x4xf32>)
// CHECK:   scf.yield %[[NEXT]], %[[STORED]], %[[COPY]]
// CHECK: tensor.collapse_shape %[[LOOP]]#2 {{\[}}[0], [1, 2]] : tensor<2x1x4xf32> into tensor<2x4xf32>
// CHECK: return %[[LOOP]]#1
func.func @cumprod(%x: tensor<2x16x4xf32>, %o: tensor<2x16x4xf32>, %a: tensor<2x4xf32>) -> (tensor<2x16x4xf32>, tensor<2x4xf32>) {
  %y:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x16x4xf32>) outs(%o, %a : tensor<2x16x4xf32>, tensor<2x4xf32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.mulf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x4xf32>, tensor<2x4xf32>
  return %y#0, %y#1 : tensor<2x16x4xf32>, tensor<2x4xf32>
}

// -----

// Exclusive: the running row starts as the accumulator (a row of the scan)
// and is stored before this step's slice joins it.
// CHECK-LABEL: func.func @exclusive
// CHECK: %[[START:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: scf.for {{.*}} iter_args(%[[RUNNING:.+]] = %[[START]], %[[OUT:.+]] = %{{.+}}, %{{.+}} = %[[START]])
// CHECK:   %[[NEXT:.+]] = linalg.generic
// CHECK:   tensor.insert_slice %[[RUNNING]] into %[[OUT]]
func.func @exclusive(%x: tensor<5x8xf32>, %o: tensor<5x8xf32>, %a: tensor<8xf32>) -> tensor<5x8xf32> {
  %y:2 = tm_tensor.scan dimension(0) inclusive(false) ins(%x : tensor<5x8xf32>) outs(%o, %a : tensor<5x8xf32>, tensor<8xf32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.addf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<5x8xf32>, tensor<8xf32>
  return %y#0 : tensor<5x8xf32>
}

