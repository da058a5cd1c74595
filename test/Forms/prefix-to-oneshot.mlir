// RUN: linea-opt %s -linea-prefix-to-oneshot -split-input-file | FileCheck %s

// Two contractions and no loop: S[d, e] = sum_t k[t, d] v[t, e] (into a copy
// of S0), then O[i, e] = sum_d q[i, d] S[d, e].
// The loops are (b, t, d, e): e, the unit-stride dim, is innermost.
// CHECK-DAG: #[[T_D:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[T_E:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[D_E:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @bidirectional
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<3x?x8xf32>, %[[K:[a-z0-9_]+]]: tensor<3x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<3x?x4xf32>, %[[S0:[a-z0-9_]+]]: tensor<3x8x4xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[INIT:.+]] = linalg.copy ins(%[[S0]] : tensor<3x8x4xf32>)
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[T_D]], #[[T_E]], #[[D_E]]], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%[[K]], %[[V]] : tensor<3x?x8xf32>, tensor<3x?x4xf32>) outs(%[[INIT]] : tensor<3x8x4xf32>)
// CHECK: %[[O:.+]] = linalg.generic {{.*}} ins(%[[Q]], %[[S]] : tensor<3x?x8xf32>, tensor<3x8x4xf32>)
// CHECK: return %{{.+}}, %[[S]]
// CHECK-NOT: linea.linear_attention
func.func @bidirectional(%q: tensor<3x?x8xf32>, %k: tensor<3x?x8xf32>, %v: tensor<3x?x4xf32>, %s0: tensor<3x8x4xf32>)
    -> (tensor<3x?x4xf32>, tensor<3x8x4xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v init(%s0) mask = none scale = 0.5
      : tensor<3x?x8xf32>, tensor<3x?x8xf32>, tensor<3x?x4xf32>, tensor<3x8x4xf32> -> tensor<3x?x4xf32>, tensor<3x8x4xf32>
  return %o, %s : tensor<3x?x4xf32>, tensor<3x8x4xf32>
}

// -----

// The decode step (causal, L = 1) is the one-shot form too.
// CHECK-LABEL: func.func @decode_step
// CHECK-NOT: linea.linear_attention
// CHECK-NOT: scf.for
// CHECK-COUNT-2: linalg.generic {{.*}}"reduction"
func.func @decode_step(%q: tensor<4x1x8xf32>, %s0: tensor<4x8x8xf32>) -> tensor<4x1x8xf32> {
  %o = linea.linear_attention %q, %q, %q init(%s0) mask = causal
      : tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x1x8xf32>, tensor<4x8x8xf32> -> tensor<4x1x8xf32>
  return %o : tensor<4x1x8xf32>
}

// -----

// A gated whole-sequence prefix: keys decayed by exp(sum_{s > t} g_s), an
// exclusive reverse presum, then the same two contractions.
// CHECK-LABEL: func.func @gated_prefix
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<6x8xf32>, %{{.+}}: tensor<6x4xf32>, %[[G:[a-z0-9_]+]]: tensor<6x8xf32>)
// CHECK: %[[SUFFIX:.+]] = linea.presum %[[G]] dim = 0 exclusive reverse : tensor<6x8xf32>
// CHECK: %[[DECAYED:.+]] = linalg.generic {{.*}} ins(%[[Q]], %[[SUFFIX]] : tensor<6x8xf32>, tensor<6x8xf32>)
// CHECK:   math.exp
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[DECAYED]], %{{.+}} : tensor<6x8xf32>, tensor<6x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[S]] : tensor<6x8xf32>, tensor<8x4xf32>)
// CHECK-NOT: scf.for
// CHECK-NOT: linea.gated_linear_attention
func.func @gated_prefix(%q: tensor<6x8xf32>, %v: tensor<6x4xf32>, %g: tensor<6x8xf32>) -> tensor<6x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = prefix(6)
      : tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x4xf32>, tensor<6x8xf32> -> tensor<6x4xf32>
  return %o : tensor<6x4xf32>
}

// -----

// A gated prefix shorter than the sequence is left for linea-split-prefix,
// and linea-select-forms' choice of another form is obeyed.
// CHECK-LABEL: func.func @left_alone
// CHECK: linea.gated_linear_attention {{.*}} mask = prefix(3)
// CHECK: linea.linear_attention {{.*}} mask = none form = quadratic
func.func @left_alone(%q: tensor<6x8xf32>, %g: tensor<6xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>) {
  %o = linea.gated_linear_attention %q, %q, %q, %g mask = prefix(3)
      : tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>, tensor<6xf32> -> tensor<6x8xf32>
  %p = linea.linear_attention %q, %q, %q mask = none form = quadratic
      : tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  return %o, %p : tensor<6x8xf32>, tensor<6x8xf32>
}

// -----

// Inside a sequence block a gated op's one-shot form would decay all of the
// segment's keys into a copy as long as the segment: it runs over chunks of
// 64 rows instead (the remainder padded to 64). The first loop decays the
// state by each chunk's gate sum and adds the chunk's decayed keys times
// its values; the second multiplies each chunk's queries by the final
// state, straight into the output.
// CHECK-LABEL: func.func @gated_in_sequence_block
// CHECK: scf.forall
// CHECK:   %[[OWN:.+]] = bufferization.alloc_tensor() : tensor<8x4xf32>
// CHECK:   %[[S0:.+]] = linalg.fill {{.*}} outs(%[[OWN]] : tensor<8x4xf32>)
// CHECK:   %[[ADDED:.+]]:2 = scf.for {{.*}} step %c64 iter_args(%{{.+}} = %[[S0]], %{{.+}} = %{{.+}})
// CHECK:     linea.presum %{{.+}} dim = 0 exclusive reverse : tensor<64xf32>
// CHECK:     scf.yield
// CHECK:   } : tensor<?x8xf32> to tensor<64x8xf32>
// CHECK:   %[[FINAL:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<64x8xf32>, tensor<64x4xf32>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK:   %[[ROWS:.+]]:2 = scf.for {{.*}} step %c64 iter_args(%[[S:.+]] = %[[FINAL]], %[[OUT:.+]] = %{{.+}})
// CHECK:     %[[CHUNK:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[S]] : tensor<64x8xf32>, tensor<8x4xf32>)
// CHECK:     tensor.insert_slice %[[CHUNK]] into %[[OUT]]
// CHECK:     scf.yield %[[S]]
// CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %[[ROWS]]#0 : tensor<64x8xf32>, tensor<8x4xf32>)
// CHECK:   tensor.insert_slice %{{.+}} into %[[ROWS]]#1
// CHECK:   scf.forall.in_parallel
func.func @gated_in_sequence_block(%q: tensor<3x?x8xf32>, %v: tensor<3x?x4xf32>, %g: tensor<3x?xf32>) -> tensor<3x?x4xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %q, %c1 : tensor<3x?x8xf32>
  %empty = tensor.empty(%n) : tensor<3x?x4xf32>
  %r = scf.forall (%b) in (3) shared_outs(%out = %empty) -> (tensor<3x?x4xf32>) {
    %qs = tensor.extract_slice %q[%b, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<3x?x8xf32> to tensor<?x8xf32>
    %vs = tensor.extract_slice %v[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<3x?x4xf32> to tensor<?x4xf32>
    %gs = tensor.extract_slice %g[%b, 0] [1, %n] [1, 1] : tensor<3x?xf32> to tensor<?xf32>
    %o = linea.gated_linear_attention %qs, %qs, %vs, %gs mask = none
        : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xf32> -> tensor<?x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %o into %out[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<?x4xf32> into tensor<3x?x4xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<3x?x4xf32>
}
