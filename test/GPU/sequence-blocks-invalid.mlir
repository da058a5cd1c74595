// RUN: linea-opt %s -linea-sequence-blocks-to-launch -split-input-file -verify-diagnostics

// Thread loops of different sizes cannot share one block size.
func.func @mismatched_threads(%x: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  // expected-error @below {{sequence block needs buffers (no results) and thread loops over 0 to the same constant bound}}
  scf.forall (%b) in (2) {
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      memref.store %cst, %x[%t] : memref<256xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      memref.store %cst, %x[%t] : memref<256xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A temporary of run-time size has no place in shared memory.
func.func @dynamic_temporary(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  scf.forall (%b) in (2) {
    // expected-error @below {{cannot be placed in a sequence block's shared memory}}
    %tmp = memref.alloc(%n) : memref<?xf32>
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      %v = memref.load %x[%t] : memref<?xf32>
      memref.store %v, %tmp[%t] : memref<?xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    memref.dealloc %tmp : memref<?xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
