// RUN: linea-opt %s -split-input-file --linea-free-after-last-use | FileCheck %s

// Two layers' score matrices: each is freed after its last reader, so the
// second is allocated once the first is gone, not beside it.

// CHECK-LABEL: func.func @two_layers
// CHECK: %[[S1:.*]] = memref.alloc(%{{.*}}) : memref<?x?xf32>
// CHECK: linalg.fill {{.*}} outs(%[[S1]]
// CHECK: %[[V1:.*]] = memref.subview %[[S1]]
// CHECK: linalg.copy ins(%[[V1]] {{.*}} outs(%[[OUT1:.*]] :
// CHECK-NEXT: memref.dealloc %[[S1]]
// CHECK: %[[S2:.*]] = memref.alloc(%{{.*}}) : memref<?x?xf32>
// CHECK: linalg.copy ins(%[[S2]] {{.*}} outs(%[[OUT2:.*]] :
// CHECK-NEXT: memref.dealloc %[[S2]]
// CHECK: return
func.func @two_layers(%n: index, %out1: memref<4x4xf32>, %out2: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %s1 = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%s1 : memref<?x?xf32>)
  %v1 = memref.subview %s1[0, 0] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1]>>
  linalg.copy ins(%v1 : memref<4x4xf32, strided<[?, 1]>>) outs(%out1 : memref<4x4xf32>)
  %s2 = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%s2 : memref<?x?xf32>)
  linalg.copy ins(%s2 : memref<?x?xf32>) outs(%out2 : memref<?x?xf32>)
  memref.dealloc %s1 : memref<?x?xf32>
  memref.dealloc %s2 : memref<?x?xf32>
  return
}

// -----

// A use inside a loop counts as the loop: the buffer lives through it.

// CHECK-LABEL: func.func @read_in_loop
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: scf.for
// CHECK:   memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: arith.addf
func.func @read_in_loop(%n: index, %out: memref<f32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<?xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %b[%i] : memref<?xf32>
    memref.store %x, %out[] : memref<f32>
  }
  %y = arith.addf %zero, %zero : f32
  memref.dealloc %b : memref<?xf32>
  return %y : f32
}

// -----

// A view yielded out of a loop is an alias the analysis follows: the
// buffer lives while the loop's result is read.

// CHECK-LABEL: func.func @alias_through_loop
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: %[[R:.*]] = scf.for
// CHECK: memref.load %[[R]]
// CHECK-NEXT: memref.dealloc %[[B]]
func.func @alias_through_loop(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.alloc(%n) : memref<?xf32>
  %v = memref.cast %b : memref<?xf32> to memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %v) -> memref<?xf32> {
    scf.yield %it : memref<?xf32>
  }
  %x = memref.load %r[%c0] : memref<?xf32>
  %y = arith.addf %x, %x : f32
  memref.dealloc %b : memref<?xf32>
  return %y : f32
}

// -----

// A raw address or a call may keep the buffer beyond what the analysis
// sees: the dealloc stays where ownership-based deallocation put it.

func.func private @keep(memref<?xf32>)

// CHECK-LABEL: func.func @escapes
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: call @keep
// CHECK: arith.addi
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @escapes(%n: index) -> index {
  %a = memref.alloc(%n) : memref<?xf32>
  %address = memref.extract_aligned_pointer_as_index %a : memref<?xf32> -> index
  %b = memref.alloc(%n) : memref<?xf32>
  func.call @keep(%b) : (memref<?xf32>) -> ()
  %sum = arith.addi %address, %n : index
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return %sum : index
}
