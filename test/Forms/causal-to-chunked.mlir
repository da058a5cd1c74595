// RUN: linea-opt %s -linea-causal-to-chunked=chunk-size=32 -split-input-file | FileCheck %s

// One scf.for over the floor(L / 32) full chunks, each a static 32 rows,
// carrying the state S and the output, then the remainder (L % 32 rows, when
// there are any) as one more step under scf.if: L % 32 != 0 and dynamic L
// work. Per chunk: tril(Q K^T) V, plus Q S, then S += K^T V in place.
// CHECK-DAG: #[[T_D:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x?x4xf32>)
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG: %[[S0:.+]] = linalg.fill {{.*}} -> tensor<2x8x4xf32>
// CHECK: %[[L:.+]] = tensor.dim %[[Q]], %c1
// CHECK: %[[REM:.+]] = arith.remui %[[L]], %[[C32]]
// CHECK: %[[FULL:.+]] = arith.subi %[[L]], %[[REM]]
// CHECK: %[[LOOP:.+]]:2 = scf.for %[[START:.+]] = %c0 to %[[FULL]] step %[[C32]] iter_args(%[[S:.+]] = %[[S0]], %[[OUT:.+]] = %{{.+}}) -> (tensor<2x8x4xf32>, tensor<2x?x4xf32>)
// CHECK:   %[[QC:.+]] = tensor.extract_slice %[[Q]][0, %[[START]], 0] [2, 32, 8] {{.*}} to tensor<2x32x8xf32>
// CHECK:   %[[VC:.+]] = tensor.extract_slice %[[V]][0, %[[START]], 0] [2, 32, 4] {{.*}} to tensor<2x32x4xf32>
// CHECK:   %[[A:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x32x32xf32>)
// CHECK:     arith.cmpi sle
// CHECK:   %[[INTRA:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[VC]] :
// CHECK:   %[[ROWS:.+]] = linalg.generic {{.*}} ins(%[[QC]], %[[S]] : tensor<2x32x8xf32>, tensor<2x8x4xf32>) outs(%[[INTRA]] :
// CHECK:   %[[NEXT:.+]] = linalg.generic {indexing_maps = [#[[T_D]], {{.*}} outs(%[[S]] : tensor<2x8x4xf32>)
// CHECK:   %[[WRITTEN:.+]] = tensor.insert_slice %[[ROWS]] into %[[OUT]][0, %[[START]], 0]
// CHECK:   scf.yield %[[NEXT]], %[[WRITTEN]]
// CHECK: %[[HAS_TAIL:.+]] = arith.cmpi ne, %[[REM]], %c0
// CHECK: %[[TAIL:.+]]:2 = scf.if %[[HAS_TAIL]]
// CHECK:   tensor.extract_slice %[[Q]][0, %[[FULL]], 0] [2, %[[REM]], 8]
// CHECK:   scf.yield
// CHECK: } else {
// CHECK:   scf.yield %[[LOOP]]#0, %[[LOOP]]#1
// CHECK: return %[[TAIL]]#1, %[[TAIL]]#0
func.func @causal(%q: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> (tensor<2x?x4xf32>, tensor<2x8x4xf32>) {
  %o, %s = linea.linear_attention %q, %q, %v mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>, tensor<2x8x4xf32>
  return %o, %s : tensor<2x?x4xf32>, tensor<2x8x4xf32>
}

// -----

// Gated: decays relative to the chunk start. presum of the chunk's gates
// (inclusive for the rows, exclusive reverse for the state update), the
// inter-chunk term q .* exp(b), and S decayed by exp(sum of the chunk's g).
// The intra-chunk scores: where the chunk's |b| <= 30, q .* exp(b) and
// k .* exp(-b) in one masked contraction; else a loop over 16-column blocks:
// the diagonal block exact (exp(b_i - b_t)), the rows below it one plain
// contraction of queries and keys decayed against the block's last row r
// (queries only below it, `i > r`).
// CHECK-LABEL: func.func @gated
// CHECK: scf.for
// CHECK:   %[[GC:.+]] = tensor.extract_slice %{{.+}} : tensor<100xf32> to tensor<32xf32>
// CHECK:   %[[B:.+]] = linea.presum %[[GC]] dim = 0 : tensor<32xf32>
// CHECK:   linalg.reduce
// CHECK:     math.absf
// CHECK:   %[[SMALL:.+]] = arith.cmpf ole, %{{.+}}, %cst{{.*}} : f32
// CHECK:   scf.if %[[SMALL]] -> (tensor<32x32xf32>)
// CHECK:     arith.negf
// CHECK:     %[[QD:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[B]] :
// CHECK:     %[[KD:.+]] = linalg.generic
// CHECK:     linalg.generic {{.*}} ins(%[[QD]], %[[KD]] :
// CHECK:   } else {
// CHECK:     scf.for %[[FIRST:.+]] = %c0 to %c32 step %c16 iter_args(%[[S:.+]] = %{{.+}}) -> (tensor<32x32xf32>)
// CHECK:       %[[BB:.+]] = tensor.extract_slice %[[B]][%[[FIRST]]] [16] [1]
// CHECK:       %[[DIAG:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %[[BB]], %[[BB]] : {{.*}}) outs(%{{.+}} : tensor<16x16xf32>)
// CHECK:         math.exp
// CHECK:       %[[LAST:.+]] = arith.addi %[[FIRST]], %c15
// CHECK:       %[[REF:.+]] = tensor.extract_slice %[[B]][%[[LAST]]] [1] [1] : tensor<32xf32> to tensor<f32>
// CHECK:       %[[QR:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[B]], %[[REF]] : tensor<32x8xf32>, tensor<32xf32>, tensor<f32>)
// CHECK:         arith.cmpi sgt, %{{.+}}, %[[LAST]]
// CHECK:       %[[KR:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[BB]], %[[REF]] : tensor<16x8xf32>, tensor<16xf32>, tensor<f32>)
// CHECK:       %[[COL:.+]] = tensor.extract_slice %[[S]][0, %[[FIRST]]] [32, 16]
// CHECK:       %[[WITH_DIAG:.+]] = tensor.insert_slice %[[DIAG]] into %[[COL]][%[[FIRST]], 0] [16, 16]
// CHECK:       %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[QR]], %[[KR]] : tensor<32x8xf32>, tensor<16x8xf32>) outs(%[[WITH_DIAG]] : tensor<32x16xf32>)
// CHECK:       tensor.insert_slice %[[SUM]] into %[[S]][0, %[[FIRST]]] [32, 16]
// CHECK:   linea.presum %[[GC]] dim = 0 exclusive reverse : tensor<32xf32>
// CHECK:   scf.yield
// CHECK-NOT: linea.gated_linear_attention
func.func @gated(%q: tensor<100x8xf32>, %v: tensor<100x4xf32>, %g: tensor<100xf32>) -> tensor<100x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal
      : tensor<100x8xf32>, tensor<100x8xf32>, tensor<100x4xf32>, tensor<100xf32> -> tensor<100x4xf32>
  return %o : tensor<100x4xf32>
}

