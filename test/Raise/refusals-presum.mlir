// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of prefix sums: torch.cumsum's tm_tensor.scan, cumsum(x) - x,
// flip(cumsum(flip(x))) and tril(ones) @ x, each just off what linea.presum
// takes, left as written with the reason as its remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom: torch.cumsum as torch-mlir prints it.
// CHECK-LABEL: func.func @cumsum(
// CHECK: linea.presum %arg0 dim = 1 :
// CHECK: return
func.func @cumsum(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_s = tensor.empty() : tensor<2x16x8xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_z_s : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %e_z_a = tensor.empty() : tensor<2x8xf32>
  %z_a = linalg.fill ins(%c0 : f32) outs(%e_z_a : tensor<2x8xf32>) -> tensor<2x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.presum dim = 1
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x16x8xf32>) outs(%z_s, %z_a : tensor<2x16x8xf32>, tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x16x8xf32>, tensor<2x8xf32>
  return %s#0 : tensor<2x16x8xf32>
}

// -----

// A cumsum of f64: not an element type of linea.presum.
// CHECK-LABEL: func.func @cumsum_f64(
// CHECK-NOT: linea.
// CHECK: return
func.func @cumsum_f64(%x: tensor<2x16x8xf64>) -> tensor<2x16x8xf64> {
  %c0 = arith.constant 0.0 : f64
  %e_z_s = tensor.empty() : tensor<2x16x8xf64>
  %z_s = linalg.fill ins(%c0 : f64) outs(%e_z_s : tensor<2x16x8xf64>) -> tensor<2x16x8xf64>
  %e_z_a = tensor.empty() : tensor<2x8xf64>
  %z_a = linalg.fill ins(%c0 : f64) outs(%e_z_a : tensor<2x8xf64>) -> tensor<2x8xf64>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the scan adds values other than f32, f16 or bf16
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x16x8xf64>) outs(%z_s, %z_a : tensor<2x16x8xf64>, tensor<2x8xf64>) {
  ^bb0(%a: f64, %b: f64):
    %r = arith.addf %a, %b : f64
    tm_tensor.yield %r : f64
  } -> tensor<2x16x8xf64>, tensor<2x8xf64>
  return %s#0 : tensor<2x16x8xf64>
}

// -----

// An exclusive scan that starts from 1, not from 0.
// CHECK-LABEL: func.func @exclusive_from_one(
// CHECK-NOT: linea.
// CHECK: return
func.func @exclusive_from_one(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %e_z_s = tensor.empty() : tensor<2x16x8xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_z_s : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %e_z_a = tensor.empty() : tensor<2x8xf32>
  %z_a = linalg.fill ins(%c1 : f32) outs(%e_z_a : tensor<2x8xf32>) -> tensor<2x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the exclusive scan starts from an accumulator that is not zero
  %s:2 = tm_tensor.scan dimension(1) inclusive(false) ins(%x : tensor<2x16x8xf32>) outs(%z_s, %z_a : tensor<2x16x8xf32>, tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x16x8xf32>, tensor<2x8xf32>
  return %s#0 : tensor<2x16x8xf32>
}

// -----

// The scan's running total (its second result) is returned as well.
// CHECK-LABEL: func.func @accumulator_used(
// CHECK-NOT: linea.
// CHECK: return
func.func @accumulator_used(%x: tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e_z_s = tensor.empty() : tensor<2x16x8xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_z_s : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %e_z_a = tensor.empty() : tensor<2x8xf32>
  %z_a = linalg.fill ins(%c0 : f32) outs(%e_z_a : tensor<2x8xf32>) -> tensor<2x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the scan's accumulator result is used
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x16x8xf32>) outs(%z_s, %z_a : tensor<2x16x8xf32>, tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tm_tensor.yield %r : f32
  } -> tensor<2x16x8xf32>, tensor<2x8xf32>
  return %s#0, %s#1 : tensor<2x16x8xf32>, tensor<2x8xf32>
}

// -----

