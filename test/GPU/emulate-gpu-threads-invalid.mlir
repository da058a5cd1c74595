// RUN: linea-opt %s -linea-emulate-gpu-threads -split-input-file -verify-diagnostics

// A barrier outside any launch has no team to wait for.
func.func @barrier_outside() {
  // expected-error @below {{'gpu.barrier' op is outside a launch or not one the emulation knows}}
  gpu.barrier
  return
}

// -----

// Ids asked of the GPU dialect (not the launch's arguments) are not known.
func.func @thread_id_op(%out: memref<32xindex>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'gpu.lane_id' op is outside a launch or not one the emulation knows}}
    %lane = gpu.lane_id
    memref.store %lane, %out[%t] : memref<32xindex>
    gpu.terminator
  }
  return
}

// -----

// The library knows m16n8k16 with 16-bit operands and f32 accumulators only.
func.func @other_mma(%a: vector<2xf16>, %c: vector<2xf16>, %out: memref<32xvector<2xf16>>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'nvvm.mma.sync' op cannot be emulated: only m16n8k16 row.col with f16/bf16 operands and f32 accumulators is}}
    %d = nvvm.mma.sync A[%a, %a] B[%a] C[%c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    memref.store %d0, %out[%t] : memref<32xvector<2xf16>>
    gpu.terminator
  }
  return
}

// -----

// An asynchronous launch would need the streams' order: not emulated.
func.func @async_launch() {
  %c1 = arith.constant 1 : index
  %ready = gpu.wait async
  // expected-error @below {{'gpu.launch' op cannot be emulated: only a synchronous launch of one block of code, without clusters or attributions, is}}
  %done = gpu.launch async [%ready] blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  gpu.wait [%done]
  return
}

// -----

// wgmma is emulated for f16/bf16 operands and f32 accumulators only.
func.func @integer_wgmma(%da: i64, %db: i64, %out: memref<128xi32>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %u = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
    %a0 = llvm.insertvalue %z, %u[0] : !llvm.struct<(i32, i32, i32, i32)>
    %a1 = llvm.insertvalue %z, %a0[1] : !llvm.struct<(i32, i32, i32, i32)>
    %a2 = llvm.insertvalue %z, %a1[2] : !llvm.struct<(i32, i32, i32, i32)>
    %a3 = llvm.insertvalue %z, %a2[3] : !llvm.struct<(i32, i32, i32, i32)>
    // expected-error @below {{'nvvm.wgmma.mma_async' op cannot be emulated: only m64nNk16 with f16/bf16 operands, f32 accumulators and unit scales is}}
    %d = nvvm.wgmma.mma_async %da, %db, %a3, <m = 64, n = 8, k = 32>, D[<s32>, <one>, <wrapped>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(i32, i32, i32, i32)>
    memref.store %d0, %out[%t] : memref<128xi32>
    gpu.terminator
  }
  return
}

// -----

// A predicated mbarrier op would need the predicate's thread-by-thread
// value: not emulated (Linea's kernels guard with scf.if instead).
func.func @predicated_arrive(%p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    // expected-error @below {{'nvgpu.mbarrier.init' op cannot be emulated: only on a group of nvgpu.mbarrier.create, without a predicate, is}}
    nvgpu.mbarrier.init %bar[%c0], %c1, predicate = %p : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A tensor map needs the tensor's rank and layout: an unranked memref that
// is not a cast of a ranked one has neither at hand.
func.func @unranked_tensor_map(%u: memref<*xbf16>) {
  %c64 = arith.constant 64 : index
  // expected-error @below {{'nvgpu.tma.create.descriptor' op cannot be emulated: only a tensor cast from a ranked memref is}}
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
  return
}

// -----

// A predicated TMA load: not emulated.
!pmap = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!pbar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
memref.global "private" @ptile : memref<64x64xbf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
func.func @predicated_load(%t: memref<64x64xbf16>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %u = memref.cast %t : memref<64x64xbf16> to memref<*xbf16>
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !pmap
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %s = memref.get_global @ptile : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !pbar
    // expected-error @below {{'nvgpu.tma.async.load' op cannot be emulated: only a load through a tensor map of nvgpu.tma.create.descriptor, completing on a group of nvgpu.mbarrier.create, without multicast or predicate, is}}
    nvgpu.tma.async.load %map[%c0, %c0], %bar[%c0] to %s, predicate = %p : !pmap, !pbar -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// Any other use of a tensor map in a kernel (a prefetch) is not emulated.
!qmap = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @prefetched_map(%t: memref<64x64xbf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.cast %t : memref<64x64xbf16> to memref<*xbf16>
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !qmap
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'nvgpu.tma.prefetch.descriptor' op uses a tensor map or mbarrier group in a way the emulation does not know}}
    nvgpu.tma.prefetch.descriptor %map : !qmap
    gpu.terminator
  }
  return
}

// -----

// The library exchanges 32 or 64 bits across the whole warp by xor only.
func.func @other_shuffle(%x: f32, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1 : i32
  %width = arith.constant 32 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{'gpu.shuffle' op cannot be emulated: only a 32 or 64-bit xor shuffle over the whole warp by a constant offset is}}
    %y, %valid = gpu.shuffle down %x, %one, %width : f32
    memref.store %y, %out[%t] : memref<32xf32>
    gpu.terminator
  }
  return
}
