// RUN: linea-opt %s -linea-check-host-code -split-input-file -verify-diagnostics

// A thread loop whose mapping was lost stays on the host, its barrier and
// mma.sync with it: refused, op by op.
func.func @unmapped(%a: i32, %c: f32, %out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
    // expected-error @below {{'gpu.barrier' op is device code left on the host: its thread loop did not become a kernel (a loop without a GPU mapping)}}
    gpu.barrier
    // expected-error @below {{'nvvm.mma.sync' op is device code left on the host}}
    %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %out[%t] : memref<256xf32>
    scf.reduce
  }
  return
}

// -----

// In a launch they are where they belong.
func.func @launched(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %z, %out[%tx] : memref<256xf32>
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// A TMA tensor map is encoded on the host (its loads run in the kernel).
func.func @tensor_map(%t: memref<64x64xbf16>) {
  %c64 = arith.constant 64 : index
  %u = memref.cast %t : memref<64x64xbf16> to memref<*xbf16>
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
  return
}
