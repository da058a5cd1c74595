// RUN: linea-opt %s --linea-causal-to-chunk-parallel -canonicalize -cse -split-input-file | FileCheck %s
// RUN: sed 's/shared_memory = 232448/shared_memory = 1024/' %s | linea-opt --linea-causal-to-chunk-parallel -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=GRIDS
// Without sequence blocks (linea-export: the receiving compiler maps the
// work), grids over every chunk and no scf.forall.
// RUN: linea-opt %s --linea-causal-to-chunk-parallel=hand-off=1 -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=HANDOFF

// L = 37 in chunks of 16: q, k, v padded with zero rows to 48 and viewed as
// [B, N = 3, C = 16, D]; every chunk's state K_c^T V_c at once; the states
// entering the chunks are the inclusive presum of [S0; H] along the chunk
// axis, a sequential scan by choice of the form (element c enters chunk c,
// element N is the final state); every
// chunk's rows at once; the rows joined and the padding dropped.
// CHECK-DAG: #[[KEYS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[VALUES:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[STATES:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x37x8xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x37x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x37x4xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[QP:.+]] = tensor.pad %[[Q]] low[0, 0, 0] high[0, 11, 0]
// CHECK: %[[QC:.+]] = tensor.expand_shape %[[QP]] {{\[}}[0], [1, 2], [3]] output_shape [2, 3, 16, 8]
// CHECK: %[[KP:.+]] = tensor.pad %[[K]] low[0, 0, 0] high[0, 11, 0]
// CHECK: %[[KC:.+]] = tensor.expand_shape %[[KP]]
// CHECK: %[[VP:.+]] = tensor.pad %[[V]] low[0, 0, 0] high[0, 11, 0]
// CHECK: %[[VC:.+]] = tensor.expand_shape %[[VP]] {{.*}} into tensor<2x3x16x4xf32>
// CHECK: %[[H:.+]] = linalg.generic {indexing_maps = [#[[KEYS]], #[[VALUES]], #[[STATES]]], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%[[KC]], %[[VC]] : {{.*}}) outs({{.*}} : tensor<2x3x8x4xf32>)
// CHECK: %[[WITH_S0:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [2, 1, 8, 4]
// CHECK: %[[ALL:.+]] = tensor.insert_slice %[[H]] into %[[WITH_S0]][0, 1, 0, 0] [2, 3, 8, 4]
// CHECK: %[[SCAN:.+]] = linea.presum %[[ALL]] dim = 1 form = scan : tensor<2x4x8x4xf32>
// CHECK: %[[ENTERING:.+]] = tensor.extract_slice %[[SCAN]][0, 0, 0, 0] [2, 3, 8, 4]
// CHECK: %[[FINAL:.+]] = tensor.extract_slice %[[SCAN]][0, 3, 0, 0] [2, 1, 8, 4] {{.*}} to tensor<2x8x4xf32>
// CHECK: %[[SCORES:.+]] = linalg.generic {{.*}} ins(%[[QC]], %[[KC]] : {{.*}}) outs({{.*}} : tensor<2x3x16x16xf32>)
// CHECK:   arith.cmpi sle
// CHECK: %[[INTRA:.+]] = linalg.generic {{.*}} ins(%[[SCORES]], %[[VC]] :
// CHECK: %[[ROWS:.+]] = linalg.generic {{.*}} ins(%[[QC]], %[[ENTERING]] : {{.*}}) outs(%[[INTRA]] :
// CHECK: %[[JOINED:.+]] = tensor.collapse_shape %[[ROWS]] {{\[}}[0], [1, 2], [3]] : tensor<2x3x16x4xf32> into tensor<2x48x4xf32>
// CHECK: %[[O:.+]] = tensor.extract_slice %[[JOINED]][0, 0, 0] [2, 37, 4]
// CHECK: return %[[O]], %[[FINAL]]
func.func @plain(%q: tensor<2x37x8xf32>, %k: tensor<2x37x8xf32>, %v: tensor<2x37x4xf32>)
    -> (tensor<2x37x4xf32>, tensor<2x8x4xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v mask = causal form = chunk_parallel(16)
      : tensor<2x37x8xf32>, tensor<2x37x8xf32>, tensor<2x37x4xf32> -> tensor<2x37x4xf32>, tensor<2x8x4xf32>
  return %o, %s : tensor<2x37x4xf32>, tensor<2x8x4xf32>
}

