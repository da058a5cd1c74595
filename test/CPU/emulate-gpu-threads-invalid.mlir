// RUN: linea-opt %s -linea-emulate-gpu-threads -split-input-file -verify-diagnostics

// A barrier outside any thread loop has no team to wait for.
func.func @barrier_outside() {
  // expected-error @below {{'gpu.barrier' op is outside a thread loop: nothing to emulate it in}}
  gpu.barrier
  return
}

// -----

// The library knows m16n8k16 with 16-bit operands and f32 accumulators only.
func.func @other_mma(%a: vector<2xf16>, %c: vector<2xf16>, %out: memref<32xvector<2xf16>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    // expected-error @below {{'nvvm.mma.sync' op cannot be emulated: only m16n8k16 row.col with f16/bf16 operands and f32 accumulators is}}
    %d = nvvm.mma.sync A[%a, %a] B[%a] C[%c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    memref.store %d0, %out[%t] : memref<32xvector<2xf16>>
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// Threads in two dims: which of them make a warp is the launch's business;
// the emulation takes one dim.
func.func @two_thread_dims() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @below {{'scf.parallel' op has warp instructions or barriers and 2 thread dims; the emulation takes one}}
  scf.parallel (%x, %y) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    gpu.barrier
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}
