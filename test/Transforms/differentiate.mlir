// RUN: linea-opt %s --linea-differentiate -canonicalize -cse -split-input-file | FileCheck %s
// A second run leaves the gradient functions of the first alone.
// RUN: linea-opt %s --linea-differentiate --linea-differentiate -split-input-file | FileCheck %s --check-prefix=TWICE

// The adjoint of an inclusive prefix sum is the sum from the other end.
// CHECK-LABEL: func.func @presum_vjp
// CHECK-SAME:    (%[[X:.*]]: tensor<8x4xf32>, %[[DY:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-SAME:    attributes {linea.gradient_of = @presum}
// CHECK-NEXT:    %[[DX:.*]] = linea.presum %[[DY]] exclusive reverse : tensor<8x4xf32>
// CHECK-NEXT:    return %[[DX]]
// TWICE-LABEL: func.func @presum_vjp
// TWICE-NOT:   func.func @presum_vjp_vjp
func.func @presum(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %y = linea.presum %x exclusive : tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A matmul, generalized: dA = dC B^T and dB = A^T dC are contractions over
// the same loops, parallel over the operand's dims. The index argument comes
// in (the forward pass may need it) but has no cotangent.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_vjp
// CHECK-SAME:    (%[[LHS:.*]]: tensor<8x4xf32>, %[[RHS:.*]]: tensor<4x5xf32>, %{{.*}}: index, %[[DC:.*]]: tensor<8x5xf32>)
// CHECK-SAME:    -> (tensor<8x4xf32>, tensor<4x5xf32>)
// CHECK:         %[[DA:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]], #[[A]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:      ins(%[[LHS]], %[[RHS]], %[[DC]] :
// CHECK:           ^bb0(%{{.*}}: f32, %[[B_ELT:.*]]: f32, %[[DC_ELT:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:        %[[PROD:.*]] = arith.mulf %[[DC_ELT]], %[[B_ELT]]
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[ACC]], %[[PROD]]
// CHECK-NEXT:        linalg.yield %[[SUM]]
// CHECK:         %[[DB:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]], #[[B]]], iterator_types = ["reduction", "parallel", "parallel"]}
// CHECK:         return %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<8x4xf32>, %b: tensor<4x5xf32>, %n: index) -> tensor<8x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x5xf32>) outs(%init : tensor<8x5xf32>) -> tensor<8x5xf32>
  return %c : tensor<8x5xf32>
}

// -----

// Elementwise: d tanh(x) = (1 - tanh(x)^2) dy, recomputed inside the adjoint.
// CHECK-LABEL: func.func @tanh_vjp
// CHECK:         linalg.generic
// CHECK:           %[[T:.*]] = math.tanh
// CHECK:           %[[SQ:.*]] = arith.mulf %[[T]], %[[T]]
// CHECK:           %[[ONE_MINUS:.*]] = arith.subf %{{.*}}, %[[SQ]]
// CHECK:           arith.mulf %{{.*}}, %[[ONE_MINUS]]
func.func @tanh(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %y = linalg.tanh ins(%x : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Causal linear attention: dq is causal attention of (dO, v, k); dk and dv
// need the anti-causal mask, a causal op over reversed sequences (the
// reversal a gather through linalg.index), reversed back.
// CHECK-LABEL: func.func @causal_vjp
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x?x4xf32>, %[[K:.*]]: tensor<2x?x4xf32>, %[[V:.*]]: tensor<2x?x3xf32>, %[[DO:.*]]: tensor<2x?x3xf32>)
// CHECK:         %[[DQ:.*]], %{{.*}} = linea.linear_attention %[[DO]], %[[V]], %[[K]] mask = causal
// CHECK:         %[[REV_DO:.*]] = linalg.generic
// CHECK:           arith.subi
// CHECK:           tensor.extract %[[DO]]
// CHECK:         %[[DV_REV:.*]], %{{.*}} = linea.linear_attention %{{.*}}, %{{.*}}, %[[REV_DO]] mask = causal
// CHECK:         %[[DK_REV:.*]], %{{.*}} = linea.linear_attention %{{.*}}, %[[REV_DO]], %{{.*}} mask = causal
// CHECK:         %[[DK:.*]] = linalg.generic
// CHECK:           tensor.extract %[[DK_REV]]
// CHECK:         return %[[DQ]], %[[DK]], %{{.*}} :
func.func @causal(%q: tensor<2x?x4xf32>, %k: tensor<2x?x4xf32>, %v: tensor<2x?x3xf32>) -> tensor<2x?x3xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal : tensor<2x?x4xf32>, tensor<2x?x4xf32>, tensor<2x?x3xf32> -> tensor<2x?x3xf32>
  return %o : tensor<2x?x3xf32>
}

