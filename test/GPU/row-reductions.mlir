// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-row-reductions -cse -split-input-file | FileCheck %s
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-row-reductions=block-size=64 -split-input-file | FileCheck %s --check-prefix=SMALL

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#column = affine_map<(d0, d1) -> (d1)>
#one = affine_map<(d0) -> (d0)>

// A LayerNorm as torch-mlir decomposes it: the mean and the variance along
// each row of [R, 256] (two sums into [R] buffers, each after its fill),
// then the normalized row. One launch of 256 threads, a warp per row (8
// rows a block, ceil(R / 8) blocks); each sum a strided loop over the
// row's columns and a butterfly of five xor shuffles, started at the
// fill's value; the output stored by rows in range; the sums' buffers,
// read by nothing else, gone.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:  (%[[X:.+]]: memref<?x256xf32>, %[[W:.+]]: memref<256xf32>, %[[Y:.+]]: memref<?x256xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       %[[R:.+]] = memref.dim %[[X]], %c0
// CHECK:       %[[BLOCKS:.+]] = arith.ceildivui %[[R]], %c8
// CHECK:       gpu.launch blocks(%[[B:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[BLOCKS]], {{.+}} threads(%[[T:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %c256
// CHECK:         %[[WARP:.+]] = arith.divui %[[T]], %c32
// CHECK:         %[[FIRST:.+]] = arith.muli %[[B]], %c8
// CHECK:         %[[ROW:.+]] = arith.addi %[[FIRST]], %[[WARP]]
// CHECK:         %[[LANE:.+]] = arith.remui %[[T]], %c32
// CHECK:         %[[IN:.+]] = arith.cmpi ult, %[[ROW]], %[[R]]
// CHECK:         %[[CLAMPED:.+]] = arith.minui %[[ROW]]
// CHECK:         %[[PART:.+]] = scf.for %[[J:.+]] = %[[LANE]] to %c256{{.*}} step %c32{{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32)
// CHECK:           memref.load %[[X]][%[[CLAMPED]], %[[J]]]
// CHECK:           arith.addf %[[ACC]]
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:         scf.for {{.+}} -> (f32)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:         scf.if %[[IN]]
// CHECK:           scf.for %[[K:.+]] = %[[LANE]] to %c256{{.*}} step %c32
// CHECK:             memref.load %[[W]][%[[K]]]
// CHECK:             math.rsqrt
// CHECK:             memref.store %{{.+}}, %[[Y]][%[[CLAMPED]], %[[K]]]
// CHECK:         gpu.terminator
// CHECK-NOT:   linalg.
// CHECK-NOT:   memref.dealloc
// CHECK:       return
func.func @layer_norm(%x: memref<?x256xf32>, %w: memref<256xf32>, %y: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = arith.constant 256.0 : f32
  %r = memref.dim %x, %c0 : memref<?x256xf32>
  %sum = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x256xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  %squares = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%squares : memref<?xf32>)
  linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : memref<?x256xf32>, memref<?xf32>) outs(%squares : memref<?xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %acc : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #row, #column, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %squares, %w : memref<?x256xf32>, memref<?xf32>, memref<?xf32>, memref<256xf32>) outs(%y : memref<?x256xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32, %g: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %nd = arith.mulf %d, %rs : f32
    %o2 = arith.mulf %nd, %g : f32
    linalg.yield %o2 : f32
  }
  memref.dealloc %sum : memref<?xf32>
  memref.dealloc %squares : memref<?xf32>
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A softmax over 6 columns: 8 lanes a row (the power of two at or above 6),
// 32 rows a block, three shuffles per reduction (max from the fill's -inf,
// then the sum of exponentials). The exponentials, an op of their own, are
// recomputed where the sum and the division read them, never stored; the
// row maxima, read after the group, are stored by each row's first lane.
// With 64 threads a block, 8 rows.
// CHECK-LABEL: func.func @softmax
// CHECK:       arith.ceildivui %{{.+}}, %c32
// CHECK:       gpu.launch
// CHECK:         arith.remui %{{.+}}, %c8
// CHECK:         scf.for {{.+}} step %c8{{.*}} iter_args
// CHECK:           arith.maximumf
// CHECK-COUNT-3:   gpu.shuffle  xor
// CHECK:         scf.for {{.+}} step %c8{{.*}} iter_args
// CHECK:           math.exp
// CHECK-COUNT-3:   gpu.shuffle  xor
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             memref.store
// CHECK:           %[[FIRST:.+]] = arith.cmpi eq, %{{.+}}, %c0
// CHECK:           scf.if %[[FIRST]]
// CHECK:             memref.store %{{.+}}, %[[MAX:.+]][%{{.+}}] : memref<?xf32>
// CHECK:         gpu.terminator
// CHECK:       memref.load %[[MAX]]
// SMALL-LABEL: func.func @softmax
// SMALL:       arith.ceildivui %{{.+}}, %c8
func.func @softmax(%x: memref<?x6xf32>, %y: memref<?x6xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %low = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r = memref.dim %x, %c0 : memref<?x6xf32>
  %max = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%low : f32) outs(%max : memref<?xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x6xf32>) outs(%max : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  %e = memref.alloc(%r) : memref<?x6xf32>
  linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<?x6xf32>, memref<?xf32>) outs(%e : memref<?x6xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  }
  %sum = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<?x6xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : memref<?x6xf32>, memref<?xf32>) outs(%y : memref<?x6xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }
  %first = memref.load %max[%c0] : memref<?xf32>
  return %first : f32
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A near miss stays a linalg op, a kernel of its own later: a sum whose
// output was not started inside the group (its lanes would read the old
// row value while the first lane stores the new one).
// CHECK-LABEL: func.func @not_started_here
// CHECK-NOT:   gpu.launch
// CHECK:       linalg.generic
// CHECK-NOT:   gpu.launch
func.func @not_started_here(%x: memref<?x64xf32>, %sum: memref<?xf32>) {
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x64xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

// A buffer the group writes, read across rows (transposed): other rows'
// values are other warps', so the ops (joined by their reads of %x at its
// rows) stay.
// CHECK-LABEL: func.func @read_across_rows
// CHECK-NOT:   gpu.launch
// CHECK-COUNT-3: linalg.
func.func @read_across_rows(%x: memref<32x32xf32>, %y: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x32xf32>
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x32xf32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<32xf32>)
  linalg.generic {indexing_maps = [#rows, #transposed, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %t : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

// A buffer from before the group is read any way it likes (here
// transposed): the launch loads it so.
// CHECK-LABEL: func.func @read_before
// CHECK:       gpu.launch
// CHECK:         memref.load %{{.+}}[%[[J:.+]], %[[I:.+]]] : memref<32x32xf32>
// CHECK-NOT:   linalg.
func.func @read_before(%t: memref<32x32xf32>, %y: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<32xf32>)
  linalg.generic {indexing_maps = [#transposed, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<32x32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A copy between the fill and the sum (an op with memory effects) ends the
// run: the sum alone was not started inside its group, and stays.
// CHECK-LABEL: func.func @effect_between
// CHECK:       linalg.fill
// CHECK:       memref.copy
// CHECK:       linalg.generic
// CHECK-NOT:   gpu.launch
func.func @effect_between(%x: memref<8x64xf32>, %z: memref<8x64xf32>, %sum: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32>)
  memref.copy %x, %z : memref<8x64xf32> to memref<8x64xf32>
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%z : memref<8x64xf32>) outs(%sum : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r = affine_map<(d0, d1, d2) -> (d0, d1)>
#w = affine_map<(d0, d1, d2) -> (d2)>
#rr = affine_map<(d0, d1) -> (d0, d1)>

// An RMSNorm over [B, L, 64], both leading dims dynamic: the rows are
// B x L (a launch of ceil(B L / 8) blocks), each warp's row split back
// into (b, l), the last dim fastest. The reciprocal root, a rowwise op of
// its own over [B, L], is one value per row in registers.
// CHECK-LABEL: func.func @rms_norm_rows_of_two_dims
// CHECK-SAME:  (%[[X:[^:]+]]: memref<?x?x64xf32>
// CHECK-DAG:   %[[B:.+]] = memref.dim %[[X]], %c0
// CHECK-DAG:   %[[L:.+]] = memref.dim %[[X]], %c1
// CHECK:       %[[ROWS:.+]] = arith.muli %[[B]], %[[L]]
// CHECK:       arith.ceildivui %[[ROWS]], %c8
// CHECK:       gpu.launch
// CHECK:         %[[LINEAR:.+]] = arith.minui
// CHECK:         %[[LI:.+]] = arith.remui %[[LINEAR]], %[[L]]
// CHECK:         %[[BI:.+]] = arith.divui %[[LINEAR]], %[[L]]
// CHECK:         scf.for
// CHECK:           memref.load %[[X]][%[[BI]], %[[LI]], %{{.+}}]
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:         math.rsqrt
// CHECK:         scf.if
// CHECK:           scf.for
// CHECK:             memref.store %{{.+}}, %{{.+}}[%[[BI]], %[[LI]], %{{.+}}] : memref<?x?x64xf32>
// CHECK-NOT:   linalg.
func.func @rms_norm_rows_of_two_dims(%x: memref<?x?x64xf32>, %w: memref<64xf32>, %y: memref<?x?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %b = memref.dim %x, %c0 : memref<?x?x64xf32>
  %l = memref.dim %x, %c1 : memref<?x?x64xf32>
  %sum = memref.alloc(%b, %l) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<?x?x64xf32>) outs(%sum : memref<?x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  %root = memref.alloc(%b, %l) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#rr, #rr], iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<?x?xf32>) outs(%root : memref<?x?xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    linalg.yield %rs : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #w, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %root, %w : memref<?x?x64xf32>, memref<?x?xf32>, memref<64xf32>) outs(%y : memref<?x?x64xf32>) {
  ^bb0(%a: f32, %rs: f32, %g: f32, %o: f32):
    %s = arith.mulf %a, %rs : f32
    %t = arith.mulf %s, %g : f32
    linalg.yield %t : f32
  }
  return
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

// A buffer read across rows before the group writes it (in place, by its
// rows): other warps could store their rows first. The ops stay.
// CHECK-LABEL: func.func @read_across_rows_before_the_write
// CHECK-NOT:   gpu.launch
// CHECK-COUNT-3: linalg.
func.func @read_across_rows_before_the_write(%x: memref<32x32xf32>, %y: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<32xf32>)
  linalg.generic {indexing_maps = [#transposed, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x32xf32>) outs(%y : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<32x32xf32>, memref<32xf32>) outs(%x : memref<32x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  return
}
