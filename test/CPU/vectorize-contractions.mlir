// RUN: linea-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(linea-vectorize-contractions{vector-width=4 register-rows=2 reduction-block=32}),canonicalize)' | FileCheck %s
// RUN: linea-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(linea-vectorize-contractions{vector-width=4 register-rows=6}),canonicalize)' | FileCheck %s --check-prefix=HEIGHTS

// The one-shot state K^T V over a reduction longer than one block: each
// block of K and V is copied into panels ([tile, step, lane]) that the
// tiles read in order; two rows of 2 x 4 lanes stay in registers while the
// block's steps run.

// CHECK-LABEL: func.func @state
// CHECK-SAME: (%[[K:.*]]: memref<3x100x16xf32>, %[[V:.*]]: memref<3x100x16xf32>, %[[S:.*]]: memref<3x16x16xf32>)
// The batches run in parallel, each with panels of its own.
// CHECK: scf.parallel (%[[B:.*]]) =
// CHECK-DAG: %[[PA:.*]] = memref.alloc() : memref<8x32x2xf32>
// CHECK-DAG: %[[PB:.*]] = memref.alloc() : memref<2x32x8xf32>
// CHECK: %[[KROW:.*]] = vector.transfer_read %[[K]][%[[B]], {{.*}} : memref<3x100x16xf32>, vector<2xf32>
// CHECK: vector.transfer_write %[[KROW]], %[[PA]]
// CHECK: %[[VROW:.*]] = vector.transfer_read %[[V]][%[[B]], {{.*}} : memref<3x100x16xf32>, vector<8xf32>
// CHECK: vector.transfer_write %[[VROW]], %[[PB]]
// CHECK: %[[C0:.*]] = vector.transfer_read %[[S]][%[[B]], %[[M:.*]], %[[N:.*]]], %{{.*}} {in_bounds = [true]} : memref<3x16x16xf32>, vector<8xf32>
// CHECK: %[[SUM:.*]]:2 = scf.for {{.*}} iter_args(%[[R0:.*]] = %[[C0]], %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[ROW:.*]] = vector.transfer_read %[[PB]]
// CHECK: %[[A0:.*]] = memref.load %[[PA]]
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK: vector.fma %[[SPLAT]], %[[ROW]], %[[R0]] : vector<8xf32>
// CHECK: vector.fma
// CHECK: vector.transfer_write %[[SUM]]#0, %[[S]][%[[B]], %[[M]], %[[N]]] {in_bounds = [true]}
// CHECK: memref.dealloc %[[PA]]
// CHECK-NOT: linalg.generic
func.func @state(%k: memref<3x100x16xf32>, %v: memref<3x100x16xf32>, %s: memref<3x16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, t, d, e) -> (b, t, d)>,
                                   affine_map<(b, t, d, e) -> (b, t, e)>,
                                   affine_map<(b, t, d, e) -> (b, d, e)>],
                  iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<3x100x16xf32>, memref<3x100x16xf32>) outs(%s : memref<3x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The queries times the state, Q S: a short reduction (16 <= one block)
// read in place; the rows of Q are broadcast a scalar at a time, the rows of
// S are the vectors, and the 5 x 16 output leaves one row to a tile of its
// own. Without batches, the row tiles are spread over threads.

// CHECK-LABEL: func.func @query_state
// CHECK-SAME: (%[[Q:.*]]: memref<5x16xf32>, %[[S:.*]]: memref<16x16xf32>, %[[O:.*]]: memref<5x16xf32>)
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[M:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[C0:.*]] = vector.transfer_read %[[O]][%[[M]], %[[N]]]
// CHECK: scf.for %[[D:.*]] = {{.*}} iter_args(%[[R0:.*]] = %[[C0]], %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[ROW:.*]] = vector.transfer_read %[[S]][%[[D]], %[[N]]]
// CHECK: %[[A0:.*]] = memref.load %[[Q]][%[[M]], %[[D]]]
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK: vector.fma %[[SPLAT]], %[[ROW]], %[[R0]] : vector<8xf32>
// The fifth row, alone:
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
func.func @query_state(%q: memref<5x16xf32>, %s: memref<16x16xf32>, %o: memref<5x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, e, d) -> (i, d)>,
                                   affine_map<(i, e, d) -> (d, e)>,
                                   affine_map<(i, e, d) -> (i, e)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %s : memref<5x16xf32>, memref<16x16xf32>) outs(%o : memref<5x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A chunk's causal scores Q K^T: the keys' contiguous dim is the reduced d,
// so they are packed d-major through 4 x 4 transposes; the mask is replayed
// on a vector of column indices, and a tile it hides entirely is skipped.

// CHECK-LABEL: func.func @scores
// CHECK-SAME: (%[[Q:.*]]: memref<?x?xf32>, %[[K:.*]]: memref<?x?xf32>, %[[P:.*]]: memref<?x?xf32>)
// CHECK: %[[PACKED:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK: %[[SQUARE:.*]] = vector.transfer_read %[[K]]{{.*}} : memref<?x?xf32>, vector<4x4xf32>
// CHECK: %[[T:.*]] = vector.transpose %[[SQUARE]], [1, 0]
// CHECK: vector.transfer_write %[[T]], %[[PACKED]]
// CHECK: %[[STEP:.*]] = vector.step : vector<8xindex>
// CHECK: %[[COLS:.*]] = arith.addi %[[STEP]]
// CHECK: %[[SEEN:.*]] = arith.cmpi sle, %[[COLS]], %{{.*}} : vector<8xindex>
// CHECK: vector.reduction <or>, %[[SEEN]] : vector<8xi1> into i1
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.transfer_read %[[PACKED]]
// CHECK: arith.select %[[SEEN]]
// CHECK: memref.dealloc %[[PACKED]]
// CHECK-NOT: linalg.generic
func.func @scores(%q: memref<?x?xf32>, %k: memref<?x?xf32>, %p: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, t, d) -> (i, d)>,
                                   affine_map<(i, t, d) -> (t, d)>,
                                   affine_map<(i, t, d) -> (i, t)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<?x?xf32>, memref<?x?xf32>) outs(%p : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %t = linalg.index 1 : index
    %i = linalg.index 0 : index
    %seen = arith.cmpi sle, %t, %i : index
    %prod = arith.mulf %a, %b : f32
    %masked = arith.select %seen, %prod, %zero : f32
    %r = arith.addf %acc, %masked : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Not a multiply-accumulate (the decayed scores): left to the loops.

// CHECK-LABEL: func.func @decayed
// CHECK: linalg.generic
// CHECK-NOT: vector.fma
func.func @decayed(%q: memref<8x8xf32>, %k: memref<8x8xf32>, %p: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, t, d) -> (i, d)>,
                                   affine_map<(i, t, d) -> (t, d)>,
                                   affine_map<(i, t, d) -> (i, t)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<8x8xf32>, memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %prod = arith.mulf %a, %b : f32
    %e = math.exp %prod : f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A mask that reads the reduced dim is not a mask of the finished sum.

// CHECK-LABEL: func.func @mask_on_k
// CHECK: linalg.generic
func.func @mask_on_k(%q: memref<8x8xf32>, %k: memref<8x8xf32>, %p: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, t, d) -> (i, d)>,
                                   affine_map<(i, t, d) -> (t, d)>,
                                   affine_map<(i, t, d) -> (i, t)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<8x8xf32>, memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = linalg.index 2 : index
    %i = linalg.index 0 : index
    %seen = arith.cmpi sle, %d, %i : index
    %prod = arith.mulf %a, %b : f32
    %masked = arith.select %seen, %prod, %zero : f32
    %r = arith.addf %acc, %masked : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// C's rows strided in their innermost dim: no vector rows to read.

// CHECK-LABEL: func.func @strided_output
// CHECK: linalg.generic
func.func @strided_output(%a: memref<8x8xf32>, %b: memref<8x8xf32>,
                          %c: memref<8x8xf32, strided<[1, 8]>>) {
  linalg.generic {indexing_maps = [affine_map<(i, t, e) -> (i, t)>,
                                   affine_map<(i, t, e) -> (t, e)>,
                                   affine_map<(i, t, e) -> (i, e)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32, strided<[1, 8]>>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The zero fill of C just before a masked contraction is folded into the
// kernel: the accumulators start from zero, C is never read, and a tile
// the mask hides is written as zeros.

// CHECK-LABEL: func.func @filled_scores
// CHECK-SAME: (%[[Q:.*]]: memref<8x8xf32>, %[[K:.*]]: memref<8x8xf32>, %[[P:.*]]: memref<8x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.transfer_read %[[P]]
// CHECK: %[[SEEN:.*]] = vector.reduction <or>
// CHECK: scf.if
// CHECK: %[[KEPT:.*]] = arith.select
// CHECK: vector.transfer_write %[[KEPT]], %[[P]]
// CHECK: } else {
// CHECK: vector.transfer_write %[[ZEROS:.*]], %[[P]]
// CHECK-NOT: linalg
func.func @filled_scores(%q: memref<8x8xf32>, %k: memref<8x8xf32>, %p: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, t, d) -> (i, d)>,
                                   affine_map<(i, t, d) -> (t, d)>,
                                   affine_map<(i, t, d) -> (i, t)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<8x8xf32>, memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %t = linalg.index 1 : index
    %i = linalg.index 0 : index
    %seen = arith.cmpi sle, %t, %i : index
    %prod = arith.mulf %a, %b : f32
    %masked = arith.select %seen, %prod, %zero : f32
    %r = arith.addf %acc, %masked : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Model IR's named contractions (a projection `linalg.matmul` after its zero
// fill) are generalized and become the same kernels, the fill folded. The
// 15 rows are two full tiles of 6 over the threads, then the 3 left as one
// tile of 2 and one of 1 (halving heights, at most one of each).

// CHECK-LABEL: func.func @projection
// CHECK-SAME: (%[[X:.*]]: memref<15x16xf32>, %[[W:.*]]: memref<16x8xf32>, %[[Y:.*]]: memref<15x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK: vector.fma
// CHECK: vector.transfer_write %{{.*}}, %[[Y]]
// CHECK-NOT: linalg.

// HEIGHTS-LABEL: func.func @projection
// HEIGHTS: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c12) step (%c6)
// HEIGHTS: iter_args({{[^,]*}}, {{[^,]*}}, {{[^,]*}}, {{[^,]*}}, {{[^,]*}}, {{[^,]*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// HEIGHTS: scf.reduce
// HEIGHTS: iter_args({{[^,]*}}, {{[^,]*}}) -> (vector<8xf32>, vector<8xf32>)
// HEIGHTS: vector.transfer_write %{{.*}}, %{{.*}}[%c12, %c0]
// HEIGHTS: vector.transfer_write %{{.*}}, %{{.*}}[%c13, %c0]
// HEIGHTS: iter_args({{[^,]*}}) -> (vector<8xf32>)
// HEIGHTS: vector.transfer_write %{{.*}}, %{{.*}}[%c14, %c0]
// HEIGHTS-NOT: iter_args
// HEIGHTS: return
func.func @projection(%x: memref<15x16xf32>, %w: memref<16x8xf32>, %y: memref<15x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<15x8xf32>)
  linalg.matmul ins(%x, %w : memref<15x16xf32>, memref<16x8xf32>) outs(%y : memref<15x8xf32>)
  return
}

// -----

// Scores as torch-mlir prints them, a `batch_matmul` of Q and K transposed
// by the op's own maps: K's contiguous dim is the reduction, so it is packed.

// CHECK-LABEL: func.func @named_scores
// CHECK: memref.alloc
// CHECK: vector.fma
// CHECK-NOT: linalg.
func.func @named_scores(%q: memref<2x8x8xf32>, %k: memref<2x8x8xf32>, %s: memref<2x8x8xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>,
                                       affine_map<(b, i, t, d) -> (b, t, d)>,
                                       affine_map<(b, i, t, d) -> (b, i, t)>]
      ins(%q, %k : memref<2x8x8xf32>, memref<2x8x8xf32>) outs(%s : memref<2x8x8xf32>)
  return
}

// -----

// A named contraction of integers is generalized, matched by no kernel, and
// left to the loops.

// CHECK-LABEL: func.func @integer_matmul
// CHECK: linalg.generic
func.func @integer_matmul(%a: memref<4x4xi32>, %b: memref<4x4xi32>, %c: memref<4x4xi32>) {
  linalg.matmul ins(%a, %b : memref<4x4xi32>, memref<4x4xi32>) outs(%c : memref<4x4xi32>)
  return
}

// -----

// A contraction that widens an operand (16 bits into an f32 accumulator, as
// front ends print half precision) is one the shared matcher reads
// (`widens`), but the kernels take one element type: left to the loops.

// CHECK-LABEL: func.func @widened_matmul
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK-NOT: vector.
// CHECK: return
func.func @widened_matmul(%a: memref<8x8xf32>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// A projection's constant weights inside a loop (a fold's steps): B is
// packed k-major once, before the loop, and freed after it; the kernel in
// the loop reads the packed copy.

// CHECK-LABEL: func.func @constant_weights_in_a_loop
// CHECK: %[[PACKED:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: vector.transpose
// CHECK: vector.transfer_write {{.*}}, %[[PACKED]]
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read %[[PACKED]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[PACKED]]
// CHECK-NEXT: return
memref.global "private" constant @weights : memref<8x4xf32> = dense<1.0>

func.func @constant_weights_in_a_loop(%x: memref<3x5x4xf32>, %y: memref<3x5x8xf32>) {
  %w = memref.get_global @weights : memref<8x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %xs = memref.subview %x[%i, 0, 0] [1, 5, 4] [1, 1, 1] : memref<3x5x4xf32> to memref<5x4xf32, strided<[4, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0, 0] [1, 5, 8] [1, 1, 1] : memref<3x5x8xf32> to memref<5x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                     affine_map<(m, n, k) -> (m, n)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%xs, %w : memref<5x4xf32, strided<[4, 1], offset: ?>>, memref<8x4xf32>)
        outs(%ys : memref<5x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

// Weights that are an argument (memory the loop might write): packed at
// every iteration, as before.

// CHECK-LABEL: func.func @argument_weights_in_a_loop
// CHECK: scf.for
// CHECK: %[[PACKED:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: vector.transpose
// CHECK: vector.fma
// CHECK: memref.dealloc %[[PACKED]]
func.func @argument_weights_in_a_loop(%x: memref<3x5x4xf32>, %w: memref<8x4xf32>, %y: memref<3x5x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %xs = memref.subview %x[%i, 0, 0] [1, 5, 4] [1, 1, 1] : memref<3x5x4xf32> to memref<5x4xf32, strided<[4, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0, 0] [1, 5, 8] [1, 1, 1] : memref<3x5x8xf32> to memref<5x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                     affine_map<(m, n, k) -> (m, n)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%xs, %w : memref<5x4xf32, strided<[4, 1], offset: ?>>, memref<8x4xf32>)
        outs(%ys : memref<5x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %c, %p : f32
      linalg.yield %s : f32
    }
  }
  return
}
