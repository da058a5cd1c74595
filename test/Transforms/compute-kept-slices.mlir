// RUN: linea-opt %s -split-input-file --linea-compute-kept-slices | FileCheck %s

// The last half of a fold window's rows: the add runs on 64 rows.
// CHECK-LABEL: func.func @generic_rows
// CHECK-SAME: (%[[X:.*]]: tensor<128x256xf32>, %[[Y:.*]]: tensor<128x256xf32>)
// CHECK-DAG: %[[XS:.*]] = tensor.extract_slice %[[X]][64, 0] [64, 256] [1, 1]
// CHECK-DAG: %[[YS:.*]] = tensor.extract_slice %[[Y]][64, 0] [64, 256] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.add ins(%[[XS]], %[[YS]] : tensor<64x256xf32>, tensor<64x256xf32>)
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1], [2]] output_shape [1, 64, 256]
// CHECK: return %[[OUT]]
func.func @generic_rows(%x: tensor<128x256xf32>, %y: tensor<128x256xf32>) -> tensor<1x64x256xf32> {
  %e = tensor.empty() : tensor<128x256xf32>
  %s = linalg.add ins(%x, %y : tensor<128x256xf32>, tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %ex = tensor.expand_shape %s [[0, 1], [2]] output_shape [1, 128, 256] : tensor<128x256xf32> into tensor<1x128x256xf32>
  %r = tensor.extract_slice %ex[0, 64, 0] [1, 64, 256] [1, 1, 1] : tensor<1x128x256xf32> to tensor<1x64x256xf32>
  return %r : tensor<1x64x256xf32>
}

// -----

// A body that reads its row index sees the rows' places in the whole.
// CHECK: #[[PLUS3:.*]] = affine_map<()[s0] -> (s0 + 3)>
// CHECK-LABEL: func.func @indexed_rows
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<7x5xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = affine.apply #[[PLUS3]]()[%[[I]]]
// CHECK: arith.index_cast %[[ROW]]
func.func @indexed_rows(%x: tensor<16x5xf32>) -> tensor<7x5xf32> {
  %e = tensor.empty() : tensor<16x5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x5xf32>) outs(%e : tensor<16x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %m = arith.mulf %in, %fi : f32
    linalg.yield %m : f32
  } -> tensor<16x5xf32>
  %s = tensor.extract_slice %y[3, 0] [7, 5] [1, 1] : tensor<16x5xf32> to tensor<7x5xf32>
  return %s : tensor<7x5xf32>
}

// -----