// -----

// Gated, dynamic L, an initial state: the chunk count is ceil(L / 32) at
// run time; the scan of [S0; H] decays by [0; G] with G each chunk's
// total gate, and the rows decay relative to the chunk start.
// CHECK-LABEL: func.func @gated
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<3x?x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<3x?x4xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<3x?xf32>, %[[S0:[a-zA-Z0-9_]+]]: tensor<3x8x4xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[L:.+]] = tensor.dim %[[Q]], %c1
// CHECK: %[[N:.+]] = affine.apply #{{.+}}()[%[[L]]]
// CHECK: %[[GP:.+]] = tensor.pad %[[G]]
// CHECK: %[[GC:.+]] = tensor.expand_shape %[[GP]] {{\[}}[0], [1, 2]] output_shape [3, %[[N]], 32] : tensor<3x?xf32> into tensor<3x?x32xf32>
// CHECK: %[[SUFFIX:.+]] = linea.presum %[[GC]] dim = 2 exclusive reverse
// CHECK: %[[START:.+]] = linalg.copy ins(%[[S0]] :
// CHECK: %[[WITH_S0:.+]] = tensor.insert_slice %[[START]] into
// CHECK: %[[STATES:.+]] = tensor.insert_slice %{{.+}} into %[[WITH_S0]][0, 1, 0, 0]
// CHECK: %[[TOTAL:.+]] = linalg.generic {{.*}} ins(%[[GC]] : tensor<3x?x32xf32>) outs(%{{.+}} : tensor<3x?xf32>)
// CHECK: %[[DECAY:.+]] = tensor.insert_slice %[[TOTAL]] into %{{.+}}[0, 1] [3, %{{.+}}]
// CHECK: %[[SCAN:.+]] = linea.presum %[[STATES]] decay(%[[DECAY]] : tensor<3x?xf32>) dim = 1 form = scan : tensor<3x?x8x4xf32>
// CHECK: %[[CUM:.+]] = linea.presum %[[GC]] dim = 2 : tensor<3x?x32xf32>
// CHECK: tensor.collapse_shape
func.func @gated(%q: tensor<3x?x8xf32>, %v: tensor<3x?x4xf32>, %g: tensor<3x?xf32>, %s0: tensor<3x8x4xf32>)
    -> (tensor<3x?x4xf32>, tensor<3x8x4xf32>) {
  %o, %s = linea.gated_linear_attention %q, %q, %v, %g init(%s0) mask = causal form = chunk_parallel(32)
      : tensor<3x?x8xf32>, tensor<3x?x8xf32>, tensor<3x?x4xf32>, tensor<3x?xf32>, tensor<3x8x4xf32>
      -> tensor<3x?x4xf32>, tensor<3x8x4xf32>
  return %o, %s : tensor<3x?x4xf32>, tensor<3x8x4xf32>
}

// -----

// A sequence shorter than a chunk is one chunk of its own length: no pad.
// CHECK-LABEL: func.func @short
// CHECK-NOT: tensor.pad
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2]] output_shape [1, 5, 8]
// CHECK: linea.presum %{{.+}} dim = 0 form = scan : tensor<2x8x8xf32>
func.func @short(%q: tensor<5x8xf32>) -> tensor<5x8xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal form = chunk_parallel(64)
      : tensor<5x8xf32>, tensor<5x8xf32>, tensor<5x8xf32> -> tensor<5x8xf32>
  return %o : tensor<5x8xf32>
}

