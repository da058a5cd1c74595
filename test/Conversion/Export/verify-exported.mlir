// RUN: linea-opt %s --linea-verify-exported -split-input-file -verify-diagnostics | FileCheck %s

// Upstream dialects only: the module passes unchanged.
// CHECK-LABEL: func.func @upstream
// CHECK: linalg.generic
func.func @upstream(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @op_left(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'linea.presum' is left in the exported module}}
  %y = linea.presum %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// expected-error @+1 {{attribute 'linea.target' of 'builtin.module' is left}}
module attributes {linea.target = #linea.target<kind = cpu, units = 1, threads = 1, shared_memory = 0, value_tile = 0, matrix_flops = 4.0e+09, scalar_flops = 4.0e+09, bytes = 8.0e+09, step_seconds = 2.0e-06, contraction_tile = 32.0>} {
  func.func @f() {
    return
  }
}

// -----

func.func @scan_left(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %z = tensor.empty() : tensor<f32>
  // expected-error @+1 {{'tm_tensor.scan' is left in the exported module}}
  %y:2 = tm_tensor.scan dimension(0) inclusive(true) ins(%x : tensor<8xf32>) outs(%e, %z : tensor<8xf32>, tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<8xf32>, tensor<f32>
  return %y#0 : tensor<8xf32>
}
