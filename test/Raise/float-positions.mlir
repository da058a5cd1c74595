// RUN: linea-opt %s --linea-raise --split-input-file | FileCheck %s

// Causal by f32 positions over a dynamic length: raised behind a run-time
// check that the length is one whose positions f32 holds exactly (up to
// 2^24 + 1 for one position against another), read off the output and the
// values, not off the scores the raise replaces.
// CHECK-LABEL: func.func @dynamic_f32_positions(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x?x8xf32>, %[[K:[^:]+]]: tensor<2x?x8xf32>, %[[V:[^:]+]]: tensor<2x?x4xf32>
// CHECK: %[[LIMIT:.+]] = arith.constant 16777217 : index
// CHECK: %[[ROWS:.+]] = tensor.dim
// CHECK: %[[EXACT:.+]] = arith.cmpi ule, %[[ROWS]], %[[LIMIT]] : index
// CHECK: linea.check %[[EXACT]], "linea-raise: the model's float positions hold exact integers only up to length {0}; this length is {1}"(%[[LIMIT]], %[[ROWS]] : index, index)
// CHECK: %[[KEYS:.+]] = tensor.dim %[[V]]
// CHECK: linea.check {{.*}}(%[[LIMIT]], %[[KEYS]] : index, index)
// CHECK: linea.linear_attention %[[Q]], %[[K]], %[[V]] mask = causal
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dynamic_f32_positions(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %n = tensor.dim %q, %c1 : tensor<2x?x8xf32>
  %e_s = tensor.empty(%n, %n) : tensor<2x?x?xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x?x8xf32>, tensor<2x?x8xf32>) outs(%z_s : tensor<2x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x?x?xf32>
  %e_o = tensor.empty(%n) : tensor<2x?x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_o : tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x?x?xf32>, tensor<2x?x4xf32>) outs(%z_o : tensor<2x?x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f32
    %if = arith.sitofp %i64 : i64 to f32
    %d = arith.subf %if, %tf : f32
    %m = arith.cmpf oge, %d, %c0 : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x?x4xf32>
  return %o : tensor<2x?x4xf32>
}

// -----

// The same with integer positions: exact at every length, no check.
// CHECK-LABEL: func.func @dynamic_integer_positions(
// CHECK-NOT: linea.check
// CHECK: linea.linear_attention {{.*}} mask = causal
func.func @dynamic_integer_positions(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %n = tensor.dim %q, %c1 : tensor<2x?x8xf32>
  %e_s = tensor.empty(%n, %n) : tensor<2x?x?xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x?x8xf32>, tensor<2x?x8xf32>) outs(%z_s : tensor<2x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x?x?xf32>
  %e_o = tensor.empty(%n) : tensor<2x?x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_o : tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x?x?xf32>, tensor<2x?x4xf32>) outs(%z_o : tensor<2x?x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x?x4xf32>
  return %o : tensor<2x?x4xf32>
}
