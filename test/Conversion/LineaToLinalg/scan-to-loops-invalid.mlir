// RUN: linea-opt %s -split-input-file -convert-linea-to-linalg -verify-diagnostics

// A combiner other than one commutative op on the region's arguments:
// refused by name (the order of the arguments would matter).
func.func @subtracts(%x: tensor<8xf32>, %a: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+2 {{combines with a region Linea cannot run: one commutative add, multiply, max or min of its two arguments}}
  // expected-error @+1 {{failed to legalize operation 'tm_tensor.scan'}}
  %y:2 = tm_tensor.scan dimension(0) inclusive(true) ins(%x : tensor<8xf32>) outs(%x, %a : tensor<8xf32>, tensor<f32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.subf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<8xf32>, tensor<f32>
  return %y#0 : tensor<8xf32>
}
