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