// -----

// Planned for the GPU, a gated op's local states and its rows are each one
// GPU block per chunk (an scf.forall over [B, N] mapped to blocks): the
// first decays the chunk's keys by the suffix sums of its gates and takes
// K^T V from its copy of the values; the second copies its chunk of q, k and v (one value here) and
// computes the rows there as the chunked form does, its block-column loop
// inside. Their temporaries live in shared memory.
// CHECK-LABEL: func.func @gated_blocks_at_once
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x64x8xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<2x64x8xf32>)
// CHECK: %[[QC:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 8]
// CHECK: %[[GC:.+]] = tensor.expand_shape %[[G]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 8]
// CHECK: %[[LOCAL:.+]] = scf.forall (%[[LB:.+]], %[[LN:.+]]) in (2, 2) shared_outs(%[[H:.+]] = %{{.+}}) -> (tensor<2x2x8x8xf32>)
// CHECK:   %[[KS:.+]] = tensor.extract_slice %[[QC]][%[[LB]], %[[LN]], 0, 0] [1, 1, 32, 8]
// CHECK:   %[[VCOPY:.+]] = linalg.copy ins(%[[KS]] : tensor<1x1x32x8xf32>)
// CHECK:   %[[SUFFIX:.+]] = linea.presum %{{.+}} dim = 2 exclusive reverse : tensor<1x1x32x8xf32>
// CHECK:   %[[DK:.+]] = linalg.generic {{.*}} ins(%[[KS]], %[[SUFFIX]] :
// CHECK:   %[[HC:.+]] = linalg.generic {{.*}} ins(%[[DK]], %[[VCOPY]] :
// CHECK:   tensor.parallel_insert_slice %[[HC]] into %[[H]][%[[LB]], %[[LN]], 0, 0] [1, 1, 8, 8]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK: tensor.insert_slice %[[LOCAL]] into
// CHECK: %[[SCAN:.+]] = linea.presum %{{.+}} decay(%{{.+}}) dim = 1 form = scan : tensor<2x3x8x8xf32>
// CHECK: %[[ENTERING:.+]] = tensor.extract_slice %[[SCAN]][0, 0, 0, 0] [2, 2, 8, 8]
// CHECK: %[[ROWS:.+]] = scf.forall (%[[B:.+]], %[[N:.+]]) in (2, 2) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x2x32x8xf32>)
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[QC]][%[[B]], %[[N]], 0, 0] [1, 1, 32, 8]
// CHECK:   %[[QCOPY:.+]] = linalg.copy ins(%[[QS]] : tensor<1x1x32x8xf32>)
// CHECK:   %[[GS:.+]] = tensor.extract_slice %[[GC]][%[[B]], %[[N]], 0, 0] [1, 1, 32, 8]
// CHECK:   %[[CUM:.+]] = linea.presum %[[GS]] dim = 2 : tensor<1x1x32x8xf32>
// CHECK:   %[[S:.+]] = tensor.extract_slice %[[ENTERING]][%[[B]], %[[N]], 0, 0] [1, 1, 8, 8]
// CHECK:   scf.for
// CHECK:   tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[B]], %[[N]], 0, 0] [1, 1, 32, 8]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK: tensor.collapse_shape %[[ROWS]]

