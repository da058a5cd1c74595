// RUN: linea-opt %s -split-input-file -linea-raise=explain=1 -verify-diagnostics | FileCheck %s

// Prefix sums as products with a triangle of ones, O[b, i, d] =
// sum_t M(i, t) X[b, t, d]: which triangle says the presum's flags.

// t <= i
// CHECK-LABEL: func.func @inclusive
// CHECK: %[[P:.+]] = linea.presum %arg0 dim = 1 : tensor<2x16x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @inclusive(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1 (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %s = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// t < i
// CHECK-LABEL: func.func @exclusive
// CHECK: %[[P:.+]] = linea.presum %arg0 dim = 1 exclusive : tensor<2x16x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @exclusive(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1 exclusive (mask t < i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi slt, %t, %i : index
    %s = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// t >= i
// CHECK-LABEL: func.func @reverse
// CHECK: %[[P:.+]] = linea.presum %arg0 dim = 1 reverse : tensor<2x16x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @reverse(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1 reverse (mask t >= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sge, %t, %i : index
    %s = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// t > i
// CHECK-LABEL: func.func @reverse_exclusive
// CHECK: %[[P:.+]] = linea.presum %arg0 dim = 1 exclusive reverse : tensor<2x16x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @reverse_exclusive(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1 exclusive reverse (mask t > i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sgt, %t, %i : index
    %s = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// t == i is the identity, not a prefix sum: left as written.
// CHECK-LABEL: func.func @diagonal
// CHECK-NOT: linea.
func.func @diagonal(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // expected-remark @below {{linea-raise: not raised: mask is t == i: not a triangle a prefix sum applies (t <= i, t < i, t >= i or t > i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi eq, %t, %i : index
    %s = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// flip, cumsum, flip along the same dim: the sum of the later rows.
// CHECK-LABEL: func.func @flip_cumsum_flip
// CHECK: %[[P:.+]] = linea.presum %arg0 dim = 1 reverse : tensor<2x8x4xf32>
// CHECK-NEXT: return %[[P]]
func.func @flip_cumsum_flip(%x0: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4xf32>
  %ea = tensor.empty() : tensor<2x4xf32>
  %a = linalg.fill ins(%zero : f32) outs(%ea : tensor<2x4xf32>) -> tensor<2x4xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c7, %l : index
    %x = tensor.extract %x0[%b, %r, %d] : tensor<2x8x4xf32>
    linalg.yield %x : f32
  } -> tensor<2x8x4xf32>
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%f : tensor<2x8x4xf32>) outs(%e, %a : tensor<2x8x4xf32>, tensor<2x4xf32>) {
  ^bb0(%u: f32, %w: f32):
    %sum = arith.addf %u, %w : f32
    tm_tensor.yield %sum : f32
  } -> tensor<2x8x4xf32>, tensor<2x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1 reverse (flip, cumsum, flip)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c7, %l : index
    %x = tensor.extract %s#0[%b, %r, %d] : tensor<2x8x4xf32>
    linalg.yield %x : f32
  } -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}

// -----

// The inner flip along the features: no reverse presum (the scan itself
// still raises, between the two flips).
// CHECK-LABEL: func.func @flips_along_another_dim
// CHECK: linea.presum %{{.+}} dim = 1 :
// CHECK-NOT: reverse
func.func @flips_along_another_dim(%x0: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4xf32>
  %ea = tensor.empty() : tensor<2x4xf32>
  %a = linalg.fill ins(%zero : f32) outs(%ea : tensor<2x4xf32>) -> tensor<2x4xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c3, %d : index
    %x = tensor.extract %x0[%b, %l, %r] : tensor<2x8x4xf32>
    linalg.yield %x : f32
  } -> tensor<2x8x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 1}}
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%f : tensor<2x8x4xf32>) outs(%e, %a : tensor<2x8x4xf32>, tensor<2x4xf32>) {
  ^bb0(%u: f32, %w: f32):
    %sum = arith.addf %u, %w : f32
    tm_tensor.yield %sum : f32
  } -> tensor<2x8x4xf32>, tensor<2x4xf32>
  // expected-remark @below {{linea-raise: not raised: the cumsum between flips is not of one tensor flipped along its dim}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c7, %l : index
    %x = tensor.extract %s#0[%b, %r, %d] : tensor<2x8x4xf32>
    linalg.yield %x : f32
  } -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}
