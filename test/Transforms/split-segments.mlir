// RUN: linea-opt %s -linea-split-segments -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-split-segments=hand-off=1" -split-input-file | FileCheck %s --check-prefix=HANDOFF

// One presum per segment, in a parallel loop over the N = |o| - 1 segments:
// segment n's rows [o_n, o_{n+1}) of the input and of the decay, the op's
// attributes kept, its rows inserted at o_n.
// CHECK-LABEL: func.func @decayed
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x?x5xf32>, %[[A:[a-z0-9_]+]]: tensor<2x?xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi32>)
// CHECK: %[[ENTRIES:.+]] = tensor.dim %[[O]], %c0
// CHECK: %[[N:.+]] = arith.subi %[[ENTRIES]], %c1
// CHECK: %[[R:.+]] = scf.forall (%[[I:.+]]) in (%[[N]]) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x?x5xf32>)
// CHECK:   %[[S32:.+]] = tensor.extract %[[O]][%[[I]]]
// CHECK:   %[[START:.+]] = arith.index_cast %[[S32]] : i32 to index
// CHECK:   %[[NEXT:.+]] = arith.addi %[[I]], %c1
// CHECK:   %[[E32:.+]] = tensor.extract %[[O]][%[[NEXT]]]
// CHECK:   %[[END:.+]] = arith.index_cast %[[E32]] : i32 to index
// CHECK:   %[[SIZE:.+]] = arith.subi %[[END]], %[[START]]
// CHECK:   %[[ROWS:.+]] = tensor.extract_slice %[[X]][0, %[[START]], 0] [2, %[[SIZE]], 5]
// CHECK:   %[[DECAY:.+]] = tensor.extract_slice %[[A]][0, %[[START]]] [2, %[[SIZE]]]
// CHECK:   %[[SUM:.+]] = linea.presum %[[ROWS]] decay(%[[DECAY]] : tensor<2x?xf32>) dim = 1 exclusive reverse : tensor<2x?x5xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][0, %[[START]], 0] [2, %[[SIZE]], 5]
// CHECK: return %[[R]]
// Handed off, the same segments one after another: an scf.for that carries
// the output and inserts each segment's rows into it.
// HANDOFF-LABEL: func.func @decayed
// HANDOFF-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x?x5xf32>, %[[A:[a-z0-9_]+]]: tensor<2x?xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi32>)
// HANDOFF-NOT: scf.forall
// HANDOFF: %[[R:.+]] = scf.for %[[I:.+]] = %c0 to %{{.+}} step %c1 iter_args(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x?x5xf32>)
// HANDOFF:   %[[S32:.+]] = tensor.extract %[[O]][%[[I]]]
// HANDOFF:   %[[START:.+]] = arith.index_cast %[[S32]] : i32 to index
// HANDOFF:   %[[ROWS:.+]] = tensor.extract_slice %[[X]][0, %[[START]], 0] [2, %[[SIZE:.+]], 5]
// HANDOFF:   %[[SUM:.+]] = linea.presum %[[ROWS]] decay(%{{.+}} : tensor<2x?xf32>) dim = 1 exclusive reverse
// HANDOFF:   %[[FILLED:.+]] = tensor.insert_slice %[[SUM]] into %[[OUT]][0, %[[START]], 0] [2, %[[SIZE]], 5]
// HANDOFF:   scf.yield %[[FILLED]]
// HANDOFF: return %[[R]]
func.func @decayed(%x: tensor<2x?x5xf32>, %a: tensor<2x?xf32>, %o: tensor<?xi32>) -> tensor<2x?x5xf32> {
  %0 = linea.presum %x decay(%a : tensor<2x?xf32>) offsets(%o) dim = 1 exclusive reverse
      : tensor<2x?x5xf32>, tensor<?xi32> -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// The chosen form goes to every segment's op; an op without offsets stays.
// CHECK-LABEL: func.func @form_kept
// CHECK: scf.forall
// CHECK:   linea.presum %{{.+}} form = blocked_scan(32) : tensor<?x3xf32>
// CHECK: linea.presum %{{.+}} exclusive : tensor<?x3xf32>
// CHECK-NOT: scf.forall
func.func @form_kept(%x: tensor<?x3xf32>, %o: tensor<?xindex>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = linea.presum %x offsets(%o) form = blocked_scan(32) : tensor<?x3xf32>, tensor<?xindex> -> tensor<?x3xf32>
  %1 = linea.presum %x exclusive : tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// Linear attention per segment: segment n's rows of q, k and v, initial
// state n (a [B..., Dk, Dv] slice of [N, B..., Dk, Dv]) and prefix length
// j_n; its output rows go to [o_n, o_{n+1}), its final state to entry n.
// CHECK-LABEL: func.func @linear_attention
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x?x6xf32>, %[[S0:[a-z0-9_]+]]: tensor<?x2x8x6xf32>, %[[O:[a-z0-9_]+]]: tensor<?xindex>, %[[J:[a-z0-9_]+]]: tensor<?xi64>)
// CHECK: %[[STATES:.+]] = tensor.empty(%{{.+}}) : tensor<?x2x8x6xf32>
// CHECK: %[[R:.+]]:2 = scf.forall (%[[I:.+]]) in (%{{.+}}) shared_outs(%[[OUT:.+]] = %{{.+}}, %[[FIN:.+]] = %[[STATES]]) -> (tensor<2x?x6xf32>, tensor<?x2x8x6xf32>)
// CHECK:   %[[START:.+]] = tensor.extract %[[O]][%[[I]]]
// CHECK:   %[[SIZE:.+]] = arith.subi %{{.+}}, %[[START]]
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][0, %[[START]], 0] [2, %[[SIZE]], 8]
// CHECK:   %[[KS:.+]] = tensor.extract_slice %[[Q]][0, %[[START]], 0] [2, %[[SIZE]], 8]
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[V]][0, %[[START]], 0] [2, %[[SIZE]], 6]
// CHECK:   %[[INIT:.+]] = tensor.extract_slice %[[S0]][%[[I]], 0, 0, 0] [1, 2, 8, 6] [1, 1, 1, 1] : tensor<?x2x8x6xf32> to tensor<2x8x6xf32>
// CHECK:   %[[J64:.+]] = tensor.extract %[[J]][%[[I]]]
// CHECK:   %[[JN:.+]] = arith.index_cast %[[J64]] : i64 to index
// CHECK:   %[[Y:.+]], %[[S:.+]] = linea.linear_attention %[[QS]], %[[KS]], %[[VS]] init(%[[INIT]]) mask = prefix(%[[JN]]) feature_map = elu_plus_one scale = 5.000000e-01 : {{.+}} -> tensor<2x?x6xf32>, tensor<2x8x6xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[Y]] into %[[OUT]][0, %[[START]], 0] [2, %[[SIZE]], 6]
// CHECK:     tensor.parallel_insert_slice %[[S]] into %[[FIN]][%[[I]], 0, 0, 0] [1, 2, 8, 6]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @linear_attention(%q: tensor<2x?x8xf32>, %v: tensor<2x?x6xf32>, %s0: tensor<?x2x8x6xf32>,
                            %o: tensor<?xindex>, %js: tensor<?xi64>)
    -> (tensor<2x?x6xf32>, tensor<?x2x8x6xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v init(%s0) offsets(%o) mask = prefix(%js)
      feature_map = elu_plus_one scale = 0.5
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>, tensor<?x2x8x6xf32>,
        tensor<?xindex>, tensor<?xi64> -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
  return %y, %s : tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
}