// Where that block would not fit the shared memory, the rows are grids
// over every chunk: a static chunk of 32 rows takes the safe gated scores
// with its two 16-row blocks as a batch dim, no loop: the exact diagonal
// blocks (a GPU block each, copying its rows first; q and k are one value
// here, so one copy), the queries decayed to their block's first row, for each block
// the keys before it decayed to that row (C / 16 copies), one contraction
// of the two, and the diagonal blocks put in place where the block indices
// agree.
// GRIDS-LABEL: func.func @gated_blocks_at_once
// GRIDS-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x64x8xf32>
// GRIDS-NOT: scf.for
// GRIDS: %[[QC:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 8]
// GRIDS: %[[CUM:.+]] = linea.presum %{{.+}} dim = 2 : tensor<2x2x32x8xf32>
// GRIDS: %[[QB:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2, 3], [4]] output_shape [2, 2, 2, 16, 8]
// GRIDS: %[[CB:.+]] = tensor.expand_shape %[[CUM]] {{\[}}[0], [1], [2, 3], [4]] output_shape [2, 2, 2, 16, 8]
// GRIDS: %[[DIAG:.+]] = scf.forall (%[[B:.+]], %[[N:.+]], %[[I:.+]]) in (2, 2, 2) shared_outs(%[[D:.+]] = %{{.+}}) -> (tensor<2x2x2x16x16xf32>)
// GRIDS:   %[[CS:.+]] = tensor.extract_slice %[[CB]][%[[B]], %[[N]], %[[I]], 0, 0] [1, 1, 1, 16, 8]
// GRIDS:   %[[CC:.+]] = linalg.copy ins(%[[CS]] : tensor<1x1x1x16x8xf32>)
// GRIDS:   %[[QS:.+]] = tensor.extract_slice %[[QB]][%[[B]], %[[N]], %[[I]], 0, 0] [1, 1, 1, 16, 8]
// GRIDS:   %[[QCOPY:.+]] = linalg.copy ins(%[[QS]] : tensor<1x1x1x16x8xf32>)
// GRIDS:   %[[BLOCK:.+]] = linalg.generic {{.*}} ins(%[[QCOPY]], %[[QCOPY]], %[[CC]], %[[CC]] : {{.*}}) outs(%{{.+}} : tensor<1x1x1x16x16xf32>)
// GRIDS:   tensor.parallel_insert_slice %[[BLOCK]] into %[[D]][%[[B]], %[[N]], %[[I]], 0, 0] [1, 1, 1, 16, 16]
// GRIDS: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_2>]}
// GRIDS: %[[REF:.+]] = tensor.extract_slice %[[CB]][0, 0, 0, 0, 0] [2, 2, 2, 1, 8] [1, 1, 1, 1, 1] : tensor<2x2x2x16x8xf32> to tensor<2x2x2x8xf32>
// GRIDS: %[[QD:.+]] = linalg.generic {{.*}} ins(%[[QB]], %[[CB]], %[[REF]] : {{.*}}) outs(%{{.+}} : tensor<2x2x2x16x8xf32>)
// GRIDS: %[[KD:.+]] = linalg.generic {{.*}} ins(%[[QC]], %[[CUM]], %[[REF]] : tensor<2x2x32x8xf32>, tensor<2x2x32x8xf32>, tensor<2x2x2x8xf32>) outs(%{{.+}} : tensor<2x2x2x32x8xf32>)
// GRIDS:   arith.cmpi slt
// GRIDS:   math.exp
// GRIDS: %[[LEFT:.+]] = linalg.generic {{.*}} ins(%[[QD]], %[[KD]] : tensor<2x2x2x16x8xf32>, tensor<2x2x2x32x8xf32>) outs(%{{.+}} : tensor<2x2x2x16x32xf32>)
// GRIDS: %[[LB:.+]] = tensor.expand_shape %[[LEFT]] {{\[}}[0], [1], [2], [3], [4, 5]] output_shape [2, 2, 2, 16, 2, 16]
// GRIDS: %[[PLACED:.+]] = linalg.generic {{.*}} ins(%[[DIAG]] : tensor<2x2x2x16x16xf32>) outs(%[[LB]] : tensor<2x2x2x16x2x16xf32>)
// GRIDS:   arith.cmpi eq
// GRIDS: %[[SCORES:.+]] = tensor.collapse_shape %[[PLACED]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<2x2x2x16x2x16xf32> into tensor<2x2x32x32xf32>
// GRIDS: linalg.generic {{.*}} ins(%[[SCORES]], %[[QC]] :
// Handed off, the zero step before the chunk states and before the chunk
// gate totals is a pad (IREE's GPU target refuses the empty tensor filled by
// two inserts).
// HANDOFF-LABEL: func.func @gated_blocks_at_once
// HANDOFF-NOT: scf.forall
// HANDOFF: %[[STATES:.+]] = tensor.pad %{{.+}} low[0, 1, 0, 0] high[0, 0, 0, 0]
// HANDOFF: %[[TOTALS:.+]] = tensor.pad %{{.+}} low[0, 1, 0] high[0, 0, 0]
// HANDOFF: linea.presum %[[STATES]] decay(%[[TOTALS]] : tensor<2x3x8xf32>) dim = 1 form = scan
// HANDOFF-NOT: scf.forall
// HANDOFF: return
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
  func.func @gated_blocks_at_once(%q: tensor<2x64x8xf32>, %g: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
    %o = linea.gated_linear_attention %q, %q, %q, %g mask = causal form = chunk_parallel(32)
        : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32> -> tensor<2x64x8xf32>
    return %o : tensor<2x64x8xf32>
  }
}

