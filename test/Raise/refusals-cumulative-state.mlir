// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of causal linear attention written as a recurrence on the state,
// o_i = q_i S_i with S_i a cumsum of outer products k_t^T v_t: the contraction
// is left as written, with the reason as its remark (the cumsum alone still
// raises to linea.presum).
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom: o_i = q_i S_i with S_i = sum_{t <= i} k_t^T v_t, a cumsum of outer
// products along the sequence.
// CHECK-LABEL: func.func @causal_states(
// CHECK: linea.linear_attention %arg0, %arg1, %arg2 mask = causal
// CHECK-NOT: linea.presum
// CHECK: return
func.func @causal_states(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.linear_attention mask = causal (the states as a cumulative sum of outer products)
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The states summed along the key features instead of the sequence. (The
// cumsum alone still raises.)
// CHECK-LABEL: func.func @states_summed_over_the_features(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @states_summed_over_the_features(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x16x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  %st:2 = tm_tensor.scan dimension(2) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x16x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the states are summed along a dim the output does not keep as its rows
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A cumsum of states given as an argument, not of outer products.
// CHECK-LABEL: func.func @states_from_an_argument(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @states_from_an_argument(%q: tensor<2x16x8xf32>, %states: tensor<2x16x8x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%states : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the summed states are not an outer product of two tensors
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Outer products with the value columns reversed, v[b, i, 3 - e]: a factor not
// read at loops.
// CHECK-LABEL: func.func @values_reversed(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @values_reversed(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, 3 - e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the outer product's factors are read at indices that are not loops
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// One key per batch entry, k[b, d], for every token: the keys do not run along
// the sequence with the queries and values.
// CHECK-LABEL: func.func @keys_without_the_sequence(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @keys_without_the_sequence(%q: tensor<2x16x8xf32>, %k: tensor<2x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the query, the keys and the values do not share the batch dims and the sequence
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Half precision: the cumulative-state raise takes f32 models (the cumsum alone
// still raises).
// CHECK-LABEL: func.func @states_f16(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @states_f16(%q: tensor<2x16x8xf16>, %k: tensor<2x16x8xf16>, %v: tensor<2x16x4xf16>) -> tensor<2x16x4xf16> {
  %c0 = arith.constant 0.0 : f16
  %e_st = tensor.empty() : tensor<2x16x8x4xf16>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf16>, tensor<2x16x4xf16>) outs(%e_st : tensor<2x16x8x4xf16>) {
  ^bb0(%x: f16, %y: f16, %out: f16):
    %p = arith.mulf %x, %y : f16
    linalg.yield %p : f16
  } -> tensor<2x16x8x4xf16>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf16>
  %z_st = linalg.fill ins(%c0 : f16) outs(%e_z_st : tensor<2x16x8x4xf16>) -> tensor<2x16x8x4xf16>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf16>
  %z_acc = linalg.fill ins(%c0 : f16) outs(%e_z_acc : tensor<2x8x4xf16>) -> tensor<2x8x4xf16>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf16>) outs(%z_st, %z_acc : tensor<2x16x8x4xf16>, tensor<2x8x4xf16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    tm_tensor.yield %s : f16
  } -> tensor<2x16x8x4xf16>, tensor<2x8x4xf16>
  %e_z_o = tensor.empty() : tensor<2x16x4xf16>
  %z_o = linalg.fill ins(%c0 : f16) outs(%e_z_o : tensor<2x16x4xf16>) -> tensor<2x16x4xf16>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the raise takes f32 models
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf16>, tensor<2x16x8x4xf16>) outs(%z_o : tensor<2x16x4xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %r = arith.addf %acc, %p : f16
    linalg.yield %r : f16
  } -> tensor<2x16x4xf16>
  return %o : tensor<2x16x4xf16>
}

// -----

