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

// Planned for the GPU, a causal op keeps every row in each tile (a block's
// tiles have static sizes); the mask alone hides the rows.
// CHECK-LABEL: func.func @causal_on_the_gpu
// CHECK: scf.for
// CHECK:   -> tensor<2x40x?xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.yield
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