// Rows of a matmul: its reduction stays whole.
// CHECK-LABEL: func.func @matmul_rows
// CHECK-SAME: (%[[A:.*]]: tensor<128x256xf32>, %[[W:.*]]: tensor<256x256xf32>)
// CHECK: %[[AS:.*]] = tensor.extract_slice %[[A]][64, 0] [64, 256] [1, 1]
// CHECK: linalg.matmul ins(%[[AS]], %[[W]] : tensor<64x256xf32>, tensor<256x256xf32>)
func.func @matmul_rows(%a: tensor<128x256xf32>, %w: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %m = linalg.matmul ins(%a, %w : tensor<128x256xf32>, tensor<256x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = tensor.extract_slice %m[64, 0] [64, 256] [1, 1] : tensor<128x256xf32> to tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// One projection read as its q, k and v column blocks: a matmul per block,
// and the queries' then narrow to the rows they keep.
// CHECK-LABEL: func.func @projection_blocks
// CHECK-SAME: (%[[X:.*]]: tensor<128x256xf32>, %[[W:.*]]: tensor<256x768xf32>)
// CHECK-DAG: %[[XQ:.*]] = tensor.extract_slice %[[X]][64, 0] [64, 256] [1, 1]
// CHECK-DAG: %[[WQ:.*]] = tensor.extract_slice %[[W]][0, 0] [256, 256] [1, 1]
// CHECK-DAG: %[[WK:.*]] = tensor.extract_slice %[[W]][0, 256] [256, 256] [1, 1]
// CHECK-DAG: %[[Q:.*]] = linalg.matmul ins(%[[XQ]], %[[WQ]] : tensor<64x256xf32>, tensor<256x256xf32>)
// CHECK-DAG: %[[K:.*]] = linalg.matmul ins(%[[X]], %[[WK]] : tensor<128x256xf32>, tensor<256x256xf32>)
// CHECK: return %[[Q]], %[[K]]
func.func @projection_blocks(%x: tensor<128x256xf32>, %w: tensor<256x768xf32>) -> (tensor<64x256xf32>, tensor<128x256xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x768xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x768xf32>) outs(%f : tensor<128x768xf32>) -> tensor<128x768xf32>
  %q = tensor.extract_slice %m[0, 0] [128, 256] [1, 1] : tensor<128x768xf32> to tensor<128x256xf32>
  %k = tensor.extract_slice %m[0, 256] [128, 256] [1, 1] : tensor<128x768xf32> to tensor<128x256xf32>
  %q1 = tensor.extract_slice %q[64, 0] [64, 256] [1, 1] : tensor<128x256xf32> to tensor<64x256xf32>
  return %q1, %k : tensor<64x256xf32>, tensor<128x256xf32>
}

// -----

// Near miss: overlapping blocks would compute their overlap twice.
// CHECK-LABEL: func.func @overlapping_blocks
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x256xf32>, tensor<256x768xf32>)
// CHECK-DAG: tensor.extract_slice %[[M]][0, 0] [128, 512] [1, 1]
// CHECK-DAG: tensor.extract_slice %[[M]][0, 256] [128, 512] [1, 1]
func.func @overlapping_blocks(%x: tensor<128x256xf32>, %w: tensor<256x768xf32>) -> (tensor<128x512xf32>, tensor<128x512xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x768xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
  %m = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x768xf32>) outs(%f : tensor<128x768xf32>) -> tensor<128x768xf32>
  %a = tensor.extract_slice %m[0, 0] [128, 512] [1, 1] : tensor<128x768xf32> to tensor<128x512xf32>
  %b = tensor.extract_slice %m[0, 256] [128, 512] [1, 1] : tensor<128x768xf32> to tensor<128x512xf32>
  return %a, %b : tensor<128x512xf32>, tensor<128x512xf32>
}

// -----

// Heads collapsed into the model dim, kept whole: the slice takes the rows
// before the collapse.
// CHECK-LABEL: func.func @collapse_keeps_group
// CHECK-SAME: (%[[X:.*]]: tensor<128x4x64xf32>)
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][64, 0, 0] [64, 4, 64] [1, 1, 1]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[XS]] {{\[\[}}0], [1, 2]] : tensor<64x4x64xf32> into tensor<64x256xf32>
// CHECK: return %[[C]]
func.func @collapse_keeps_group(%x: tensor<128x4x64xf32>) -> tensor<64x256xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<128x4x64xf32> into tensor<128x256xf32>
  %r = tensor.extract_slice %c[64, 0] [64, 256] [1, 1] : tensor<128x256xf32> to tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Near miss: the columns cut across heads (no box of the source).
// CHECK-LABEL: func.func @collapse_cut_group
// CHECK: %[[C:.*]] = tensor.collapse_shape
// CHECK: tensor.extract_slice %[[C]][0, 32] [128, 128] [1, 1]
func.func @collapse_cut_group(%x: tensor<128x4x64xf32>) -> tensor<128x128xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<128x4x64xf32> into tensor<128x256xf32>
  %r = tensor.extract_slice %c[0, 32] [128, 128] [1, 1] : tensor<128x256xf32> to tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