// -----

// prefix(j) with an initial and a final state: the transposed mask is a
// bidirectional op over [0, j) seeded with the final state of an anti-causal
// op over [j, L), itself seeded with the final state's cotangent; dS0 is
// the bidirectional op's final state. dq is seeded with S0^T.
// CHECK-LABEL: func.func @prefix_vjp
// CHECK-SAME:    %[[S0:[^:]*]]: tensor<2x4x3xf32>, %[[J:.*]]: index, %[[DO:.*]]: tensor<2x13x3xf32>, %[[DF:.*]]: tensor<2x4x3xf32>)
// CHECK:         %[[S0T:.*]] = linalg.transpose ins(%[[S0]] : tensor<2x4x3xf32>) {{.*}} permutation = [0, 2, 1]
// CHECK:         linea.linear_attention %{{.*}}, %{{.*}}, %{{.*}} init(%[[S0T]]) mask = prefix(%{{.*}})
// CHECK:         %{{.*}}, %[[SUFFIX:.*]] = linea.linear_attention %{{.*}}, %{{.*}}, %{{.*}} init(%[[DF]]) mask = causal : tensor<2x?x4xf32>
// CHECK:         %{{.*}}, %[[DS0:.*]] = linea.linear_attention %{{.*}}, %{{.*}}, %{{.*}} init(%[[SUFFIX]]) mask = none : tensor<2x?x4xf32>
// CHECK:         return {{.*}}, %[[DS0]] :
func.func @prefix(%q: tensor<2x13x4xf32>, %k: tensor<2x13x4xf32>, %v: tensor<2x13x3xf32>, %s0: tensor<2x4x3xf32>, %j: index) -> (tensor<2x13x3xf32>, tensor<2x4x3xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v init(%s0) mask = prefix(%j) scale = 0.5 : tensor<2x13x4xf32>, tensor<2x13x4xf32>, tensor<2x13x3xf32>, tensor<2x4x3xf32> -> tensor<2x13x3xf32>, tensor<2x4x3xf32>
  return %o, %s : tensor<2x13x3xf32>, tensor<2x4x3xf32>
}

// -----

// Softmax attention: the probabilities are recomputed (row max, exp, row
// sum, a guarded division), then dv = P^T dO and dS = scale P (dP - rowsum).
// CHECK-LABEL: func.func @softmax_vjp
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x7x4xf32>, %[[K:.*]]: tensor<2x3x4xf32>, %[[V:.*]]: tensor<2x3x5xf32>, %[[DO:.*]]: tensor<2x7x5xf32>)
// CHECK:         %[[O:.*]] = linea.attention %[[Q]], %[[K]], %[[V]] mask = causal
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[K]] :
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]] :
// CHECK:           arith.maximumf
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[M]] :
// CHECK:           math.exp
// CHECK:         %[[Z:.*]] = linalg.generic {{.*}} ins(%[[E]] :
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%[[E]], %[[Z]] :
// CHECK:           arith.divf
// CHECK:           arith.select
// CHECK:         %[[ROWSUM:.*]] = linalg.generic {{.*}} ins(%[[DO]], %[[O]] :
// CHECK:         %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]], %{{.*}}, %[[ROWSUM]] :
// CHECK:           arith.subf
// CHECK:         %[[DQ:.*]] = linalg.generic {{.*}} ins(%[[DS]], %[[K]] :
// CHECK:         %[[DK:.*]] = linalg.generic {{.*}} ins(%[[DS]], %[[Q]] :
// CHECK:         %[[DV:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DO]] :
// CHECK:         return %[[DQ]], %[[DK]], %[[DV]]
func.func @softmax(%q: tensor<2x7x4xf32>, %k: tensor<2x3x4xf32>, %v: tensor<2x3x5xf32>) -> tensor<2x7x5xf32> {
  %o = linea.attention %q, %k, %v mask = causal : tensor<2x7x4xf32>, tensor<2x3x4xf32>, tensor<2x3x5xf32> -> tensor<2x7x5xf32>
  return %o : tensor<2x7x5xf32>
}

