// RUN: linea-opt %s -split-input-file -linea-raise=explain=1 -verify-diagnostics | FileCheck %s

// Each program is the quadratic form as a front end prints it after
// normalization: scores S[b, i, t] = sum_d Q[b, i, d] K[b, t, d], then
// O[b, i, e] = sum_t M(i, t) S[b, i, t] V[b, t, e] with the mask computed
// from linalg.index in the body. The mask decides the raise; the predicate
// is proved over every (i, t), so equal spellings raise alike and near
// misses stay, with the reason.

// t <= i: causal.
// CHECK-LABEL: func.func @causal
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The same set, spelled i >= t + 0 through i64 arithmetic: causal.
// CHECK-LABEL: func.func @causal_spelled
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_spelled(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %ti = arith.index_cast %t : index to i64
    %ii = arith.index_cast %i : index to i64
    %d = arith.subi %ii, %ti : i64
    %zero = arith.constant 0 : i64
    %m = arith.cmpi sge, %d, %zero : i64
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t < i + 1 is t <= i over the integers: causal.
// CHECK-LABEL: func.func @causal_strict_plus_one
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_strict_plus_one(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %one = arith.constant 1 : index
    %i1 = arith.addi %i, %one : index
    %m = arith.cmpi slt, %t, %i1 : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// not (t > i): causal.
// CHECK-LABEL: func.func @causal_negated
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_negated(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask not (t > i))}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %gt = arith.cmpi sgt, %t, %i : index
    %true = arith.constant true
    %m = arith.xori %gt, %true : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A 0/1 indicator compared with 0 (ONNX's Equal(Trilu(ones), 0), negated): causal.
// CHECK-LABEL: func.func @indicator
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @indicator(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %le = arith.cmpi sle, %t, %i : index
    %one = arith.constant 1.0 : f32
    %ind = arith.select %le, %one, %c0 : f32
    %m = arith.cmpf one, %ind, %c0 : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t <= i or t < 5: prefix(5).
// CHECK-LABEL: func.func @prefix
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = prefix(5) : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @prefix(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = prefix(5) (mask t <= i or t < 5)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c5 = arith.constant 5 : index
    %le = arith.cmpi sle, %t, %i : index
    %lt = arith.cmpi slt, %t, %c5 : index
    %m = arith.ori %le, %lt : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t <= i or t < 1: row 0 sees only t = 0 either way, so this is causal.
// CHECK-LABEL: func.func @prefix_one
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @prefix_one(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i or t < 1)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c1 = arith.constant 1 : index
    %le = arith.cmpi sle, %t, %i : index
    %lt = arith.cmpi slt, %t, %c1 : index
    %m = arith.ori %le, %lt : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t <= i or t < 100 over L = 16 sees every key: none.
// CHECK-LABEL: func.func @prefix_past_the_end
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = none : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @prefix_past_the_end(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = none (mask t <= i or t < 100)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c100 = arith.constant 100 : index
    %le = arith.cmpi sle, %t, %i : index
    %lt = arith.cmpi slt, %t, %c100 : index
    %m = arith.ori %le, %lt : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t < i: the diagonal is excluded, a near miss.
// CHECK-LABEL: func.func @strict
// CHECK-NOT: linea.
func.func @strict(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: not raised: mask is t < i: the diagonal is excluded; linea causal includes t = i}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi slt, %t, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t <= i + 1 sees one key ahead.
// CHECK-LABEL: func.func @ahead
// CHECK-NOT: linea.
func.func @ahead(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: not raised: mask is t <= i + 1: at i = 0, t = 1 it is true, where causal (t <= i) is false}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %one = arith.constant 1 : index
    %i1 = arith.addi %i, %one : index
    %m = arith.cmpi sle, %t, %i1 : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A sliding window, i - 4 < t <= i.
// CHECK-LABEL: func.func @window
// CHECK-NOT: linea.
func.func @window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: not raised: mask is t <= i and t >= i - 3: at i = 15, t = 0 it is false}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c4 = arith.constant 4 : index
    %lo = arith.subi %i, %c4 : index
    %le = arith.cmpi sle, %t, %i : index
    %gt = arith.cmpi sgt, %t, %lo : index
    %m = arith.andi %le, %gt : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// 2t <= i compares 2t with i: not an (i, t, t - i) threshold, so undecided and left.
// CHECK-LABEL: func.func @doubled
// CHECK-NOT: linea.
func.func @doubled(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: not raised: the mask compares -1 * i + 2 * t, which is not a comparison of i, t or t - i}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t2 = arith.addi %t, %t : index
    %m = arith.cmpi sle, %t2, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A mask on the batch index is not a sequence mask.
// CHECK-LABEL: func.func @batch_dependent
// CHECK-NOT: linea.
func.func @batch_dependent(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: not raised: the mask depends on loop d0, not only on the row and column}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %b = linalg.index 0 : index
    %m = arith.cmpi sle, %t, %b : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A mask given as a table of zeros and ones (a registered buffer), multiplied
// in: decided entry by entry over its 4 x 4, causal.
// CHECK-LABEL: func.func @causal_table
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_table(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %m = arith.constant dense<[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask a 4 x 4 constant table)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %z = arith.mulf %p, %w : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// -----

// The same table with one entry off: a near miss, with the entry.
// CHECK-LABEL: func.func @table_with_a_hole
// CHECK-NOT: linea.linear_attention
func.func @table_with_a_hole(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %m = arith.constant dense<[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // expected-remark @below {{linea-raise: not raised: mask is a 4 x 4 constant table: at i = 2, t = 1 it is false, where causal (t <= i) is true, and it is neither none nor a prefix mask}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %z = arith.mulf %p, %w : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// -----

// The lower triangle read at [t, i] is the upper one: anti-causal, stays.
// CHECK-LABEL: func.func @transposed_table
// CHECK-NOT: linea.linear_attention
func.func @transposed_table(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %m = arith.constant dense<[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // expected-remark @below {{linea-raise: not raised: mask is a 4 x 4 constant table: at i = 0, t = 1 it is true, where causal (t <= i) is false, and it is neither none nor a prefix mask}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (t, i)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %z = arith.mulf %p, %w : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// -----

// A table that scales as well as masks (a 2 in it) is not a mask: stays.
// CHECK-LABEL: func.func @table_not_zero_one
// CHECK-NOT: linea.linear_attention
func.func @table_not_zero_one(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %m = arith.constant dense<[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // expected-remark @below {{linea-raise: not raised: a factor of the product, constant[d1, d3], is neither a mask nor a constant}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %z = arith.mulf %p, %w : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// -----

// A byte table compared with zero, as torch prints a bool buffer: rows 0
// and 1 see t < 2 as well, prefix(2).
// CHECK-LABEL: func.func @prefix_byte_table
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = prefix(2) : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @prefix_byte_table(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %zero = arith.constant 0 : i8
  %m = arith.constant dense<[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]> : tensor<4x4xi8>
  %e0 = tensor.empty() : tensor<2x4x4xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = prefix(2) (mask a 4 x 4 constant table)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %m : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<4x4xi8>) outs(%z0 : tensor<2x4x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w: i8, %acc: f32):
    %keep = arith.cmpi ne, %w, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %keep, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4xf32>
  return %o : tensor<2x4x4xf32>
}

// -----

// f64: not an element type of Linea's ops, a near miss (it still runs as
// written).
// CHECK-LABEL: func.func @causal_f64
// CHECK-NOT: linea.
func.func @causal_f64(%q: tensor<2x16x8xf64>, %k: tensor<2x16x8xf64>, %v: tensor<2x16x4xf64>) -> tensor<2x16x4xf64> {
  %c0 = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<2x16x16xf64>
  %z0 = linalg.fill ins(%c0 : f64) outs(%e0 : tensor<2x16x16xf64>) -> tensor<2x16x16xf64>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf64>, tensor<2x16x8xf64>) outs(%z0 : tensor<2x16x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %r = arith.addf %acc, %p : f64
    linalg.yield %r : f64
  } -> tensor<2x16x16xf64>
  %e1 = tensor.empty() : tensor<2x16x4xf64>
  %z1 = linalg.fill ins(%c0 : f64) outs(%e1 : tensor<2x16x4xf64>) -> tensor<2x16x4xf64>
  // expected-remark @below {{linea-raise: not raised: the queries, keys and values are not of one element type f32, f16 or bf16 (with the output that or f32)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf64>, tensor<2x16x4xf64>) outs(%z1 : tensor<2x16x4xf64>) {
  ^bb0(%a: f64, %x: f64, %acc: f64):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %x : f64
    %z = arith.select %m, %p, %c0 : f64
    %r = arith.addf %acc, %z : f64
    linalg.yield %r : f64
  } -> tensor<2x16x4xf64>
  return %o : tensor<2x16x4xf64>
}

// -----

// Half precision as front ends print it: 16-bit operands widened into f32
// accumulators, the scores rounded back to f16. The raise reads through the
// roundings; the op takes the f16 tensors and its f16 output is widened to
// the f32 accumulator the model kept.
// CHECK-LABEL: func.func @causal_f16
// CHECK: %[[O:.+]] = linea.linear_attention %arg0, %arg1, %arg2 mask = causal : tensor<2x16x8xf16>, tensor<2x16x8xf16>, tensor<2x16x4xf16> -> tensor<2x16x4xf16>
// CHECK: %[[W:.+]] = linalg.generic
// CHECK-SAME: ins(%[[O]] : tensor<2x16x4xf16>)
// CHECK: arith.extf
// CHECK: return %[[W]] : tensor<2x16x4xf32>
func.func @causal_f16(%q: tensor<2x16x8xf16>, %k: tensor<2x16x8xf16>, %v: tensor<2x16x4xf16>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf16>, tensor<2x16x8xf16>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %eh = tensor.empty() : tensor<2x16x16xf16>
  %sh = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%eh : tensor<2x16x16xf16>) {
  ^bb0(%a: f32, %o: f16):
    %n = arith.truncf %a : f32 to f16
    linalg.yield %n : f16
  } -> tensor<2x16x16xf16>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%sh, %v : tensor<2x16x16xf16>, tensor<2x16x4xf16>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f16, %x: f16, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %aw = arith.extf %a : f16 to f32
    %xw = arith.extf %x : f16 to f32
    %p = arith.mulf %aw, %xw : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}
