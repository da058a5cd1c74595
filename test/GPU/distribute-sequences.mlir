// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-distribute-sequences -split-input-file | FileCheck %s
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-distribute-sequences=value-tile=0 -split-input-file | FileCheck %s --check-prefix=NOTILE

// A chunked causal op over [2, 3] sequences of 128 value columns: one
// sequence block per (batch, head, 64-column value tile), through the ops'
// TilingInterface. Q and K are whole, V, the initial state, the output and
// the final state are tiled.
// CHECK-LABEL: func.func @chunked
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x3x?x16xf32>, %[[V:[a-z0-9_]+]]: tensor<2x3x?x128xf32>, %[[S0:[a-z0-9_]+]]: tensor<2x3x16x128xf32>)
// CHECK: %[[O:.+]]:2 = scf.forall (%[[B:.+]], %[[H:.+]], %[[COL:.+]]) = (0, 0, 0) to (2, 3, 128) step (1, 1, 64) shared_outs(%[[OUT:.+]] = %{{.+}}, %[[FS:.+]] = %{{.+}}) -> (tensor<2x3x?x128xf32>, tensor<2x3x16x128xf32>)
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], 0, 0] [1, 1, %{{.+}}, 16] [1, 1, 1, 1] : tensor<2x3x?x16xf32> to tensor<1x1x?x16xf32>
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[V]][%[[B]], %[[H]], 0, %[[COL]]] [1, 1, %{{.+}}, 64] [1, 1, 1, 1] : tensor<2x3x?x128xf32> to tensor<1x1x?x64xf32>
// CHECK:   %[[SS:.+]] = tensor.extract_slice %[[S0]][%[[B]], %[[H]], 0, %[[COL]]] [1, 1, 16, 64] [1, 1, 1, 1] : tensor<2x3x16x128xf32> to tensor<1x1x16x64xf32>
// CHECK:   %[[R:.+]], %[[RS:.+]] = linea.linear_attention %[[QS]], %{{.+}}, %[[VS]] init(%[[SS]]) mask = causal scale = 2.500000e-01 form = chunked(16) : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x64xf32>, tensor<1x1x16x64xf32> -> tensor<1x1x?x64xf32>, tensor<1x1x16x64xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[R]] into %[[OUT]][%[[B]], %[[H]], 0, %[[COL]]] [1, 1, %{{.+}}, 64]
// CHECK:     tensor.parallel_insert_slice %[[RS]] into %[[FS]][%[[B]], %[[H]], 0, %[[COL]]] [1, 1, 16, 64]
// CHECK:   } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_2>]}
// CHECK: return %[[O]]#0, %[[O]]#1

// NOTILE-LABEL: func.func @chunked
// NOTILE: scf.forall (%{{.+}}, %{{.+}}) in (2, 3)
// NOTILE: linea.linear_attention {{.*}} : tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x128xf32>, tensor<1x1x16x128xf32> -> tensor<1x1x?x128xf32>, tensor<1x1x16x128xf32>
// NOTILE: {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func @chunked(%q: tensor<2x3x?x16xf32>, %v: tensor<2x3x?x128xf32>, %s0: tensor<2x3x16x128xf32>)
    -> (tensor<2x3x?x128xf32>, tensor<2x3x16x128xf32>) {
  %o, %s = linea.linear_attention %q, %q, %v init(%s0) mask = causal scale = 0.25 form = chunked(16)
      : tensor<2x3x?x16xf32>, tensor<2x3x?x16xf32>, tensor<2x3x?x128xf32>, tensor<2x3x16x128xf32>
      -> tensor<2x3x?x128xf32>, tensor<2x3x16x128xf32>
  return %o, %s : tensor<2x3x?x128xf32>, tensor<2x3x16x128xf32>
}

// -----

// Gated, with a dynamic batch and a scalar gate: one instance per sequence;
// 24 value columns are one tile.
// CHECK-LABEL: func.func @gated
// CHECK: scf.forall (%[[B:.+]]) in (%{{.+}})
// CHECK:   %[[G:.+]] = tensor.extract_slice %{{.+}}[%[[B]], 0] [1, 32] [1, 1] : tensor<?x32xf32> to tensor<1x32xf32>
// CHECK:   linea.gated_linear_attention {{.*}}, %[[G]] mask = causal form = chunked(16) : tensor<1x32x8xf32>, tensor<1x32x8xf32>, tensor<1x32x24xf32>, tensor<1x32xf32> -> tensor<1x32x24xf32>
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
func.func @gated(%q: tensor<?x32x8xf32>, %v: tensor<?x32x24xf32>, %g: tensor<?x32xf32>) -> tensor<?x32x24xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal form = chunked(16)
      : tensor<?x32x8xf32>, tensor<?x32x8xf32>, tensor<?x32x24xf32>, tensor<?x32xf32> -> tensor<?x32x24xf32>
  return %o : tensor<?x32x24xf32>
}

