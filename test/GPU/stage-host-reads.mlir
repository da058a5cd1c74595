// RUN: linea-opt %s -linea-stage-host-reads -split-input-file | FileCheck %s

// The host reads the caller's offsets (a check, say): it reads a copy made
// at the function's start, freed before the return. The kernel's own read
// (inside the sequence block) and the linalg op's stay on the argument.
// CHECK-LABEL: func.func @offsets
// CHECK-SAME: (%[[O:[a-z0-9_]+]]: memref<?xindex>, %[[X:[a-z0-9_]+]]: memref<4xf32>)
// CHECK: %[[N:.+]] = memref.dim %[[O]], %c0
// CHECK: %[[STAGED:.+]] = memref.alloc(%[[N]]) : memref<?xindex>
// CHECK: linalg.copy ins(%[[O]] : memref<?xindex>) outs(%[[STAGED]] : memref<?xindex>)
// CHECK: memref.load %[[STAGED]][%{{.+}}] : memref<?xindex>
// CHECK: scf.forall
// CHECK:   memref.load %[[O]][%{{.+}}]
// CHECK: linalg.fill
// CHECK: memref.dealloc %[[STAGED]]
// CHECK-NEXT: return
func.func @offsets(%o: memref<?xindex>, %x: memref<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %first = memref.load %o[%c0] : memref<?xindex>
  scf.forall (%n) in (4) {
    %start = memref.load %o[%n] : memref<?xindex>
    %f = arith.index_cast %start : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %x[%n] : memref<4xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<4xf32>)
  return %first : index
}

// -----

// Buffers of Linea's own are managed memory already: not staged.
// CHECK-LABEL: func.func @own_buffer
// CHECK-NOT: linalg.copy
func.func @own_buffer(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %b = memref.alloc(%n) : memref<?xf32>
  %v = memref.load %b[%c0] : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return %v : f32
}
