// RUN: linea-opt %s --linea-name-kernels | FileCheck %s

// A launch takes the kernel name most of its ops' locations carry (the
// forms' stage names); the model's own launches are named after their
// content; further launches of one name are numbered in program order; a
// launch named already keeps its name.

#states = loc(fused<{linea.kernel = "linear_attention_chunk_states"}>["a.py":3:8])
#scan = loc(fused<{linea.kernel = "linear_attention_state_scan"}>["a.py":3:8])

// CHECK-LABEL: func.func @named
func.func @named(%a: memref<64xf32>, %b: memref<64xf32>, %w: memref<64x64xf32>, %s: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  // Two ops carry the states' name, one the scan's: the states'.
  // CHECK: gpu.launch {{.*}} function(@linea_linear_attention_chunk_states)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32> loc(#states)
    %y = arith.mulf %x, %x : f32 loc(#states)
    memref.store %y, %b[%tx] : memref<64xf32> loc(#scan)
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@linea_linear_attention_chunk_states_1)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32> loc(#states)
    memref.store %x, %b[%tx] : memref<64xf32> loc(#states)
    gpu.terminator
  }
  // A loop accumulating products of two different values: a contraction.
  // CHECK: gpu.launch {{.*}} function(@linea_matmul)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i] : memref<64xf32>
      %m = memref.load %w[%tx, %i] : memref<64x64xf32>
      %p = arith.mulf %m, %x : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    memref.store %sum, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  // A sum of squares is a reduction.
  // CHECK: gpu.launch {{.*}} function(@linea_reduction)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i] : memref<64xf32>
      %p = arith.mulf %x, %x : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    memref.store %sum, %s[%c0] : memref<64xf32>
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@linea_elementwise)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32>
    %e = math.exp %x : f32
    memref.store %e, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@linea_copy)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %w[%tx, %c0] : memref<64x64xf32>
    memref.store %x, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@linea_fill)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    memref.store %zero, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@mine)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) function(@mine) {
    memref.store %zero, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  // CHECK: gpu.launch {{.*}} function(@linea_fill_1)
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    memref.store %zero, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
