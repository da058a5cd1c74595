// RUN: linea-opt %s --linea-differentiate -split-input-file -verify-diagnostics

// Inside a fold body too (the backward loop differentiates a recomputed
// window), an op without a rule is named where the user wrote it.
func.func @fold_body(%x: tensor<2x12x4xf32>, %m0: tensor<2x3x4xf32>) -> (tensor<2x12x4xf32>, tensor<2x3x4xf32>) {
  %y, %m = linea.fold %x, %m0 segment_length = 3 : tensor<2x12x4xf32>, tensor<2x3x4xf32> {
  ^bb0(%win: tensor<2x6x4xf32>):
    %e = tensor.empty() : tensor<2x6x4xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(b, n, d) -> (b, n, d)>, affine_map<(b, n, d) -> (b, n, d)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%win : tensor<2x6x4xf32>) outs(%e : tensor<2x6x4xf32>) {
    ^bb0(%a: f32, %o: f32):
      // expected-error @+1 {{'math.atan' op in a linalg body cannot be differentiated: linea-differentiate has no derivative for it}}
      %r = math.atan %a : f32
      linalg.yield %r : f32
    } -> tensor<2x6x4xf32>
    linea.yield %s : tensor<2x6x4xf32>
  }
  return %y, %m : tensor<2x12x4xf32>, tensor<2x3x4xf32>
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

// A float op in a body with no derivative rule.
func.func @sin(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error @+1 {{'math.atan' op in a linalg body cannot be differentiated: linea-differentiate has no derivative for it}}
    %s = math.atan %a : f32
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

// -----

// A body may read a differentiated tensor from outside only by looking up
// one element (a gather); any other use of a differentiated value from
// outside is named.
func.func @captured_scalar(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error @+1 {{'arith.mulf' op reads a differentiated value from outside its linalg body; linea-differentiate needs it passed as an input}}
    %p = arith.mulf %a, %s : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
