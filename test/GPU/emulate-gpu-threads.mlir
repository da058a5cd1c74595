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

// -----

// A warpgroup's wgmma: its block of 128 threads is a team; before the team
// opens, the block's shared buffer (the workgroup global the body uses) is
// registered with the library, which takes the descriptors' addresses back
// to it; the accumulators go through a per-thread scratch of 128 f32. The
// fences, commit and wait around it order nothing once each wgmma runs at
// once: they go.
// CHECK-DAG: func.func private @linea_gpu_emu_shared_window(i64, i64)
// CHECK-DAG: func.func private @linea_gpu_emu_wgmma(i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: memref.global "private" @swizzled : memref<8192xbf16> {alignment = 1024 : i64}
// CHECK-LABEL: func.func @warpgroup
// CHECK-SAME: (%[[DA:.+]]: i64, %[[DB:.+]]: i64, %[[OUT:.+]]: memref<128x4xf32>)
// CHECK:   call @linea_gpu_emu_begin_block
// CHECK:   %[[WINDOW:.+]] = memref.get_global @swizzled : memref<8192xbf16>
// CHECK:   %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[WINDOW]]
// CHECK:   %[[BASE64:.+]] = arith.index_cast %[[BASE]] : index to i64
// CHECK:   call @linea_gpu_emu_shared_window(%[[BASE64]], %c16384_i64)
// CHECK:   omp.parallel
// CHECK:     %[[ACC:.+]] = memref.alloca() : memref<128xf32>
// CHECK:     %[[T:.+]] = arith.extsi
// CHECK-COUNT-4: memref.store %{{.+}}, %[[ACC]][
// CHECK:     call @linea_gpu_emu_wgmma(%[[T]], %c8_i64, %c1_i64{{.*}}, %c1_i64{{.*}}, %c0_i64{{.*}}, %[[DA]], %[[DB]], %{{.+}})
// CHECK:     memref.load %[[ACC]][
// CHECK:     omp.terminator
// CHECK-NOT: nvvm.
// CHECK-NOT: gpu.
memref.global "private" @swizzled : memref<8192xbf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
func.func @warpgroup(%da: i64, %db: i64, %out: memref<128x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  gpu.launch blocks(%blk, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %s = memref.get_global @swizzled : memref<8192xbf16, #gpu.address_space<workgroup>>
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier
    %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
    %a0 = llvm.insertvalue %z, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
    %a1 = llvm.insertvalue %z, %a0[1] : !llvm.struct<(f32, f32, f32, f32)>
    %a2 = llvm.insertvalue %z, %a1[2] : !llvm.struct<(f32, f32, f32, f32)>
    %a3 = llvm.insertvalue %z, %a2[3] : !llvm.struct<(f32, f32, f32, f32)>
    nvvm.wgmma.fence.aligned
    %d = nvvm.wgmma.mma_async %da, %db, %a3, <m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %out[%t, %c0] : memref<128x4xf32>
    gpu.terminator
  }
  return
}

// -----