// -----

// Planned for the GPU: no data-dependent branch, the safe sub-blocked scores
// only.
// CHECK-LABEL: func.func @gated_for_gpu
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK:   scf.for %{{.+}} = %c0 to %c32 step %c16
// CHECK:     linalg.generic {{.*}} ins(%{{.+}}, %{{.+}}, %[[B:.+]], %[[B]] :
// CHECK:   scf.yield
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
func.func @gated_for_gpu(%q: tensor<100x8xf32>, %v: tensor<100x4xf32>, %g: tensor<100xf32>) -> tensor<100x4xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal
      : tensor<100x8xf32>, tensor<100x8xf32>, tensor<100x4xf32>, tensor<100xf32> -> tensor<100x4xf32>
  return %o : tensor<100x4xf32>
}
}

// -----

// Bidirectional ops are not this pass's; a quadratic choice is obeyed.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK: linea.linear_attention {{.*}} mask = none
// CHECK: linea.linear_attention {{.*}} mask = causal form = quadratic :
func.func @left_alone(%q: tensor<6x8xf32>) -> (tensor<6x8xf32>, tensor<6x8xf32>) {
  %o = linea.linear_attention %q, %q, %q mask = none
      : tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  %p = linea.linear_attention %q, %q, %q mask = causal form = quadratic
      : tensor<6x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  return %o, %p : tensor<6x8xf32>, tensor<6x8xf32>
}

// -----

