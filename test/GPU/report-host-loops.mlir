// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-kernel-report -o /dev/null 2>&1 | FileCheck %s

// A kernel launched inside host loops is counted once per launch: its
// per-launch numbers, then the trip counts' product (3 x 4 = 12 launches)
// times them. 256 threads each load and store one f32: 2048 bytes a
// launch, 24576 in all. A loop whose trip count is not a constant says so.
// CHECK: remark: kernel @scale_kernel: 256 threads in {{[0-9]+}} blocks, 256 FLOP, 2.05e+03 B, {{.*}} (memory-bound); launched 12 times by host loops: 3.07e+03 FLOP, 2.46e+04 B, sm_90a estimate {{.*}} us in all
// CHECK: remark: kernel @scale_kernel: 256 threads in {{[0-9]+}} blocks, 256 FLOP, 2.05e+03 B, {{.*}} (memory-bound){{$}}
// CHECK: remark: kernel @scale_kernel: 256 threads in {{[0-9]+}} blocks, 256 FLOP, 2.05e+03 B, {{.*}} (memory-bound); in a host loop of unknown trip count
// The launches marked as one source op's (linea-mark-minimal-traffic) add
// up at that op: 12 + 1 launches, 13 x 2048 bytes against its 1024, and
// the launch in the loop of unknown trip count named apart.
// CHECK: source.mlir:7:3: remark: op total: 13 launches, 3.33e+03 FLOP, 2.66e+04 B, sm_90a estimate {{.*}} us; minimal 1.02e+03 B (operands and results as stored, per-chunk states), moved / minimal 26; 1 launches without a static estimate
// CHECK-NOT: remark
#op = loc(fused<{linea.minimal_bytes = 1024 : i64}>["source.mlir":7:3])
module attributes {gpu.container_module} {
  gpu.module @scale_kernel {
    gpu.func @scale_kernel(%x: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %x[%t] : memref<256xf32>
      gpu.return
    }
  }
  func.func @host(%x: memref<256xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    scf.for %i = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        gpu.launch_func @scale_kernel::@scale_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<256xf32>) loc(#op)
      }
    }
    gpu.launch_func @scale_kernel::@scale_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<256xf32>) loc(#op)
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @scale_kernel::@scale_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<256xf32>) loc(#op)
    }
    return
  }
}
