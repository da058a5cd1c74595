// The reference lowering's structure: each op becomes its plain definition.
// RUN: linea-opt %s -convert-linea-to-linalg -canonicalize -split-input-file | FileCheck %s

// A sequential scan: one scf.for over the (dynamic) sequence carrying a
// [1, D] running sum; exclusive stores the sum before adding, reverse walks
// from the end.
// CHECK-LABEL: func.func @presum_exclusive_reverse
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<?x8xf32>)
// CHECK: %[[L:[a-zA-Z0-9_]+]] = tensor.dim %[[X]], %c0
// CHECK: %[[RUNNING:[a-zA-Z0-9_]+]] = linalg.fill {{.*}} -> tensor<1x8xf32>
// CHECK: %[[LOOP:[a-zA-Z0-9_]+]]:2 = scf.for %[[I:[a-zA-Z0-9_]+]] = %c0 to %[[L]] step %c1 iter_args(%[[SUM:[a-zA-Z0-9_]+]] = %[[RUNNING]], %[[OUT:[a-zA-Z0-9_]+]] = %{{.+}})
// CHECK:   %[[LAST:[a-zA-Z0-9_]+]] = arith.subi %[[L]], %c1
// CHECK:   %[[POS:[a-zA-Z0-9_]+]] = arith.subi %[[LAST]], %[[I]]
// CHECK:   %[[ROW:[a-zA-Z0-9_]+]] = tensor.extract_slice %[[X]][%[[POS]], 0] [1, 8] [1, 1]
// CHECK:   %[[STORED:[a-zA-Z0-9_]+]] = tensor.insert_slice %[[SUM]] into %[[OUT]][%[[POS]], 0]
// CHECK:   %[[NEXT:[a-zA-Z0-9_]+]] = linalg.generic {{.*}} ins(%[[ROW]] : tensor<1x8xf32>) outs(%[[SUM]] : tensor<1x8xf32>)
// CHECK:   scf.yield %[[NEXT]], %[[STORED]]
// CHECK: return %[[LOOP]]#1
func.func @presum_exclusive_reverse(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = linea.presum %x exclusive reverse : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// A decayed scan: each step takes exp of its decay once, then decays the
// running sum by it (broadcast over the trailing dims) and adds the step's
// slice.
// CHECK-DAG: #[[ALL:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[LEAD:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @decayed_presum
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<?x4x3xf32>, %[[A:[a-zA-Z0-9_]+]]: tensor<?xf32>)
// CHECK: scf.for %[[I:[a-zA-Z0-9_]+]] = {{.+}} iter_args(%[[SUM:[a-zA-Z0-9_]+]] = %{{.+}}, %[[OUT:[a-zA-Z0-9_]+]] = %{{.+}})
// CHECK:   %[[ROW:.+]] = tensor.extract_slice %[[X]][%[[I]], 0, 0] [1, 4, 3]
// CHECK:   tensor.insert_slice %[[SUM]] into %[[OUT]][%[[I]], 0, 0]
// CHECK:   %[[STEP:.+]] = tensor.extract_slice %[[A]][%[[I]]] [1] [1]
// CHECK:   %[[FACTOR:.+]] = linalg.generic {{.*}} ins(%[[STEP]] : tensor<1xf32>)
// CHECK:     math.exp
// CHECK:   linalg.generic {indexing_maps = [#[[ALL]], #[[LEAD]], #[[ALL]]]{{.*}} ins(%[[ROW]], %[[FACTOR]] : {{.*}}) outs(%[[SUM]] :
// CHECK:     %[[D:.+]] = arith.mulf
// CHECK:     arith.addf %[[D]]
func.func @decayed_presum(%x: tensor<?x4x3xf32>, %a: tensor<?xf32>) -> tensor<?x4x3xf32> {
  %y = linea.presum %x decay(%a : tensor<?xf32>) dim = 0 exclusive : tensor<?x4x3xf32>
  return %y : tensor<?x4x3xf32>
}

// -----

// The masked quadratic form: scores over (b, i, t, d) masked by t <= p(i)
// with p(i) = max(i, j - 1), then scores times values.
// CHECK-DAG: #[[QMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[KMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[SMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @prefix_linear_attention
// CHECK-SAME: %[[J:[a-z0-9]+]]: index
// CHECK-NOT: linea.
// A runtime j is clamped to [0, L].
// CHECK: %[[LOW:[a-zA-Z0-9_]+]] = arith.maxsi %[[J]], %c0
// CHECK: %[[JC:[a-zA-Z0-9_]+]] = arith.minsi %[[LOW]], %{{.+}}
// CHECK: %[[SCORES:[a-zA-Z0-9_]+]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[KMAP]], #[[SMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-DAG:   %[[ROW:[a-zA-Z0-9_]+]] = linalg.index 1
// CHECK-DAG:   %[[COL:[a-zA-Z0-9_]+]] = linalg.index 2
// CHECK-DAG:   %[[JM1:[a-zA-Z0-9_]+]] = arith.subi %[[JC]], %c1
// CHECK:   %[[P:[a-zA-Z0-9_]+]] = arith.maxsi %[[ROW]], %[[JM1]]
// CHECK:   %[[VISIBLE:[a-zA-Z0-9_]+]] = arith.cmpi sle, %[[COL]], %[[P]]
// CHECK:   arith.select %[[VISIBLE]]
// CHECK: linalg.generic {{.*}} ins(%[[SCORES]], %{{.+}} : tensor<2x?x?xf32>, tensor<2x?x4xf32>)
// CHECK-NOT: scf.for
func.func @prefix_linear_attention(%q: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>, %j: index) -> tensor<2x?x4xf32> {
  %o = linea.linear_attention %q, %q, %v mask = prefix(%j) : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  return %o : tensor<2x?x4xf32>
}

