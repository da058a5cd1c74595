// RUN: linea-opt %s -split-input-file --linea-fuse-elementwise | FileCheck %s
// RUN: linea-opt %s -split-input-file --linea-fuse-elementwise \
// RUN:   --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUFFERS

// A softmax: the subtraction of the row max is computed inside the exp,
// its one user; the exps, which the row sum and the division both read,
// stay one tensor (fusing them twice would take every exp twice).

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// CHECK-LABEL: func.func @softmax_rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4xf32>, %[[ACC:.*]]: tensor<4xf32>)
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[X]], %[[M]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[EXP]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK: arith.divf
// CHECK: return %[[P]]
func.func @softmax_rows(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %acc: tensor<4xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// A feature map before a projection stays a tensor of its own: the matmul
// is left the plain multiply-accumulate the CPU kernels match.

// CHECK-LABEL: func.func @feature_map_then_projection
// CHECK: %[[PHI:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.matmul ins(%[[PHI]], %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32>)
func.func @feature_map_then_projection(%x: tensor<16x8xf32>, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %phi = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y = linalg.matmul ins(%phi, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%f : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// The same contraction written as a generic (a multiply-add body) is no
// place for the producer either.

// CHECK-LABEL: func.func @into_generic_contraction
// CHECK: %[[PHI:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[PHI]], %{{.*}} : tensor<16x8xf32>, tensor<8x8xf32>)
// CHECK-NOT: math.exp
func.func @into_generic_contraction(%x: tensor<16x8xf32>, %w: tensor<8x8xf32>, %acc: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %phi = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, n, k) -> (i, k)>, affine_map<(i, n, k) -> (k, n)>,
                                        affine_map<(i, n, k) -> (i, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%phi, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// A producer two ops read (a residual stream) stays, so that nothing is
// computed twice.

// CHECK-LABEL: func.func @two_users
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[R]] :
// CHECK: linalg.generic {{.*}} ins(%[[R]] :
func.func @two_users(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%r : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%r : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.tanh %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %u, %v : tensor<8xf32>, tensor<8xf32>
}

// -----

// An exp read only by a row sum is taken as the sum reads it.

// CHECK-LABEL: func.func @exp_into_sum
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[ACC:.*]]: tensor<4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[SUM]]
func.func @exp_into_sum(%x: tensor<4x8xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// The mask over a score matrix nothing else reads: the masked scores take
// the scores' place (one L x L buffer, not two).

#id3 = affine_map<(b, i, t) -> (b, i, t)>
#it = affine_map<(b, i, t) -> (i, t)>

// CHECK-LABEL: func.func @mask_over_scores
// CHECK: %[[S:.*]] = linalg.batch_matmul
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]], %{{.*}} : tensor<2x8x8xf32>, tensor<8x8xi1>) outs(%[[S]] : tensor<2x8x8xf32>)
// CHECK: linalg.batch_matmul ins(%[[M]],