// A dynamic key feature dim.
// CHECK-LABEL: func.func @dynamic_features(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @dynamic_features(%q: tensor<2x16x?xf32>, %k: tensor<2x16x?xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %n = tensor.dim %q, %c2 : tensor<2x16x?xf32>
  %e_st = tensor.empty(%n) : tensor<2x16x?x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x?xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x?x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x?x4xf32>
  %e_z_st = tensor.empty(%n) : tensor<2x16x?x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x?x4xf32>) -> tensor<2x16x?x4xf32>
  %e_z_acc = tensor.empty(%n) : tensor<2x?x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x?x4xf32>) outs(%z_st, %z_acc : tensor<2x16x?x4xf32>, tensor<2x?x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x?x4xf32>, tensor<2x?x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: a feature or value dim is dynamic; Linea's ops take them static
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x?xf32>, tensor<2x16x?x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// o = x + q S, the residual added by accumulating onto x.
// CHECK-LABEL: func.func @residual(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @residual(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %res: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the output accumulates onto a tensor that is not zero
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%res : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Keys gathered from a table by token id inside the outer product,
// table[ids[b, i], d]: the states' element is no expression of the loops.
// CHECK-LABEL: func.func @keys_gathered(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @keys_gathered(%q: tensor<2x16x8xf32>, %k: tensor<100x8xf32>, %v: tensor<2x16x4xf32>, %ids: tensor<2x16xindex>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ids, %v : tensor<2x16xindex>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: index, %y: f32, %out: f32):
  %d = linalg.index 2 : index
  %kk = tensor.extract %k[%x, %d] : tensor<100x8xf32>
  %p = arith.mulf %kk, %y : f32
  linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: a tensor.extract index is not affine in the loop indices
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The key of token i taken from token i floordiv 2, the index computed by an
// affine.apply in the outer product's body: no scalar arith or math op.
// CHECK-LABEL: func.func @keys_in_pairs(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @keys_in_pairs(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
  %bi = linalg.index 0 : index
  %ii = linalg.index 1 : index
  %d = linalg.index 2 : index
  %j = affine.apply affine_map<(r) -> (r floordiv 2)>(%ii)
  %kk = tensor.extract %k[%bi, %j, %d] : tensor<2x16x8xf32>
  %p = arith.mulf %kk, %y : f32
  linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the body holds 'affine.apply', which is not a scalar arith or math op
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Values multiplied by 1.5 seventy times over, one multiply at a time, in the
// outer product's body: an expression deeper than the raise analyzes.
// CHECK-LABEL: func.func @values_scaled_seventy_times(
// CHECK: linea.presum
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @values_scaled_seventy_times(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_st = tensor.empty() : tensor<2x16x8x4xf32>
  %outer = linalg.generic {indexing_maps = [affine_map<(b, i, d, e) -> (b, i, d)>, affine_map<(b, i, d, e) -> (b, i, e)>, affine_map<(b, i, d, e) -> (b, i, d, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k, %v : tensor<2x16x8xf32>, tensor<2x16x4xf32>) outs(%e_st : tensor<2x16x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
  %c = arith.constant 1.5 : f32
  %y0 = arith.mulf %y, %c : f32
  %y1 = arith.mulf %y0, %c : f32
  %y2 = arith.mulf %y1, %c : f32
  %y3 = arith.mulf %y2, %c : f32
  %y4 = arith.mulf %y3, %c : f32
  %y5 = arith.mulf %y4, %c : f32
  %y6 = arith.mulf %y5, %c : f32
  %y7 = arith.mulf %y6, %c : f32
  %y8 = arith.mulf %y7, %c : f32
  %y9 = arith.mulf %y8, %c : f32
  %y10 = arith.mulf %y9, %c : f32
  %y11 = arith.mulf %y10, %c : f32
  %y12 = arith.mulf %y11, %c : f32
  %y13 = arith.mulf %y12, %c : f32
  %y14 = arith.mulf %y13, %c : f32
  %y15 = arith.mulf %y14, %c : f32
  %y16 = arith.mulf %y15, %c : f32
  %y17 = arith.mulf %y16, %c : f32
  %y18 = arith.mulf %y17, %c : f32
  %y19 = arith.mulf %y18, %c : f32
  %y20 = arith.mulf %y19, %c : f32
  %y21 = arith.mulf %y20, %c : f32
  %y22 = arith.mulf %y21, %c : f32
  %y23 = arith.mulf %y22, %c : f32
  %y24 = arith.mulf %y23, %c : f32
  %y25 = arith.mulf %y24, %c : f32
  %y26 = arith.mulf %y25, %c : f32
  %y27 = arith.mulf %y26, %c : f32
  %y28 = arith.mulf %y27, %c : f32
  %y29 = arith.mulf %y28, %c : f32
  %y30 = arith.mulf %y29, %c : f32
  %y31 = arith.mulf %y30, %c : f32
  %y32 = arith.mulf %y31, %c : f32
  %y33 = arith.mulf %y32, %c : f32
  %y34 = arith.mulf %y33, %c : f32
  %y35 = arith.mulf %y34, %c : f32
  %y36 = arith.mulf %y35, %c : f32
  %y37 = arith.mulf %y36, %c : f32
  %y38 = arith.mulf %y37, %c : f32
  %y39 = arith.mulf %y38, %c : f32
  %y40 = arith.mulf %y39, %c : f32
  %y41 = arith.mulf %y40, %c : f32
  %y42 = arith.mulf %y41, %c : f32
  %y43 = arith.mulf %y42, %c : f32
  %y44 = arith.mulf %y43, %c : f32
  %y45 = arith.mulf %y44, %c : f32
  %y46 = arith.mulf %y45, %c : f32
  %y47 = arith.mulf %y46, %c : f32
  %y48 = arith.mulf %y47, %c : f32
  %y49 = arith.mulf %y48, %c : f32
  %y50 = arith.mulf %y49, %c : f32
  %y51 = arith.mulf %y50, %c : f32
  %y52 = arith.mulf %y51, %c : f32
  %y53 = arith.mulf %y52, %c : f32
  %y54 = arith.mulf %y53, %c : f32
  %y55 = arith.mulf %y54, %c : f32
  %y56 = arith.mulf %y55, %c : f32
  %y57 = arith.mulf %y56, %c : f32
  %y58 = arith.mulf %y57, %c : f32
  %y59 = arith.mulf %y58, %c : f32
  %y60 = arith.mulf %y59, %c : f32
  %y61 = arith.mulf %y60, %c : f32
  %y62 = arith.mulf %y61, %c : f32
  %y63 = arith.mulf %y62, %c : f32
  %y64 = arith.mulf %y63, %c : f32
  %y65 = arith.mulf %y64, %c : f32
  %y66 = arith.mulf %y65, %c : f32
  %y67 = arith.mulf %y66, %c : f32
  %y68 = arith.mulf %y67, %c : f32
  %y69 = arith.mulf %y68, %c : f32
  %p = arith.mulf %x, %y69 : f32
  linalg.yield %p : f32
  } -> tensor<2x16x8x4xf32>
  %e_z_st = tensor.empty() : tensor<2x16x8x4xf32>
  %z_st = linalg.fill ins(%c0 : f32) outs(%e_z_st : tensor<2x16x8x4xf32>) -> tensor<2x16x8x4xf32>
  %e_z_acc = tensor.empty() : tensor<2x8x4xf32>
  %z_acc = linalg.fill ins(%c0 : f32) outs(%e_z_acc : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %st:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%outer : tensor<2x16x8x4xf32>) outs(%z_st, %z_acc : tensor<2x16x8x4xf32>, tensor<2x8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tm_tensor.yield %s : f32
  } -> tensor<2x16x8x4xf32>, tensor<2x8x4xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the expression is too large to analyze
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, d) -> (b, i, d)>, affine_map<(b, i, e, d) -> (b, i, d, e)>, affine_map<(b, i, e, d) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %st#0 : tensor<2x16x8xf32>, tensor<2x16x8x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}
