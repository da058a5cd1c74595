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
    // expected-error @below {{'memref.store' op accesses argument #2 on the host}}
    memref.store %d0, %out[%t] : memref<256xf32>
    scf.reduce
  }
  return
}

// -----

// Host code that reads or writes an argument's buffer (through a view too)
// touches the caller's device memory: refused. A buffer Linea allocated is
// managed memory, which the host may touch.
func.func @host_access(%in: memref<11xf32>, %out: memref<11xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %view = memref.subview %in[%c3] [1] [1] : memref<11xf32> to memref<1xf32, strided<[1], offset: ?>>
  // expected-error @below {{'memref.load' op accesses argument #0 on the host, where it is the caller's device memory: the op did not become a kernel}}
  %x = memref.load %view[%c0] : memref<1xf32, strided<[1], offset: ?>>
  %own = memref.alloc() : memref<1xf32>
  memref.store %x, %own[%c0] : memref<1xf32>
  %into = memref.subview %out[%c3] [1] [1] : memref<11xf32> to memref<1xf32, strided<[1], offset: ?>>
  // expected-error @below {{'memref.copy' op accesses argument #1 on the host}}
  memref.copy %own, %into : memref<1xf32> to memref<1xf32, strided<[1], offset: ?>>
  return
}

// -----

// Through calls (linea-outline-ops makes each op a private function): a
// private function's argument is the caller's tensor where a call passes
// one on; one that only ever gets Linea's own buffers (the deallocation
// helper's tables) is host memory.
func.func private @outlined(%x: memref<4xf32>, %table: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'memref.load' op accesses argument #0 on the host}}
  %v = memref.load %x[%c0] : memref<4xf32>
  memref.store %c1, %table[%c0] : memref<4xindex>
  return
}
func.func @entry(%in: memref<4xf32>) {
  %table = memref.alloc() : memref<4xindex>
  func.call @outlined(%in, %table) : (memref<4xf32>, memref<4xindex>) -> ()
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