// -----

// A scalar gate handed off: the exact 16 x 16 diagonal blocks are the plain
// scores, a contraction with nothing but a product in its body, then the
// decay exp(b_i - b_t) as their elementwise epilogue (IREE's GPU target
// cannot distribute the fused form).
// HANDOFF-LABEL: func.func @scalar_gated_hand_off
// HANDOFF: tensor.pad %{{.+}} low[0, 1, 0, 0]
// HANDOFF: tensor.pad %{{.+}} low[0, 1] high[0, 0]
// HANDOFF: %[[QB:.+]] = tensor.expand_shape %{{.+}} output_shape [2, 2, 2, 16, 8]
// HANDOFF: %[[CB:.+]] = tensor.expand_shape %{{.+}} output_shape [2, 2, 2, 16]
// HANDOFF: %[[SCORES:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QB]], %[[QB]] : {{.*}}) outs(%{{.+}} : tensor<2x2x2x16x16xf32>)
// HANDOFF-NEXT: ^bb0
// HANDOFF-NEXT: arith.mulf
// HANDOFF-NEXT: arith.addf
// HANDOFF-NEXT: linalg.yield
// HANDOFF: linalg.generic {{.*}} ins(%[[SCORES]], %[[CB]], %[[CB]] : {{.*}}) outs(%{{.+}} : tensor<2x2x2x16x16xf32>)
// HANDOFF: math.exp
// HANDOFF: return
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
  func.func @scalar_gated_hand_off(%q: tensor<2x64x8xf32>, %g: tensor<2x64xf32>) -> tensor<2x64x8xf32> {
    %o = linea.gated_linear_attention %q, %q, %q, %g mask = causal form = chunk_parallel(32)
        : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64xf32> -> tensor<2x64x8xf32>
    return %o : tensor<2x64x8xf32>
  }
}

// -----

