// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of decayed linear attention (RetNet's retention), (S .* M .* D) V
// with a decay D[i, t] = base^(i - t) or exp(c (i - t)): each left as written,
// with the reason as its remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom: RetNet's retention, (S .* M .* D) V with D[i, t] = 0.9^(i - t)
// under the causal mask.
// CHECK-LABEL: func.func @retention(
// CHECK: linea.gated_linear_attention
// CHECK: return
func.func @retention(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.gated_linear_attention mask = causal, a per-token gate log(0.9
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %d = arith.subi %i, %t : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %base = arith.constant 0.9 : f32
    %g = math.powf %base, %df : f32
    %p0 = arith.mulf %a, %x : f32
    %p = arith.mulf %p0, %g : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// The same decay with no mask: 0.9^(i - t) grows without bound over the keys
// after the query, and Linea's gated op is causal.
// CHECK-LABEL: func.func @decay_without_the_mask(
// CHECK-NOT: linea.
// CHECK: return
func.func @decay_without_the_mask(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+2]]:{{[0-9]+}}: remark: linea-raise: not raised: a decay needs the causal mask (t <= i); the mask is true
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: the linear attention pattern refused it: a factor of the product, pow({{.*}}), is neither a mask nor a constant
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %d = arith.subi %i, %t : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %base = arith.constant 0.9 : f32
    %g = math.powf %base, %df : f32
    %p0 = arith.mulf %a, %x : f32
    %p = arith.mulf %p0, %g : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// One decay base per batch entry, given as an argument: not known to be
// positive, so its log is no gate.
// CHECK-LABEL: func.func @bases_from_an_argument(
// CHECK-NOT: linea.
// CHECK: return
func.func @bases_from_an_argument(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %bases: tensor<2xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+2]]:{{[0-9]+}}: remark: linea-raise: not raised: the decay's base {{.*}} is not proved positive for every head
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: the linear attention pattern refused it: a factor of the product, pow({{.*}}), is neither a mask nor a constant
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %bases : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %gb: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %d = arith.subi %i, %t : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %g = math.powf %gb, %df : f32
    %p0 = arith.mulf %a, %x : f32
    %p = arith.mulf %p0, %g : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// exp(c[e] (i - t)): a log-decay that varies along the value columns, which a
// per-token gate cannot hold.
// CHECK-LABEL: func.func @decay_per_value_column(
// CHECK-NOT: linea.
// CHECK: return
func.func @decay_per_value_column(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %c: tensor<4xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+2]]:{{[0-9]+}}: remark: linea-raise: not raised: the decay cannot be rebuilt per head
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: the linear attention pattern refused it: a factor of the product, exp({{.*}}), is neither a mask nor a constant
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %c : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %ce: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %d = arith.subi %i, %t : index
    %d64 = arith.index_cast %d : index to i64
    %df = arith.sitofp %d64 : i64 to f32
    %cd = arith.mulf %ce, %df : f32
    %g = math.exp %cd : f32
    %p0 = arith.mulf %a, %x : f32
    %p = arith.mulf %p0, %g : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// 0.9^(i - t) with i - t converted to f16, over 4096 tokens: f16 holds the
// differences exactly only over a shorter length.
// CHECK-LABEL: func.func @decay_f16_long(
// CHECK-NOT: linea.
// CHECK: return
func.func @decay_f16_long(%q: tensor<1x4096x8xf32>, %k: tensor<1x4096x8xf32>, %v: tensor<1x4096x4xf32>) -> tensor<1x4096x4xf32> {
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
  // REMARK: :[[@LINE+2]]:{{[0-9]+}}: remark: linea-raise: not raised: the decay reads float positions: its float positions hold exact integers only up to length {{[0-9]+}}, not 4096
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: the linear attention pattern refused it: a factor of the product, pow({{.*}}), is neither a mask nor a constant
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<1x4096x4096xf32>, tensor<1x4096x4xf32>) outs(%z_o : tensor<1x4096x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %d = arith.subi %i, %t : index
    %d64 = arith.index_cast %d : index to i64
        %b16 = arith.constant 0.9 : f16
    %dh = arith.sitofp %d64 : i64 to f16
    %gh = math.powf %b16, %dh : f16
    %g = arith.extf %gh : f16 to f32
    %p0 = arith.mulf %a, %x : f32
    %p = arith.mulf %p0, %g : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x4096x4xf32>
  return %o : tensor<1x4096x4xf32>
}
