// torch-mlir's tm_tensor.scan parses as torch-mlir prints it, round-trips,
// and its verifier names what is wrong.
// RUN: linea-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @cumsum
// CHECK: %[[S:.+]]:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%{{.+}} : tensor<2x?x4xf32>) outs(%{{.+}}, %{{.+}} : tensor<2x?x4xf32>, tensor<2x4xf32>) {
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
// CHECK:   %[[SUM:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:   tm_tensor.yield %[[SUM]] : f32
// CHECK: } -> tensor<2x?x4xf32>, tensor<2x4xf32>
func.func @cumsum(%x: tensor<2x?x4xf32>, %o: tensor<2x?x4xf32>, %a: tensor<2x4xf32>) -> tensor<2x?x4xf32> {
  %y:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x?x4xf32>) outs(%o, %a : tensor<2x?x4xf32>, tensor<2x4xf32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.addf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x?x4xf32>, tensor<2x4xf32>
  return %y#0 : tensor<2x?x4xf32>
}

// -----

func.func @dimension(%x: tensor<8xf32>, %a: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{dimension 1 is out of range for an input of rank 1}}
  %y:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<8xf32>) outs(%x, %a : tensor<8xf32>, tensor<f32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.addf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<8xf32>, tensor<f32>
  return %y#0 : tensor<8xf32>
}

// -----

func.func @accumulator(%x: tensor<4x8xf32>, %a: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{accumulator type 'tensor<8xf32>' is not the input's shape without dimension 1}}
  %y:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<4x8xf32>) outs(%x, %a : tensor<4x8xf32>, tensor<8xf32>) {
  ^bb0(%u: f32, %w: f32):
    %s = arith.addf %u, %w : f32
    tm_tensor.yield %s : f32
  } -> tensor<4x8xf32>, tensor<8xf32>
  return %y#0 : tensor<4x8xf32>
}

// -----

func.func @region(%x: tensor<8xf32>, %a: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{region takes two 'f32' arguments}}
  %y:2 = tm_tensor.scan dimension(0) inclusive(true) ins(%x : tensor<8xf32>) outs(%x, %a : tensor<8xf32>, tensor<f32>) {
  ^bb0(%u: f32):
    tm_tensor.yield %u : f32
  } -> tensor<8xf32>, tensor<f32>
  return %y#0 : tensor<8xf32>
}