// Planned for the GPU, a plain op's local states and rows are each one GPU
// block per chunk too: the first copies its chunk of k and v and takes
// K^T V from the copies; the second copies its chunk of q, k and v and the
// state entering it, and keeps the masked scores. Where the shared memory
// would not hold two of them per SM, grids over every chunk; handed off,
// grids too.
// CHECK-LABEL: func.func @plain_blocks
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x64x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x64x4xf32>)
// CHECK: %[[QC:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 8]
// CHECK: %[[VC:.+]] = tensor.expand_shape %[[V]] {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 4]
// CHECK: %[[LOCAL:.+]] = scf.forall (%[[LB:.+]], %[[LN:.+]]) in (2, 2) shared_outs(%[[H:.+]] = %{{.+}}) -> (tensor<2x2x8x4xf32>)
// CHECK:   %[[KS:.+]] = tensor.extract_slice %[[QC]][%[[LB]], %[[LN]], 0, 0] [1, 1, 32, 8]
// CHECK:   %[[KCOPY:.+]] = linalg.copy ins(%[[KS]] : tensor<1x1x32x8xf32>)
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[VC]][%[[LB]], %[[LN]], 0, 0] [1, 1, 32, 4]
// CHECK:   %[[VCOPY:.+]] = linalg.copy ins(%[[VS]] : tensor<1x1x32x4xf32>)
// CHECK:   %[[HC:.+]] = linalg.generic {{.*}} ins(%[[KCOPY]], %[[VCOPY]] :
// CHECK:   tensor.parallel_insert_slice %[[HC]] into %[[H]][%[[LB]], %[[LN]], 0, 0] [1, 1, 8, 4]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK: %[[SCAN:.+]] = linea.presum %{{.+}} dim = 1 form = scan : tensor<2x3x8x4xf32>
// CHECK: %[[ENTERING:.+]] = tensor.extract_slice %[[SCAN]][0, 0, 0, 0] [2, 2, 8, 4]
// CHECK: %[[ROWS:.+]] = scf.forall (%[[B:.+]], %[[N:.+]]) in (2, 2) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x2x32x4xf32>)
// CHECK:   %[[QCOPY:.+]] = linalg.copy ins(%{{.+}} : tensor<1x1x32x8xf32>)
// CHECK:   %[[VROWS:.+]] = linalg.copy ins(%{{.+}} : tensor<1x1x32x4xf32>)
// CHECK:   %[[S:.+]] = tensor.extract_slice %[[ENTERING]][%[[B]], %[[N]], 0, 0] [1, 1, 8, 4]
// CHECK:   %[[SCOPY:.+]] = linalg.copy ins(%[[S]] : tensor<1x1x8x4xf32>)
// CHECK:   %[[SCORES:.+]] = linalg.generic {{.*}} ins(%[[QCOPY]], %[[QCOPY]] : {{.*}}) outs(%{{.+}} : tensor<1x1x32x32xf32>)
// CHECK:     arith.cmpi sle
// CHECK:   %[[PV:.+]] = linalg.generic {{.*}} ins(%[[SCORES]], %[[VROWS]] :
// CHECK:   %[[QS:.+]] = linalg.generic {{.*}} ins(%[[QCOPY]], %[[SCOPY]] : {{.*}}) outs(%[[PV]] :
// CHECK:   tensor.parallel_insert_slice %[[QS]] into %[[OUT]][%[[B]], %[[N]], 0, 0] [1, 1, 32, 4]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK: tensor.collapse_shape %[[ROWS]]
// GRIDS-LABEL: func.func @plain_blocks
// GRIDS-NOT: scf.forall
// GRIDS: linea.presum
// GRIDS-NOT: scf.forall
// GRIDS: return
// HANDOFF-LABEL: func.func @plain_blocks
// HANDOFF-NOT: scf.forall
// HANDOFF: return
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
  func.func @plain_blocks(%q: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>) -> tensor<2x64x4xf32> {
    %o = linea.linear_attention %q, %q, %v mask = causal form = chunk_parallel(32)
        : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32> -> tensor<2x64x4xf32>
    return %o : tensor<2x64x4xf32>
  }
}

// -----

