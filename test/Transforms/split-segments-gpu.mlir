// RUN: linea-opt %s -linea-split-segments=target=gpu -split-input-file -verify-diagnostics | FileCheck %s
// RUN: linea-opt %s -linea-split-segments=target=gpu "-linea-select-forms=target=gpu chip=sm_90a" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=FORM

// On the GPU each segment of each sequence is one sequence block: the loop
// runs over (segment, batch) and is mapped to GPU blocks; a block takes one
// sequence's rows of its segment, its initial state n and writes its final
// state n.
// CHECK-LABEL: func.func @states
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x4xf32>, %[[S0:[a-z0-9_]+]]: tensor<?x2x8x4xf32>, %[[O:[a-z0-9_]+]]: tensor<?xindex>)
// CHECK: %[[R:.+]]:2 = scf.forall (%[[N:[a-z0-9_]+]], %[[B:[a-z0-9_]+]]) in (%{{.+}}, 2) shared_outs(%[[OUT:[a-z0-9_]+]] = %{{.+}}, %[[FIN:[a-z0-9_]+]] = %{{.+}})
// CHECK:   %[[START:.+]] = tensor.extract %[[O]][%[[N]]]
// CHECK:   %[[SIZE:.+]] = arith.subi %{{.+}}, %[[START]] : index
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[B]], %[[START]], 0] [1, %[[SIZE]], 8] [1, 1, 1] : tensor<2x?x8xf32> to tensor<1x?x8xf32>
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[V]][%[[B]], %[[START]], 0] [1, %[[SIZE]], 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<1x?x4xf32>
// CHECK:   %[[INIT:.+]] = tensor.extract_slice %[[S0]][%[[N]], %[[B]], 0, 0] [1, 1, 8, 4] [1, 1, 1, 1] : tensor<?x2x8x4xf32> to tensor<1x8x4xf32>
// CHECK:   %[[Y:.+]], %[[S:.+]] = linea.linear_attention %[[QS]], %{{.+}}, %[[VS]] init(%[[INIT]]) mask = causal : {{.+}} -> tensor<1x?x4xf32>, tensor<1x8x4xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[Y]] into %[[OUT]][%[[B]], %[[START]], 0] [1, %[[SIZE]], 4]
// CHECK:     tensor.parallel_insert_slice %[[S]] into %[[FIN]][%[[N]], %[[B]], 0, 0] [1, 1, 8, 4]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK: return %[[R]]#0, %[[R]]#1
// In a block, the cost model weighs only forms that keep the block one:
// the chunked form, not the quadratic form's L x L scores of a dynamic L.
// FORM-LABEL: func.func @states
// FORM: scf.forall
// FORM: linea.linear_attention {{.+}} mask = causal form = chunked
// FORM: {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func @states(%q: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>, %s0: tensor<?x2x8x4xf32>,
                  %o: tensor<?xindex>) -> (tensor<2x?x4xf32>, tensor<?x2x8x4xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v init(%s0) offsets(%o) mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32>, tensor<?x2x8x4xf32>,
        tensor<?xindex> -> tensor<2x?x4xf32>, tensor<?x2x8x4xf32>
  return %y, %s : tensor<2x?x4xf32>, tensor<?x2x8x4xf32>
}

// -----

