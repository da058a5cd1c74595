// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of softmax attention, softmax(s Q K^T + mask) V as front ends
// print it (max-subtract, exp, sum, divide, then W V): each just off what
// linea.attention takes, left as written with the reason as its remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom: softmax(0.5 Q K^T, causal) V, one linea.attention.
// CHECK-LABEL: func.func @causal(
// CHECK: linea.attention %arg0, %arg1, %arg2 mask = causal scale = 5.000000e-01
// CHECK: return
func.func @causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.attention mask = causal scale = 0.5 (mask t <= i)
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// No scale on the logits: raised, with scale = 1 (not a near miss).
// CHECK-LABEL: func.func @unscaled(
// CHECK: linea.attention %arg0, %arg1, %arg2 mask = causal scale = 1.000000e+00
// CHECK: return
func.func @unscaled(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %y = arith.select %m, %a, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.attention mask = causal scale = 1 (mask t <= i)
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The output doubled after the softmax, 2 * (W V), in the value contraction.
// CHECK-LABEL: func.func @scaled_after(
// CHECK-NOT: linea.
// CHECK: return
func.func @scaled_after(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the output is scaled after the softmax
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %two = arith.constant 2.0 : f32
    %pv = arith.mulf %a, %x : f32
    %p2 = arith.mulf %pv, %two : f32
    %r = arith.addf %acc, %p2 : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// O = X + W V, the residual added by accumulating onto X.
// CHECK-LABEL: func.func @residual(
// CHECK-NOT: linea.
// CHECK: return
func.func @residual(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %res: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the output accumulates onto a tensor that is not zero
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%res : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The max subtracted is taken over the queries (another axis), not over the
// keys of each row.
// CHECK-LABEL: func.func @max_over_the_queries(
// CHECK-NOT: linea.
// CHECK: return
func.func @max_over_the_queries(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, t)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the max subtracted is not the row max of the logits over the keys
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// exp(S) / rowsum(exp(S)) without the max subtracted first.
// CHECK-LABEL: func.func @no_max_subtracted(
// CHECK-NOT: linea.
// CHECK: return
func.func @no_max_subtracted(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = math.exp %a : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the probabilities are not exp(S - max)
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Logits soft-capped as Gemma 2 does, 30 tanh(S / 30): not a scaled, masked
// contraction.
// CHECK-LABEL: func.func @softcapped(
// CHECK-NOT: linea.
// CHECK: return
func.func @softcapped(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %cap = arith.constant 30.0 : f32
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sd = arith.divf %a, %cap : f32
    %th = math.tanh %sd : f32
    %sc = arith.mulf %th, %cap : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the logits are not a scaled, masked contraction
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Scores that come in as an argument: the logits are no contraction of queries
// and keys.
// CHECK-LABEL: func.func @scores_from_an_argument(
// CHECK-NOT: linea.
// CHECK: return
func.func @scores_from_an_argument(%s: tensor<2x16x16xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the logits are not a contraction of queries and keys
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Cross attention, 16 queries over 12 keys.
// CHECK-LABEL: func.func @cross_attention(
// CHECK-NOT: linea.
// CHECK: return
func.func @cross_attention(%q: tensor<2x16x8xf32>, %k: tensor<2x12x8xf32>, %v: tensor<2x12x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x12xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x12xf32>) -> tensor<2x16x12xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x12x8xf32>) outs(%z_s : tensor<2x16x12xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x12xf32>
  %e_l = tensor.empty() : tensor<2x16x12xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x12xf32>) outs(%e_l : tensor<2x16x12xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x12xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x12xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x12xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x12xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x12xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x12xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x12xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x12xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x12xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: queries (16) and keys (12) differ in length
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x12xf32>, tensor<2x12x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// A prefix mask, t <= i or t < 5: linea.attention takes none or causal.
// CHECK-LABEL: func.func @prefix(
// CHECK-NOT: linea.
// CHECK: return
func.func @prefix(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c5 = arith.constant 5 : index
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %le = arith.cmpi sle, %t, %i : index
    %lt = arith.cmpi slt, %t, %c5 : index
    %m = arith.ori %le, %lt : i1
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: mask is t <= i or t < 5: linea.attention takes none or causal
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// An anti-causal mask, t >= i.
// CHECK-LABEL: func.func @anti_causal(
// CHECK-NOT: linea.
// CHECK: return
func.func @anti_causal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sge, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: mask is t >= i: linea.attention takes none or causal: at i = {{[0-9]+}}, t = {{[0-9]+}} it is
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Packed documents (same segment id) with a prefix of 5 keys: a prefix of the
// packed row, which linea.attention does not take.
// CHECK-LABEL: func.func @packed_prefix(
// CHECK-NOT: linea.
// CHECK: return
func.func @packed_prefix(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %ids: tensor<16xi64>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (i)>, affine_map<(b, i, t) -> (t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %ids, %ids : tensor<2x16x16xf32>, tensor<16xi64>, tensor<16xi64>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %idi: i64, %idt: i64, %out: f32):
    %c5 = arith.constant 5 : index
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %same = arith.cmpi eq, %idi, %idt : i64
    %le = arith.cmpi sle, %t, %i : index
    %lt = arith.cmpi slt, %t, %c5 : index
    %pre = arith.ori %le, %lt : i1
    %m = arith.andi %same, %pre : i1
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: within segments the mask is t <= i or t < 5: linea.attention takes none or causal
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Queries and keys with a dynamic feature dim.
// CHECK-LABEL: func.func @dynamic_features(
// CHECK-NOT: linea.
// CHECK: return
func.func @dynamic_features(%q: tensor<2x16x?xf32>, %k: tensor<2x16x?xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x?xf32>, tensor<2x16x?xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: a feature or value dim is dynamic; linea.attention takes them static
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Dropout on the probabilities with a given keep mask, select(drop, 0, P / Z):
// a select, but not sdpa's guard (which tests each row as a whole).
// CHECK-LABEL: func.func @dropout(
// CHECK-NOT: linea.
// CHECK: return
func.func @dropout(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %drop: tensor<2x16x16xi1>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z, %drop : tensor<2x16x16xf32>, tensor<2x16xf32>, tensor<2x16x16xi1>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %dr: i1, %out: f32):
    %q0 = arith.divf %a, %b : f32
    %x = arith.select %dr, %c0, %q0 : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the normalized probabilities are selected by something other than sdpa's guard
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// sdpa's guard replaced by a given per-row mask (padded queries):
// select(pad, 0, P / Z) with pad not 'the whole row is -inf'.
// CHECK-LABEL: func.func @query_padding_guard(
// CHECK-NOT: linea.
// CHECK: return
func.func @query_padding_guard(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %pad: tensor<2x16xi1>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z, %pad : tensor<2x16x16xf32>, tensor<2x16xf32>, tensor<2x16xi1>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %pd: i1, %out: f32):
    %q0 = arith.divf %a, %b : f32
    %x = arith.select %pd, %c0, %q0 : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the guard is not 'the whole row is -inf'
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// exp(S - max) divided by its sums over the queries (another axis), not over
// the keys of each row.
// CHECK-LABEL: func.func @sum_over_the_queries(
// CHECK-NOT: linea.
// CHECK: return
func.func @sum_over_the_queries(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf32>) outs(%m0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x16xf32>) -> tensor<2x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, t)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<2x16x16xf32>) outs(%z0 : tensor<2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf32>, tensor<2x16xf32>) outs(%e_l : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: softmax normalizes by a sum that is not the row sum over the keys (a softmax along another axis)
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// Scores laid out [L, B, L] (S[i, b, t]) under a softmax whose rows are the
// middle dim: the softmax's rows are the scores' batch.
// CHECK-LABEL: func.func @rows_across_the_batch(
// CHECK-NOT: linea.
// CHECK: return
func.func @rows_across_the_batch(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<16x16x4xf32>) -> tensor<16x2x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<16x2x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<16x2x16xf32>) -> tensor<16x2x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (i, b, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<16x2x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<16x2x16xf32>
  %e_l = tensor.empty() : tensor<16x2x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<16x2x16xf32>) outs(%e_l : tensor<16x2x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<16x2x16xf32>
  %e_m0 = tensor.empty() : tensor<16x2xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<16x2xf32>) -> tensor<16x2xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<16x2x16xf32>) outs(%m0 : tensor<16x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<16x2xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<16x2x16xf32>, tensor<16x2xf32>) outs(%e_l : tensor<16x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<16x2x16xf32>
  %e_z0 = tensor.empty() : tensor<16x2xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<16x2xf32>) -> tensor<16x2xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<16x2x16xf32>) outs(%z0 : tensor<16x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<16x2xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<16x2x16xf32>, tensor<16x2xf32>) outs(%e_l : tensor<16x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<16x2x16xf32>
  %e_z_o = tensor.empty() : tensor<16x2x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<16x2x4xf32>) -> tensor<16x2x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the scores' rows and columns are not the rows and keys of the op that reads them
  %o = linalg.batch_matmul ins(%w, %v : tensor<16x2x16xf32>, tensor<16x16x4xf32>) outs(%z_o : tensor<16x2x4xf32>) -> tensor<16x2x4xf32>
  return %o : tensor<16x2x4xf32>
}

// -----

// One set of scores broadcast to three heads before the softmax, which then runs
// per head: the output's head dim is no batch dim of the scores.
// CHECK-LABEL: func.func @logits_per_head(
// CHECK-NOT: linea.
// CHECK: return
func.func @logits_per_head(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x3x16x4xf32>) -> tensor<2x3x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.5 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_l = tensor.empty() : tensor<2x3x16x16xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, i, t)>, affine_map<(b, h, i, t) -> (b, h, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf32>) outs(%e_l : tensor<2x3x16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 2 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f32
    %y = arith.select %m, %sc, %ninf : f32
    linalg.yield %y : f32
  } -> tensor<2x3x16x16xf32>
  %e_m0 = tensor.empty() : tensor<2x3x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_m0 : tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, h, i, t)>, affine_map<(b, h, i, t) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x3x16x16xf32>) outs(%m0 : tensor<2x3x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.maximumf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, h, i, t)>, affine_map<(b, h, i, t) -> (b, h, i)>, affine_map<(b, h, i, t) -> (b, h, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x3x16x16xf32>, tensor<2x3x16xf32>) outs(%e_l : tensor<2x3x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x3x16x16xf32>
  %e_z0 = tensor.empty() : tensor<2x3x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e_z0 : tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, h, i, t)>, affine_map<(b, h, i, t) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x3x16x16xf32>) outs(%z0 : tensor<2x3x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %out : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, h, i, t)>, affine_map<(b, h, i, t) -> (b, h, i)>, affine_map<(b, h, i, t) -> (b, h, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x3x16x16xf32>, tensor<2x3x16xf32>) outs(%e_l : tensor<2x3x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %x = arith.divf %a, %b : f32
    linalg.yield %x : f32
  } -> tensor<2x3x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x3x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x3x16x4xf32>) -> tensor<2x3x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: batch loop d1 of the output is not a batch dim of the scores
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, t) -> (b, h, i, t)>, affine_map<(b, h, i, e, t) -> (b, h, t, e)>, affine_map<(b, h, i, e, t) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %v : tensor<2x3x16x16xf32>, tensor<2x3x16x4xf32>) outs(%z_o : tensor<2x3x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %pv = arith.mulf %a, %x : f32
    %r = arith.addf %acc, %pv : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x4xf32>
  return %o : tensor<2x3x16x4xf32>
}

