// RUN: linea-opt %s -linea-padded-writes -split-input-file | FileCheck %s

// A sequence's rows copied into its chunk-padded buffer (zeros after
// them): one op over the buffer, each element once, the copy's rows inside
// its part and the fill's zero after; the part's rows read at the element
// less the part's offsets.
// CHECK-LABEL: func.func @padded_rows
// CHECK-SAME:  (%[[X:[^:]+]]: memref<4x?x64xf32>, %[[P:[^:]+]]: memref<4x?x64xf32>
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]{{.*}} outs(%[[P]] : memref<4x?x64xf32>)
// CHECK:         %[[I:.+]] = linalg.index 0
// CHECK:         %[[L:.+]] = linalg.index 1
// CHECK:         %[[IN:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}}
// CHECK:         scf.if %{{.+}} -> (f32)
// CHECK:           %[[V:.+]] = memref.load %[[X]][%{{.+}}, %{{.+}}, %{{.+}}]
// CHECK:           scf.yield %[[V]]
// CHECK:         } else {
// CHECK:           scf.yield %cst
// CHECK-NOT:   linalg.fill
// CHECK-NOT:   linalg.copy
func.func @padded_rows(%x: memref<4x?x64xf32>, %p: memref<4x?x64xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %l = memref.dim %x, %c1 : memref<4x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x?x64xf32>)
  %rows = memref.subview %p[0, 0, 0] [4, %l, 64] [1, 1, 1] : memref<4x?x64xf32> to memref<4x?x64xf32, strided<[?, 64, 1]>>
  linalg.copy ins(%x : memref<4x?x64xf32>) outs(%rows : memref<4x?x64xf32, strided<[?, 64, 1]>>)
  return
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The ones column of a normalized op's values: the buffer [4, L, 65]
// filled with ones (a linalg.map fill), the values' feature map written
// into its first 64 columns. One op; inside, the feature map of the
// loaded element.
// CHECK-LABEL: func.func @ones_column
// CHECK:       linalg.generic
// CHECK:         scf.if
// CHECK:           memref.load
// CHECK:           math.exp
// CHECK:         } else {
// CHECK:           scf.yield %cst
// CHECK-NOT:   linalg.map
func.func @ones_column(%v: memref<4x?x64xf32>, %o: memref<4x?x65xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %l = memref.dim %v, %c1 : memref<4x?x64xf32>
  linalg.map outs(%o : memref<4x?x65xf32>)
    (%init: f32) {
      linalg.yield %one : f32
    }
  %values = memref.subview %o[0, 0, 0] [4, %l, 64] [1, 1, 1] : memref<4x?x65xf32> to memref<4x?x64xf32, strided<[?, 65, 1]>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v : memref<4x?x64xf32>) outs(%values : memref<4x?x64xf32, strided<[?, 65, 1]>>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// Near misses stay: a write that reads the filled buffer (its own rows,
// shifted), and a strided part.
// CHECK-LABEL: func.func @reads_the_filled
// CHECK:       linalg.fill
// CHECK:       linalg.copy
// CHECK-LABEL: func.func @strided_part
// CHECK:       linalg.fill
// CHECK:       linalg.copy
func.func @reads_the_filled(%p: memref<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<8x64xf32>)
  %front = memref.subview %p[0, 0] [4, 64] [1, 1] : memref<8x64xf32> to memref<4x64xf32, strided<[64, 1]>>
  %back = memref.subview %p[4, 0] [4, 64] [1, 1] : memref<8x64xf32> to memref<4x64xf32, strided<[64, 1], offset: 256>>
  linalg.copy ins(%back : memref<4x64xf32, strided<[64, 1], offset: 256>>) outs(%front : memref<4x64xf32, strided<[64, 1]>>)
  return
}

func.func @strided_part(%x: memref<4x32xf32>, %p: memref<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<8x64xf32>)
  %every_other = memref.subview %p[0, 0] [4, 32] [2, 2] : memref<8x64xf32> to memref<4x32xf32, strided<[128, 2]>>
  linalg.copy ins(%x : memref<4x32xf32>) outs(%every_other : memref<4x32xf32, strided<[128, 2]>>)
  return
}

// -----

// A pad of a pad: the values beside their ones column [4, L, 65], then
// padded to whole chunks [4, P, 65]. One op over the outer buffer; inside
// its part, the inner padded write's element computed where it would have
// been read (the values' load, else the column's one); the inner buffer
// goes.
// CHECK-LABEL: func.func @pad_of_pad
// CHECK-SAME:  (%[[V:[^:]+]]: memref<4x?x64xf32>, %[[P:[^:]+]]: memref<4x?x65xf32>
// CHECK-NOT:   memref.alloc
// CHECK:       linalg.generic {{.*}} outs(%[[P]] : memref<4x?x65xf32>)
// CHECK:         scf.if %{{.+}} -> (f32)
// CHECK:           scf.if %{{.+}} -> (f32)
// CHECK:             %[[X:.+]] = memref.load %[[V]]
// CHECK:             scf.yield %[[X]]
// CHECK:           } else {
// CHECK:             scf.yield %[[ONE:.+]] : f32
// CHECK:         } else {
// CHECK:           scf.yield %[[ZERO:.+]] : f32
// CHECK-NOT:   linalg.generic
// CHECK-NOT:   linalg.fill
// CHECK-NOT:   linalg.copy
// CHECK-NOT:   memref.alloc
// CHECK:       return
func.func @pad_of_pad(%v: memref<4x?x64xf32>, %p: memref<4x?x65xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %l = memref.dim %v, %c1 : memref<4x?x64xf32>
  %column = memref.alloc(%l) : memref<4x?x65xf32>
  linalg.fill ins(%one : f32) outs(%column : memref<4x?x65xf32>)
  %values = memref.subview %column[0, 0, 0] [4, %l, 64] [1, 1, 1] : memref<4x?x65xf32> to memref<4x?x64xf32, strided<[?, 65, 1]>>
  linalg.copy ins(%v : memref<4x?x64xf32>) outs(%values : memref<4x?x64xf32, strided<[?, 65, 1]>>)
  linalg.fill ins(%zero : f32) outs(%p : memref<4x?x65xf32>)
  %rows = memref.subview %p[0, 0, 0] [4, %l, 65] [1, 1, 1] : memref<4x?x65xf32> to memref<4x?x65xf32, strided<[?, 65, 1]>>
  linalg.copy ins(%column : memref<4x?x65xf32>) outs(%rows : memref<4x?x65xf32, strided<[?, 65, 1]>>)
  memref.dealloc %column : memref<4x?x65xf32>
  return
}

