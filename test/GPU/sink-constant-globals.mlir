// RUN: linea-opt %s --linea-sink-constant-globals | FileCheck %s
// RUN: linea-opt %s --linea-sink-constant-globals --gpu-kernel-outlining | FileCheck %s --check-prefix=OUTLINED

// A model's constant weights: the launch fetches them itself, so that
// outlining copies the global into the kernel's module (device memory)
// instead of passing the host's address. A mutable global and the launch's
// other operands are left as they are.
memref.global "private" constant @bias : memref<128xf32> = dense<1.0>
memref.global "private" @state : memref<128xf32> = dense<0.0>

// CHECK-LABEL: func.func @add_bias
// CHECK: %[[STATE:.+]] = memref.get_global @state
// CHECK: gpu.launch
// CHECK-NEXT: %[[BIAS:.+]] = memref.get_global @bias : memref<128xf32>
// CHECK: memref.load %[[BIAS]]
// CHECK: memref.store %{{.+}}, %[[STATE]]
// OUTLINED: gpu.launch_func @add_bias_kernel::@add_bias_kernel {{.*}} args(%{{[^:]+}} : memref<128xf32>, %{{[^:]+}} : memref<128xf32>)
// OUTLINED: gpu.module @add_bias_kernel
// OUTLINED: gpu.func @add_bias_kernel(%{{[^:]+}}: memref<128xf32>, %{{[^:]+}}: memref<128xf32>)
// OUTLINED: memref.get_global @bias
// OUTLINED: memref.global "private" constant @bias
// OUTLINED-NOT: @state
func.func @add_bias(%x: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %bias = memref.get_global @bias : memref<128xf32>
  %state = memref.get_global @state : memref<128xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %b = memref.load %bias[%tx] : memref<128xf32>
    %v = memref.load %x[%tx] : memref<128xf32>
    %s = arith.addf %b, %v : f32
    memref.store %s, %state[%tx] : memref<128xf32>
    gpu.terminator
  }
  return
}

// A view of a constant (a bias split into heads) is made inside the launch
// too, from the fetch it clones there.
memref.global "private" constant @heads_bias : memref<128xf32> = dense<2.0>
// CHECK-LABEL: func.func @view_of_bias
// CHECK: gpu.launch
// CHECK-NEXT: %[[FETCH:.+]] = memref.get_global @heads_bias : memref<128xf32>
// CHECK-NEXT: %[[HEADS:.+]] = memref.expand_shape %[[FETCH]] {{\[\[}}0, 1]] output_shape [4, 32]
// CHECK: memref.load %[[HEADS]]
func.func @view_of_bias(%x: memref<4x32xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %bias = memref.get_global @heads_bias : memref<128xf32>
  %heads = memref.expand_shape %bias [[0, 1]] output_shape [4, 32] : memref<128xf32> into memref<4x32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %b = memref.load %heads[%bx, %tx] : memref<4x32xf32>
    memref.store %b, %x[%bx, %tx] : memref<4x32xf32>
    gpu.terminator
  }
  return
}
