// RUN: linea-opt %s -linea-host-shared-allocs -split-input-file | FileCheck %s

// A buffer only kernels read and write is device memory, allocated and
// freed in stream order: no wait anywhere.
// CHECK-LABEL: func.func @kernels_only
// CHECK:         %[[S0:.+]] = gpu.wait async
// CHECK:         %[[BUF:[a-z0-9_]+]], %{{.+}} = gpu.alloc async [%[[S0]]] () : memref<16xf32>
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.+}}, %[[BUF]]
// CHECK:         %[[S1:.+]] = gpu.wait async
// CHECK:         gpu.dealloc async [%[[S1]]] %[[BUF]]
// CHECK-NOT:     gpu.wait [
// CHECK-NOT:     host_shared
// CHECK:         return
func.func @kernels_only(%x: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %buf = memref.alloc() : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<16xf32>
    memref.store %v, %buf[%tx] : memref<16xf32>
    gpu.terminator
  }
  memref.dealloc %buf : memref<16xf32>
  return
}

// -----

// The host reads an element through a view: the whole buffer is managed
// memory, freed after the stream is done with it.
// CHECK-LABEL: func.func @host_reads_a_view
// CHECK:         %[[BUF:[a-z0-9_]+]] = gpu.alloc host_shared () : memref<4x16xf32>
// CHECK:         memref.load
// CHECK:         %[[READY:.+]] = gpu.wait async
// CHECK:         %[[FREED:.+]] = gpu.dealloc async [%[[READY]]] %[[BUF]]
// CHECK:         gpu.wait [%[[FREED]]]
func.func @host_reads_a_view(%i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4x16xf32>
  %row = memref.subview %buf[1, 0] [1, 16] [1, 1]
      : memref<4x16xf32> to memref<16xf32, strided<[1], offset: 16>>
  %v = memref.load %row[%i] : memref<16xf32, strided<[1], offset: 16>>
  memref.dealloc %buf : memref<4x16xf32>
  return %v : f32
}

// -----

// A call may do anything with what it is given: managed memory. A buffer
// only returned (the caller's result) is device memory.
// CHECK-LABEL: func.func @passed_to_a_call
// CHECK:         %[[GIVEN:[a-z0-9_]+]] = gpu.alloc host_shared () : memref<8xf32>
// CHECK:         call @opaque(%[[GIVEN]])
// CHECK:         gpu.alloc async
// CHECK-NOT:     host_shared
func.func private @opaque(memref<8xf32>)
func.func @passed_to_a_call() -> memref<8xf32> {
  %given = memref.alloc() : memref<8xf32>
  call @opaque(%given) : (memref<8xf32>) -> ()
  %result = memref.alloc() : memref<8xf32>
  return %result : memref<8xf32>
}
