// RUN: linea-opt %s --linea-differentiate -split-input-file -verify-diagnostics

// An op without an adjoint rule is named.
func.func @gated(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %g: tensor<2x8x4xf32>) -> tensor<2x8x3xf32> {
  // expected-error @+1 {{'linea.gated_linear_attention' op with a per-key-dim gate cannot be differentiated yet: its dk decays the value side of the state, which no Linea op computes}}
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8x4xf32> -> tensor<2x8x3xf32>
  return %o : tensor<2x8x3xf32>
}

// -----

func.func @gated_prefix(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %g: tensor<2x8xf32>) -> tensor<2x8x3xf32> {
  // expected-error @+1 {{'linea.gated_linear_attention' op with mask prefix cannot be differentiated yet (causal only)}}
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = prefix(3) : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8xf32> -> tensor<2x8x3xf32>
  return %o : tensor<2x8x3xf32>
}

// -----

// A reduction by max has no sum's adjoint.
func.func @max_reduction(%x: tensor<8x4xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'linalg.generic' op cannot be differentiated: output #0 is reduced by something other than a sum}}
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x4xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// A shifted read is not a projected permutation.
func.func @shifted(%x: tensor<9xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{'linalg.generic' op cannot be differentiated: operand #0 is read through affine_map<(d0) -> (d0 + 1)>, not a projected permutation of the loops}}
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<9xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A float op in a body with no derivative rule.
func.func @sin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error @+1 {{'math.sin' op in a linalg body cannot be differentiated: linea-differentiate has no derivative for it}}
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The gradient's name is taken.
// expected-error @+1 {{'func.func' op cannot get a gradient function: '@f_vjp' is already defined}}
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func private @f_vjp(%x: tensor<8xf32>) -> tensor<8xf32>

// -----

// A call has no rule (yet): differentiate the callee's body inlined.
func.func private @g(%x: tensor<8xf32>) -> tensor<8xf32>
func.func @calls(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'func.call' op cannot be differentiated: linea-differentiate has no adjoint rule for it}}
  %y = func.call @g(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
