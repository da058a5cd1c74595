// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-map-to-gpu=block-size=16 -canonicalize -split-input-file | FileCheck %s
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-map-to-gpu=block-size=16 -canonicalize -convert-parallel-loops-to-gpu -split-input-file | FileCheck %s --check-prefix=LAUNCHES

// Three elementwise ops side by side (a fill, a copy, an exp), none
// touching another's buffer: one band over 6 + 12 + 4 = 22 iterations
// (two blocks of 16 threads); iteration t runs the fill's element t, the
// copy's t - 6 or the exp's t - 18, each under its own range check.
// CHECK-LABEL: func.func @three_siblings
// CHECK:       scf.parallel (%[[B:.+]]) = (%c0) to (%c2) step (%c1)
// CHECK:         scf.parallel
// CHECK:           %[[T:.+]] = arith.addi
// CHECK:           arith.cmpi slt, %[[T]], %c22
// CHECK:           %[[FILL:.+]] = arith.cmpi ult, %[[T]], %c6
// CHECK:           scf.if %[[FILL]]
// CHECK:             memref.store %cst
// CHECK:           %[[COPY_T:.+]] = arith.subi %[[T]], %c6
// CHECK:           %[[COPY:.+]] = arith.cmpi ult, %[[COPY_T]], %c12
// CHECK:           scf.if %[[COPY]]
// CHECK:             memref.load
// CHECK:           %[[EXP_T:.+]] = arith.subi %[[T]], %c18
// CHECK:           %[[EXP:.+]] = arith.cmpi ult, %[[EXP_T]], %c4
// CHECK:           scf.if %[[EXP]]
// CHECK:             math.exp
// CHECK-NOT:   scf.parallel
// CHECK:       return
// LAUNCHES-LABEL: func.func @three_siblings
// LAUNCHES-COUNT-1: gpu.launch
// LAUNCHES-NOT: gpu.launch
// LAUNCHES:     return
#id = affine_map<(d0) -> (d0)>
func.func @three_siblings(%x: memref<3x4xf32>, %y: memref<4xf32>)
    -> (memref<2x3xf32>, memref<3x4xf32>, memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<2x3xf32>)
  %b = memref.alloc() : memref<3x4xf32>
  linalg.copy ins(%x : memref<3x4xf32>) outs(%b : memref<3x4xf32>)
  %c = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%v: f32, %out: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return %a, %b, %c : memref<2x3xf32>, memref<3x4xf32>, memref<4xf32>
}

// -----

// Dynamic sizes: the band's size is the sum of the two ops' (rows x 8 and
// n), computed on the host; the second op's iterations start after the
// first's.
// CHECK-LABEL: func.func @dynamic_siblings
// CHECK-SAME:  (%[[X:[^:]+]]: memref<?x8xf32>, %[[Y:[^:]+]]: memref<?xf32>)
// CHECK:       memref.alloc
// CHECK:       %[[R:.+]] = memref.dim %[[X]], %c0 : memref<?x8xf32>
// CHECK:       %[[FIRST:.+]] = arith.muli %[[R]], %c8
// CHECK:       memref.alloc
// CHECK:       %[[N:.+]] = memref.dim %[[Y]], %c0 : memref<?xf32>
// CHECK:       %[[TOTAL:.+]] = arith.addi %[[FIRST]], %[[N]]
// CHECK:       scf.parallel {{.*}} to (%[[TOTAL]]) step
// CHECK:         scf.parallel
// CHECK:           arith.cmpi ult, %{{.+}}, %[[FIRST]]
// CHECK:           math.tanh
// CHECK:           %[[SECOND:.+]] = arith.subi %{{.+}}, %[[FIRST]]
// CHECK:           arith.cmpi ult, %[[SECOND]], %[[N]]
// CHECK:           memref.load %[[Y]][%[[SECOND]]]
// CHECK-NOT:   scf.parallel
// CHECK:       return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#one = affine_map<(d0) -> (d0)>
func.func @dynamic_siblings(%x: memref<?x8xf32>, %y: memref<?xf32>)
    -> (memref<?x8xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %r = memref.dim %x, %c0 : memref<?x8xf32>
  %n = memref.dim %y, %c0 : memref<?xf32>
  %a = memref.alloc(%r) : memref<?x8xf32>
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x8xf32>) outs(%a : memref<?x8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.generic {indexing_maps = [#one, #one], iterator_types = ["parallel"]}
      ins(%y : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  }
  return %a, %b : memref<?x8xf32>, memref<?xf32>
}

// -----

// Near misses, each op a launch of its own: the second op reads what the
// first writes (a view of it); an op writes a caller's buffer (which may
// alias the other's input); a store stands between (an op with an
// effect); a reduction.
// LAUNCHES-LABEL: func.func @reads_the_first
// LAUNCHES-COUNT-2: gpu.launch
// LAUNCHES-LABEL: func.func @writes_an_argument
// LAUNCHES-COUNT-2: gpu.launch
// LAUNCHES-LABEL: func.func @effect_between
// LAUNCHES-COUNT-2: gpu.launch
// LAUNCHES-LABEL: func.func @a_reduction
// LAUNCHES-COUNT-2: gpu.launch
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reads_the_first(%x: memref<4x4xf32>) -> memref<4x4xf32> {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %view = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<4x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  %b = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<4x4xf32, strided<[4, 1]>>) outs(%b : memref<4x4xf32>) {
  ^bb0(%v: f32, %out: f32):
    linalg.yield %v : f32
  }
  return %b : memref<4x4xf32>
}

func.func @writes_an_argument(%x: memref<4x4xf32>, %out: memref<4x4xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return %b : memref<4x4xf32>
}

func.func @effect_between(%x: memref<4x4xf32>, %s: memref<2xf32>)
    -> (memref<4x4xf32>, memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  memref.store %zero, %s[%c0] : memref<2xf32>
  %b = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<4x4xf32>)
  return %a, %b : memref<4x4xf32>, memref<4x4xf32>
}

func.func @a_reduction(%x: memref<4x4xf32>) -> (memref<4xf32>, memref<4x4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  %b = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%x : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return %a, %b : memref<4xf32>, memref<4x4xf32>
}