// -----

// Left alone: ops not chosen to be chunked, and a single sequence whose
// values are one tile.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
// CHECK-COUNT-3: linea.linear_attention
func.func @left_alone(%q: tensor<2x16x8xf32>, %r: tensor<16x8xf32>)
    -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<16x8xf32>) {
  %a = linea.linear_attention %q, %q, %q mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  %b = linea.linear_attention %q, %q, %q mask = causal form = quadratic : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  %c = linea.linear_attention %r, %r, %r mask = causal form = chunked(16) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %a, %b, %c : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<16x8xf32>
}

// -----

// A sequential scan (the chunk-parallel form's scan of chunk states [B, N + 1,
// Dk, Dv]) walks its steps per slice: one block per batch index and column
// tile, the decay tiled with the leading dims. 8 x 2 slices of 64 columns
// would leave most of the 132 SMs idle: the tile halves to 8 columns (128
// blocks), where a step still has 32 x 8 = 256 elements, one per thread.
// CHECK-LABEL: func.func @state_scan
// CHECK-SAME: (%[[H:[a-z0-9_]+]]: tensor<8x17x32x128xf32>, %[[G:[a-z0-9_]+]]: tensor<8x17x32xf32>)
// CHECK: scf.forall (%[[B:.+]], %[[COL:.+]]) = (0, 0) to (8, 128) step (1, 8)
// CHECK:   %[[HS:.+]] = tensor.extract_slice %[[H]][%[[B]], 0, 0, %[[COL]]] [1, 17, 32, 8]
// CHECK:   %[[GS:.+]] = tensor.extract_slice %[[G]][%[[B]], 0, 0] [1, 17, 32]
// CHECK:   linea.presum %[[HS]] decay(%[[GS]] : tensor<1x17x32xf32>) dim = 1 form = scan : tensor<1x17x32x8xf32>
// CHECK:   } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// NOTILE-LABEL: func.func @state_scan
// NOTILE: scf.forall (%{{.+}}) in (8)
// NOTILE:   linea.presum %{{.+}} decay(%{{.+}} : tensor<1x17x32xf32>) dim = 1 form = scan : tensor<1x17x32x128xf32>
// A blocked scan is left alone.
// CHECK-LABEL: func.func @blocked_scan
// CHECK-NOT: scf.forall
func.func @state_scan(%h: tensor<8x17x32x128xf32>, %g: tensor<8x17x32xf32>) -> tensor<8x17x32x128xf32> {
  %s = linea.presum %h decay(%g : tensor<8x17x32xf32>) dim = 1 form = scan : tensor<8x17x32x128xf32>
  return %s : tensor<8x17x32x128xf32>
}
func.func @blocked_scan(%x: tensor<8x4096x64xf32>) -> tensor<8x4096x64xf32> {
  %s = linea.presum %x form = blocked_scan : tensor<8x4096x64xf32>
  return %s : tensor<8x4096x64xf32>
}

// -----

// A scan whose step is short (the gates' in-chunk presum [B, H, N, C, Dk]
// along C: a step is one row of 128 gate columns) keeps its columns whole
// and gives each block two chunks, so a step still has one element per
// thread of the block's 256.
// CHECK-LABEL: func.func @short_steps
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<2x4x6x128x128xf32>)
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]], %[[N:.+]]) = (0, 0, 0) to (2, 4, 6) step (1, 1, 2)
// CHECK:   %[[GS:.+]] = tensor.extract_slice %[[G]][%[[B]], %[[H]], %[[N]], 0, 0] [1, 1, 2, 128, 128]
// CHECK:   linea.presum %[[GS]] dim = 3 exclusive reverse form = scan : tensor<1x1x2x128x128xf32>
// CHECK:   } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_2>]}
func.func @short_steps(%g: tensor<2x4x6x128x128xf32>) -> tensor<2x4x6x128x128xf32> {
  %s = linea.presum %g dim = 3 exclusive reverse form = scan : tensor<2x4x6x128x128xf32>
  return %s : tensor<2x4x6x128x128xf32>
}
