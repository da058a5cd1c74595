// RUN: linea-opt %s -pass-pipeline="builtin.module(gpu.module(linea-launch-bounds))" | FileCheck %s
// RUN: linea-opt %s -pass-pipeline="builtin.module(gpu.module(linea-launch-bounds{min-blocks-per-sm=4}))" | FileCheck %s --check-prefix=FOUR
// RUN: not linea-opt %s -pass-pipeline="builtin.module(gpu.module(linea-launch-bounds{min-blocks-per-sm=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// Kernels get nvvm.minctasm; other functions in the module do not.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: nvvm.minctasm
// FOUR: nvvm.minctasm = 4 : i32
// BAD: error: min-blocks-per-sm must be positive, got 0
gpu.module @kernels {
  gpu.func @kernel(%x: memref<4xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    gpu.return
  }
  gpu.func @helper(%x: memref<4xf32>) {
    gpu.return
  }
}