// Near miss: the producer has another use; computing it twice is no saving.
// CHECK-LABEL: func.func @two_uses
// CHECK: %[[S:.*]] = linalg.add ins(%{{.*}}, %{{.*}} : tensor<128x256xf32>, tensor<128x256xf32>)
// CHECK: tensor.extract_slice %[[S]][64, 0] [64, 256] [1, 1]
func.func @two_uses(%x: tensor<128x256xf32>, %y: tensor<128x256xf32>) -> (tensor<64x256xf32>, tensor<128x256xf32>) {
  %e = tensor.empty() : tensor<128x256xf32>
  %s = linalg.add ins(%x, %y : tensor<128x256xf32>, tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %r = tensor.extract_slice %s[64, 0] [64, 256] [1, 1] : tensor<128x256xf32> to tensor<64x256xf32>
  return %r, %s : tensor<64x256xf32>, tensor<128x256xf32>
}

// -----

// A fold step's kept rows: the last 64 queries over all 128 keys.
// CHECK-LABEL: func.func @attention_last_rows
// CHECK-SAME: (%[[Q:.*]]: tensor<4x128x64xf32>, %[[K:.*]]: tensor<4x128x64xf32>, %[[V:.*]]: tensor<4x128x64xf32>)
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][0, 64, 0] [4, 64, 64] [1, 1, 1]
// CHECK: %[[O:.*]] = linea.attention %[[QS]], %[[K]], %[[V]] mask = causal : tensor<4x64x64xf32>, tensor<4x128x64xf32>, tensor<4x128x64xf32> -> tensor<4x64x64xf32>
// CHECK: return %[[O]]
func.func @attention_last_rows(%q: tensor<4x128x64xf32>, %k: tensor<4x128x64xf32>, %v: tensor<4x128x64xf32>) -> tensor<4x64x64xf32> {
  %a = linea.attention %q, %k, %v mask = causal : tensor<4x128x64xf32>, tensor<4x128x64xf32>, tensor<4x128x64xf32> -> tensor<4x128x64xf32>
  %r = tensor.extract_slice %a[0, 64, 0] [4, 64, 64] [1, 1, 1] : tensor<4x128x64xf32> to tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}

// -----

// The first rows of a causal attention see the first keys only.
// CHECK-LABEL: func.func @attention_first_rows
// CHECK-SAME: (%[[Q:.*]]: tensor<2x13x8xf32>, %[[K:.*]]: tensor<2x13x8xf32>, %[[V:.*]]: tensor<2x13x6xf32>)
// CHECK-DAG: %[[QS:.*]] = tensor.extract_slice %[[Q]][0, 0, 0] [2, 5, 8] [1, 1, 1]
// CHECK-DAG: %[[KS:.*]] = tensor.extract_slice %[[K]][0, 0, 0] [2, 5, 8] [1, 1, 1]
// CHECK-DAG: %[[VS:.*]] = tensor.extract_slice %[[V]][0, 0, 0] [2, 5, 6] [1, 1, 1]
// CHECK: linea.attention %[[QS]], %[[KS]], %[[VS]] mask = causal scale = 5.000000e-01 : tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x6xf32> -> tensor<2x5x6xf32>
func.func @attention_first_rows(%q: tensor<2x13x8xf32>, %k: tensor<2x13x8xf32>, %v: tensor<2x13x6xf32>) -> tensor<2x5x6xf32> {
  %a = linea.attention %q, %k, %v mask = causal scale = 0.5 : tensor<2x13x8xf32>, tensor<2x13x8xf32>, tensor<2x13x6xf32> -> tensor<2x13x6xf32>
  %r = tensor.extract_slice %a[0, 0, 0] [2, 5, 6] [1, 1, 1] : tensor<2x13x6xf32> to tensor<2x5x6xf32>
  return %r : tensor<2x5x6xf32>
}

// -----

// Lq = 4 queries, the last of Lk = 9 positions: rows 1..2 see keys t <= 6.
// CHECK-LABEL: func.func @attention_fewer_queries
// CHECK: %[[KS:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [2, 8, 8] [1, 1, 1]
// CHECK: linea.attention %{{.*}}, %[[KS]], %{{.*}} mask = causal : tensor<2x2x8xf32>, tensor<2x8x8xf32>, tensor<2x8x6xf32>
func.func @attention_fewer_queries(%q: tensor<2x4x8xf32>, %k: tensor<2x9x8xf32>, %v: tensor<2x9x6xf32>) -> tensor<2x2x6xf32> {
  %a = linea.attention %q, %k, %v mask = causal : tensor<2x4x8xf32>, tensor<2x9x8xf32>, tensor<2x9x6xf32> -> tensor<2x4x6xf32>
  %r = tensor.extract_slice %a[0, 1, 0] [2, 2, 6] [1, 1, 1] : tensor<2x4x6xf32> to tensor<2x2x6xf32>
  return %r : tensor<2x2x6xf32>
}

