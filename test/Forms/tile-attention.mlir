// RUN: linea-opt %s -split-input-file -linea-tile-attention=tile-size=16 | FileCheck %s

// A loop over key tiles carrying the running max, the running sum and the
// unnormalized output: no Lq x Lk matrix, only Lq x 16 scores per tile.
// Causal on the CPU: row i sees keys t <= i + (Lk - Lq), so a tile from key
// T is seen only from row max(0, T - (Lk - Lq)) on; the tile works on those
// rows and writes them back into what the loop carries.
// CHECK-LABEL: func.func @online_softmax
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x40x8xf32>, %[[K:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x4xf32>)
// CHECK: %[[LK:.+]] = tensor.dim %[[K]], %c1
// CHECK: %[[OFFSET:.+]] = arith.subi %[[LK]], %c40
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[T:.+]] = %c0 to %[[LK]] step %c16 iter_args(%[[M:.+]] = %{{.+}}, %[[L:.+]] = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<2x40xf32>, tensor<2x40xf32>, tensor<2x40x4xf32>)
// CHECK:   tensor.extract_slice %[[K]][0, %[[T]], 0]
// CHECK:   %[[BEFORE:.+]] = arith.subi %[[T]], %[[OFFSET]]
// CHECK:   %[[AFTER_ZERO:.+]] = arith.maxsi %[[BEFORE]], %c0
// CHECK:   %[[FIRST:.+]] = arith.minsi %[[AFTER_ZERO]], %c40
// CHECK:   %[[COUNT:.+]] = arith.subi %c40, %[[FIRST]]
// CHECK:   tensor.extract_slice %[[Q]][0, %[[FIRST]], 0] [2, %[[COUNT]], 8]
// CHECK:   -> tensor<2x?x?xf32>
// CHECK:   arith.maximumf
// CHECK:   math.exp
// CHECK:   %[[NEW_M:.+]] = linalg.copy ins(%{{.+}} : tensor<2x?xf32>)
// CHECK:   %[[M2:.+]] = tensor.insert_slice %[[NEW_M]] into %[[M]][0, %[[FIRST]]] [2, %[[COUNT]]]
// CHECK:   %[[L2:.+]] = tensor.insert_slice %{{.+}} into %[[L]][0, %[[FIRST]]] [2, %[[COUNT]]]
// CHECK:   %[[ACC2:.+]] = tensor.insert_slice %{{.+}} into %[[ACC]][0, %[[FIRST]], 0] [2, %[[COUNT]], 4]
// CHECK:   scf.yield %[[M2]], %[[L2]], %[[ACC2]]
// CHECK: arith.divf
// CHECK-NOT: tensor<2x40x?xf32>
// CHECK-NOT: linea.attention
func.func @online_softmax(%q: tensor<2x40x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x40x4xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<2x40x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x40x4xf32>
  return %o : tensor<2x40x4xf32>
}

// -----