// Bufferized, the mask writes in place: one buffer of scores.
// BUFFERS-LABEL: func.func @mask_over_scores
// BUFFERS: %[[SCORES:.*]] = memref.alloc() {{.*}} : memref<2x8x8xf32>
// BUFFERS-NOT: memref.alloc() {{.*}} : memref<2x8x8xf32>
// BUFFERS: linalg.generic {{.*}} ins(%[[SCORES]], %{{.*}}) outs(%[[SCORES]] : memref<2x8x8xf32>)
// BUFFERS-NOT: memref.alloc() {{.*}} : memref<2x8x8xf32>
// BUFFERS: return
func.func @mask_over_scores(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>,
                            %causal: tensor<8x8xi1>) -> tensor<2x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%f : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %e2 = tensor.empty() : tensor<2x8x8xf32>
  %m = linalg.generic {indexing_maps = [#id3, #it, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %causal : tensor<2x8x8xf32>, tensor<8x8xi1>) outs(%e2 : tensor<2x8x8xf32>) {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %r = arith.select %keep, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x4xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %o = linalg.batch_matmul ins(%m, %v : tensor<2x8x8xf32>, tensor<2x8x4xf32>) outs(%fo : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}

// -----

// Near misses keep their fresh destination: scores read again later (the
// row sum of a normalization), an argument (the caller's memory), and an
// operand read transposed (element (i, t) would overwrite (t, i) before
// it is read).

// CHECK-LABEL: func.func @operands_that_live_on
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-COUNT-3: outs(%[[E]] : tensor<8x8xf32>) {
// CHECK-NOT: linalg.generic
func.func @operands_that_live_on(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %s = linalg.matmul ins(%x, %y : tensor<8x8xf32>, tensor<8x8xf32>) outs(%x : tensor<8x8xf32>) -> tensor<8x8xf32>
  // %s is read here and returned.
  %twice = linalg.generic {indexing_maps = [affine_map<(i, t) -> (i, t)>, affine_map<(i, t) -> (i, t)>],
                           iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  // %y is an argument.
  %exp = linalg.generic {indexing_maps = [affine_map<(i, t) -> (i, t)>, affine_map<(i, t) -> (i, t)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  // %p is read transposed.
  %p = linalg.matmul ins(%y, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%y : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, t) -> (t, i)>, affine_map<(i, t) -> (i, t)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %s, %twice, %exp, %t : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// torch-mlir reads a batch of score matrices as heads through a reshape
// nothing else reads: the masked scores still take their place.

// CHECK-LABEL: func.func @mask_over_reshaped_scores
// CHECK: %[[S:.*]] = linalg.batch_matmul
// CHECK: %[[HEADS:.*]] = tensor.expand_shape %[[S]]
// CHECK: linalg.generic {{.*}} outs(%[[HEADS]] : tensor<1x2x8x8xf32>)
func.func @mask_over_reshaped_scores(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>,
                                     %causal: tensor<8x8xi1>) -> tensor<1x2x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%f : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %heads = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %e2 = tensor.empty() : tensor<1x2x8x8xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, t) -> (i, t)>, affine_map<(b, h, i, t) -> (b, h, i, t)>,
                                        affine_map<(b, h, i, t) -> (b, h, i, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%causal, %heads : tensor<8x8xi1>, tensor<1x2x8x8xf32>) outs(%e2 : tensor<1x2x8x8xf32>) {
  ^bb0(%keep: i1, %a: f32, %o: f32):
    %r = arith.select %keep, %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  return %m : tensor<1x2x8x8xf32>
}

// -----

// Three elementwise ops in a row are one: one round of the greedy driver
// leaves a fused pair beside the third op, and the next fuses them.
// CHECK-LABEL: func.func @three_in_a_row
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: math.exp
#row3 = affine_map<(i, j) -> (i, j)>
func.func @three_in_a_row(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#row3, #row3], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#row3, #row3], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %one : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %c = linalg.generic {indexing_maps = [#row3, #row3], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// A padded elementwise result (the chunk-parallel form pads the feature-
// mapped keys to whole chunks): the padded tensor is filled and the map
// writes its interior, so no tensor of its own is copied into it. A map
// whose result something else reads too stays, and the pad copies it.
// CHECK-LABEL: func.func @padded_map
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<?x8xf32>)
// CHECK: %[[INTERIOR:.+]] = tensor.extract_slice %[[FILL]][0, 0] [%{{.+}}, 8] [1, 1]
// CHECK: %[[MAPPED:.+]] = linalg.generic {{.*}} outs(%[[INTERIOR]] : tensor<?x8xf32>)
// CHECK: math.exp
// CHECK: tensor.insert_slice %[[MAPPED]] into %[[FILL]][0, 0] [%{{.+}}, 8] [1, 1]
// CHECK-NOT: tensor.pad
// CHECK-LABEL: func.func @padded_map_read_twice
// CHECK: linalg.generic
// CHECK: tensor.pad
#map2 = affine_map<(i, j) -> (i, j)>
func.func @padded_map(%k: tensor<?x8xf32>, %high: index) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %k, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %m = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%k : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<?x8xf32>
  %p = tensor.pad %m low[0, 0] high[%high, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x8xf32> to tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

func.func @padded_map_read_twice(%k: tensor<?x8xf32>, %high: index) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %k, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %m = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%k : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<?x8xf32>
  %p = tensor.pad %m low[0, 0] high[%high, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x8xf32> to tensor<?x8xf32>
  return %p, %m : tensor<?x8xf32>, tensor<?x8xf32>
}
