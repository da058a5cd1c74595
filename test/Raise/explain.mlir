// RUN: linea-opt %s -split-input-file -linea-raise=explain=1 -verify-diagnostics | FileCheck %s

// What `explain` says, and what it does not (issue 56): a pattern whose
// first structural check fails is silent (a division that is no softmax, a
// projection of an attention's output); a candidate that every pattern
// refused is counted, with the reason of each pattern that took it.

// A row normalized by its sum, then projected: no exponential under the
// division, so no softmax to remark on (this once said "the probabilities
// are not exp(S - max)").
// CHECK-LABEL: func.func @normalized_rows_projected
// CHECK-NOT: linea.
func.func @normalized_rows_projected(%x: tensor<16x8xf32>, %w: tensor<8x4xf32>) -> tensor<16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i, d)>, affine_map<(i, d) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x8xf32>) outs(%z0 : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i, d)>, affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x8xf32>, tensor<16xf32>) outs(%e1 : tensor<16x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<16x4xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<16x4xf32>) -> tensor<16x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(i, e, d) -> (i, d)>, affine_map<(i, e, d) -> (d, e)>, affine_map<(i, e, d) -> (i, e)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%n, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%z2 : tensor<16x4xf32>) {
  ^bb0(%a: f32, %y: f32, %acc: f32):
    %p = arith.mulf %a, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<16x4xf32>
  return %o : tensor<16x4xf32>
}

// -----

// Causal linear attention, then an output projection by a weight: the
// projection reads the attention's output (a contraction) as if it were
// scores, but its values (the weight) have no batch dim: no candidate, no
// remark (this once said "the product of the scores and the values is not
// one contraction over the keys").
// CHECK-LABEL: func.func @attention_projected
// CHECK: linea.linear_attention %arg0, %arg1, %arg2 mask = causal
func.func @attention_projected(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %w: tensor<4x6xf32>) -> tensor<2x16x6xf32> {
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
  %em = tensor.empty() : tensor<2x16x16xf32>
  %ms = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%em : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %z = arith.select %m, %a, %c0 : f32
    linalg.yield %z : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%ms, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  %e2 = tensor.empty() : tensor<2x16x6xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<2x16x6xf32>) -> tensor<2x16x6xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, i, f, e) -> (b, i, e)>, affine_map<(b, i, f, e) -> (e, f)>, affine_map<(b, i, f, e) -> (b, i, f)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%o, %w : tensor<2x16x4xf32>, tensor<4x6xf32>) outs(%z2 : tensor<2x16x6xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x6xf32>
  return %y : tensor<2x16x6xf32>
}

// -----

// Causal scores times a gate read from data: both linear-attention
// patterns took it for theirs and refused it, each with its own reason
// (the expression in math notation).
// CHECK-LABEL: func.func @gated_by_data
// CHECK-NOT: linea.
func.func @gated_by_data(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %g: tensor<2x16xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %c3 = arith.constant 3.0 : f32
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
  // expected-remark @below {{linea-raise: not raised: a factor of the product, tanh(arg3[d0, d1]) + 3, is neither a mask, a constant nor a decay}}
  // expected-remark @below {{linea-raise: the linear attention pattern refused it: a factor of the product, tanh(arg3[d0, d1]) + 3, is neither a mask nor a constant}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %g : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2x16xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %gi: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %th = math.tanh %gi : f32
    %gate = arith.addf %th, %c3 : f32
    %ag = arith.mulf %a, %gate : f32
    %p = arith.mulf %ag, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Causal linear attention the RNN way, as torch.export prints
// `(q.unsqueeze(-2) @ cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), 2)).squeeze(-2)`
// with a dynamic length: the contraction reads the states through a
// collapse of the batch dims and the sequence. The normalization expands the
// contraction back into those dims and drops the unit batch around the
// scan too (this once said nothing, "0 candidate(s) left as written", then
// refused the collapse): one linear attention, the states gone.
// CHECK-LABEL: func.func @states_through_a_collapse
// CHECK-NOT: linea.presum
// CHECK: linea.linear_attention {{.*}} mask = causal
// CHECK-NOT: tm_tensor.scan
func.func @states_through_a_collapse(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %c0 = arith.constant 0.000000e+00 : f32
  %c2 = arith.constant 2 : index
  %n = tensor.dim %k, %c2 : tensor<1x2x?x8xf32>
  %ke = tensor.expand_shape %k [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 8, 1] : tensor<1x2x?x8xf32> into tensor<1x2x?x8x1xf32>
  %ve = tensor.expand_shape %v [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 1, 8] : tensor<1x2x?x8xf32> into tensor<1x2x?x1x8xf32>
  %e0 = tensor.empty(%n) : tensor<1x2x?x8x8xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ke, %ve : tensor<1x2x?x8x1xf32>, tensor<1x2x?x1x8xf32>) outs(%e0 : tensor<1x2x?x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x2x?x8x8xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<1x2x?x8x8xf32>) -> tensor<1x2x?x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x8xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %states:2 = tm_tensor.scan dimension(2) inclusive(true) ins(%outer : tensor<1x2x?x8x8xf32>) outs(%z0, %z1 : tensor<1x2x?x8x8xf32>, tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    tm_tensor.yield %s : f32
  } -> tensor<1x2x?x8x8xf32>, tensor<1x2x8x8xf32>
  %qe = tensor.expand_shape %q [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 1, 8] : tensor<1x2x?x8xf32> into tensor<1x2x?x1x8xf32>
  %qc = tensor.collapse_shape %qe [[0, 1, 2], [3], [4]] : tensor<1x2x?x1x8xf32> into tensor<?x1x8xf32>
  %sc = tensor.collapse_shape %states#0 [[0, 1, 2], [3], [4]] : tensor<1x2x?x8x8xf32> into tensor<?x8x8xf32>
  %m = arith.muli %n, %c2 : index
  %e2 = tensor.empty(%m) : tensor<?x1x8xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<?x1x8xf32>) -> tensor<?x1x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.linear_attention mask = causal (the states as a cumulative sum of outer products)}}
  %o = linalg.batch_matmul ins(%qc, %sc : tensor<?x1x8xf32>, tensor<?x8x8xf32>) outs(%z2 : tensor<?x1x8xf32>) -> tensor<?x1x8xf32>
  %oe = tensor.expand_shape %o [[0, 1, 2], [3], [4]] output_shape [1, 2, %n, 1, 8] : tensor<?x1x8xf32> into tensor<1x2x?x1x8xf32>
  %r = tensor.collapse_shape %oe [[0], [1], [2, 3], [4]] : tensor<1x2x?x1x8xf32> into tensor<1x2x?x8xf32>
  return %r : tensor<1x2x?x8xf32>
}