// -----

// Rows that see no key (Lq = 7 > Lk = 3: rows 0..3 see none) are zeros.
// CHECK-LABEL: func.func @attention_rows_see_nothing
// CHECK-NOT: linea.attention
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x6xf32>)
// CHECK: return %[[Z]]
func.func @attention_rows_see_nothing(%q: tensor<2x7x8xf32>, %k: tensor<2x3x8xf32>, %v: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {
  %a = linea.attention %q, %k, %v mask = causal : tensor<2x7x8xf32>, tensor<2x3x8xf32>, tensor<2x3x6xf32> -> tensor<2x7x6xf32>
  %r = tensor.extract_slice %a[0, 0, 0] [2, 3, 6] [1, 1, 1] : tensor<2x7x6xf32> to tensor<2x3x6xf32>
  return %r : tensor<2x3x6xf32>
}

// -----

// Bidirectional: every key, the batch entry and value columns sliced.
// CHECK-LABEL: func.func @attention_columns
// CHECK-SAME: (%[[Q:.*]]: tensor<2x13x8xf32>, %[[K:.*]]: tensor<2x13x8xf32>, %[[V:.*]]: tensor<2x13x6xf32>)
// CHECK-DAG: %[[QS:.*]] = tensor.extract_slice %[[Q]][1, 3, 0] [1, 9, 8] [1, 1, 1]
// CHECK-DAG: %[[KS:.*]] = tensor.extract_slice %[[K]][1, 0, 0] [1, 13, 8] [1, 1, 1]
// CHECK-DAG: %[[VS:.*]] = tensor.extract_slice %[[V]][1, 0, 2] [1, 13, 3] [1, 1, 1]
// CHECK: linea.attention %[[QS]], %[[KS]], %[[VS]] mask = none : tensor<1x9x8xf32>, tensor<1x13x8xf32>, tensor<1x13x3xf32> -> tensor<1x9x3xf32>
func.func @attention_columns(%q: tensor<2x13x8xf32>, %k: tensor<2x13x8xf32>, %v: tensor<2x13x6xf32>) -> tensor<1x9x3xf32> {
  %a = linea.attention %q, %k, %v mask = none : tensor<2x13x8xf32>, tensor<2x13x8xf32>, tensor<2x13x6xf32> -> tensor<2x13x6xf32>
  %r = tensor.extract_slice %a[1, 3, 2] [1, 9, 3] [1, 1, 1] : tensor<2x13x6xf32> to tensor<1x9x3xf32>
  return %r : tensor<1x9x3xf32>
}

// -----

// Dynamic rows: the kept keys are computed, max(0, first + count + Lk - Lq).
// CHECK-LABEL: func.func @attention_dynamic
// CHECK: %[[KEPT:.*]] = affine.max
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [2, %[[KEPT]], 8] [1, 1, 1]
// CHECK: linea.attention {{.*}} -> tensor<2x?x6xf32>
func.func @attention_dynamic(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x6xf32>, %first: index, %count: index) -> tensor<2x?x6xf32> {
  %a = linea.attention %q, %k, %v mask = causal : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32> -> tensor<2x?x6xf32>
  %r = tensor.extract_slice %a[0, %first, 0] [2, %count, 6] [1, 1, 1] : tensor<2x?x6xf32> to tensor<2x?x6xf32>
  return %r : tensor<2x?x6xf32>
}

// -----

// Near miss: packed rows belong to their segments.
// CHECK-LABEL: func.func @attention_packed
// CHECK: %[[A:.*]] = linea.attention {{.*}} offsets
// CHECK: tensor.extract_slice %[[A]]
func.func @attention_packed(%q: tensor<2x16x8xf32>, %o: tensor<?xi32>) -> tensor<2x8x8xf32> {
  %a = linea.attention %q, %q, %q offsets(%o) mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<?xi32> -> tensor<2x16x8xf32>
  %r = tensor.extract_slice %a[0, 8, 0] [2, 8, 8] [1, 1, 1] : tensor<2x16x8xf32> to tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
