// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" -linea-contractions-to-mma=precision=f32 -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" "-linea-contractions-to-mma=precision=f32 block-size=128" -split-input-file | FileCheck %s --check-prefix=OTHER-BLOCK

// A projection in f32 without tensor cores (precision=f32, or auto on a
// program without 16-bit floats), over a dynamic L as a model's: a staged
// grid on the CUDA cores. Each block takes a 128 x 128 output tile (the
// largest that still gives the SMs work), its 256 threads a 16 x 16 grid,
// each thread 8 x 8 outputs (rows ty + 16 i, columns tx + 16 j) in
// registers; per 32-deep step the block stages A's and M's slices in
// shared memory as f32, then each thread runs 32 x 64 FMAs from them. The
// zero fill is the accumulators' start; the last row tile is partial.
// CHECK:       memref.global "private" @[[SM:linea_staged_m[_0-9]*]] : memref<128x40xf32, #gpu.address_space<workgroup>>
// CHECK:       memref.global "private" @[[SA:linea_staged_a[_0-9]*]] : memref<128x40xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @projection
// CHECK-SAME:    (%[[X:.+]]: memref<?x256xf32>, %[[W:.+]]: memref<768x256xf32>, %[[Y:.+]]: memref<?x768xf32>)
// CHECK:         %[[L:.+]] = memref.dim %[[Y]], %c0
// CHECK:         scf.parallel (%{{.+}}, %[[THREAD:.+]]) = (%c0{{.*}}, %c0{{.*}}) to (%{{.+}}, %c256{{.*}})
// CHECK:           %[[STAGED_A:.+]] = memref.get_global @[[SA]]
// CHECK:           %[[STAGED_M:.+]] = memref.get_global @[[SM]]
// CHECK-NOT:       linalg.fill
// CHECK:           scf.for %{{.+}} = %c0{{.*}} to %c256{{.*}} step %c32{{.*}} iter_args(
// CHECK:             nvgpu.device_async_copy %[[X]]
// CHECK:             nvgpu.device_async_copy %[[W]]
// CHECK:             gpu.barrier
// CHECK-COUNT-8:     memref.load %[[STAGED_A]]
// CHECK-COUNT-8:     memref.load %[[STAGED_M]]
// CHECK-COUNT-64:    math.fma
// CHECK:             gpu.barrier
// CHECK:           arith.cmpi ult, %{{.+}}, %[[L]]
// CHECK:           memref.store %{{.+}}, %[[Y]]
// CHECK-NOT:     nvvm.mma.sync
// CHECK-NOT:     linalg.generic

// A block size other than 256 has no 16 x 16 thread grid: the contraction
// stays for linea-map-to-gpu's scalar grid.
// OTHER-BLOCK-LABEL: func.func @projection
// OTHER-BLOCK:         linalg.generic
// OTHER-BLOCK-NOT:     math.fma
#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
func.func @projection(%x: memref<?x256xf32>, %w: memref<768x256xf32>, %y: memref<?x768xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x768xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x256xf32>, memref<768x256xf32>) outs(%y : memref<?x768xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