// A presum without leading dims: one block per segment.
// CHECK-LABEL: func.func @presum
// CHECK: scf.forall (%{{.+}}) in (%{{.+}}) shared_outs
// CHECK:   linea.presum %{{.+}} : tensor<?x3xf32>
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
// FORM-LABEL: func.func @presum
// FORM: linea.presum {{.+}} form = scan
func.func @presum(%x: tensor<?x3xf32>, %o: tensor<?xindex>) -> tensor<?x3xf32> {
  %0 = linea.presum %x offsets(%o) : tensor<?x3xf32>, tensor<?xindex> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Softmax attention: each segment's attention is one block's program too
// (linea-tile-attention gives it query tiles over key tiles there).
// CHECK-LABEL: func.func @softmax_on_gpu
// CHECK: scf.forall (%{{.+}}) in (%{{.+}}) shared_outs
// CHECK:   linea.attention %{{.+}} mask = causal : tensor<?x4xf32>
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
// FORM-LABEL: func.func @softmax_on_gpu
func.func @softmax_on_gpu(%q: tensor<?x4xf32>, %o: tensor<?xindex>) -> tensor<?x4xf32> {
  %y = linea.attention %q, %q, %q offsets(%o) mask = causal
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xindex> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A per-segment prefix: each block takes its segment's prefix length.
// CHECK-LABEL: func.func @prefix_on_gpu
// CHECK-SAME: %[[JS:[a-z0-9_]+]]: tensor<?xindex>)
// CHECK: scf.forall (%[[N:[a-z0-9_]+]]) in (%{{.+}}) shared_outs
// CHECK:   %[[J:.+]] = tensor.extract %[[JS]][%[[N]]]
// CHECK:   linea.linear_attention {{.+}} mask = prefix(%[[J]])
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
func.func @prefix_on_gpu(%q: tensor<?x4xf32>, %o: tensor<?xindex>, %js: tensor<?xindex>) -> tensor<?x4xf32> {
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = prefix(%js)
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xindex>, tensor<?xindex> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A gated bidirectional segment and a gated prefix: blocks too (the
// one-shot part over chunks, linea-prefix-to-oneshot).
// CHECK-LABEL: func.func @gated_bidirectional_on_gpu
// CHECK: scf.forall
// CHECK:   linea.gated_linear_attention {{.+}} mask = none
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
func.func @gated_bidirectional_on_gpu(%q: tensor<?x4xf32>, %g: tensor<?xf32>, %o: tensor<?xindex>) -> tensor<?x4xf32> {
  %y = linea.gated_linear_attention %q, %q, %q, %g offsets(%o) mask = none
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xindex> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @gated_prefix_on_gpu
// CHECK: scf.forall
// CHECK:   linea.gated_linear_attention {{.+}} mask = prefix(
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
func.func @gated_prefix_on_gpu(%q: tensor<?x4xf32>, %g: tensor<?xf32>, %o: tensor<?xindex>, %js: tensor<?xindex>) -> tensor<?x4xf32> {
  %y = linea.gated_linear_attention %q, %q, %q, %g offsets(%o) mask = prefix(%js)
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xindex>, tensor<?xindex> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// A normalized op's normalizer becomes a ones column of the packed values
// before the segments split: each block then holds an unnormalized prefix
// op (no copy of its rows), and the rows are divided by the column after.
// CHECK-LABEL: func.func @normalized_prefix_on_gpu
// CHECK-SAME: (%[[Q:.+]]: tensor<?x4xf32>, %[[V:.+]]: tensor<?x3xf32>, %[[O:.+]]: tensor<?xindex>, %[[JS:.+]]: tensor<?xindex>)
// CHECK: %[[ONES:.+]] = linalg.fill
// CHECK: %[[VONES:.+]] = tensor.insert_slice %[[V]] into %[[ONES]]
// CHECK: %[[ROWS:.+]] = scf.forall
// CHECK:   %[[SEGV:.+]] = tensor.extract_slice %[[VONES]]
// CHECK:   linea.linear_attention {{.+}}, %[[SEGV]] mask = prefix({{.+}}) feature_map = elu_plus_one :
// CHECK-SAME: -> tensor<?x4xf32>
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK: linalg.generic {{.+}} ins({{.+}}, %[[ROWS]] : tensor<?x3xf32>, tensor<?x4xf32>)
// CHECK:   arith.divf
func.func @normalized_prefix_on_gpu(%q: tensor<?x4xf32>, %v: tensor<?x3xf32>, %o: tensor<?xindex>, %js: tensor<?xindex>) -> tensor<?x3xf32> {
  %y = linea.linear_attention %q, %q, %v offsets(%o) mask = prefix(%js) feature_map = elu_plus_one normalize
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x3xf32>, tensor<?xindex>, tensor<?xindex> -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