// The idiom: tril(ones) @ x, a triangle of ones times x.
// CHECK-LABEL: func.func @tril_sum(
// CHECK: linea.presum %arg0 dim = 1 :
// CHECK: return
func.func @tril_sum(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_o = tensor.empty() : tensor<2x16x8xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.presum dim = 1 (mask t <= i)
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z_o : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %y = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// The prefix sums divided by the length (tril(ones) @ x / 16).
// CHECK-LABEL: func.func @tril_sum_scaled(
// CHECK-NOT: linea.
// CHECK: return
func.func @tril_sum_scaled(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_o = tensor.empty() : tensor<2x16x8xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the triangular sum is scaled
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%z_o : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %y = arith.select %m, %a, %c0 : f32
    %k = arith.constant 0.0625 : f32
    %ys = arith.mulf %y, %k : f32
    %r = arith.addf %acc, %ys : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// x0 + tril(ones) @ x, accumulated onto x0.
// CHECK-LABEL: func.func @tril_sum_residual(
// CHECK-NOT: linea.
// CHECK: return
func.func @tril_sum_residual(%x: tensor<2x16x8xf32>, %x0: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_o = tensor.empty() : tensor<2x16x8xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the sum accumulates onto a tensor that is not zero
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf32>) outs(%x0 : tensor<2x16x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %y = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// tril(ones) @ x in half precision: the triangular-sum raise takes f32.
// CHECK-LABEL: func.func @tril_sum_f16(
// CHECK-NOT: linea.
// CHECK: return
func.func @tril_sum_f16(%x: tensor<2x16x8xf16>) -> tensor<2x16x8xf16> {
  %c0 = arith.constant 0.0 : f16
  %e_z_o = tensor.empty() : tensor<2x16x8xf16>
  %z_o = linalg.fill ins(%c0 : f16) outs(%e_z_o : tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the raise takes f32 models
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x16x8xf16>) outs(%z_o : tensor<2x16x8xf16>) {
  ^bb0(%a: f16, %acc: f16):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %y = arith.select %m, %a, %c0 : f16
    %r = arith.addf %acc, %y : f16
    linalg.yield %r : f16
  } -> tensor<2x16x8xf16>
  return %o : tensor<2x16x8xf16>
}

// -----

// The triangle built from f16 positions, float(t) <= float(i), over 4096 rows:
// f16 holds the positions exactly only up to 2048.
// CHECK-LABEL: func.func @tril_sum_f16_positions(
// CHECK-NOT: linea.
// CHECK: return
func.func @tril_sum_f16_positions(%x: tensor<1x4096x8xf32>) -> tensor<1x4096x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_z_o = tensor.empty() : tensor<1x4096x8xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<1x4096x8xf32>) -> tensor<1x4096x8xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: mask is t <= i: its float positions hold exact integers only up to length {{[0-9]+}}, not 4096
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d, t) -> (b, t, d)>, affine_map<(b, i, d, t) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<1x4096x8xf32>) outs(%z_o : tensor<1x4096x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %t64 = arith.index_cast %t : index to i64
    %i64 = arith.index_cast %i : index to i64
    %tf = arith.sitofp %t64 : i64 to f16
    %if = arith.sitofp %i64 : i64 to f16
    %m = arith.cmpf ole, %tf, %if : f16
    %y = arith.select %m, %a, %c0 : f32
    %r = arith.addf %acc, %y : f32
    linalg.yield %r : f32
  } -> tensor<1x4096x8xf32>
  return %o : tensor<1x4096x8xf32>
}

// -----

// cumsum(x) - x in half precision: the exclusive-presum raise takes f32 (the
// cumsum alone still raises, inclusive).
// CHECK-LABEL: func.func @cumsum_minus_x_f16(
// CHECK: linea.presum %arg0 dim = 1 :
// CHECK-NOT: exclusive
// CHECK: arith.subf
// CHECK: return
func.func @cumsum_minus_x_f16(%x: tensor<2x16x8xf16>) -> tensor<2x16x8xf16> {
  %c0 = arith.constant 0.0 : f16
  %e_z_s = tensor.empty() : tensor<2x16x8xf16>
  %z_s = linalg.fill ins(%c0 : f16) outs(%e_z_s : tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  %e_z_a = tensor.empty() : tensor<2x8xf16>
  %z_a = linalg.fill ins(%c0 : f16) outs(%e_z_a : tensor<2x8xf16>) -> tensor<2x8xf16>
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<2x16x8xf16>) outs(%z_s, %z_a : tensor<2x16x8xf16>, tensor<2x8xf16>) {
  ^bb0(%a: f16, %b: f16):
    %r = arith.addf %a, %b : f16
    tm_tensor.yield %r : f16
  } -> tensor<2x16x8xf16>, tensor<2x8xf16>
  %e_o = tensor.empty() : tensor<2x16x8xf16>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the raise takes f32 models
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, d) -> (b, i, d)>, affine_map<(b, i, d) -> (b, i, d)>, affine_map<(b, i, d) -> (b, i, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s#0, %x : tensor<2x16x8xf16>, tensor<2x16x8xf16>) outs(%e_o : tensor<2x16x8xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %r = arith.subf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<2x16x8xf16>
  return %o : tensor<2x16x8xf16>
}

// -----

// flip(cumsum(flip(x))) in half precision: the reverse-presum raise takes f32
// (the cumsum between the flips still raises, forward).
// CHECK-LABEL: func.func @flip_cumsum_flip_f16(
// CHECK: linea.presum %{{.+}} dim = 1 :
// CHECK-NOT: reverse
// CHECK: return
func.func @flip_cumsum_flip_f16(%x0: tensor<2x8x4xf16>) -> tensor<2x8x4xf16> {
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x8x4xf16>
  %ea = tensor.empty() : tensor<2x4xf16>
  %a = linalg.fill ins(%zero : f16) outs(%ea : tensor<2x4xf16>) -> tensor<2x4xf16>
  %f = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf16>) {
  ^bb0(%out: f16):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c7, %l : index
    %x = tensor.extract %x0[%b, %r, %d] : tensor<2x8x4xf16>
    linalg.yield %x : f16
  } -> tensor<2x8x4xf16>
  %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%f : tensor<2x8x4xf16>) outs(%e, %a : tensor<2x8x4xf16>, tensor<2x4xf16>) {
  ^bb0(%u: f16, %w: f16):
    %sum = arith.addf %u, %w : f16
    tm_tensor.yield %sum : f16
  } -> tensor<2x8x4xf16>, tensor<2x4xf16>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the raise takes f32 models
  %o = linalg.generic {indexing_maps = [affine_map<(b, l, d) -> (b, l, d)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x8x4xf16>) {
  ^bb0(%out: f16):
    %b = linalg.index 0 : index
    %l = linalg.index 1 : index
    %d = linalg.index 2 : index
    %r = arith.subi %c7, %l : index
    %x = tensor.extract %s#0[%b, %r, %d] : tensor<2x8x4xf16>
    linalg.yield %x : f16
  } -> tensor<2x8x4xf16>
  return %o : tensor<2x8x4xf16>
}