// Inside a sequence block (an scf.forall mapped to GPU blocks, as
// linea-distribute-sequences builds it)
// every temporary gets a static size: the remainder chunk's operands are
// padded with zero rows to C, and only its first L % C output rows are
// kept. The remainder step follows the loop unconditionally (no rows left:
// a chunk of zeros that changes nothing), with no scf.if, which would keep
// bufferization from writing the rows in place where the output is inserted
// with tensor.insert_slice. The state starts in a buffer of its own
// (bufferization.alloc_tensor) rather than in the forall's output.
// CHECK-LABEL: func.func @in_sequence_instance
// CHECK: scf.forall
// CHECK:   %[[OWN:.+]] = bufferization.alloc_tensor() : tensor<8x4xf32>
// CHECK:   %[[S0:.+]] = linalg.fill {{.*}} outs(%[[OWN]] : tensor<8x4xf32>)
// CHECK:   %[[REM:.+]] = arith.remui
// CHECK:   scf.for {{.*}} iter_args(%{{.+}} = %[[S0]]
// CHECK-NOT: scf.if
// CHECK:     %[[ROWS:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0] [%[[REM]], 8]
// CHECK:     tensor.pad %[[ROWS]] low[0, 0] high[%{{.+}}, 0]
// CHECK:     } : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK:     %[[KEPT:.+]] = tensor.extract_slice %{{.+}}[0, 0] [%[[REM]], 4] [1, 1] : tensor<32x4xf32> to tensor<?x4xf32>
// CHECK:     tensor.insert_slice %[[KEPT]]
func.func @in_sequence_instance(%q: tensor<3x?x8xf32>, %v: tensor<3x?x4xf32>) -> tensor<3x?x4xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %q, %c1 : tensor<3x?x8xf32>
  %empty = tensor.empty(%n) : tensor<3x?x4xf32>
  %r = scf.forall (%b) in (3) shared_outs(%out = %empty) -> (tensor<3x?x4xf32>) {
    %qs = tensor.extract_slice %q[%b, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<3x?x8xf32> to tensor<?x8xf32>
    %vs = tensor.extract_slice %v[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<3x?x4xf32> to tensor<?x4xf32>
    %o = linea.linear_attention %qs, %qs, %vs mask = causal : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %o into %out[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<?x4xf32> into tensor<3x?x4xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<3x?x4xf32>
}

// -----

// Normalized: the ones column (the normalizer's row sums) is appended to each
// chunk's values, not to the whole [L, Dv] values before the loop (a copy a
// GPU sequence block could not keep in shared memory); the state carries it.
// CHECK-LABEL: func.func @normalized
// CHECK-NOT:     tensor<2x?x5xf32>
// CHECK:         scf.for {{.*}} -> (tensor<2x8x5xf32>, tensor<2x?x4xf32>)
// CHECK:           %[[VC:.+]] = tensor.extract_slice %{{.+}}[0, %{{.+}}, 0] [2, 32, 4]
// CHECK:           %[[ONES:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x32x5xf32>)
// CHECK:           tensor.insert_slice %[[VC]] into %[[ONES]][0, 0, 0] [2, 32, 4]
func.func @normalized(%q: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %o = linea.linear_attention %q, %q, %v mask = causal feature_map = elu_plus_one normalize
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  return %o : tensor<2x?x4xf32>
}

// -----

// Normalized, elu + 1, inside a sequence block: the remainder's rows are
// padded to C before the feature map and the ones column, so that no
// temporary of the tail has a dynamic size (a tail of [L % C, Dv + 1] values
// kept a causal transformer's whole sequence loop on the GPU host). elu + 1
// maps the zero rows to ones, so the keys' padding rows are zeroed again
// before they reach the scores and the state.
// CHECK-LABEL: func.func @normalized_in_sequence_instance
// CHECK:   %[[REM:.+]] = arith.remui
// CHECK-NOT: tensor.empty(%{{.+}}) : tensor<?x5xf32>
// CHECK:     tensor.pad %{{.+}} low[0, 0] high[%{{.+}}, 0]
// CHECK:     } : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK:     %[[KROWS:.+]] = tensor.pad %{{.+}} low[0, 0] high[%{{.+}}, 0]
// CHECK:     } : tensor<?x8xf32> to tensor<32x8xf32>
// CHECK:     %[[VROWS:.+]] = tensor.pad %{{.+}} low[0, 0] high[%{{.+}}, 0]
// CHECK:     } : tensor<?x4xf32> to tensor<32x4xf32>
// CHECK:     %[[ELU:.+]] = linalg.generic {{.*}} ins(%[[KROWS]] : tensor<32x8xf32>)
// CHECK:     %[[VONES:.+]] = tensor.insert_slice %[[VROWS]] into %{{.+}}[0, 0] [32, 4] [1, 1] : tensor<32x4xf32> into tensor<32x5xf32>
// CHECK:     %[[KEPT:.+]] = tensor.extract_slice %[[ELU]][0, 0] [%[[REM]], 8] [1, 1] : tensor<32x8xf32> to tensor<?x8xf32>
// CHECK:     %[[KEYS:.+]] = tensor.pad %[[KEPT]] low[0, 0] high[%{{.+}}, 0]
// CHECK:     linalg.generic {{.*}} ins(%{{.+}}, %[[KEYS]] : tensor<32x8xf32>, tensor<32x8xf32>)
// CHECK:     linalg.generic {{.*}} ins(%{{.+}}, %[[VONES]] : tensor<32x32xf32>, tensor<32x5xf32>)
// CHECK-NOT: tensor.empty(%{{.+}}) : tensor<?x5xf32>
// CHECK:   scf.forall.in_parallel
func.func @normalized_in_sequence_instance(%q: tensor<3x?x8xf32>, %v: tensor<3x?x4xf32>) -> tensor<3x?x4xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %q, %c1 : tensor<3x?x8xf32>
  %empty = tensor.empty(%n) : tensor<3x?x4xf32>
  %r = scf.forall (%b) in (3) shared_outs(%out = %empty) -> (tensor<3x?x4xf32>) {
    %qs = tensor.extract_slice %q[%b, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<3x?x8xf32> to tensor<?x8xf32>
    %vs = tensor.extract_slice %v[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<3x?x4xf32> to tensor<?x4xf32>
    %o = linea.linear_attention %qs, %qs, %vs mask = causal feature_map = elu_plus_one normalize
        : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %o into %out[%b, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<?x4xf32> into tensor<3x?x4xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<3x?x4xf32>
}