// Sequences enough to keep half the GPU's SMs busy (2 here): the states
// entering the chunks are one pass, a block per sequence and 64 x 64 state
// tile (Dk = 128: two) that starts from its tile of the initial state in
// a buffer of its own and walks the chunks in order, writing the state
// entering each (bf16, the op's own type) and adding the chunk's K^T V; its
// state after the last chunk is the final state. Inside, every tensor
// keeps the chunk axis as a unit dim. No local state and no scan; the rows
// are blocks per chunk and read the states widened.
// CHECK-LABEL: func.func @state_pass
// CHECK-SAME: %[[S0:[a-zA-Z0-9_]+]]: tensor<2x128x64xf32>)
// CHECK-NOT: linea.presum
// CHECK: %[[N:.+]] = tensor.dim %{{.+}}, %c1 : tensor<2x?x64x128xf32>
// CHECK: %[[STATES:.+]]:2 = scf.forall (%[[B:.+]], %[[I:.+]], %[[J:.+]]) in (2, 2, 1) shared_outs(%[[ENTERING:.+]] = %{{.+}}, %[[FINAL:.+]] = %{{.+}}) -> (tensor<2x?x128x64xbf16>, tensor<2x1x128x64xf32>)
// CHECK:   %[[ROW:.+]] = affine.apply #{{.+}}()[%[[I]]]
// CHECK:   %[[OWN:.+]] = bufferization.alloc_tensor() : tensor<1x1x64x64xf32>
// CHECK:   %[[START:.+]] = tensor.insert_slice %{{.+}} into %[[OWN]][0, 0, 0, 0] [1, 1, 64, 64]
// CHECK:   %[[WALK:.+]]:2 = scf.for %[[C:.+]] = %c0 to %[[N]] step %c1 iter_args(%[[S:.+]] = %[[START]], %[[OUT:.+]] = %{{.+}}) -> (tensor<1x1x64x64xf32>, tensor<1x?x64x64xbf16>)
// CHECK:     %[[NARROW:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<1x1x64x64xf32>) outs(%{{.+}} : tensor<1x1x64x64xbf16>)
// CHECK:     %[[WRITTEN:.+]] = tensor.insert_slice %[[NARROW]] into %[[OUT]][0, %[[C]], 0, 0] [1, 1, 64, 64]
// CHECK:     %[[KS:.+]] = tensor.extract_slice %{{.+}}[%[[B]], %[[C]], 0, %[[ROW]]] [1, 1, 64, 64]
// CHECK:     %[[KCOPY:.+]] = linalg.copy ins(%[[KS]] : tensor<1x1x64x64xf32>)
// CHECK:     %[[VCOPY:.+]] = linalg.copy ins(%{{.+}} : tensor<1x1x64x64xf32>)
// CHECK:     %[[NEXT:.+]] = linalg.generic {{.*}} ins(%[[KCOPY]], %[[VCOPY]] : {{.*}}) outs(%[[S]] :
// CHECK:     scf.yield %[[NEXT]], %[[WRITTEN]]
// CHECK:   tensor.parallel_insert_slice %[[WALK]]#1 into %[[ENTERING]][%[[B]], 0, %[[ROW]], 0] [1, %[[N]], 64, 64]
// CHECK:   tensor.parallel_insert_slice %[[WALK]]#0 into %[[FINAL]][%[[B]], 0, %[[ROW]], 0] [1, 1, 64, 64]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_2>]}
// CHECK: %[[LAST:.+]] = tensor.collapse_shape %[[STATES]]#1 {{\[}}[0], [1, 2], [3]] : tensor<2x1x128x64xf32> into tensor<2x128x64xf32>
// CHECK: %[[WIDE:.+]] = linalg.generic {{.*}} ins(%[[STATES]]#0 : tensor<2x?x128x64xbf16>)
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (2, %{{.+}})
// CHECK:   tensor.extract_slice %[[WIDE]]
// CHECK: return %{{.+}}, %[[LAST]]
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 2, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
  func.func @state_pass(%q: tensor<2x?x128xbf16>, %v: tensor<2x?x64xbf16>, %s0: tensor<2x128x64xf32>) -> (tensor<2x?x64xbf16>, tensor<2x128x64xf32>) {
    %o, %s = linea.linear_attention %q, %q, %v init(%s0) mask = causal form = chunk_parallel(64)
        : tensor<2x?x128xbf16>, tensor<2x?x128xbf16>, tensor<2x?x64xbf16>, tensor<2x128x64xf32> -> tensor<2x?x64xbf16>, tensor<2x128x64xf32>
    return %o, %s : tensor<2x?x64xbf16>, tensor<2x128x64xf32>
  }
}
