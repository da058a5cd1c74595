// RUN: linea-opt %s -linea-read-as-stored -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// A decay reads the widened copy of a bf16 operand: it reads the bf16
// buffer and widens in its body; the copy, read by nothing else, goes with
// its f32 buffer. The copy of a view of it (a block's rows) is generalized
// and reads the bf16 view.
// CHECK-LABEL: func.func @decay_reads_bf16
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: memref<4x8xbf16>, %[[B:[a-z0-9_]+]]: memref<4x8xf32>, %[[O:[a-z0-9_]+]]: memref<4x8xf32>, %[[ROWS:[a-z0-9_]+]]: memref<2x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[B]] : memref<4x8xbf16>, memref<4x8xf32>) outs(%[[O]] : memref<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:   %[[WIDE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:   math.exp %[[Y]]
// CHECK-NEXT:   arith.mulf %[[WIDE]]
// CHECK: %[[VIEW:.+]] = memref.subview %[[Q]][1, 0] [2, 8] [1, 1] : memref<4x8xbf16> to memref<2x8xbf16, strided<[8, 1], offset: 8>>
// CHECK: linalg.generic {{.*}} ins(%[[VIEW]] : memref<2x8xbf16, strided<[8, 1], offset: 8>>) outs(%[[ROWS]] : memref<2x8xf32>)
// CHECK-NEXT: ^bb0(%[[R:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT:   %[[RW:.+]] = arith.extf %[[R]] : bf16 to f32
// CHECK-NEXT:   linalg.yield %[[RW]] : f32
func.func @decay_reads_bf16(%q: memref<4x8xbf16>, %b: memref<4x8xf32>, %o: memref<4x8xf32>, %rows: memref<2x8xf32>) {
  %wide = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q : memref<4x8xbf16>) outs(%wide : memref<4x8xf32>) {
  ^bb0(%x: bf16, %out: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wide, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %d = math.exp %y : f32
    %m = arith.mulf %x, %d : f32
    linalg.yield %m : f32
  }
  %view = memref.subview %wide[1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  linalg.copy ins(%view : memref<2x8xf32, strided<[8, 1], offset: 8>>) outs(%rows : memref<2x8xf32>)
  memref.dealloc %wide : memref<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A copy that is written again after widening is not the bf16 buffer's
// value any more: its reader keeps it.
// CHECK-LABEL: func.func @written_again
// CHECK: %[[WIDE:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.fill {{.*}} outs(%[[WIDE]]
// CHECK: linalg.generic {{.*}} ins(%[[WIDE]] : memref<4x8xf32>)
func.func @written_again(%q: memref<4x8xbf16>, %o: memref<4x8xf32>) {
  %wide = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q : memref<4x8xbf16>) outs(%wide : memref<4x8xf32>) {
  ^bb0(%x: bf16, %out: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%wide : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%wide : memref<4x8xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Inside a sequence block, the block's own widened copy (its shared-memory
// temporary) is read as it is.
// CHECK-LABEL: func.func @block_copy
// CHECK: scf.forall
// CHECK:   %[[OWN:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK:   linalg.generic {{.*}} ins(%{{.+}} : memref<4x8xbf16>) outs(%[[OWN]] : memref<4x8xf32>)
// CHECK:   linalg.generic {{.*}} ins(%[[OWN]] : memref<4x8xf32>)
func.func @block_copy(%q: memref<4x8xbf16>, %o: memref<2x4x8xf32>) {
  scf.forall (%i) in (2) {
    %own = memref.alloc() : memref<4x8xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%q : memref<4x8xbf16>) outs(%own : memref<4x8xf32>) {
    ^bb0(%x: bf16, %out: f32):
      %e = arith.extf %x : bf16 to f32
      linalg.yield %e : f32
    }
    %slice = memref.subview %o[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%own : memref<4x8xf32>) outs(%slice : memref<4x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%x: f32, %out: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    }
    memref.dealloc %own : memref<4x8xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Inside a sequence block, the block's copy of a widened bf16 operand (its
// rows in shared memory) copies the bf16 values into a bf16 temporary, rows
// padded by 8 elements; its reader reads that as stored, and both f32
// buffers go.
// CHECK-LABEL: func.func @block_copy_of_widened
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: memref<2x4x8xbf16>,
// CHECK-NOT: memref.alloc() : memref<2x4x8xf32>
// CHECK: scf.forall (%[[I:.+]]) in (2)
// CHECK:   %[[TWIN:.+]] = memref.alloc() : memref<4x16xbf16>
// CHECK:   %[[ROWS:.+]] = memref.subview %[[TWIN]][0, 0] [4, 8] [1, 1] : memref<4x16xbf16> to memref<4x8xbf16, strided<[16, 1]>>
// CHECK:   %[[MINE:.+]] = memref.subview %[[Q]][%[[I]], 0, 0] [1, 4, 8]
// CHECK:   linalg.copy ins(%[[MINE]] : {{.*}}) outs(%[[ROWS]] : memref<4x8xbf16, strided<[16, 1]>>)
// CHECK-NOT: memref<4x8xf32>
// CHECK:   linalg.generic {{.*}} ins(%[[ROWS]] : memref<4x8xbf16, strided<[16, 1]>>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT:   arith.extf %[[X]] : bf16 to f32
// CHECK:   memref.dealloc %[[TWIN]] : memref<4x16xbf16>
func.func @block_copy_of_widened(%q: memref<2x4x8xbf16>, %o: memref<2x4x8xf32>) {
  %wide = memref.alloc() : memref<2x4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : memref<2x4x8xbf16>) outs(%wide : memref<2x4x8xf32>) {
  ^bb0(%x: bf16, %out: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  scf.forall (%i) in (2) {
    %own = memref.alloc() : memref<4x8xf32>
    %mine = memref.subview %wide[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    linalg.copy ins(%mine : memref<4x8xf32, strided<[8, 1], offset: ?>>) outs(%own : memref<4x8xf32>)
    %slice = memref.subview %o[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%own : memref<4x8xf32>) outs(%slice : memref<4x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%x: f32, %out: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    }
    memref.dealloc %own : memref<4x8xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  memref.dealloc %wide : memref<2x4x8xf32>
  return
}
