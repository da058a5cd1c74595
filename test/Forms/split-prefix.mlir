// RUN: linea-opt %s -linea-split-prefix -split-input-file | FileCheck %s

// Rows [0, j) become a bidirectional op whose final state seeds a causal op
// over [j, L); the outputs land at rows 0 and j of one tensor.
// CHECK-LABEL: func.func @dynamic_prefix
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x4xf32>, %[[J:[a-z0-9_]+]]: index)
// The runtime j is clamped to [0, L] before anything is sliced.
// CHECK: %[[L:.+]] = tensor.dim %[[Q]], %c1
// CHECK: %[[LOW:.+]] = arith.maxsi %[[J]], %c0
// CHECK: %[[JC:.+]] = arith.minsi %[[LOW]], %[[L]]
// CHECK: %[[REST:.+]] = arith.subi %[[L]], %[[JC]]
// CHECK-DAG: %[[QH:.+]] = tensor.extract_slice %[[Q]][0, 0, 0] [2, %[[JC]], 8]
// CHECK-DAG: %[[VH:.+]] = tensor.extract_slice %[[V]][0, 0, 0] [2, %[[JC]], 4]
// CHECK: %[[OH:[a-z0-9_]+]], %[[S:[a-z0-9_]+]] = linea.linear_attention %[[QH]], %{{.+}}, %[[VH]] mask = none
// CHECK-DAG: %[[QT:.+]] = tensor.extract_slice %[[Q]][0, %[[JC]], 0] [2, %[[REST]], 8]
// CHECK-DAG: %[[VT:.+]] = tensor.extract_slice %[[V]][0, %[[JC]], 0] [2, %[[REST]], 4]
// CHECK: %[[OT:[a-z0-9_]+]], %[[SF:[a-z0-9_]+]] = linea.linear_attention %[[QT]], %{{.+}}, %[[VT]] init(%[[S]]) mask = causal
// CHECK: %[[H:.+]] = tensor.insert_slice %[[OH]] into %{{.+}}[0, 0, 0]
// CHECK: %[[OUT:.+]] = tensor.insert_slice %[[OT]] into %[[H]][0, %[[JC]], 0]
// CHECK: return %[[OUT]], %[[SF]]
func.func @dynamic_prefix(%q: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>, %j: index)
    -> (tensor<2x?x4xf32>, tensor<2x8x4xf32>) {
  %o, %s = linea.linear_attention %q, %q, %v mask = prefix(%j)
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>, tensor<2x8x4xf32>
  return %o, %s : tensor<2x?x4xf32>, tensor<2x8x4xf32>
}

// -----

// A gated prefix part is bidirectional over exactly its own rows (mask =
// none, every row reading S_{j-1}); its final state seeds the causal rest.
// CHECK-LABEL: func.func @gated_static_prefix
// CHECK: %[[OH:[a-z0-9_]+]], %[[S:[a-z0-9_]+]] = linea.gated_linear_attention {{.*}} mask = none : tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<5x4xf32>, tensor<8x4xf32>
// CHECK: linea.gated_linear_attention {{.*}} init(%[[S]]) mask = causal : tensor<7x8xf32>, tensor<7x8xf32>, tensor<7x4xf32>, tensor<7xf32>, tensor<8x4xf32> -> tensor<7x4xf32>
// CHECK-NOT: linea.gated_linear_attention
func.func @gated_static_prefix(%q: tensor<12x8xf32>, %v: tensor<12x4xf32>, %g: tensor<12xf32>) -> tensor<12x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = prefix(5)
      : tensor<12x8xf32>, tensor<12x8xf32>, tensor<12x4xf32>, tensor<12xf32> -> tensor<12x4xf32>
  return %o : tensor<12x4xf32>
}

// -----

// normalize: v gets a ones column, so the state carries z across the split,
// and the joined output is divided by that column at the end.
// CHECK-LABEL: func.func @normalized
// CHECK: %[[ONES:.+]] = linalg.fill ins(%cst{{.*}}) outs(%{{.+}} : tensor<10x5xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %[[ONES]][0, 0] [10, 4]
// CHECK: linea.linear_attention {{.*}} mask = none feature_map = elu_plus_one : {{.*}} -> tensor<3x5xf32>, tensor<8x5xf32>
// CHECK: linea.linear_attention {{.*}} mask = causal feature_map = elu_plus_one : {{.*}} -> tensor<7x5xf32>
// CHECK: arith.divf
// CHECK-NOT: normalize
func.func @normalized(%q: tensor<10x8xf32>, %v: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %o = linea.linear_attention %q, %q, %v mask = prefix(3) feature_map = elu_plus_one normalize
      : tensor<10x8xf32>, tensor<10x8xf32>, tensor<10x4xf32> -> tensor<10x4xf32>
  return %o : tensor<10x4xf32>
}

// -----

// Nothing to split without a prefix.
// CHECK-LABEL: func.func @causal_untouched
// CHECK: linea.linear_attention {{.*}} mask = causal
// CHECK-NOT: tensor.extract_slice
func.func @causal_untouched(%q: tensor<10x8xf32>) -> tensor<10x8xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<10x8xf32>, tensor<10x8xf32>, tensor<10x8xf32> -> tensor<10x8xf32>
  return %o : tensor<10x8xf32>
}
