// RUN: linea-opt %s -split-input-file --linea-check-allocations | FileCheck %s

// A heap buffer's address is checked against null, the message naming its
// bytes: the static sizes and the element width folded, the dynamic sizes
// multiplied at run time.

// CHECK-LABEL: func.func @scores
// CHECK-SAME: (%[[L:.*]]: index)
// CHECK: %[[BUF:.*]] = memref.alloc(%[[L]], %[[L]]) : memref<4x?x?xf32>
// CHECK: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[OK:.*]] = arith.cmpi ne, %[[ADDR]], %{{.*}} : index
// CHECK: %[[STATIC:.*]] = arith.constant 16 : index
// CHECK: %[[B1:.*]] = arith.muli %[[STATIC]], %[[L]] : index
// CHECK: %[[B2:.*]] = arith.muli %[[B1]], %[[L]] : index
// CHECK: linea.check %[[OK]], "{{.*}}check-allocations.mlir:{{[0-9]+}}:{{[0-9]+}}: out of memory: a buffer of {0} bytes could not be allocated"(%[[B2]] : index)
// CHECK: memref.dealloc %[[BUF]]
func.func @scores(%l: index) {
  %buffer = memref.alloc(%l, %l) : memref<4x?x?xf32>
  memref.dealloc %buffer : memref<4x?x?xf32>
  return
}

// -----

// Stack buffers are not the heap's: left alone.

// CHECK-LABEL: func.func @stack
// CHECK-NOT: linea.check
func.func @stack() {
  %buffer = memref.alloca() : memref<16xf32>
  return
}