// -----

// The same states, also returned collapsed: the collapse has a second
// reader, so the normalization keeps it, and the contraction still reads
// the sequence merged with the batch dims. The cumsum alone raises.
// CHECK-LABEL: func.func @states_through_a_shared_collapse
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
func.func @states_through_a_shared_collapse(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> (tensor<1x2x?x8xf32>, tensor<?x8x8xf32>) {
  %c0 = arith.constant 0.000000e+00 : f32
  %c2 = arith.constant 2 : index
  %n = tensor.dim %k, %c2 : tensor<1x2x?x8xf32>
  %ke = tensor.expand_shape %k [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 8, 1] : tensor<1x2x?x8xf32> into tensor<1x2x?x8x1xf32>
  %ve = tensor.expand_shape %v [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 1, 8] : tensor<1x2x?x8xf32> into tensor<1x2x?x1x8xf32>
  %e0 = tensor.empty(%n) : tensor<1x2x?x8x8xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%ke, %ve : tensor<1x2x?x8x1xf32>, tensor<1x2x?x1x8xf32>) outs(%e0 : tensor<1x2x?x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x2x?x8x8xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<1x2x?x8x8xf32>) -> tensor<1x2x?x8x8xf32>
  %e1 = tensor.empty() : tensor<1x2x8x8xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  // expected-remark @below {{linea-raise: raised to linea.presum dim = 2}}
  %states:2 = tm_tensor.scan dimension(2) inclusive(true) ins(%outer : tensor<1x2x?x8x8xf32>) outs(%z0, %z1 : tensor<1x2x?x8x8xf32>, tensor<1x2x8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    tm_tensor.yield %s : f32
  } -> tensor<1x2x?x8x8xf32>, tensor<1x2x8x8xf32>
  %qe = tensor.expand_shape %q [[0], [1], [2], [3, 4]] output_shape [1, 2, %n, 1, 8] : tensor<1x2x?x8xf32> into tensor<1x2x?x1x8xf32>
  %qc = tensor.collapse_shape %qe [[0, 1, 2], [3], [4]] : tensor<1x2x?x1x8xf32> into tensor<?x1x8xf32>
  %sc = tensor.collapse_shape %states#0 [[0, 1, 2], [3], [4]] : tensor<1x2x?x8x8xf32> into tensor<?x8x8xf32>
  %m = arith.muli %n, %c2 : index
  %e2 = tensor.empty(%m) : tensor<?x1x8xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<?x1x8xf32>) -> tensor<?x1x8xf32>
  // expected-remark @below {{linea-raise: not raised: the cumsum of states reaches the contraction through a tensor.collapse_shape: its sequence dim is not a loop of the contraction}}
  %o = linalg.batch_matmul ins(%qc, %sc : tensor<?x1x8xf32>, tensor<?x8x8xf32>) outs(%z2 : tensor<?x1x8xf32>) -> tensor<?x1x8xf32>
  %oe = tensor.expand_shape %o [[0, 1, 2], [3], [4]] output_shape [1, 2, %n, 1, 8] : tensor<?x1x8xf32> into tensor<1x2x?x1x8xf32>
  %r = tensor.collapse_shape %oe [[0], [1], [2, 3], [4]] : tensor<1x2x?x1x8xf32> into tensor<1x2x?x8xf32>
  return %r, %sc : tensor<1x2x?x8xf32>, tensor<?x8x8xf32>
}