// -----

// f64: not an element type of linea.attention.
// CHECK-LABEL: func.func @causal_f64(
// CHECK-NOT: linea.
// CHECK: return
func.func @causal_f64(%q: tensor<2x16x8xf64>, %k: tensor<2x16x8xf64>, %v: tensor<2x16x4xf64>) -> tensor<2x16x4xf64> {
  %c0 = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %scale = arith.constant 0.5 : f64
  %e_s = tensor.empty() : tensor<2x16x16xf64>
  %z_s = linalg.fill ins(%c0 : f64) outs(%e_s : tensor<2x16x16xf64>) -> tensor<2x16x16xf64>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf64>, tensor<2x16x8xf64>) outs(%z_s : tensor<2x16x16xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %r = arith.addf %acc, %p : f64
    linalg.yield %r : f64
  } -> tensor<2x16x16xf64>
  %e_l = tensor.empty() : tensor<2x16x16xf64>
  %l = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x16x16xf64>) outs(%e_l : tensor<2x16x16xf64>) {
  ^bb0(%a: f64, %out: f64):
    %i = linalg.index 1 : index
    %t = linalg.index 2 : index
    %m = arith.cmpi sle, %t, %i : index
    %sc = arith.mulf %a, %scale : f64
    %y = arith.select %m, %sc, %ninf : f64
    linalg.yield %y : f64
  } -> tensor<2x16x16xf64>
  %e_m0 = tensor.empty() : tensor<2x16xf64>
  %m0 = linalg.fill ins(%ninf : f64) outs(%e_m0 : tensor<2x16xf64>) -> tensor<2x16xf64>
  %mx = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%l : tensor<2x16x16xf64>) outs(%m0 : tensor<2x16xf64>) {
  ^bb0(%a: f64, %out: f64):
    %r = arith.maximumf %a, %out : f64
    linalg.yield %r : f64
  } -> tensor<2x16xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%l, %mx : tensor<2x16x16xf64>, tensor<2x16xf64>) outs(%e_l : tensor<2x16x16xf64>) {
  ^bb0(%a: f64, %b: f64, %out: f64):
    %d = arith.subf %a, %b : f64
    %x = math.exp %d : f64
    linalg.yield %x : f64
  } -> tensor<2x16x16xf64>
  %e_z0 = tensor.empty() : tensor<2x16xf64>
  %z0 = linalg.fill ins(%c0 : f64) outs(%e_z0 : tensor<2x16xf64>) -> tensor<2x16xf64>
  %z = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<2x16x16xf64>) outs(%z0 : tensor<2x16xf64>) {
  ^bb0(%a: f64, %out: f64):
    %r = arith.addf %a, %out : f64
    linalg.yield %r : f64
  } -> tensor<2x16xf64>
  %w = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i)>, affine_map<(b, i, t) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<2x16x16xf64>, tensor<2x16xf64>) outs(%e_l : tensor<2x16x16xf64>) {
  ^bb0(%a: f64, %b: f64, %out: f64):
    %x = arith.divf %a, %b : f64
    linalg.yield %x : f64
  } -> tensor<2x16x16xf64>
  %e_z_o = tensor.empty() : tensor<2x16x4xf64>
  %z_o = linalg.fill ins(%c0 : f64) outs(%e_z_o : tensor<2x16x4xf64>) -> tensor<2x16x4xf64>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the queries, keys and values are not of one element type f32, f16 or bf16 (with the output that or f32)
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x16x16xf64>, tensor<2x16x4xf64>) outs(%z_o : tensor<2x16x4xf64>) -> tensor<2x16x4xf64>
  return %o : tensor<2x16x4xf64>
}