// -----

// Causal, one decay per token: dq a gated op seeded with S0^T; dv and dk
// gated ops over reversed sequences with the decays moved one step back
// (the last zero), seeded with dF and dF^T; dg the reverse presum of
// q . dq - k . dk.
// CHECK-LABEL: func.func @gated_vjp
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x9x4xf32>, %[[K:.*]]: tensor<2x9x4xf32>, %[[V:.*]]: tensor<2x9x3xf32>, %[[G:.*]]: tensor<2x9xf32>, %[[S0:.*]]: tensor<2x4x3xf32>, %[[DO:.*]]: tensor<2x9x3xf32>, %[[DF:.*]]: tensor<2x4x3xf32>)
// CHECK:         %[[S0T:.*]] = linalg.transpose ins(%[[S0]]
// CHECK:         %[[DQ:.*]], %{{.*}} = linea.gated_linear_attention %{{.*}}, %[[V]], %[[K]], %[[G]] init(%[[S0T]]) mask = causal
// CHECK:         %[[NEXT:.*]] = tensor.extract_slice %[[G]][0, 1] [2, 8] [1, 1]
// CHECK:         tensor.insert_slice %[[NEXT]] into %{{.*}}[0, 0] [2, 8] [1, 1]
// CHECK:         %{{.*}}, %[[G0:.*]] = linea.gated_linear_attention {{.*}} init(%[[DF]]) mask = causal
// CHECK:         %[[DFT:.*]] = linalg.transpose ins(%[[DF]]
// CHECK:         linea.gated_linear_attention {{.*}} init(%[[DFT]]) mask = causal
// CHECK:         %[[DG:.*]] = linea.presum %{{.*}} dim = 1 reverse : tensor<2x9xf32>
// CHECK:         return %[[DQ]], %{{.*}}, %{{.*}}, %[[DG]], %{{.*}} :
func.func @gated(%q: tensor<2x9x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x3xf32>, %g: tensor<2x9xf32>, %s0: tensor<2x4x3xf32>) -> (tensor<2x9x3xf32>, tensor<2x4x3xf32>) {
  %o, %s = linea.gated_linear_attention %q, %k, %v, %g init(%s0) mask = causal : tensor<2x9x4xf32>, tensor<2x9x4xf32>, tensor<2x9x3xf32>, tensor<2x9xf32>, tensor<2x4x3xf32> -> tensor<2x9x3xf32>, tensor<2x4x3xf32>
  return %o, %s : tensor<2x9x3xf32>, tensor<2x4x3xf32>
}

// -----