// TMA: the tensor map is made on the host by the library (the tensor's
// first element, its element size, the swizzle (3: 128 bytes) and its
// sizes, strides and box in a scratch of the function's); in the team the
// mbarrier group is the block's (one per creating op), and its init,
// arrive.expect_tx, try_wait.parity and the load (coordinates in a
// per-thread scratch) call the library, which copies the box at once.
// CHECK-DAG: func.func private @linea_gpu_emu_tensor_map(i64, i64, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @linea_gpu_emu_tma_load(i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @tma
// CHECK-SAME: (%[[SRC:.+]]: memref<128x64xbf16>, %[[OUT:.+]]: memref<128xbf16>)
// CHECK:   %[[FIELDS:.+]] = memref.alloca() : memref<6xi64>
// CHECK:   %[[MAP:.+]] = call @linea_gpu_emu_tensor_map(%c2_i64, %{{.+}}, %c2_i64{{.*}}, %c3_i64, %{{.+}})
// CHECK:   omp.parallel
// CHECK:     %[[COORDS:.+]] = memref.alloca() : memref<5xi64>
// CHECK:     %[[GROUP:.+]] = func.call @linea_gpu_emu_mbarrier_group(%c0_i64, %c1_i64)
// CHECK:     call @linea_gpu_emu_mbarrier_init(%[[GROUP]], %{{.+}}, %{{.+}})
// CHECK:     call @linea_gpu_emu_barrier
// CHECK:     call @linea_gpu_emu_mbarrier_arrive_expect_tx(%[[GROUP]], %{{.+}}, %{{.+}})
// CHECK:     memref.store %{{.+}}, %[[COORDS]][%{{.+}}] : memref<5xi64>
// CHECK:     call @linea_gpu_emu_tma_load(%[[MAP]], %{{.+}}, %[[GROUP]], %{{.+}}, %{{.+}})
// CHECK:     call @linea_gpu_emu_mbarrier_wait_parity(%[[GROUP]], %{{.+}}, %{{.+}})
// CHECK:     omp.terminator
// CHECK-NOT: nvgpu.
// CHECK-NOT: unrealized_conversion_cast
!tile_map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tile_bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
memref.global "private" @tile : memref<4096xbf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
func.func @tma(%src: memref<128x64xbf16>, %out: memref<128xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c8192 = arith.constant 8192 : index
  %ticks = arith.constant 10000000 : index
  %false = arith.constant false
  %u = memref.cast %src : memref<128x64xbf16> to memref<*xbf16>
  %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !tile_map
  gpu.launch blocks(%blk, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
    %s = memref.get_global @tile : memref<4096xbf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !tile_bar
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !tile_bar
    }
    gpu.barrier
    scf.if %first {
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c8192 : !tile_bar
      %box = memref.reinterpret_cast %s to offset: [0], sizes: [64, 64], strides: [64, 1] : memref<4096xbf16, #gpu.address_space<workgroup>> to memref<64x64xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %map[%c0, %c64], %bar[%c0] to %box : !tile_map, !tile_bar -> memref<64x64xbf16, strided<[64, 1]>, #gpu.address_space<workgroup>>
    }
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !tile_bar
    %v = memref.load %s[%t] : memref<4096xbf16, #gpu.address_space<workgroup>>
    memref.store %v, %out[%t] : memref<128xbf16>
    gpu.terminator
  }
  return
}

// -----

// A row's lanes meet by a xor shuffle: the library exchanges the bits
// through the warp's scratch; the result is always valid.
// CHECK-LABEL: func.func @row_max
// CHECK:     %[[B:.+]] = arith.bitcast %{{.+}} : f32 to i32
// CHECK:     %[[W:.+]] = arith.extui %[[B]] : i32 to i64
// CHECK:     %[[R:.+]] = func.call @linea_gpu_emu_shuffle_xor(%{{.+}}, %[[W]], %c2_i64) : (i64, i64, i64) -> i64
// CHECK:     %[[N:.+]] = arith.trunci %[[R]] : i64 to i32
// CHECK:     %[[Y:.+]] = arith.bitcast %[[N]] : i32 to f32
// CHECK:     memref.store %[[Y]]
// CHECK-NOT: gpu.shuffle
func.func @row_max(%x: f32, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2 : i32
  %width = arith.constant 32 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %y, %valid = gpu.shuffle xor %x, %two, %width : f32
    memref.store %y, %out[%t] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// 64 bits (an f64 row sum) go whole.
// CHECK-LABEL: func.func @row_sum_f64
// CHECK:     %[[B:.+]] = arith.bitcast %{{.+}} : f64 to i64
// CHECK:     %[[R:.+]] = func.call @linea_gpu_emu_shuffle_xor(%{{.+}}, %[[B]], %c16_i64) : (i64, i64, i64) -> i64
// CHECK:     %[[Y:.+]] = arith.bitcast %[[R]] : i64 to f64
// CHECK:     memref.store %[[Y]]
func.func @row_sum_f64(%x: f64, %out: memref<32xf64>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %sixteen = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %y, %valid = gpu.shuffle xor %x, %sixteen, %width : f64
    memref.store %y, %out[%t] : memref<32xf64>
    gpu.terminator
  }
  return
}
