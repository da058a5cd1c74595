// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: linea-opt %s --split-input-file --linea-raise=explain=1 --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s

// Near misses of an unrolled loop over segments (linea.fold): each
// concatenation of the steps' halves is left as written, with the reason as its
// remark.
//
// REMARK lines check each root's remark at the root's own line (the
// remarks, on stderr); CHECK lines the IR left (stdout). Two runs, since
// the two streams interleave in no fixed order.

// The idiom: a loop over segments of 2 rows unrolled, each step one layer over
// [previous step's second half; its segment].
// CHECK-LABEL: func.func @three_segments(
// CHECK: linea.fold
// CHECK: return
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @three_segments(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>) -> tensor<1x6x4xf32> {
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: raised to linea.fold segment_length = 2 (3 segments of a
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// Segment 1's window puts its rows first, [x1; y0]: not the loop's window.
// CHECK-LABEL: func.func @window_swapped(
// CHECK-NOT: linea.
// CHECK: return
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @window_swapped(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>) -> tensor<1x6x4xf32> {
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
  %w1 = tensor.concat dim(1) %x1, %y0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: segment 1's window is not [the previous segment's result; its rows]
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// Segment 2 reads rows [3, 5) where the loop reads [4, 6).
// CHECK-LABEL: func.func @rows_overlap(
// CHECK-NOT: linea.
// CHECK: return
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @rows_overlap(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>) -> tensor<1x6x4xf32> {
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
  %x2 = tensor.extract_slice %x[0, 3, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: segment 2's rows are not rows [s l, (s+1) l) of one input
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// The first window is [x0; m], the memory after the rows.
// CHECK-LABEL: func.func @first_window_swapped(
// CHECK-NOT: linea.
// CHECK: return
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func @first_window_swapped(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %x0, %m : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
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
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: the first segment's window is not [a memory; rows [0, l)]
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}

// -----

// Each step calls an external function, whose effects the raise cannot see.
// CHECK-LABEL: func.func @step_calls_a_function(
// CHECK-NOT: linea.
// CHECK: return
#id = affine_map<(b, i, d) -> (b, i, d)>
#col = affine_map<(b, i, d) -> (d)>
func.func private @layer(tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
func.func @step_calls_a_function(%x: tensor<1x6x4xf32>, %m: tensor<1x2x4xf32>, %g: tensor<4xf32>) -> tensor<1x6x4xf32> {
  %x0 = tensor.extract_slice %x[0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w0 = tensor.concat dim(1) %m, %x0 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %r0 = func.call @layer(%w0) : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %y0 = tensor.extract_slice %r0[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x1 = tensor.extract_slice %x[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w1 = tensor.concat dim(1) %y0, %x1 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %r1 = func.call @layer(%w1) : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %y1 = tensor.extract_slice %r1[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  %x2 = tensor.extract_slice %x[0, 4, 0] [1, 2, 4] [1, 1, 1] : tensor<1x6x4xf32> to tensor<1x2x4xf32>
  %w2 = tensor.concat dim(1) %y1, %x2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %r2 = func.call @layer(%w2) : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %y2 = tensor.extract_slice %r2[0, 2, 0] [1, 2, 4] [1, 1, 1] : tensor<1x4x4xf32> to tensor<1x2x4xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: linea-raise: not raised: a segment's step has side effects or reads its window outside the function body
  %out = tensor.concat dim(1) %y0, %y1, %y2 : (tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x6x4xf32>
  return %out : tensor<1x6x4xf32>
}