// Without a mask every row sees every tile: all rows, nothing sliced.
// CHECK-LABEL: func.func @bidirectional
// CHECK: scf.for
// CHECK:   -> tensor<2x40x?xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.yield
func.func @bidirectional(%q: tensor<2x40x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x40x4xf32> {
  %o = linea.attention %q, %k, %v mask = none
      : tensor<2x40x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x40x4xf32>
  return %o : tensor<2x40x4xf32>
}

// -----

// Planned for the GPU: one sequence block per (sequence, query tile of 16
// rows), flash attention's grid, each running the key tiles up to its last
// row's key (row i sees keys t <= i + Lk - 40) with static temporaries,
// and writing its rows of the output.
// CHECK-LABEL: func.func @causal_on_the_gpu
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x40x8xf32>, %[[K:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x4xf32>)
// CHECK: scf.forall (%[[B:.+]], %[[TILE:.+]]) in (2, %c3) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x40x4xf32>)
// CHECK:   %[[FIRST:.+]] = arith.muli %[[TILE]], %c16
// CHECK:   %[[ROWS:.+]] = arith.minsi %{{.+}}, %c16
// CHECK:   %[[LK:.+]] = tensor.dim %[[K]], %c1
// CHECK:   tensor.extract_slice %[[K]][%[[B]], 0, 0] [1, %[[LK]], 8]
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[B]], 0, 0] [1, 40, 8]
// CHECK:   %[[OFFSET:.+]] = arith.subi %[[LK]], %c40
// CHECK:   %[[ROW_OFFSET:.+]] = arith.addi %[[OFFSET]], %[[FIRST]]
// CHECK:   tensor.extract_slice %[[QS]][0, %[[FIRST]], 0] [1, %[[ROWS]], 8]
// CHECK:   tensor.pad
// CHECK:   %[[SEEN:.+]] = arith.addi %[[ROW_OFFSET]], %[[ROWS]]
// CHECK:   %[[KEY_END:.+]] = arith.minsi %[[LK]], %[[SEEN]]
// CHECK:   %[[STATS:.+]]:3 = scf.for %{{.+}} = %c0 to %[[KEY_END]] step %c16 {{.+}} -> (tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x16x4xf32>)
// CHECK:   %[[O:.+]] = linalg.generic {{.+}} ins(%[[STATS]]#2, %[[STATS]]#1
// CHECK:   %[[KEPT:.+]] = tensor.extract_slice %[[O]][0, 0, 0] [1, %[[ROWS]], 4]
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[KEPT]] into %[[OUT]][%[[B]], %[[FIRST]], 0] [1, %[[ROWS]], 4]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.900000e+14, scalar_flops = 6.700000e+13, bytes = 3.350000e+12, step_seconds = 9.9999999999999995E-7, contraction_tile = 6.400000e+01>} {
  func.func @causal_on_the_gpu(%q: tensor<2x40x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x40x4xf32> {
    %o = linea.attention %q, %k, %v mask = causal
        : tensor<2x40x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x40x4xf32>
    return %o : tensor<2x40x4xf32>
  }
}

// -----

// Static sizes: 32 keys in whole tiles of 16 (no partial tile, static key
// slices), and 16 queries that are the last of the 32 positions see the
// first key of both tiles: no row to skip, the rows keep their static count.
// CHECK-LABEL: func.func @static_whole_tiles
// CHECK-NOT: arith.minsi
// CHECK: scf.for {{.*}} -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16x4xf32>)
// CHECK: tensor.extract_slice %{{.*}} : tensor<2x32x8xf32> to tensor<2x16x8xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.yield
func.func @static_whole_tiles(%q: tensor<2x16x8xf32>, %k: tensor<2x32x8xf32>, %v: tensor<2x32x4xf32>) -> tensor<2x16x4xf32> {
  %o = linea.attention %q, %k, %v mask = causal : tensor<2x16x8xf32>, tensor<2x32x8xf32>, tensor<2x32x4xf32> -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}

// -----

// In a GPU sequence block (a packed segment's attention) every temporary
// has a static size: query tiles of 16 rows, each over the key tiles up to
// its last row's key, both padded to 16; padded keys are masked (column <
// the tile's key count), the running statistics have buffers of their own
// (the block's shared memory), and only the tile's real rows are written.
// CHECK-LABEL: func.func @in_sequence_block
// CHECK: %[[L:.+]] = tensor.dim
// CHECK: scf.forall
// CHECK:   scf.for %[[I:.+]] = %c0 to %[[L]] step %c16 iter_args(%[[OUT:.+]] = %{{.+}}) -> (tensor<1x?x4xbf16>)
// CHECK:     %[[ROWS:.+]] = arith.minsi %{{.+}}, %c16
// CHECK:     tensor.pad {{.+}} high[0, %{{.+}}, 0]
// CHECK:     to tensor<1x16x8xbf16>
// CHECK:     %[[SEEN:.+]] = arith.addi %[[I]], %[[ROWS]]
// CHECK:     %[[KEY_END:.+]] = arith.minsi %[[L]], %[[SEEN]]
// CHECK:     bufferization.alloc_tensor() : tensor<1x16xf32>
// CHECK:     bufferization.alloc_tensor() : tensor<1x16xf32>
// CHECK:     bufferization.alloc_tensor() : tensor<1x16x4xf32>
// CHECK:     %[[STATS:.+]]:3 = scf.for %[[T:.+]] = %c0 to %[[KEY_END]] step %c16
// CHECK:       %[[KEYS:.+]] = arith.minsi %{{.+}}, %c16
// CHECK:       linalg.generic
// CHECK:         %[[COL:.+]] = linalg.index 2
// CHECK:         %[[KEY:.+]] = arith.addi %[[T]], %[[COL]]
// CHECK:         arith.cmpi sle, %[[KEY]]
// CHECK:         %[[REAL:.+]] = arith.cmpi slt, %[[COL]], %[[KEYS]]
// CHECK:         arith.andi %{{.+}}, %[[REAL]]
// CHECK:       -> tensor<1x16x16xf32>
// CHECK:     %[[O:.+]] = linalg.generic {{.+}} ins(%[[STATS]]#2, %[[STATS]]#1
// CHECK:     %[[KEPT:.+]] = tensor.extract_slice %[[O]][0, 0, 0] [1, %[[ROWS]], 4]
// CHECK:     tensor.insert_slice %[[KEPT]] into %[[OUT]][0, %[[I]], 0] [1, %[[ROWS]], 4]
// CHECK-NOT: linea.attention
func.func @in_sequence_block(%q: tensor<3x?x8xbf16>, %k: tensor<3x?x8xbf16>, %v: tensor<3x?x4xbf16>) -> tensor<3x?x4xbf16> {
  %c1 = arith.constant 1 : index
  %l = tensor.dim %q, %c1 : tensor<3x?x8xbf16>
  %init = tensor.empty(%l) : tensor<3x?x4xbf16>
  %o = scf.forall (%b) in (3) shared_outs(%out = %init) -> (tensor<3x?x4xbf16>) {
    %qs = tensor.extract_slice %q[%b, 0, 0] [1, %l, 8] [1, 1, 1] : tensor<3x?x8xbf16> to tensor<1x?x8xbf16>
    %ks = tensor.extract_slice %k[%b, 0, 0] [1, %l, 8] [1, 1, 1] : tensor<3x?x8xbf16> to tensor<1x?x8xbf16>
    %vs = tensor.extract_slice %v[%b, 0, 0] [1, %l, 4] [1, 1, 1] : tensor<3x?x4xbf16> to tensor<1x?x4xbf16>
    %y = linea.attention %qs, %ks, %vs mask = causal
        : tensor<1x?x8xbf16>, tensor<1x?x8xbf16>, tensor<1x?x4xbf16> -> tensor<1x?x4xbf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %out[%b, 0, 0] [1, %l, 4] [1, 1, 1] : tensor<1x?x4xbf16> into tensor<3x?x4xbf16>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %o : tensor<3x?x4xbf16>
}