// -----

// The gated op: the gate's rows go with q, k and v.
// CHECK-LABEL: func.func @gated
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<?x4xf32>, %[[G:[a-z0-9_]+]]: tensor<?xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi32>)
// CHECK: scf.forall
// CHECK:   %[[GS:.+]] = tensor.extract_slice %[[G]][%[[START:.+]]] [%[[SIZE:.+]]] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK:   linea.gated_linear_attention %{{.+}}, %{{.+}}, %{{.+}}, %[[GS]] mask = causal : {{.+}} -> tensor<?x4xf32>
// CHECK-NOT: linea.gated_linear_attention
func.func @gated(%q: tensor<?x4xf32>, %g: tensor<?xf32>, %o: tensor<?xi32>) -> tensor<?x4xf32> {
  %y = linea.gated_linear_attention %q, %q, %q, %g offsets(%o) mask = causal
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xi32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Softmax attention per segment: its queries against its keys and values,
// with the op's mask and scale.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<?x4xf32>, %[[V:[a-z0-9_]+]]: tensor<?x2xf32>, %[[O:[a-z0-9_]+]]: tensor<?xindex>)
// CHECK: scf.forall
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[START:.+]], 0] [%[[SIZE:.+]], 4]
// CHECK:   %[[KS:.+]] = tensor.extract_slice %[[Q]][%[[START]], 0] [%[[SIZE]], 4]
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[V]][%[[START]], 0] [%[[SIZE]], 2]
// CHECK:   linea.attention %[[QS]], %[[KS]], %[[VS]] mask = causal scale = 2.500000e-01 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2xf32> -> tensor<?x2xf32>
func.func @softmax(%q: tensor<?x4xf32>, %v: tensor<?x2xf32>, %o: tensor<?xindex>) -> tensor<?x2xf32> {
  %y = linea.attention %q, %q, %v offsets(%o) mask = causal scale = 0.25
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x2xf32>, tensor<?xindex> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// A normalized prefix op with final states: the segments hold the op over
// [v, 1] with states [N, 4, 3 + 1]; the rows are divided by the ones
// column's, and the states lose it.
// CHECK-LABEL: func.func @normalized_prefix_states
// CHECK: %[[ALL:.+]]:2 = scf.forall {{.+}} -> (tensor<?x4xf32>, tensor<?x4x4xf32>)
// CHECK:   linea.linear_attention {{.+}} mask = prefix({{.+}}) feature_map = elu_plus_one :
// CHECK-SAME: -> tensor<?x4xf32>, tensor<4x4xf32>
// CHECK-DAG: %[[ROWS:.+]] = linalg.generic {{.+}} ins({{.+}}, %[[ALL]]#0 : tensor<?x3xf32>, tensor<?x4xf32>)
// CHECK-DAG: %[[STATES:.+]] = tensor.extract_slice %[[ALL]]#1[0, 0, 0] [%{{.+}}, 4, 3] [1, 1, 1] : tensor<?x4x4xf32> to tensor<?x4x3xf32>
// CHECK: return %[[ROWS]], %[[STATES]]
func.func @normalized_prefix_states(%q: tensor<?x4xf32>, %v: tensor<?x3xf32>, %o: tensor<?xi32>, %js: tensor<?xindex>) -> (tensor<?x3xf32>, tensor<?x4x3xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v offsets(%o) mask = prefix(%js) feature_map = elu_plus_one normalize
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x3xf32>, tensor<?xi32>, tensor<?xindex> -> tensor<?x3xf32>, tensor<?x4x3xf32>
  return %y, %s : tensor<?x3xf32>, tensor<?x4x3xf32>
}
