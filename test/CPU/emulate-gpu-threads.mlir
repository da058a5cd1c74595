// RUN: linea-opt %s -linea-emulate-gpu-threads -split-input-file | FileCheck %s

// A staged grid's launch: cp.async into its workgroup slice, a barrier, an
// ldmatrix and an mma.sync. The blocks are loops; each block's 32 threads
// an OpenMP team; the warp instructions call the emulation library with
// the thread's index; the slice is plain memory.
// CHECK-DAG: func.func private @linea_gpu_emu_begin_block(i64)
// CHECK-DAG: func.func private @linea_gpu_emu_mma_m16n8k16(i64, i64, i64, i64, i64)
// CHECK-DAG: memref.global "private" @staged : memref<16x24xbf16> {alignment = 16 : i64}
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%[[SRC:.+]]: memref<4x16x16xbf16>, %[[OUT:.+]]: memref<4x32x4xf32>)
// CHECK: scf.for %{{.+}} = %{{.+}} to %c1
// CHECK: scf.for %{{.+}} = %{{.+}} to %c1
// CHECK: scf.for %[[BLOCK:.+]] = %{{.+}} to %c4
// CHECK:   %[[COUNT:.+]] = arith.muli %c32
// CHECK:   %[[COUNT64:.+]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK:   call @linea_gpu_emu_begin_block(%[[COUNT64]])
// CHECK:   %[[COUNT32:.+]] = arith.index_cast %[[COUNT]] : index to i32
// CHECK:   omp.parallel num_threads(%[[COUNT32]] : i32) {
// CHECK-DAG: %[[C:.+]] = memref.alloca() : memref<4xf32>
// CHECK-DAG: %[[B:.+]] = memref.alloca() : memref<2xi32>
// CHECK-DAG: %[[A:.+]] = memref.alloca() : memref<4xi32>
// CHECK-DAG: %[[TILES:.+]] = memref.alloca() : memref<8xbf16>
// CHECK:     %[[MEMBER:.+]] = func.call @omp_get_thread_num() : () -> i32
// CHECK:     %[[TEAM:.+]] = func.call @omp_get_num_threads() : () -> i32
// CHECK:     %[[T:.+]] = arith.extsi %[[MEMBER]] : i32 to i64
// CHECK:     call @linea_gpu_emu_join(%[[T]],
// CHECK:     %[[LINEAR:.+]] = arith.index_cast %[[T]] : i64 to index
// CHECK:     %[[TX:.+]] = arith.remui %[[LINEAR]], %c32
// CHECK:     %[[SLICE:.+]] = memref.get_global @staged : memref<16x24xbf16>
// CHECK:     scf.for %[[K:.+]] = %{{.+}} to %c8{{.*}} step
// CHECK-NOT:   scf.if
// CHECK:       %[[X:.+]] = memref.load %[[SRC]][%[[BLOCK]], %[[TX]],
// CHECK:       memref.store %[[X]], %[[SLICE]][
// CHECK-NOT: nvgpu.device_async
// CHECK:     call @linea_gpu_emu_barrier(%[[T]])
// CHECK:     call @linea_gpu_emu_ldmatrix(%[[T]], %c4_i64, %c0_i64, %{{.+}}, %{{.+}})
// CHECK:     %[[LOADED:.+]] = vector.load %[[TILES]][%{{.+}}] : memref<8xbf16>, vector<8xbf16>
// CHECK:     vector.shape_cast %[[LOADED]] : vector<8xbf16> to vector<4x2xbf16>
// CHECK:     memref.store %{{.+}}, %[[A]][
// CHECK:     call @linea_gpu_emu_mma_m16n8k16(%[[T]], %c1_i64,
// CHECK:     memref.load %[[C]][
// CHECK:     llvm.insertvalue
// CHECK:     memref.store %{{.+}}, %[[OUT]][%[[BLOCK]], %[[TX]], %c0]
// CHECK:     omp.terminator
// CHECK-NOT: gpu.
// CHECK-NOT: nvvm.mma.sync
memref.global "private" @staged : memref<16x24xbf16, #gpu.address_space<workgroup>> {alignment = 16 : i64}
func.func @grid(%src: memref<4x16x16xbf16>, %out: memref<4x32x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f32
  gpu.launch blocks(%blk, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %s = memref.get_global @staged : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %tok = nvgpu.device_async_copy %src[%blk, %t, %c0], %s[%t, %c0], 8 {bypassL1} : memref<4x16x16xbf16> to memref<16x24xbf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %tok
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    %frag = nvgpu.ldmatrix %s[%t, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x24xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %a0 = vector.extract %frag[0] : vector<2xbf16> from vector<4x2xbf16>
    %a1 = vector.extract %frag[1] : vector<2xbf16> from vector<4x2xbf16>
    %a2 = vector.extract %frag[2] : vector<2xbf16> from vector<4x2xbf16>
    %a3 = vector.extract %frag[3] : vector<2xbf16> from vector<4x2xbf16>
    %r0 = llvm.bitcast %a0 : vector<2xbf16> to i32
    %r1 = llvm.bitcast %a1 : vector<2xbf16> to i32
    %r2 = llvm.bitcast %a2 : vector<2xbf16> to i32
    %r3 = llvm.bitcast %a3 : vector<2xbf16> to i32
    %d = nvvm.mma.sync A[%r0, %r1, %r2, %r3] B[%r0, %r1] C[%z, %z, %z, %z] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %out[%blk, %t, %c0] : memref<4x32x4xf32>
    gpu.terminator
  }
  return
}

// -----

// A launch whose threads never meet runs them as loops (no team); a
// sequence block's dynamic shared memory is one buffer of the launch's
// size, and a partial cp.async (source elements at run time) zero-fills
// the rest.
// CHECK-LABEL: func.func @loops_and_dynamic_shared
// CHECK-NOT: omp.parallel
// CHECK: %[[BYTES:.+]] = arith.index_cast %c512_i32 : i32 to index
// CHECK: %[[SHARED:.+]] = memref.alloc(%[[BYTES]]) {alignment = 16 : i64} : memref<?xi8>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[BLOCK:.+]] =
// CHECK:   scf.for
// CHECK:   scf.for
// CHECK:   scf.for %[[T:.+]] =
// CHECK:     %[[VIEW:.+]] = memref.view %[[SHARED]][%c0][] : memref<?xi8> to memref<16x16xf16>
// CHECK:     scf.for %[[K:.+]] =
// CHECK:       %[[IN:.+]] = arith.cmpi slt, %[[K]], %{{.+}} : index
// CHECK:       %[[X:.+]] = scf.if %[[IN]] -> (f16) {
// CHECK:         memref.load
// CHECK:       } else {
// CHECK:         arith.constant 0.000000e+00 : f16
// CHECK:       memref.store %[[X]], %[[VIEW]][
// CHECK: memref.dealloc %[[SHARED]] : memref<?xi8>
func.func @loops_and_dynamic_shared(%src: memref<4x16x16xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %bytes = arith.constant 512 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %all = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %w = memref.view %all[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x16xf16, #gpu.address_space<workgroup>>
    %tok = nvgpu.device_async_copy %src[%b, %c0, %c0], %w[%c0, %c0], 8, %n {bypassL1} : memref<4x16x16xf16> to memref<16x16xf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %tok
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.terminator
  }
  return
}
