// RUN: linea-opt %s -linea-outline-ops -split-input-file | FileCheck %s

// Each top-level Linea op (and elementwise op on tensors) becomes a call to
// a private function holding it;
// static ops that differ only in operands share one function, and a
// constant operand is cloned in (it still folds to prefix(3)).
// CHECK-LABEL: func.func @model
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x16x8xf32>)
// CHECK: %[[Y0:.+]] = call @[[PRESUM:model__linea_0]](%[[X]])
// CHECK: %[[Y1:.+]] = call @[[PRESUM]](%[[Y0]])
// CHECK: %[[O:.+]] = call @[[LA:model__linea_2]](%[[Y1]], %[[X]])
// CHECK: %[[R:.+]] = call @[[ADD:model__linea_3]](%[[O]], %[[X]])
// CHECK: return %[[R]]
// CHECK: func.func private @[[PRESUM]](%[[A:.+]]: tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
// CHECK-NEXT: %[[P:.+]] = linea.presum %[[A]]
// CHECK-NEXT: return %[[P]]
// CHECK: func.func private @[[LA]](%[[Q:[a-z0-9_]+]]: tensor<2x16x8xf32>, %[[V:[a-z0-9_]+]]: tensor<2x16x8xf32>)
// CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : index
// CHECK-NEXT: linea.linear_attention %[[Q]], %[[Q]], %[[V]] mask = prefix(%[[C3]])
// CHECK: func.func private @[[ADD]]
// CHECK-NEXT: arith.addf
// CHECK-NOT: func.func
func.func @model(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %c3 = arith.constant 3 : index
  %y0 = linea.presum %x : tensor<2x16x8xf32>
  %y1 = linea.presum %y0 : tensor<2x16x8xf32>
  %o = linea.linear_attention %y1, %y1, %x mask = prefix(%c3)
      : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  %r = arith.addf %o, %x : tensor<2x16x8xf32>
  return %r : tensor<2x16x8xf32>
}

// -----

// Ops with dynamic sizes keep a function each: their run-time checks name
// their own locations. Ops inside a fold body stay in the body.
// CHECK-LABEL: func.func @dynamic
// CHECK: call @[[F0:dynamic__linea_0]]
// CHECK: call @[[F1:dynamic__linea_1]]
// CHECK: call @[[F2:dynamic__linea_2]]
// CHECK: func.func private @[[F0]]
// CHECK: func.func private @[[F1]]
// CHECK: func.func private @[[F2]]
// CHECK: linea.fold
// CHECK: linea.attention
// CHECK: linea.yield
func.func @dynamic(%x: tensor<?x4xf32>, %m: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %y0 = linea.presum %x : tensor<?x4xf32>
  %y1 = linea.presum %y0 : tensor<?x4xf32>
  %y, %mf = linea.fold %y1, %m segment_length = 2 : tensor<?x4xf32>, tensor<2x4xf32> {
  ^bb0(%w: tensor<4x4xf32>):
    %r = linea.attention %w, %w, %w mask = causal
        : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    linea.yield %r : tensor<4x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

// A slice an op reads goes into the op's function with it: the callee gets
// the whole tensor and the offset (a view passed as an argument would be
// copied, function arguments bufferizing to identity layouts).

// CHECK-LABEL: func.func @sliced(
// CHECK-SAME: %[[X:.*]]: tensor<2x?x8xf32>, %[[AT:.*]]: index, %[[N:.*]]: index
// CHECK: %[[Y:.*]] = call @sliced__linea_0(%[[X]], %[[AT]], %[[N]])
// CHECK: return %[[Y]]
// CHECK: func.func private @sliced__linea_0(%[[WHOLE:.*]]: tensor<2x?x8xf32>, %[[OFF:.*]]: index, %[[SIZE:.*]]: index)
// CHECK: %[[VIEW:.*]] = tensor.extract_slice %[[WHOLE]][0, %[[OFF]], 0] [2, %[[SIZE]], 8] [1, 1, 1]
// CHECK: linea.presum %[[VIEW]]
func.func @sliced(%x: tensor<2x?x8xf32>, %at: index, %n: index) -> tensor<2x?x8xf32> {
  %view = tensor.extract_slice %x[0, %at, 0] [2, %n, 8] [1, 1, 1]
      : tensor<2x?x8xf32> to tensor<2x?x8xf32>
  %y = linea.presum %view : tensor<2x?x8xf32>
  return %y : tensor<2x?x8xf32>
}

// -----

// What a fold body reads from above (a weight) is passed to the function
// like an operand.
// CHECK-LABEL: func.func @captured(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<8x4xf32>, %[[M:[a-z0-9_]+]]: tensor<2x4xf32>, %[[W:[a-z0-9_]+]]: tensor<4x4xf32>
// CHECK: call @captured__linea_0(%[[X]], %[[M]], %[[W]])
// CHECK: func.func private @captured__linea_0(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<2x4xf32>, %[[WEIGHT:.*]]: tensor<4x4xf32>)
// CHECK: linea.fold
// CHECK: linalg.matmul ins(%{{.*}}, %[[WEIGHT]] :
func.func @captured(%x: tensor<8x4xf32>, %m: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %y, %mf = linea.fold %x, %m segment_length = 2 : tensor<8x4xf32>, tensor<2x4xf32> {
  ^bb0(%win: tensor<4x4xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %p = linalg.matmul ins(%win, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
    linea.yield %p : tensor<4x4xf32>
  }
  return %y : tensor<8x4xf32>
}