// -----

// Near misses of a pad of a pad: the inner buffer read again after the
// outer write (it must exist), and the inner write's input changed between
// the two writes (its value at the outer write is not the one it read).
// Each padded write is one op of its own.
// CHECK-LABEL: func.func @inner_read_again
// CHECK:       %[[C:.+]] = memref.alloc
// CHECK:       linalg.generic {{.*}} outs(%[[C]]
// CHECK:       linalg.generic
// CHECK:         memref.load %[[C]]
// CHECK:       memref.load %[[C]]
// CHECK-LABEL: func.func @input_changed_between
// CHECK:       %[[C:.+]] = memref.alloc
// CHECK:       linalg.generic {{.*}} outs(%[[C]]
// CHECK:       linalg.fill
// CHECK:       linalg.generic
// CHECK:         memref.load %[[C]]
func.func @inner_read_again(%v: memref<4x8xf32>, %p: memref<4x16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %column = memref.alloc() : memref<4x9xf32>
  linalg.fill ins(%one : f32) outs(%column : memref<4x9xf32>)
  %values = memref.subview %column[0, 0] [4, 8] [1, 1] : memref<4x9xf32> to memref<4x8xf32, strided<[9, 1]>>
  linalg.copy ins(%v : memref<4x8xf32>) outs(%values : memref<4x8xf32, strided<[9, 1]>>)
  linalg.fill ins(%zero : f32) outs(%p : memref<4x16xf32>)
  %rows = memref.subview %p[0, 0] [4, 9] [1, 1] : memref<4x16xf32> to memref<4x9xf32, strided<[16, 1]>>
  linalg.copy ins(%column : memref<4x9xf32>) outs(%rows : memref<4x9xf32, strided<[16, 1]>>)
  %x = memref.load %column[%c0, %c0] : memref<4x9xf32>
  return %x : f32
}

func.func @input_changed_between(%v: memref<4x8xf32>, %p: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %column = memref.alloc() : memref<4x9xf32>
  linalg.fill ins(%one : f32) outs(%column : memref<4x9xf32>)
  %values = memref.subview %column[0, 0] [4, 8] [1, 1] : memref<4x9xf32> to memref<4x8xf32, strided<[9, 1]>>
  linalg.copy ins(%v : memref<4x8xf32>) outs(%values : memref<4x8xf32, strided<[9, 1]>>)
  linalg.fill ins(%two : f32) outs(%v : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%p : memref<4x16xf32>)
  %rows = memref.subview %p[0, 0] [4, 9] [1, 1] : memref<4x16xf32> to memref<4x9xf32, strided<[16, 1]>>
  linalg.copy ins(%column : memref<4x9xf32>) outs(%rows : memref<4x9xf32, strided<[16, 1]>>)
  memref.dealloc %column : memref<4x9xf32>
  return
}

// -----

// A fill of part of a buffer heads a padded write of its own, which the
// first match takes; a later padded write copying from that part chains
// nothing (the part is no padded write's whole buffer by itself), and
// every write stays exactly once.
// CHECK-LABEL: func.func @overlapping_matches
// CHECK-SAME:  (%[[X:[^:]+]]: memref<2x4xf32>, %[[P:[^:]+]]: memref<4x8xf32>, %[[Q:[^:]+]]: memref<8x8xf32>)
// CHECK:       linalg.generic {{.*}} outs(%[[P]] : memref<4x8xf32>)
// CHECK:       linalg.copy ins(%[[X]]
// CHECK:       linalg.generic {{.*}} outs(%[[Q]] : memref<8x8xf32>)
// CHECK-NOT:   linalg.fill
func.func @overlapping_matches(%x: memref<2x4xf32>, %p: memref<4x8xf32>, %q: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  %s = memref.subview %p[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  linalg.fill ins(%one : f32) outs(%s : memref<2x8xf32, strided<[8, 1]>>)
  %t = memref.subview %s[0, 0] [2, 4] [1, 1] : memref<2x8xf32, strided<[8, 1]>> to memref<2x4xf32, strided<[8, 1]>>
  linalg.copy ins(%x : memref<2x4xf32>) outs(%t : memref<2x4xf32, strided<[8, 1]>>)
  linalg.fill ins(%zero : f32) outs(%q : memref<8x8xf32>)
  %u = memref.subview %q[0, 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  linalg.copy ins(%s : memref<2x8xf32, strided<[8, 1]>>) outs(%u : memref<2x8xf32, strided<[8, 1]>>)
  return
}
