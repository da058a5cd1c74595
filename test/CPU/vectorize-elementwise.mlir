// RUN: linea-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(linea-vectorize-elementwise,canonicalize))' | FileCheck %s
// RUN: linea-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(linea-vectorize-elementwise{tile=16},canonicalize))' | FileCheck %s --check-prefix=TILE16

// The softmax's row maximum: one row of 64 keys is one vector, reduced
// into the row's entry in any order.

// CHECK-LABEL: func.func @row_maximum
// CHECK-SAME: (%[[S:.*]]: memref<4x64x64xf32>, %[[M:.*]]: memref<4x64xf32>)
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ROW:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true]} : memref<64xf32, {{.*}}>, vector<64xf32>
// CHECK: %[[OLD:.*]] = memref.load
// CHECK: %[[MAX:.*]] = vector.reduction <maximumf>, %[[ROW]], %[[OLD]] fastmath<reassoc> : vector<64xf32> into f32
// CHECK-NOT: linalg.generic
func.func @row_maximum(%s: memref<4x64x64xf32>, %m: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : memref<4x64x64xf32>) outs(%m : memref<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %max = arith.maximumf %in, %out : f32
    linalg.yield %max : f32
  }
  return
}

// -----

// A causal mask from indices: the key index is a vector step, the query
// index the tile's loop index, the select one vector op.

// CHECK-LABEL: func.func @causal_mask
// CHECK: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<64xf32>
// CHECK: scf.for
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK: %[[KEYS:.*]] = vector.step : vector<64xindex>
// CHECK: %[[VISIBLE:.*]] = arith.cmpi sle, {{.*}} : vector<64xindex>
// CHECK: %[[MASKED:.*]] = arith.select %[[VISIBLE]], %[[ROW]], %[[NEGINF]] : vector<64xi1>, vector<64xf32>
// CHECK: vector.transfer_write %[[MASKED]]
// CHECK-NOT: linalg.generic
func.func @causal_mask(%s: memref<4x64x64xf32>, %o: memref<4x64x64xf32>, %k0: index) {
  %neginf = arith.constant 0xFF800000 : f32
  %c64 = arith.constant 64 : index
  linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : memref<4x64x64xf32>) outs(%o : memref<4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %key = arith.addi %k0, %j : index
    %last = arith.addi %i, %c64 : index
    %visible = arith.cmpi sle, %key, %last : index
    %r = arith.select %visible, %in, %neginf : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row's scale broadcast along it, and rows of a dynamic count: each
// tile is one row of at most `tile` elements.

// CHECK-LABEL: func.func @rescale_rows
// CHECK-SAME: (%[[A:.*]]: memref<?x4xf32>, %[[O:.*]]: memref<?x4x128xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[A]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C64:.*]]
// CHECK: %[[SCALE:.*]] = vector.broadcast %{{.*}} to vector<64xf32>
// CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} vector<64xf32>
// CHECK: arith.mulf %[[ROW]], %[[SCALE]] : vector<64xf32>
// CHECK-NOT: linalg.generic
// TILE16-LABEL: func.func @rescale_rows
// TILE16: arith.mulf {{.*}} : vector<16xf32>
func.func @rescale_rows(%a: memref<?x4xf32>, %o: memref<?x4x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, d) -> (b, h)>, affine_map<(b, h, d) -> (b, h, d)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<?x4xf32>) outs(%o : memref<?x4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %out, %in : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The row's scalar from a strided view (a column of a wider buffer): a
// load, broadcast along the row.

// CHECK-LABEL: func.func @strided_scale
// CHECK: scf.for
// CHECK: %[[SCALE:.*]] = memref.load {{.*}} : memref<1x1xf32, strided<[32, 1], offset: ?>>
// CHECK: %[[LANES:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<64xf32>
// CHECK: arith.addf %{{.*}}, %[[LANES]] : vector<64xf32>
// CHECK-NOT: vector.transfer_read {{.*}} vector<f32>
func.func @strided_scale(%a: memref<8x4xf32, strided<[32, 1], offset: ?>>, %o: memref<8x4x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, d) -> (b, h)>, affine_map<(b, h, d) -> (b, h, d)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<8x4xf32, strided<[32, 1], offset: ?>>) outs(%o : memref<8x4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %out, %in : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A sum down the rows (the reduced dim outer): each tile adds one row into
// the vector of sums.

// CHECK-LABEL: func.func @column_sums
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} vector<48xf32>
// CHECK: %[[SUMS:.*]] = vector.transfer_read {{.*}} vector<48xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[SUMS]], %[[ROW]] : vector<48xf32>
// CHECK: vector.transfer_write %[[NEW]]
// CHECK-NOT: linalg.generic
func.func @column_sums(%x: memref<10x48xf32>, %s: memref<48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(t, d) -> (t, d)>, affine_map<(t, d) -> (d)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<10x48xf32>) outs(%s : memref<48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Near misses, left to convert-linalg-to-loops as they are: the innermost
// dim transposed in an operand, read with a stride, of a dynamic size, or
// of a size (100) no tile of 64, 32, 16 or 8 divides, and a buffer of i1
// (a byte per element, where a vector of i1 in memory is packed bits).

// CHECK-LABEL: func.func @transposed
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @transposed(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// CHECK-LABEL: func.func @strided
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @strided(%x: memref<8x64xf32, strided<[1, 8]>>, %y: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xf32, strided<[1, 8]>>) outs(%y : memref<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @dynamic_inner
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @dynamic_inner(%x: memref<8x?xf32>, %y: memref<8x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x?xf32>) outs(%y : memref<8x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @no_dividing_tile
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @no_dividing_tile(%x: memref<8x100xf32>, %y: memref<8x100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x100xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @boolean_mask
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @boolean_mask(%mask: memref<12x12xi1>, %s: memref<2x12x12xf32>, %o: memref<2x12x12xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>,
                                   affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mask, %s : memref<12x12xi1>, memref<2x12x12xf32>) outs(%o : memref<2x12x12xf32>) {
  ^bb0(%keep: i1, %in: f32, %out: f32):
    %r = arith.select %keep, %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