// A shifted read: the cotangent is written through the same map, summed
// over the loop (right whether or not the map is one-to-one); x[0] is never
// read, so its cotangent stays the zero it starts from.
// CHECK-DAG: #[[SHIFTED:.*]] = affine_map<(d0) -> (d0 + 1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @shifted_vjp
// CHECK-SAME:    (%[[X:.*]]: tensor<9xf32>, %[[DY:.*]]: tensor<8xf32>) -> tensor<9xf32>
// CHECK:         %[[ZEROS:.*]] = linalg.fill
// CHECK:         %[[DX:.*]] = linalg.generic {indexing_maps = [#[[SHIFTED]], #[[ID]], #[[SHIFTED]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[DY]] : tensor<9xf32>, tensor<8xf32>) outs(%[[ZEROS]] : tensor<9xf32>)
// CHECK:         return %[[DX]]
func.func @shifted(%x: tensor<9xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<9xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A fold: the forward fold recomputed (its output is every segment's
// memory), then one loop over the segments in reverse. Each iteration
// rebuilds the window [M_s; x_s] (M_0 the memory operand, else the output
// rows before), recomputes the body, seeds the evolved half with dy_s plus
// the carried dM, and sweeps the body; dM is copied into its carried buffer,
// dx_s inserted into dx, the weight's share added into its sum.
// CHECK-LABEL: func.func @fold_vjp
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<2x12x4xf32>, %[[M0:[^:]*]]: tensor<2x3x4xf32>, %[[W:[^:]*]]: tensor<4x4xf32>, %[[DY:[^:]*]]: tensor<2x12x4xf32>, %[[DM:[^:]*]]: tensor<2x3x4xf32>)
// CHECK:         %[[Y:.*]], %{{.*}} = linea.fold %[[X]], %[[M0]] segment_length = 3
// CHECK:         %[[LOOP:.*]]:3 = scf.for %[[IT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[DMC:.*]] = %[[DM]], %[[DXC:.*]] = %{{.*}}, %[[DWC:.*]] = %{{.*}}) -> (tensor<2x3x4xf32>, tensor<2x12x4xf32>, tensor<4x4xf32>)
// CHECK:           %[[S:.*]] = arith.subi %{{.*}}, %[[IT]]
// CHECK:           %[[START:.*]] = arith.muli %[[S]], %{{.*}}
// CHECK:           %[[PREV:.*]] = scf.if
// CHECK-NEXT:        scf.yield %[[M0]]
// CHECK-NEXT:      } else {
// CHECK:             tensor.extract_slice %[[Y]]
// CHECK:           %[[HALF:.*]] = tensor.insert_slice %[[PREV]] into
// CHECK:           %[[CUR:.*]] = tensor.extract_slice %[[X]][0, %[[START]], 0] [2, 3, 4]
// CHECK:           %[[WIN:.*]] = tensor.insert_slice %[[CUR]] into %[[HALF]][0, 3, 0] [2, 3, 4]
// CHECK:           linea.attention
// CHECK:           %[[DYS:.*]] = tensor.extract_slice %[[DY]][0, %[[START]], 0] [2, 3, 4]
// CHECK:           linalg.add ins(%[[DYS]], %[[DMC]] :
// CHECK:           %[[NEXTDM:.*]] = linalg.copy ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[DMC]] : tensor<2x3x4xf32>)
// CHECK:           %[[NEXTDX:.*]] = tensor.insert_slice %{{.*}} into %[[DXC]][0, %[[START]], 0] [2, 3, 4]
// CHECK:           %[[NEXTDW:.*]] = linalg.add ins(%[[DWC]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[DWC]] : tensor<4x4xf32>)
// CHECK:           scf.yield %[[NEXTDM]], %[[NEXTDX]], %[[NEXTDW]]
// CHECK:         return %[[LOOP]]#1, %[[LOOP]]#0, %[[LOOP]]#2
func.func @fold(%x: tensor<2x12x4xf32>, %m0: tensor<2x3x4xf32>, %w: tensor<4x4xf32>) -> (tensor<2x12x4xf32>, tensor<2x3x4xf32>) {
  %y, %m = linea.fold %x, %m0 segment_length = 3 : tensor<2x12x4xf32>, tensor<2x3x4xf32> {
  ^bb0(%win: tensor<2x6x4xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x6x4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
    %p = linalg.generic {indexing_maps = [affine_map<(b, n, d, e) -> (b, n, d)>, affine_map<(b, n, d, e) -> (d, e)>, affine_map<(b, n, d, e) -> (b, n, e)>],
                         iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
        ins(%win, %w : tensor<2x6x4xf32>, tensor<4x4xf32>) outs(%f : tensor<2x6x4xf32>) {
    ^bb0(%a: f32, %c: f32, %acc: f32):
      %mul = arith.mulf %a, %c : f32
      %sum = arith.addf %acc, %mul : f32
      linalg.yield %sum : f32
    } -> tensor<2x6x4xf32>
    %r = linea.attention %p, %p, %win mask = causal : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
    linea.yield %r : tensor<2x6x4xf32>
  }
  return %y, %m : tensor<2x12x4xf32>, tensor<2x3x4xf32>
}

// -----

// A per-key-dim gate: dq and dk read the states on their value side, where
// the decay does not commute with the read, so (on the CPU; the GPU's chunked
// form is in differentiate-gated-chunked.mlir) the rule runs the two
// recurrences one token at a time. Forward: S <- diag(exp(g_t)) S + k_t^T v_t,
// dq_t = S dO_t. Backward from the end, with the gates moved one step
// back: G <- diag(exp(g_(t+1))) G + q_t^T dO_t, dk_t = G v_t, dv_t = k_t G.
// dg is the reverse presum of q dq - k dk.
// CHECK-LABEL: func.func @gated_per_dim_vjp
// CHECK-SAME:    (%[[Q:[^:]*]]: tensor<2x8x4xf32>, %[[K:[^:]*]]: tensor<2x8x4xf32>, %[[V:[^:]*]]: tensor<2x8x3xf32>, %[[G:[^:]*]]: tensor<2x8x4xf32>, %[[DO:[^:]*]]: tensor<2x8x3xf32>)
// CHECK:         %[[DQ:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK-DAG:       %[[VT:.*]] = tensor.extract_slice %[[V]][0, %[[T]], 0] [2, 1, 3]
// CHECK-DAG:       %[[KT:.*]] = tensor.extract_slice %[[K]][0, %[[T]], 0] [2, 1, 4]
// CHECK-DAG:       %[[GT:.*]] = tensor.extract_slice %[[G]][0, %[[T]], 0] [2, 1, 4]
// CHECK:           %[[S:.*]] = linalg.generic {{.*}} ins(%[[GT]], %[[KT]], %[[VT]] : {{.*}}) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK:             math.exp
// CHECK:           %[[DOT:.*]] = tensor.extract_slice %[[DO]][0, %[[T]], 0] [2, 1, 3]
// CHECK:           %[[ROW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S]], %[[DOT]] : tensor<2x4x3xf32>, tensor<2x1x3xf32>) outs(%{{.*}} : tensor<2x1x4xf32>)
// CHECK:           tensor.insert_slice %[[ROW]] into %{{.*}}[0, %[[T]], 0] [2, 1, 4]
// CHECK:         %[[NEXT:.*]] = tensor.extract_slice %[[G]][0, 1, 0] [2, 7, 4]
// CHECK:         %[[SHIFTED:.*]] = tensor.insert_slice %[[NEXT]] into %{{.*}}[0, 0, 0] [2, 7, 4]
// CHECK:         %[[BACK:.*]]:3 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[R:.*]] = arith.subi %c7, %[[I]]
// CHECK-DAG:       %[[DOR:.*]] = tensor.extract_slice %[[DO]][0, %[[R]], 0] [2, 1, 3]
// CHECK-DAG:       %[[QR:.*]] = tensor.extract_slice %[[Q]][0, %[[R]], 0] [2, 1, 4]
// CHECK-DAG:       %[[GR:.*]] = tensor.extract_slice %[[SHIFTED]][0, %[[R]], 0] [2, 1, 4]
// CHECK:           %[[GS:.*]] = linalg.generic {{.*}} ins(%[[GR]], %[[QR]], %[[DOR]] : {{.*}}) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK:           %[[VR:.*]] = tensor.extract_slice %[[V]][0, %[[R]], 0] [2, 1, 3]
// CHECK:           linalg.generic {{.*}} ins(%[[GS]], %[[VR]] : tensor<2x4x3xf32>, tensor<2x1x3xf32>) outs(%{{.*}} : tensor<2x1x4xf32>)
// CHECK:           %[[KR:.*]] = tensor.extract_slice %[[K]][0, %[[R]], 0] [2, 1, 4]
// CHECK:           linalg.generic {{.*}} ins(%[[GS]], %[[KR]] : tensor<2x4x3xf32>, tensor<2x1x4xf32>) outs(%{{.*}} : tensor<2x1x3xf32>)
// CHECK:         %[[DG:.*]] = linea.presum %{{.*}} dim = 1 reverse : tensor<2x8x4xf32>
// CHECK:         return %[[DQ]]#1, %[[BACK]]#1, %[[BACK]]#2, %[[DG]]
func.func @gated_per_dim(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %g: tensor<2x8x4xf32>) -> tensor<2x8x3xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8x4xf32> -> tensor<2x8x3xf32>
  return %o : tensor<2x8x3xf32>
}
