// RUN: linea-opt %s -split-input-file -linea-raise=explain=1 -verify-diagnostics | FileCheck %s

// Seed 002's loop over segments as torch.export unrolls it: each step runs
// one layer (here tanh(w * g), elementwise) over [memory; segment] and keeps
// the second half as the next memory; the outputs are the halves, in order.


// CHECK-LABEL: func.func @three_segments
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x6x4xf32>, %[[M:[^:]+]]: tensor<1x2x4xf32>, %[[G:[^:]+]]: tensor<4xf32>
// CHECK: %[[Y:.+]], %{{.+}} = linea.fold %[[X]], %[[M]] segment_length = 2 : tensor<1x6x4xf32>, tensor<1x2x4xf32> {
// CHECK-NEXT: ^bb0(%[[W:.+]]: tensor<1x4x4xf32>):
// CHECK: %[[ROWS:.+]] = tensor.collapse_shape %[[W]]
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[ROWS]], %[[G]] : tensor<4x4xf32>, tensor<4xf32>)
// CHECK: math.tanh
// CHECK: %[[WINDOW:.+]] = tensor.expand_shape %[[R]]
// CHECK: linea.yield %[[WINDOW]] : tensor<1x4x4xf32>
// CHECK-NEXT: }
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @three_segments(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %m, %x0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e0 = tensor.empty() : tensor<1x4x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w0, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e0 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y0 = tensor.extract_slice %r0[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x1 = tensor.extract_slice %x[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w1 = tensor.concat dim(1) %y0, %x1 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e1 = tensor.empty() : tensor<1x4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w1, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y1 = tensor.extract_slice %r1[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x2 = tensor.extract_slice %x[0, 4, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w2 = tensor.concat dim(1) %y1, %x2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w2, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e2 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y2 = tensor.extract_slice %r2[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  // expected-remark @below {{linea-raise: raised to linea.fold segment_length = 2 (3 segments of a}}
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// The third step reads another weight: not one layer, left as written.
// CHECK-LABEL: func.func @steps_differ
// CHECK-NOT: linea.fold
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @steps_differ(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %m, %x0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e0 = tensor.empty() : tensor<1x4x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w0, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e0 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y0 = tensor.extract_slice %r0[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x1 = tensor.extract_slice %x[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w1 = tensor.concat dim(1) %y0, %x1 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e1 = tensor.empty() : tensor<1x4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w1, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y1 = tensor.extract_slice %r1[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x2 = tensor.extract_slice %x[0, 4, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w2 = tensor.concat dim(1) %y1, %x2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w2, %h : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e2 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y2 = tensor.extract_slice %r2[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  // expected-remark @below {{linea-raise: not raised: segment 2's step does not compute what the first one does}}
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// The segments cover rows [0, 6) of an input of 8: left as written.
// CHECK-LABEL: func.func @rows_left_over
// CHECK-NOT: linea.fold
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @rows_left_over(%x: tensor<1x8x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x8x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %m, %x0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e0 = tensor.empty() : tensor<1x4x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w0, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e0 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y0 = tensor.extract_slice %r0[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x1 = tensor.extract_slice %x[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x8x4xf32> to tensor<1x2x4xf32>
  %w1 = tensor.concat dim(1) %y0, %x1 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e1 = tensor.empty() : tensor<1x4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w1, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y1 = tensor.extract_slice %r1[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x2 = tensor.extract_slice %x[0, 4, 0] [1, 2, 4] [1, 1, 1] : tensor<1x8x4xf32> to tensor<1x2x4xf32>
  %w2 = tensor.concat dim(1) %y1, %x2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w2, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e2 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y2 = tensor.extract_slice %r2[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  // expected-remark @below {{linea-raise: not raised: the segments do not cover the input exactly}}
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// Each step keeps the first half, not the evolved current rows: no chain.
// CHECK-LABEL: func.func @first_halves
// CHECK-NOT: linea.fold
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @first_halves(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %m, %x0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e0 = tensor.empty() : tensor<1x4x4xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w0, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e0 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y0 = tensor.extract_slice %r0[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x1 = tensor.extract_slice %x[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w1 = tensor.concat dim(1) %y0, %x1 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e1 = tensor.empty() : tensor<1x4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w1, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e1 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y1 = tensor.extract_slice %r1[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x2 = tensor.extract_slice %x[0, 4, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w2 = tensor.concat dim(1) %y1, %x2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w2, %g : tensor<1x4x4xf32>, tensor<4xf32>) outs(%e2 : tensor<1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<1x4x4xf32>
  %y2 = tensor.extract_slice %r2[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}
