// RUN: linea-opt %s -linea-async-launches -canonicalize -split-input-file | FileCheck %s

// Launches in a host loop go on the function's stream without waiting; the
// host waits once before it reads the buffer itself, and once before it
// returns (the canonicalizer must not drop either).
// CHECK-LABEL: func.func @loop_then_host_read
// CHECK:         %[[STREAM:.+]] = gpu.wait async
// CHECK:         scf.for
// CHECK:           gpu.launch async [%[[STREAM]]]
// CHECK:             gpu.terminator
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    call @linea_cuda_synchronize() : () -> ()
// CHECK-NEXT:    %[[V:.+]] = memref.load
// CHECK-NEXT:    call @linea_cuda_synchronize() : () -> ()
// CHECK-NEXT:    return %[[V]]
// CHECK:       func.func private @linea_cuda_synchronize()
func.func @loop_then_host_read(%buf: memref<16xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %one = arith.constant 1.0 : f32
      memref.store %one, %buf[%tx] : memref<16xf32>
      gpu.terminator
    }
  }
  %v = memref.load %buf[%c0] : memref<16xf32>
  return %v : f32
}

// -----

// A launch that is asynchronous already keeps its own dependencies; a
// function that launches nothing stays as it was, and nothing is declared.
// CHECK-LABEL: func.func @no_launch
// CHECK-NOT:     gpu.wait
// CHECK-NOT:     call
// CHECK:         return
// CHECK-NOT:   linea_cuda_synchronize
func.func @no_launch(%x: f32) -> f32 {
  return %x : f32
}
