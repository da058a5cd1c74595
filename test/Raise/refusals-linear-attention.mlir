// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of masked linear attention, O = (S .* M) V with the scores
// S = Q K^T (and of its row sum, rowsum(S .* M)): each just off what
// linea.linear_attention takes, left as written with the reason as its remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// Cross attention, 16 queries over 12 keys: Linea's ops take as many keys as
// queries.
// CHECK-LABEL: func.func @cross_attention(
// CHECK-NOT: linea.
// CHECK: return
func.func @cross_attention(%q: tensor<2x16x8xf32>, %k: tensor<2x12x8xf32>, %v: tensor<2x12x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x12xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x12xf32>) -> tensor<2x16x12xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x12x8xf32>) outs(%z_s : tensor<2x16x12xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x12xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: queries (16) and keys (12) differ in length
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x12xf32>, tensor<2x12x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
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

// The value contraction takes the scores' batch dim for its rows and their
// query dim for its batch: O[i, b, e] = sum_t S[b, i, t] V[i, t, e].
// CHECK-LABEL: func.func @rows_across_the_batch(
// CHECK-NOT: linea.
// CHECK: return
func.func @rows_across_the_batch(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<16x16x4xf32>) -> tensor<16x2x4xf32> {
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
  %e_z_o = tensor.empty() : tensor<16x2x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<16x2x4xf32>) -> tensor<16x2x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the scores' rows and columns are not the rows and keys of the op that reads them
  %o = linalg.generic {indexing_maps = [affine_map<(r0, r1, e, t) -> (r1, r0, t)>, affine_map<(r0, r1, e, t) -> (r0, t, e)>, affine_map<(r0, r1, e, t) -> (r0, r1, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<16x16x4xf32>) outs(%z_o : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %p = arith.mulf %a, %x : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<16x2x4xf32>
  return %o : tensor<16x2x4xf32>
}

// -----

// The values read one token later, V[b, t + 1, e]: not at a loop.
// CHECK-LABEL: func.func @values_shifted(
// CHECK-NOT: linea.
// CHECK: return
func.func @values_shifted(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x17x4xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the values are read at indices that are not loops
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t + 1, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x17x4xf32>) outs(%z_o : tensor<2x16x4xf32>) {
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

// Scores shared by three heads of values, O[b, h, i, e] = sum_t S[b, i, t]
// V[b, h, t, e]: the head is a second value dim, so the product is not one
// contraction over the keys.
// CHECK-LABEL: func.func @values_per_head(
// CHECK-NOT: linea.
// CHECK: return
func.func @values_per_head(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x3x16x4xf32>) -> tensor<2x3x16x4xf32> {
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
  %e_z_o = tensor.empty() : tensor<2x3x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x3x16x4xf32>) -> tensor<2x3x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the product of the scores and the values is not one contraction over the keys
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, t) -> (b, i, t)>, affine_map<(b, h, i, e, t) -> (b, h, t, e)>, affine_map<(b, h, i, e, t) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x3x16x4xf32>) outs(%z_o : tensor<2x3x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 2 : index
    %t = linalg.index 4 : index
    %m = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x4xf32>
  return %o : tensor<2x3x16x4xf32>
}

// -----

// The row sums of the scores written for each of three heads, Z[b, h, i] =
// sum_t S[b, i, t]: the output has a batch dim the scores lack.
// CHECK-LABEL: func.func @row_sum_per_head(
// CHECK-NOT: linea.
// CHECK: return
func.func @row_sum_per_head(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>) -> tensor<2x3x16xf32> {
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
  %e_z_o = tensor.empty() : tensor<2x3x16xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x3x16xf32>) -> tensor<2x3x16xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: batch loop d1 of the output is not a batch dim of the scores
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (b, i, t)>, affine_map<(b, h, i, t) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x16x16xf32>) outs(%z_o : tensor<2x3x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  return %o : tensor<2x3x16xf32>
}

// -----

// The row sums written onto the diagonal of a matrix (diag_embed), Z[b, i, i]:
// the output is not read at loops.
// CHECK-LABEL: func.func @row_sum_on_the_diagonal(
// CHECK-NOT: linea.
// CHECK: return
func.func @row_sum_on_the_diagonal(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>) -> tensor<2x16x16xf32> {
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
  %e_z_o = tensor.empty() : tensor<2x16x16xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the scores or the output are read at indices that are not loops
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b, i, i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x16x16xf32>) outs(%z_o : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  return %o : tensor<2x16x16xf32>
}

// -----

// A row sum whose output lacks the row loop (marked parallel, so valid IR no
// front end prints): every row adds into one element.
// CHECK-LABEL: func.func @row_sum_drops_the_rows(
// CHECK-NOT: linea.
// CHECK: return
func.func @row_sum_drops_the_rows(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>) -> tensor<2xf32> {
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
  %e_z_o = tensor.empty() : tensor<2xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2xf32>) -> tensor<2xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the row sum drops loop d1
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, t) -> (b, i, t)>, affine_map<(b, i, t) -> (b)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<2x16x16xf32>) outs(%z_o : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  return %o : tensor<2xf32>
}

// -----

// O = X + (S .* M) V, the residual added by accumulating onto X: the output
// does not start from zero.
// CHECK-LABEL: func.func @residual(
// CHECK-NOT: linea.
// CHECK: return
func.func @residual(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %res: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the output accumulates onto a tensor that is not zero
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<2x16x16xf32>, tensor<2x16x4xf32>) outs(%res : tensor<2x16x4xf32>) {
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

// Queries and keys with a dynamic feature dim.
// CHECK-LABEL: func.func @dynamic_features(
// CHECK-NOT: linea.
// CHECK: return
func.func @dynamic_features(%q: tensor<2x16x?xf32>, %k: tensor<2x16x?xf32>, %v: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e_s = tensor.empty() : tensor<2x16x16xf32>
  %z_s = linalg.fill ins(%c0 : f32) outs(%e_s : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x?xf32>, tensor<2x16x?xf32>) outs(%z_s : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e_z_o = tensor.empty() : tensor<2x16x4xf32>
  %z_o = linalg.fill ins(%c0 : f32) outs(%e_z_o : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: a feature or value dim is dynamic; Linea's ops take them static
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
