// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of the masks the raise decides (IndexPredicate, segment ids):
// linear attention O = (S .* M) V with the mask M computed in the value
// contraction's body, each M just off what the raise proves. Each is left as
// written, with the reason as its remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom the near misses below miss: t <= i, computed in the body.
// CHECK-LABEL: func.func @causal(
// CHECK: linea.linear_attention %arg0, %arg1, %arg2 mask = causal
func.func @causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
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

// Causal, and only while a flag known at run time is set: the mask is no
// function of the indices alone.
// CHECK-LABEL: func.func @run_time_flag(
// CHECK-NOT: linea.
// CHECK: return
func.func @run_time_flag(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %flag: i1) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask depends on a value known only at run time
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c = arith.cmpi sle, %t, %i : index
    %m = arith.andi %c, %flag : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A sliding window whose width comes in as an argument: t > i - w with w
// unknown until run time.
// CHECK-LABEL: func.func @run_time_window(
// CHECK-NOT: linea.
// CHECK: return
func.func @run_time_window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %w: index) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares '{{.*}}', which is not affine in the indices
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %lo = arith.subi %i, %w : index
    %m = arith.cmpi sgt, %t, %lo : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A checkerboard, the low bit of i + t: a boolean computed from the indices,
// but by no comparison.
// CHECK-LABEL: func.func @checkerboard(
// CHECK-NOT: linea.
// CHECK: return
func.func @checkerboard(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask computes '{{.*}}', which is not a comparison of indices
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %s2 = arith.addi %i, %t : index
    %s64 = arith.index_cast %s2 : index to i64
    %m = arith.trunci %s64 : i64 to i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Two masks ordered with `<` (torch's `a < b` on bool tensors: not a and b).
// CHECK-LABEL: func.func @orders_booleans(
// CHECK-NOT: linea.
// CHECK: return
func.func @orders_booleans(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask orders two booleans
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c5 = arith.constant 5 : index
    %a1 = arith.cmpi sle, %t, %i : index
    %b1 = arith.cmpi slt, %t, %c5 : index
    %m = arith.cmpi ult, %a1, %b1 : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Keys visible where their timestamp is at most the query's, the timestamps
// given as data: two floats compared, neither a constant.
// CHECK-LABEL: func.func @compares_data_floats(
// CHECK-NOT: linea.
// CHECK: return
func.func @compares_data_floats(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %pos: tensor<2x16xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares two floats that are not an indicator and a constant
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i)>, affine_map<(b, i, e, t) -> (b, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %pos, %pos : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2x16xf32>, tensor<2x16xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %pi: f32, %pt: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpf ole, %pt, %pi : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// exp(t - i) <= 1 is t <= i, but the raise compares indicators (0/1 floats)
// with constants, and exp(...) is none.
// CHECK-LABEL: func.func @float_not_indicator(
// CHECK-NOT: linea.
// CHECK: return
func.func @float_not_indicator(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares 'exp({{.*}})', which is not an indicator of indices
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %one = arith.constant 1.0 : f32
    %d = arith.subi %t, %i : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %ex = math.exp %df : f32
    %m = arith.cmpf ole, %ex, %one : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A window compared unsigned, t >u i - 3: at i < 3 the bound wraps around, so
// this is not the signed window.
// CHECK-LABEL: func.func @unsigned_window(
// CHECK-NOT: linea.
// CHECK: return
func.func @unsigned_window(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares indices unsigned where a side can be negative
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %c3 = arith.constant 3 : index
    %lo = arith.subi %i, %c3 : index
    %m = arith.cmpi ugt, %t, %lo : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// t <= i + 2^41: an offset past what the decision handles exactly.
// CHECK-LABEL: func.func @huge_offset(
// CHECK-NOT: linea.
// CHECK: return
func.func @huge_offset(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask's constants are too large to decide
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %big = arith.constant 2199023255552 : index
    %hi = arith.addi %i, %big : index
    %m = arith.cmpi sle, %t, %hi : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A mask computed for every other row and read at row i floordiv 2 (rows in
// pairs): the comparison reaches the row through a floordiv.
// CHECK-LABEL: func.func @row_pairs(
// CHECK-NOT: linea.
// CHECK: return
func.func @row_pairs(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_mk = tensor.empty() : tensor<8x16xi1>
  %mk = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>], iterator_types = ["parallel", "parallel"]} outs(%e_mk : tensor<8x16xi1>) {
  ^bb0(%out: i1):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %le = arith.cmpi sle, %c, %r : index
    linalg.yield %le : i1
  } -> tensor<8x16xi1>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares '{{.*}}', which is not linear in the indices
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i floordiv 2, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %mk : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<8x16xi1>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %mb: i1, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index

    %p = arith.mulf %a, %x : f32
    %z = arith.select %mb, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A band |t - i| <= 3 given as a constant table of relative distances, read at
// t - i + 15: a table read at neither the row nor the column.
// CHECK-LABEL: func.func @relative_table(
// CHECK-NOT: linea.
// CHECK: return
func.func @relative_table(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<31xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask reads a constant at '{{.*}}', not at the row and column
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (t - i + 15)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %tbl : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<31xi8>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w8: i8, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %m = arith.cmpi ne, %w8, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A causal table of 8 rows read at row i floordiv 2.
// CHECK-LABEL: func.func @table_row_pairs(
// CHECK-NOT: linea.
// CHECK: return
func.func @table_row_pairs(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<8x16xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask reads a constant at '{{.*}}', not at the row and column
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i floordiv 2, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %tbl : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<8x16xi8>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w8: i8, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %m = arith.cmpi ne, %w8, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A causal table, but only for batch 0: the table is read at the row and the
// column, the mask depends on the batch as well.
// CHECK-LABEL: func.func @table_first_batch(
// CHECK-NOT: linea.
// CHECK: return
func.func @table_first_batch(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]> : tensor<16x16xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask depends on loops other than the row and column
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %tbl : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16x16xi8>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w8: i8, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %bi = linalg.index 0 : index
    %c0i = arith.constant 0 : index
    %first = arith.cmpi eq, %bi, %c0i : index
    %keep = arith.cmpi ne, %w8, %zero : i8
    %m = arith.andi %keep, %first : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A constant key-padding mask, one entry per key: a table along the column
// only, so not a mask over (i, t) the raise can tabulate.
// CHECK-LABEL: func.func @key_padding_table(
// CHECK-NOT: linea.
// CHECK: return
func.func @key_padding_table(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]> : tensor<16xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask reads a constant ({{.*}}) that does not span both the row and the column
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %tbl : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16xi8>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w8: i8, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %m = arith.cmpi ne, %w8, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A 16 x 16 table read at row i + 16, past its end (the read would be out of
// bounds if it ran): no entry of the table is a row of the mask.
// CHECK-LABEL: func.func @table_past_the_end(
// CHECK-NOT: linea.
// CHECK: return
func.func @table_past_the_end(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]]> : tensor<16x16xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask reads a constant ({{.*}}) outside its bounds
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %c16 = arith.constant 16 : index
    %i16 = arith.addi %i, %c16 : index
    %w8 = tensor.extract %tbl[%i16, %t] : tensor<16x16xi8>
    %m = arith.cmpi ne, %w8, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Causal by positions read from a constant buffer of 4097 (pos[t] <= pos[i]):
// the mask would be tabulated over 4097 x 4097 entries, more than the raise
// evaluates.
// CHECK-LABEL: func.func @long_position_table(
// CHECK-NOT: linea.
// CHECK: return
func.func @long_position_table(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %pos = arith.constant dense<"0x00000100020003000400050006000700080009000A000B000C000D000E000F0010001100120013001400150016001700180019001A001B001C001D001E001F0020002100220023002400250026002700280029002A002B002C002D002E002F0030003100320033003400350036003700380039003A003B003C003D003E003F0040004100420043004400450046004700480049004A004B004C004D004E004F0050005100520053005400550056005700580059005A005B005C005D005E005F0060006100620063006400650066006700680069006A006B006C006D006E006F0070007100720073007400750076007700780079007A007B007C007D007E007F0080008100820083008400850086008700880089008A008B008C008D008E008F0090009100920093009400950096009700980099009A009B009C009D009E009F00A000A100A200A300A400A500A600A700A800A900AA00AB00AC00AD00AE00AF00B000B100B200B300B400B500B600B700B800B900BA00BB00BC00BD00BE00BF00C000C100C200C300C400C500C600C700C800C900CA00CB00CC00CD00CE00CF00D000D100D200D300D400D500D600D700D800D900DA00DB00DC00DD00DE00DF00E000E100E200E300E400E500E600E700E800E900EA00EB00EC00ED00EE00EF00F000F100F200F300F400F500F600F700F800F900FA00FB00FC00FD00FE00FF0000010101020103010401050106010701080109010A010B010C010D010E010F0110011101120113011401150116011701180119011A011B011C011D011E011F0120012101220123012401250126012701280129012A012B012C012D012E012F0130013101320133013401350136013701380139013A013B013C013D013E013F0140014101420143014401450146014701480149014A014B014C014D014E014F0150015101520153015401550156015701580159015A015B015C015D015E015F0160016101620163016401650166016701680169016A016B016C016D016E016F0170017101720173017401750176017701780179017A017B017C017D017E017F0180018101820183018401850186018701880189018A018B018C018D018E018F0190019101920193019401950196019701980199019A019B019C019D019E019F01A001A101A201A301A401A501A601A701A801A901AA01AB01AC01AD01AE01AF01B001B101B201B301B401B501B601B701B801B901BA01BB01BC01BD01BE01BF01C001C101C201C301C401C501C601C701C801C901CA01CB01CC01CD01CE01CF01D001D101D201D301D401D501D601D701D801D901DA01DB01DC01DD01DE01DF01E001E101E201E301E401E501E601E701E801E901EA01EB01EC01ED01EE01EF01F001F101F201F301F401F501F601F701F801F901FA01FB01FC01FD01FE01FF0100020102020203020402050206020702080209020A020B020C020D020E020F0210021102120213021402150216021702180219021A021B021C021D021E021F0220022102220223022402250226022702280229022A022B022C022D022E022F0230023102320233023402350236023702380239023A023B023C023D023E023F0240024102420243024402450246024702480249024A024B024C024D024E024F0250025102520253025402550256025702580259025A025B025C025D025E025F0260026102620263026402650266026702680269026A026B026C026D026E026F0270027102720273027402750276027702780279027A027B027C027D027E027F0280028102820283028402850286028702880289028A028B028C028D028E028F0290029102920293029402950296029702980299029A029B029C029D029E029F02A002A102A202A302A402A502A602A702A802A902AA02AB02AC02AD02AE02AF02B002B102B202B302B402B502B602B702B802B902BA02BB02BC02BD02BE02BF02C002C102C202C302C402C502C602C702C802C902CA02CB02CC02CD02CE02CF02D002D102D202D302D402D502D602D702D802D902DA02DB02DC02DD02DE02DF02E002E102E202E302E402E502E602E702E802E902EA02EB02EC02ED02EE02EF02F002F102F202F302F402F502F602F702F802F902FA02FB02FC02FD02FE02FF0200030103020303030403050306030703080309030A030B030C030D030E030F0310031103120313031403150316031703180319031A031B031C031D031E031F0320032103220323032403250326032703280329032A032B032C032D032E032F0330033103320333033403350336033703380339033A033B033C033D033E033F0340034103420343034403450346034703480349034A034B034C034D034E034F0350035103520353035403550356035703580359035A035B035C035D035E035F0360036103620363036403650366036703680369036A036B036C036D036E036F0370037103720373037403750376037703780379037A037B037C037D037E037F0380038103820383038403850386038703880389038A038B038C038D038E038F0390039103920393039403950396039703980399039A039B039C039D039E039F03A003A103A203A303A403A503A603A703A803A903AA03AB03AC03AD03AE03AF03B003B103B203B303B403B503B603B703B803B903BA03BB03BC03BD03BE03BF03C003C103C203C303C403C503C603C703C803C903CA03CB03CC03CD03CE03CF03D003D103D203D303D403D503D603D703D803D903DA03DB03DC03DD03DE03DF03E003E103E203E303E403E503E603E703E803E903EA03EB03EC03ED03EE03EF03F003F103F203F303F403F503F603F703F803F903FA03FB03FC03FD03FE03FF0300040104020403040404050406040704080409040A040B040C040D040E040F0410041104120413041404150416041704180419041A041B041C041D041E041F0420042104220423042404250426042704280429042A042B042C042D042E042F0430043104320433043404350436043704380439043A043B043C043D043E043F0440044104420443044404450446044704480449044A044B044C044D044E044F0450045104520453045404550456045704580459045A045B045C045D045E045F0460046104620463046404650466046704680469046A046B046C046D046E046F0470047104720473047404750476047704780479047A047B047C047D047E047F0480048104820483048404850486048704880489048A048B048C048D048E048F0490049104920493049404950496049704980499049A049B049C049D049E049F04A004A104A204A304A404A504A604A704A804A904AA04AB04AC04AD04AE04AF04B004B104B204B304B404B504B604B704B804B904BA04BB04BC04BD04BE04BF04C004C104C204C304C404C504C604C704C804C904CA04CB04CC04CD04CE04CF04D004D104D204D304D404D504D604D704D804D904DA04DB04DC04DD04DE04DF04E004E104E204E304E404E504E604E704E804E904EA04EB04EC04ED04EE04EF04F004F104F204F304F404F504F604F704F804F904FA04FB04FC04FD04FE04FF0400050105020503050405050506050705080509050A050B050C050D050E050F0510051105120513051405150516051705180519051A051B051C051D051E051F0520052105220523052405250526052705280529052A052B052C052D052E052F0530053105320533053405350536053705380539053A053B053C053D053E053F0540054105420543054405450546054705480549054A054B054C054D054E054F0550055105520553055405550556055705580559055A055B055C055D055E055F0560056105620563056405650566056705680569056A056B056C056D056E056F0570057105720573057405750576057705780579057A057B057C057D057E057F0580058105820583058405850586058705880589058A058B058C058D058E058F0590059105920593059405950596059705980599059A059B059C059D059E059F05A005A105A205A305A405A505A605A705A805A905AA05AB05AC05AD05AE05AF05B005B105B205B305B405B505B605B705B805B905BA05BB05BC05BD05BE05BF05C005C105C205C305C405C505C605C705C805C905CA05CB05CC05CD05CE05CF05D005D105D205D305D405D505D605D705D805D905DA05DB05DC05DD05DE05DF05E005E105E205E305E405E505E605E705E805E905EA05EB05EC05ED05EE05EF05F005F105F205F305F405F505F605F705F805F905FA05FB05FC05FD05FE05FF0500060106020603060406050606060706080609060A060B060C060D060E060F0610061106120613061406150616061706180619061A061B061C061D061E061F0620062106220623062406250626062706280629062A062B062C062D062E062F0630063106320633063406350636063706380639063A063B063C063D063E063F0640064106420643064406450646064706480649064A064B064C064D064E064F0650065106520653065406550656065706580659065A065B065C065D065E065F0660066106620663066406650666066706680669066A066B066C066D066E066F0670067106720673067406750676067706780679067A067B067C067D067E067F0680068106820683068406850686068706880689068A068B068C068D068E068F0690069106920693069406950696069706980699069A069B069C069D069E069F06A006A106A206A306A406A506A606A706A806A906AA06AB06AC06AD06AE06AF06B006B106B206B306B406B506B606B706B806B906BA06BB06BC06BD06BE06BF06C006C106C206C306C406C506C606C706C806C906CA06CB06CC06CD06CE06CF06D006D106D206D306D406D506D606D706D806D906DA06DB06DC06DD06DE06DF06E006E106E206E306E406E506E606E706E806E906EA06EB06EC06ED06EE06EF06F006F106F206F306F406F506F606F706F806F906FA06FB06FC06FD06FE06FF0600070107020703070407050706070707080709070A070B070C070D070E070F0710071107120713071407150716071707180719071A071B071C071D071E071F0720072107220723072407250726072707280729072A072B072C072D072E072F0730073107320733073407350736073707380739073A073B073C073D073E073F0740074107420743074407450746074707480749074A074B074C074D074E074F0750075107520753075407550756075707580759075A075B075C075D075E075F0760076107620763076407650766076707680769076A076B076C076D076E076F0770077107720773077407750776077707780779077A077B077C077D077E077F0780078107820783078407850786078707880789078A078B078C078D078E078F0790079107920793079407950796079707980799079A079B079C079D079E079F07A007A107A207A307A407A507A607A707A807A907AA07AB07AC07AD07AE07AF07B007B107B207B307B407B507B607B707B807B907BA07BB07BC07BD07BE07BF07C007C107C207C307C407C507C607C707C807C907CA07CB07CC07CD07CE07CF07D007D107D207D307D407D507D607D707D807D907DA07DB07DC07DD07DE07DF07E007E107E207E307E407E507E607E707E807E907EA07EB07EC07ED07EE07EF07F007F107F207F307F407F507F607F707F807F907FA07FB07FC07FD07FE07FF0700080108020803080408050806080708080809080A080B080C080D080E080F0810081108120813081408150816081708180819081A081B081C081D081E081F0820082108220823082408250826082708280829082A082B082C082D082E082F0830083108320833083408350836083708380839083A083B083C083D083E083F0840084108420843084408450846084708480849084A084B084C084D084E084F0850085108520853085408550856085708580859085A085B085C085D085E085F0860086108620863086408650866086708680869086A086B086C086D086E086F0870087108720873087408750876087708780879087A087B087C087D087E087F0880088108820883088408850886088708880889088A088B088C088D088E088F0890089108920893089408950896089708980899089A089B089C089D089E089F08A008A108A208A308A408A508A608A708A808A908AA08AB08AC08AD08AE08AF08B008B108B208B308B408B508B608B708B808B908BA08BB08BC08BD08BE08BF08C008C108C208C308C408C508C608C708C808C908CA08CB08CC08CD08CE08CF08D008D108D208D308D408D508D608D708D808D908DA08DB08DC08DD08DE08DF08E008E108E208E308E408E508E608E708E808E908EA08EB08EC08ED08EE08EF08F008F108F208F308F408F508F608F708F808F908FA08FB08FC08FD08FE08FF0800090109020903090409050906090709080909090A090B090C090D090E090F0910091109120913091409150916091709180919091A091B091C091D091E091F0920092109220923092409250926092709280929092A092B092C092D092E092F0930093109320933093409350936093709380939093A093B093C093D093E093F0940094109420943094409450946094709480949094A094B094C094D094E094F0950095109520953095409550956095709580959095A095B095C095D095E095F0960096109620963096409650966096709680969096A096B096C096D096E096F0970097109720973097409750976097709780979097A097B097C097D097E097F0980098109820983098409850986098709880989098A098B098C098D098E098F0990099109920993099409950996099709980999099A099B099C099D099E099F09A009A109A209A309A409A509A609A709A809A909AA09AB09AC09AD09AE09AF09B009B109B209B309B409B509B609B709B809B909BA09BB09BC09BD09BE09BF09C009C109C209C309C409C509C609C709C809C909CA09CB09CC09CD09CE09CF09D009D109D209D309D409D509D609D709D809D909DA09DB09DC09DD09DE09DF09E009E109E209E309E409E509E609E709E809E909EA09EB09EC09ED09EE09EF09F009F109F209F309F409F509F609F709F809F909FA09FB09FC09FD09FE09FF09000A010A020A030A040A050A060A070A080A090A0A0A0B0A0C0A0D0A0E0A0F0A100A110A120A130A140A150A160A170A180A190A1A0A1B0A1C0A1D0A1E0A1F0A200A210A220A230A240A250A260A270A280A290A2A0A2B0A2C0A2D0A2E0A2F0A300A310A320A330A340A350A360A370A380A390A3A0A3B0A3C0A3D0A3E0A3F0A400A410A420A430A440A450A460A470A480A490A4A0A4B0A4C0A4D0A4E0A4F0A500A510A520A530A540A550A560A570A580A590A5A0A5B0A5C0A5D0A5E0A5F0A600A610A620A630A640A650A660A670A680A690A6A0A6B0A6C0A6D0A6E0A6F0A700A710A720A730A740A750A760A770A780A790A7A0A7B0A7C0A7D0A7E0A7F0A800A810A820A830A840A850A860A870A880A890A8A0A8B0A8C0A8D0A8E0A8F0A900A910A920A930A940A950A960A970A980A990A9A0A9B0A9C0A9D0A9E0A9F0AA00AA10AA20AA30AA40AA50AA60AA70AA80AA90AAA0AAB0AAC0AAD0AAE0AAF0AB00AB10AB20AB30AB40AB50AB60AB70AB80AB90ABA0ABB0ABC0ABD0ABE0ABF0AC00AC10AC20AC30AC40AC50AC60AC70AC80AC90ACA0ACB0ACC0ACD0ACE0ACF0AD00AD10AD20AD30AD40AD50AD60AD70AD80AD90ADA0ADB0ADC0ADD0ADE0ADF0AE00AE10AE20AE30AE40AE50AE60AE70AE80AE90AEA0AEB0AEC0AED0AEE0AEF0AF00AF10AF20AF30AF40AF50AF60AF70AF80AF90AFA0AFB0AFC0AFD0AFE0AFF0A000B010B020B030B040B050B060B070B080B090B0A0B0B0B0C0B0D0B0E0B0F0B100B110B120B130B140B150B160B170B180B190B1A0B1B0B1C0B1D0B1E0B1F0B200B210B220B230B240B250B260B270B280B290B2A0B2B0B2C0B2D0B2E0B2F0B300B310B320B330B340B350B360B370B380B390B3A0B3B0B3C0B3D0B3E0B3F0B400B410B420B430B440B450B460B470B480B490B4A0B4B0B4C0B4D0B4E0B4F0B500B510B520B530B540B550B560B570B580B590B5A0B5B0B5C0B5D0B5E0B5F0B600B610B620B630B640B650B660B670B680B690B6A0B6B0B6C0B6D0B6E0B6F0B700B710B720B730B740B750B760B770B780B790B7A0B7B0B7C0B7D0B7E0B7F0B800B810B820B830B840B850B860B870B880B890B8A0B8B0B8C0B8D0B8E0B8F0B900B910B920B930B940B950B960B970B980B990B9A0B9B0B9C0B9D0B9E0B9F0BA00BA10BA20BA30BA40BA50BA60BA70BA80BA90BAA0BAB0BAC0BAD0BAE0BAF0BB00BB10BB20BB30BB40BB50BB60BB70BB80BB90BBA0BBB0BBC0BBD0BBE0BBF0BC00BC10BC20BC30BC40BC50BC60BC70BC80BC90BCA0BCB0BCC0BCD0BCE0BCF0BD00BD10BD20BD30BD40BD50BD60BD70BD80BD90BDA0BDB0BDC0BDD0BDE0BDF0BE00BE10BE20BE30BE40BE50BE60BE70BE80BE90BEA0BEB0BEC0BED0BEE0BEF0BF00BF10BF20BF30BF40BF50BF60BF70BF80BF90BFA0BFB0BFC0BFD0BFE0BFF0B000C010C020C030C040C050C060C070C080C090C0A0C0B0C0C0C0D0C0E0C0F0C100C110C120C130C140C150C160C170C180C190C1A0C1B0C1C0C1D0C1E0C1F0C200C210C220C230C240C250C260C270C280C290C2A0C2B0C2C0C2D0C2E0C2F0C300C310C320C330C340C350C360C370C380C390C3A0C3B0C3C0C3D0C3E0C3F0C400C410C420C430C440C450C460C470C480C490C4A0C4B0C4C0C4D0C4E0C4F0C500C510C520C530C540C550C560C570C580C590C5A0C5B0C5C0C5D0C5E0C5F0C600C610C620C630C640C650C660C670C680C690C6A0C6B0C6C0C6D0C6E0C6F0C700C710C720C730C740C750C760C770C780C790C7A0C7B0C7C0C7D0C7E0C7F0C800C810C820C830C840C850C860C870C880C890C8A0C8B0C8C0C8D0C8E0C8F0C900C910C920C930C940C950C960C970C980C990C9A0C9B0C9C0C9D0C9E0C9F0CA00CA10CA20CA30CA40CA50CA60CA70CA80CA90CAA0CAB0CAC0CAD0CAE0CAF0CB00CB10CB20CB30CB40CB50CB60CB70CB80CB90CBA0CBB0CBC0CBD0CBE0CBF0CC00CC10CC20CC30CC40CC50CC60CC70CC80CC90CCA0CCB0CCC0CCD0CCE0CCF0CD00CD10CD20CD30CD40CD50CD60CD70CD80CD90CDA0CDB0CDC0CDD0CDE0CDF0CE00CE10CE20CE30CE40CE50CE60CE70CE80CE90CEA0CEB0CEC0CED0CEE0CEF0CF00CF10CF20CF30CF40CF50CF60CF70CF80CF90CFA0CFB0CFC0CFD0CFE0CFF0C000D010D020D030D040D050D060D070D080D090D0A0D0B0D0C0D0D0D0E0D0F0D100D110D120D130D140D150D160D170D180D190D1A0D1B0D1C0D1D0D1E0D1F0D200D210D220D230D240D250D260D270D280D290D2A0D2B0D2C0D2D0D2E0D2F0D300D310D320D330D340D350D360D370D380D390D3A0D3B0D3C0D3D0D3E0D3F0D400D410D420D430D440D450D460D470D480D490D4A0D4B0D4C0D4D0D4E0D4F0D500D510D520D530D540D550D560D570D580D590D5A0D5B0D5C0D5D0D5E0D5F0D600D610D620D630D640D650D660D670D680D690D6A0D6B0D6C0D6D0D6E0D6F0D700D710D720D730D740D750D760D770D780D790D7A0D7B0D7C0D7D0D7E0D7F0D800D810D820D830D840D850D860D870D880D890D8A0D8B0D8C0D8D0D8E0D8F0D900D910D920D930D940D950D960D970D980D990D9A0D9B0D9C0D9D0D9E0D9F0DA00DA10DA20DA30DA40DA50DA60DA70DA80DA90DAA0DAB0DAC0DAD0DAE0DAF0DB00DB10DB20DB30DB40DB50DB60DB70DB80DB90DBA0DBB0DBC0DBD0DBE0DBF0DC00DC10DC20DC30DC40DC50DC60DC70DC80DC90DCA0DCB0DCC0DCD0DCE0DCF0DD00DD10DD20DD30DD40DD50DD60DD70DD80DD90DDA0DDB0DDC0DDD0DDE0DDF0DE00DE10DE20DE30DE40DE50DE60DE70DE80DE90DEA0DEB0DEC0DED0DEE0DEF0DF00DF10DF20DF30DF40DF50DF60DF70DF80DF90DFA0DFB0DFC0DFD0DFE0DFF0D000E010E020E030E040E050E060E070E080E090E0A0E0B0E0C0E0D0E0E0E0F0E100E110E120E130E140E150E160E170E180E190E1A0E1B0E1C0E1D0E1E0E1F0E200E210E220E230E240E250E260E270E280E290E2A0E2B0E2C0E2D0E2E0E2F0E300E310E320E330E340E350E360E370E380E390E3A0E3B0E3C0E3D0E3E0E3F0E400E410E420E430E440E450E460E470E480E490E4A0E4B0E4C0E4D0E4E0E4F0E500E510E520E530E540E550E560E570E580E590E5A0E5B0E5C0E5D0E5E0E5F0E600E610E620E630E640E650E660E670E680E690E6A0E6B0E6C0E6D0E6E0E6F0E700E710E720E730E740E750E760E770E780E790E7A0E7B0E7C0E7D0E7E0E7F0E800E810E820E830E840E850E860E870E880E890E8A0E8B0E8C0E8D0E8E0E8F0E900E910E920E930E940E950E960E970E980E990E9A0E9B0E9C0E9D0E9E0E9F0EA00EA10EA20EA30EA40EA50EA60EA70EA80EA90EAA0EAB0EAC0EAD0EAE0EAF0EB00EB10EB20EB30EB40EB50EB60EB70EB80EB90EBA0EBB0EBC0EBD0EBE0EBF0EC00EC10EC20EC30EC40EC50EC60EC70EC80EC90ECA0ECB0ECC0ECD0ECE0ECF0ED00ED10ED20ED30ED40ED50ED60ED70ED80ED90EDA0EDB0EDC0EDD0EDE0EDF0EE00EE10EE20EE30EE40EE50EE60EE70EE80EE90EEA0EEB0EEC0EED0EEE0EEF0EF00EF10EF20EF30EF40EF50EF60EF70EF80EF90EFA0EFB0EFC0EFD0EFE0EFF0E000F010F020F030F040F050F060F070F080F090F0A0F0B0F0C0F0D0F0E0F0F0F100F110F120F130F140F150F160F170F180F190F1A0F1B0F1C0F1D0F1E0F1F0F200F210F220F230F240F250F260F270F280F290F2A0F2B0F2C0F2D0F2E0F2F0F300F310F320F330F340F350F360F370F380F390F3A0F3B0F3C0F3D0F3E0F3F0F400F410F420F430F440F450F460F470F480F490F4A0F4B0F4C0F4D0F4E0F4F0F500F510F520F530F540F550F560F570F580F590F5A0F5B0F5C0F5D0F5E0F5F0F600F610F620F630F640F650F660F670F680F690F6A0F6B0F6C0F6D0F6E0F6F0F700F710F720F730F740F750F760F770F780F790F7A0F7B0F7C0F7D0F7E0F7F0F800F810F820F830F840F850F860F870F880F890F8A0F8B0F8C0F8D0F8E0F8F0F900F910F920F930F940F950F960F970F980F990F9A0F9B0F9C0F9D0F9E0F9F0FA00FA10FA20FA30FA40FA50FA60FA70FA80FA90FAA0FAB0FAC0FAD0FAE0FAF0FB00FB10FB20FB30FB40FB50FB60FB70FB80FB90FBA0FBB0FBC0FBD0FBE0FBF0FC00FC10FC20FC30FC40FC50FC60FC70FC80FC90FCA0FCB0FCC0FCD0FCE0FCF0FD00FD10FD20FD30FD40FD50FD60FD70FD80FD90FDA0FDB0FDC0FDD0FDE0FDF0FE00FE10FE20FE30FE40FE50FE60FE70FE80FE90FEA0FEB0FEC0FED0FEE0FEF0FF00FF10FF20FF30FF40FF50FF60FF70FF80FF90FFA0FFB0FFC0FFD0FFE0FFF0F0010"> : tensor<4097xi16>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the constant mask has 16785409 entries, more than the raise evaluates
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %pi = tensor.extract %pos[%i] : tensor<4097xi16>
    %pt = tensor.extract %pos[%t] : tensor<4097xi16>
    %m = arith.cmpi sle, %pt, %pi : i16
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A causal table packed into the low bit of bytes, (table[i, t] & 1) != 0: a
// bitwise and of bytes, which the raise does not evaluate.
// CHECK-LABEL: func.func @bit_packed_table(
// CHECK-NOT: linea.
// CHECK: return
func.func @bit_packed_table(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %tbl = arith.constant dense<[[3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2], [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]]> : tensor<16x16xi8>
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask computes '{{.*}}', which the raise cannot evaluate
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i, t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %tbl : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16x16xi8>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %w8: i8, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %zero = arith.constant 0 : i8
    %one = arith.constant 1 : i8
    %bit = arith.andi %w8, %one : i8
    %m = arith.cmpi ne, %bit, %zero : i8
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Causal by float positions, float(t) <= float(i) (torch.arange(L,
// dtype=float32) compared): raised, the positions being exact integers.
// CHECK-LABEL: func.func @float_positions(
// CHECK: linea.linear_attention %arg0, %arg1, %arg2 mask = causal
// CHECK: return
func.func @float_positions(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.linear_attention mask = causal (mask t <= i)
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f32
    %if = arith.sitofp %i64 : i64 to f32
    %m = arith.cmpf ole, %tf, %if : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Causal by f16 positions over 4096 tokens: f16 holds every integer only up
// to 2048, so past that the positions (and the mask) are not the indices'.
// CHECK-LABEL: func.func @f16_positions_long(
// CHECK-NOT: linea.
// CHECK: return
func.func @f16_positions_long(%q: tensor<1x4096x8xf32>, %k: tensor<1x4096x8xf32>, %v: tensor<1x4096x4xf32>) -> tensor<1x4096x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<1x4096x4096xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<1x4096x4096xf32>) -> tensor<1x4096x4096xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<1x4096x8xf32>, tensor<1x4096x8xf32>) outs(%z_s : tensor<1x4096x4096xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x4096x4096xf32>
  %e_z_o = tensor.empty() : tensor<1x4096x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<1x4096x4xf32>) -> tensor<1x4096x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: mask is t <= i: its float positions hold exact integers only up to length {{[0-9]+}}, not 4096
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<1x4096x4096xf32>, tensor<1x4096x4xf32>) outs(%z_o : tensor<1x4096x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f16
    %if = arith.sitofp %i64 : i64 to f16
    %m = arith.cmpf ole, %tf, %if : f16
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x4096x4xf32>
  return %o : tensor<1x4096x4xf32>
}

// -----

// Packed documents, but `same segment or causal` (or where and belongs): the
// mask keeps (i, t) across segments.
// CHECK-LABEL: func.func @same_segment_or_causal(
// CHECK-NOT: linea.
// CHECK: return
func.func @same_segment_or_causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %ids: tensor<16xi64>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask keeps (i, t) = ({{[0-9]+}}, {{[0-9]+}}) where the segment ids differ: not a mask of segments
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i)>, affine_map<(b, i, e, t) -> (t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %ids, %ids : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16xi64>, tensor<16xi64>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %idi: i64, %idt: i64, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %same = arith.cmpi eq, %idi, %idt : i64
    %c = arith.cmpi sle, %t, %i : index
    %m = arith.ori %same, %c : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Packed documents, strictly causal within each: not a Linea mask within the
// segments.
// CHECK-LABEL: func.func @segments_strict(
// CHECK-NOT: linea.
// CHECK: return
func.func @segments_strict(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %ids: tensor<16xi64>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: within segments the mask is t < i: the diagonal is excluded; linea causal includes t = i
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i)>, affine_map<(b, i, e, t) -> (t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %ids, %ids : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16xi64>, tensor<16xi64>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %idi: i64, %idt: i64, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %same = arith.cmpi eq, %idi, %idt : i64
    %c = arith.cmpi slt, %t, %i : index
    %m = arith.andi %same, %c : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Packed documents with a prefix of 5 keys: a prefix of the packed row, not of
// each document.
// CHECK-LABEL: func.func @segments_prefix(
// CHECK-NOT: linea.
// CHECK: return
func.func @segments_prefix(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %ids: tensor<16xi64>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: within segments the mask is t <= i or t < 5: a prefix of the packed row, not of each segment
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (i)>, affine_map<(b, i, e, t) -> (t)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %ids, %ids : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<16xi64>, tensor<16xi64>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %idi: i64, %idt: i64, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %same = arith.cmpi eq, %idi, %idt : i64
    %c5 = arith.constant 5 : index
    %c = arith.cmpi sle, %t, %i : index
    %p5 = arith.cmpi slt, %t, %c5 : index
    %pre = arith.ori %c, %p5 : i1
    %m = arith.andi %same, %pre : i1
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Float positions tested with `ord` (neither is NaN): no comparison of the
// integers they hold.
// CHECK-LABEL: func.func @float_positions_ordered(
// CHECK-NOT: linea.
// CHECK: return
func.func @float_positions_ordered(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares float positions with predicate 'ord'
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f32
    %if = arith.sitofp %i64 : i64 to f32
    %m = arith.cmpf ord, %tf, %if : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Float positions shifted by the batch index, float(t) <= float(i) + float(b).
// CHECK-LABEL: func.func @float_positions_with_the_batch(
// CHECK-NOT: linea.
// CHECK: return
func.func @float_positions_with_the_batch(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the mask compares float positions that are not exact integers of the row and column
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f32
    %if = arith.sitofp %i64 : i64 to f32
    %bi = linalg.index 0 : index
    %b64 = arith.index_cast %bi : index to i64
    %bf = arith.sitofp %b64 : i64 to f32
    %ib = arith.addf %if, %bf : f32
    %m = arith.cmpf ole, %tf, %ib : f32
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}
