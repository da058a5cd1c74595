// RUN: linea-opt %s -pass-pipeline="builtin.module(linea-plan-target{target=gpu chip=sm_90a},linea-sequence-blocks-to-launch,gpu-kernel-outlining,gpu.module(linea-launch-bounds))" | FileCheck %s
// RUN: linea-opt %s -pass-pipeline="builtin.module(linea-sequence-blocks-to-launch,gpu-kernel-outlining,gpu.module(linea-launch-bounds))" | FileCheck %s --check-prefix=UNPLANNED

// A sequence block whose temporaries take more than half of a block's
// shared memory on the planned GPU (128 KiB of sm_90a's 227 KiB) runs one
// block to an SM whatever its registers: its kernel is built for one (the
// registers of two, no spills to fit a second). A small block keeps the
// default of two. Without a planned GPU nothing is assumed.
// CHECK-LABEL: gpu.func @whole_sm_kernel
// CHECK-SAME:    nvvm.minctasm = 1 : i32
// CHECK-LABEL: gpu.func @small_block_kernel
// CHECK-SAME:    nvvm.minctasm = 2 : i32
// UNPLANNED-LABEL: gpu.func @whole_sm_kernel
// UNPLANNED-SAME:    nvvm.minctasm = 2 : i32
func.func @whole_sm(%x: memref<2x32768xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c32768 = arith.constant 32768 : index
  scf.forall (%b) in (2) {
    %tmp = memref.alloc() : memref<32768xf32>
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      scf.for %i = %t to %c32768 step %c256 {
        %v = memref.load %x[%b, %i] : memref<2x32768xf32>
        memref.store %v, %tmp[%i] : memref<32768xf32>
      }
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      scf.for %i = %t to %c32768 step %c256 {
        %v = memref.load %tmp[%i] : memref<32768xf32>
        memref.store %v, %x[%b, %i] : memref<2x32768xf32>
      }
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    memref.dealloc %tmp : memref<32768xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

func.func @small_block(%x: memref<2x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.forall (%b) in (2) {
    %tmp = memref.alloc() : memref<256xf32>
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      %v = memref.load %x[%b, %t] : memref<2x256xf32>
      memref.store %v, %tmp[%t] : memref<256xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      %v = memref.load %tmp[%t] : memref<256xf32>
      memref.store %v, %x[%b, %t] : memref<2x256xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    memref.dealloc %tmp : memref<256xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