// -----

// Gated: the recurrence itself, one token per step (the reference is exact,
// not fast): S = diag(exp(g_t)) S + k_t^T v_t, then o_t = q_t S. No
// exponent ever leaves its own step, so gates down to -20 cannot overflow.
// CHECK-LABEL: func.func @gated_causal
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<16x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<16x4xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<16x8xf32>)
// CHECK: scf.for %[[T:[a-zA-Z0-9_]+]] = %c0 to %c16 step %c1 iter_args(%[[S:[a-zA-Z0-9_]+]] = %{{.+}}, %[[OUT:[a-zA-Z0-9_]+]] = %{{.+}})
// CHECK:   %[[GT:.+]] = tensor.extract_slice %[[G]][%[[T]], 0] [1, 8]
// CHECK:   %[[DECAY:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<8xf32>) outs(%[[S]] : tensor<8x4xf32>)
// CHECK:     math.exp
// CHECK:   %[[UPDATED:.+]] = linalg.generic {{.*}} outs(%[[DECAY]] : tensor<8x4xf32>)
// CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %[[UPDATED]] : tensor<1x8xf32>, tensor<8x4xf32>)
// CHECK:   scf.yield %[[UPDATED]]
// CHECK-NOT: linea.
func.func @gated_causal(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>, %g: tensor<16x8xf32>) -> tensor<16x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32>, tensor<16x8xf32> -> tensor<16x4xf32>
  return %o : tensor<16x4xf32>
}

// -----

// Softmax: -inf where masked (t <= i + Lk - Lq = i + 2), a row max, exp of
// the shifted scores, row sums; rows with no visible key (a zero sum) give 0,
// and a NaN that went in stays NaN (`une`, not `ogt`).
// CHECK-LABEL: func.func @causal_attention
// CHECK: %[[NEGINF:[a-z0-9_]+]] = arith.constant 0xFF800000
// CHECK: arith.cmpi sle
// CHECK: arith.select {{.*}}, %[[NEGINF]]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.cmpf une
// CHECK: arith.divf
// CHECK-NOT: linea.
func.func @causal_attention(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x2xf32>) -> tensor<4x2xf32> {
  %o = linea.attention %q, %k, %v mask = causal : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x2xf32> -> tensor<4x2xf32>
  return %o : tensor<4x2xf32>
}

// -----

// fold: a loop over L / l segments carrying the memory and the output; the
// window is [memory; segment] and the body is inlined into the loop.
// CHECK-LABEL: func.func @fold
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<?x3xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<2x3xf32>)
// CHECK: %[[L:[a-zA-Z0-9_]+]] = tensor.dim %[[X]]
// CHECK: %[[N:[a-zA-Z0-9_]+]] = arith.divui %[[L]], %c2
// CHECK: %{{.+}}:2 = scf.for %[[S:[a-zA-Z0-9_]+]] = %c0 to %[[N]] step %c1 iter_args(%[[MEM:[a-zA-Z0-9_]+]] = %[[M]], %[[OUT:[a-zA-Z0-9_]+]] = %{{.+}})
// CHECK:   %[[START:[a-zA-Z0-9_]+]] = arith.muli %[[S]], %c2
// CHECK:   %[[SEG:[a-zA-Z0-9_]+]] = tensor.extract_slice %[[X]][%[[START]], 0] [2, 3]
// CHECK:   %[[W0:[a-zA-Z0-9_]+]] = tensor.insert_slice %[[MEM]] into %{{.+}}[0, 0] [2, 3]
// CHECK:   %[[W:[a-zA-Z0-9_]+]] = tensor.insert_slice %[[SEG]] into %[[W0]][2, 0] [2, 3]
// CHECK:   scf.for
// CHECK:     tensor.extract_slice %[[W]]
// CHECK:   %[[NEXT:[a-zA-Z0-9_]+]] = tensor.extract_slice %{{.+}}[2, 0] [2, 3]
// CHECK:   tensor.insert_slice %[[NEXT]] into %[[OUT]][%[[START]], 0]
// CHECK:   linalg.copy ins(%[[NEXT]] : tensor<2x3xf32>) outs(%[[MEM]] : tensor<2x3xf32>)
// CHECK-NOT: linea.
func.func @fold(%x: tensor<?x3xf32>, %m: tensor<2x3xf32>) -> (tensor<?x3xf32>, tensor<2x3xf32>) {
  %y, %mem = linea.fold %x, %m segment_length = 2 : tensor<?x3xf32>, tensor<2x3xf32> {
  ^bb0(%w: tensor<4x3xf32>):
    %r = linea.presum %w : tensor<4x3xf32>
    linea.yield %r : tensor<4x3xf32>
  }
  return %y, %mem : tensor<?x3xf32>, tensor<2x3xf32>
}
