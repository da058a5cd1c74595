// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" "-linea-contractions-to-mma=precision=bf16 tma=0" -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" "-linea-contractions-to-mma=precision=bf16 tma=0 block-size=128" -split-input-file | FileCheck %s --check-prefix=ONE-GROUP
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" -linea-contractions-to-mma=precision=bf16 -split-input-file | FileCheck %s --check-prefix=TMA

// The state update S[b] += K[b]^T V[b] with warpgroup MMA: 160 sequences of
// 128 x 128 states are 160 blocks of one 128 x 128 tile each, two
// warpgroups of 64 rows. Both slices are stored depth-major (MN-major for
// wgmma: A and B read transposed, `col` and `row`), staged element by
// element (f32 operands, narrowed) into one 1024-byte aligned buffer, A's
// 128 x 64 then B's, each element at its 16-byte chunk XOR its row. The
// descriptors: leading byte offset 8192 (512 << 16), stride byte offset
// 1024 (64 << 32), the 128-byte swizzle (1 << 62); each k16 step 16 rows,
// 2048 bytes, further. Per 64-deep step: the staging, a proxy fence and a
// barrier, four wgmma m64n128k16 on the 64 accumulators, their commit and
// wait, a barrier.
// CHECK: memref.global "private" @[[AB:linea_staged_ab[_0-9]*]] : memref<16384xbf16, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
// CHECK-LABEL: func.func @state_update
// CHECK-SAME: (%[[K:[a-z0-9_]+]]: memref<160x128x128xf32>, %[[V:[a-z0-9_]+]]: memref<160x128x128xf32>, %[[S:[a-z0-9_]+]]: memref<160x128x128xf32>)
// CHECK: scf.parallel (%[[BLOCK:.+]], %[[THREAD:.+]]) = (%c0{{.*}}, %c0{{.*}}) to (%c160{{.*}}, %c256{{.*}})
// CHECK:   %[[STAGED:.+]] = memref.get_global @[[AB]]
// CHECK:   %[[C0:.+]] = memref.load %[[S]][
// CHECK:   %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[STAGED]]
// CHECK:   %[[ADDRESS:.+]] = arith.index_cast %[[BASE]] : index to i64
// CHECK:   %[[FIELD:.+]] = arith.andi %{{.+}}, %c16383_i64
// CHECK:   %[[DESC_A:.+]] = arith.ori %[[FIELD]], %c4611686293338849280_i64
// CHECK:   arith.constant 2048 : i64
// CHECK:   %[[ACC:.+]]:64 = scf.for %[[DEPTH:.+]] = %c0{{.*}} to %c128{{.*}} step %c64{{.*}} iter_args(%{{.+}} = %[[C0]],
// CHECK:     scf.for %{{.+}} = %[[THREAD]] to %c8192{{.*}} step %c256
// CHECK:       %[[KV:.+]] = memref.load %[[K]][
// CHECK:       %[[CHUNK:.+]] = arith.xori
// CHECK:       %[[KH:.+]] = arith.truncf %[[KV]] : f32 to bf16
// CHECK:       memref.store %[[KH]], %[[STAGED]][
// CHECK:     scf.for %{{.+}} = %[[THREAD]] to %c8192{{.*}} step %c256
// CHECK:       memref.load %[[V]][
// CHECK:       arith.xori
// CHECK:       arith.constant 8192 : index
// CHECK:       memref.store %{{.+}}, %[[STAGED]][
// CHECK:     nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:     gpu.barrier
// CHECK:     nvvm.wgmma.fence.aligned
// CHECK:     nvvm.wgmma.mma_async %[[DESC_A]], %{{.+}}, %{{.+}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK:     nvvm.wgmma.commit.group.sync.aligned
// CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:     gpu.barrier
// CHECK:   memref.store %[[ACC]]#0, %[[S]][
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK-NOT: linalg.generic
// With one warpgroup per block at most, the 128 x 128 tile needs two: the
// tile is 64 x 128.
// ONE-GROUP-LABEL: func.func @state_update
// ONE-GROUP: scf.parallel {{.*}} to (%c320{{.*}}, %c128{{.*}})
// ONE-GROUP: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
#t_d = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @state_update(%k: memref<160x128x128xf32>, %v: memref<160x128x128xf32>, %s: memref<160x128x128xf32>) {
  linalg.generic {indexing_maps = [#t_d, #t_e, #d_e], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<160x128x128xf32>, memref<160x128x128xf32>) outs(%s : memref<160x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The causal scores P += select(t <= i, Q K^T, 0) on 132 chunks of 64 x
// 64: one warpgroup of 128 threads per chunk (its 64 columns are one
// wgmma's N).
// Both operands are stored depth-inner (K-major: A `row`, B `col`), their
// descriptors' leading byte offset unused (1 << 16) and each k16 step 32
// bytes further along the swizzled rows. The mask selects in the finished
// accumulators, as for mma.sync.
// CHECK-LABEL: func.func @masked_scores
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: memref<4x33x64x64xf32>, %[[K:[a-z0-9_]+]]: memref<4x33x64x64xf32>, %[[P:[a-z0-9_]+]]: memref<4x33x64x64xf32>)
// CHECK: scf.parallel {{.*}} to (%c132{{.*}}, %c128{{.*}})
// CHECK:   %[[OLD:.+]] = memref.load %[[P]][%{{.+}}, %{{.+}}, %[[ROW:.+]], %[[COL:.+]]] :
// CHECK:   arith.ori %{{.+}}, %c4611686293305360384_i64
// CHECK:   arith.constant 32 : i64
// CHECK:   %[[ACC:.+]]:32 = scf.for
// CHECK:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:   %[[VISIBLE:.+]] = arith.cmpi sle, %[[COL]], %[[ROW]] : index
// CHECK:   %[[KEPT:.+]] = arith.select %[[VISIBLE]], %[[ACC]]#0, %[[OLD]] : f32
// CHECK:   memref.store %[[KEPT]], %[[P]]
#q = affine_map<(b, c, i, t, d) -> (b, c, i, d)>
#k = affine_map<(b, c, i, t, d) -> (b, c, t, d)>
#p = affine_map<(b, c, i, t, d) -> (b, c, i, t)>
func.func @masked_scores(%q: memref<4x33x64x64xf32>, %k: memref<4x33x64x64xf32>, %p: memref<4x33x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#q, #k, #p], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<4x33x64x64xf32>, memref<4x33x64x64xf32>) outs(%p : memref<4x33x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %i = linalg.index 2 : index
    %t = linalg.index 3 : index
    %visible = arith.cmpi sle, %t, %i : index
    %prod = arith.mulf %x, %y : f32
    %masked = arith.select %visible, %prod, %zero : f32
    %r = arith.addf %acc, %masked : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The chunk-parallel output O = P V + Q S after a zero fill: one grid, the
// accumulators from zero (no fill, no load of O) through both members'
// steps, both staging into the same buffer; O stored once.
// CHECK: memref.global "private" @[[AB:linea_staged_ab[_0-9]*]] : memref<16384xbf16
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @output_chain
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[V:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[Q:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[S:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[O:[a-z0-9_]+]]: memref<4x33x128x128xf32>)
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel {{.*}} to (%c132{{.*}}, %c256{{.*}})
// CHECK-NOT: memref.load %[[O]]
// CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[PV:.+]]:64 = scf.for %{{.+}} = %c0{{.*}} to %c128{{.*}} step %c64{{.*}} iter_args(%{{.+}} = %[[ZERO]],
// CHECK:     memref.load %[[P]]
// CHECK:     memref.load %[[V]]
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK:   %[[QS:.+]]:64 = scf.for %{{.+}} = %c0{{.*}} to %c128{{.*}} step %c64{{.*}} iter_args(%{{.+}} = %[[PV]]#0,
// CHECK:     memref.load %[[Q]]
// CHECK:     memref.load %[[S]]
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK:   memref.store %[[QS]]#0, %[[O]]
// CHECK-NOT: scf.parallel
#i_t3 = affine_map<(b, c, i, t, e) -> (b, c, i, t)>
#t_e3 = affine_map<(b, c, i, t, e) -> (b, c, t, e)>
#i_e3 = affine_map<(b, c, i, t, e) -> (b, c, i, e)>
func.func @output_chain(%p: memref<4x33x128x128xf32>, %v: memref<4x33x128x128xf32>, %q: memref<4x33x128x128xf32>,
                        %s: memref<4x33x128x128xf32>, %o: memref<4x33x128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<4x33x128x128xf32>)
  linalg.generic {indexing_maps = [#i_t3, #t_e3, #i_e3], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%p, %v : memref<4x33x128x128xf32>, memref<4x33x128x128xf32>) outs(%o : memref<4x33x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#i_t3, #t_e3, #i_e3], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%q, %s : memref<4x33x128x128xf32>, memref<4x33x128x128xf32>) outs(%o : memref<4x33x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// bf16 operands (read as stored, their widening copies erased) are staged
// by 16-byte cp.async lines straight into their swizzled places, where
// the source starts on a line at run time; else element by element.
// CHECK-LABEL: func.func @widened_operands
// CHECK-SAME: (%[[K16:[a-z0-9_]+]]: memref<132x128x64xbf16>, %[[V16:[a-z0-9_]+]]: memref<132x128x64xbf16>
// CHECK-NOT: memref.alloc
// CHECK: %[[STAGED:.+]] = memref.get_global @linea_staged_ab
// CHECK: scf.if
// CHECK:   arith.xori
// CHECK:   nvgpu.device_async_copy %[[K16]][{{.+}}], %[[STAGED]][{{.+}}], 8 {bypassL1} : memref<132x128x64xbf16> to memref<8192xbf16, #gpu.address_space<workgroup>>
// CHECK: } else {
// CHECK:   memref.load %[[K16]]
// CHECK: scf.if
// CHECK:   nvgpu.device_async_copy %[[V16]]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: linalg.generic
// With TMA (the default on sm_90a), a tensor map per operand on the host, before the grid, its box
// one slice (64 depth rows of 64 columns: both are stored depth-outer), in
// the 128-byte swizzle. In the block thread 0 initializes an mbarrier for
// one arrival, and per step, where both operands start on 16-byte lines,
// announces the two slices' 16384 bytes and issues both loads (their
// coordinates innermost first: the column, the depth, the batch) into the
// staged buffer, A's slice at element 0 and M's at 4096; else the threads
// copy them as without TMA. Every thread waits for the step's phase
// (parity: the step's) before the wgmma.
// TMA-LABEL: func.func @widened_operands
// TMA-SAME: (%[[K16:[a-z0-9_]+]]: memref<132x128x64xbf16>, %[[V16:[a-z0-9_]+]]: memref<132x128x64xbf16>
// TMA: %[[KU:.+]] = memref.cast %[[K16]] : memref<132x128x64xbf16> to memref<*xbf16>
// TMA: %[[KMAP:.+]] = nvgpu.tma.create.descriptor %[[KU]] box[%c1{{.*}}, %c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
// TMA: %[[VMAP:.+]] = nvgpu.tma.create.descriptor
// TMA: scf.parallel (%[[BLOCK:.+]], %[[THREAD:.+]]) =
// TMA:   %[[STAGED:.+]] = memref.get_global @linea_staged_ab
// TMA:   %[[KLINE:.+]] = arith.cmpi eq, %{{.+}}, %c0
// TMA:   %[[VLINE:.+]] = arith.cmpi eq, %{{.+}}, %c0
// TMA:   %[[ENABLED:.+]] = arith.andi %[[KLINE]], %[[VLINE]] : i1
// TMA:   %[[BAR:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// TMA:   %[[FIRST:.+]] = arith.cmpi eq, %[[THREAD]], %c0
// TMA:   scf.if %[[FIRST]] {
// TMA:     nvgpu.mbarrier.init %[[BAR]][%c0{{.*}}], %c1
// TMA:   gpu.barrier
// TMA:   scf.for %[[DEPTH:.+]] = %c0{{.*}} to %c128{{.*}} step %c64
// TMA:     scf.if %[[ENABLED]] {
// TMA:       scf.if %[[FIRST]] {
// TMA:         nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%c0{{.*}}], %c16384
// TMA:         %[[KBOX:.+]] = memref.reinterpret_cast %[[STAGED]] to offset: [0], sizes: [1, 64, 64], strides: [4096, 64, 1]
// TMA:         nvgpu.tma.async.load %[[KMAP]][%{{.+}}, %[[DEPTH]], %{{.+}}], %[[BAR]][%c0{{.*}}] to %[[KBOX]]
// TMA:         %[[VBOX:.+]] = memref.reinterpret_cast %[[STAGED]] to offset: [4096], sizes: [1, 64, 64], strides: [4096, 64, 1]
// TMA:         nvgpu.tma.async.load %[[VMAP]][%{{.+}}, %[[DEPTH]], %{{.+}}], %[[BAR]][%c0{{.*}}] to %[[VBOX]]
// TMA:     } else {
// TMA:       nvgpu.device_async_copy %[[K16]]
// TMA:     nvvm.fence.proxy
// TMA:     gpu.barrier
// TMA:     scf.if %[[ENABLED]] {
// TMA:       nvgpu.mbarrier.try_wait.parity %[[BAR]][%c0{{.*}}], %{{.+}}, %c10000000
// TMA:     nvvm.wgmma.mma_async
#id3 = affine_map<(b, t, d) -> (b, t, d)>
#t_d6 = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e6 = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e6 = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @widened_operands(%k16: memref<132x128x64xbf16>, %v16: memref<132x128x64xbf16>, %s: memref<132x64x64xf32>) {
  %k = memref.alloc() : memref<132x128x64xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k16 : memref<132x128x64xbf16>) outs(%k : memref<132x128x64xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  %v = memref.alloc() : memref<132x128x64xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v16 : memref<132x128x64xbf16>) outs(%v : memref<132x128x64xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  linalg.generic {indexing_maps = [#t_d6, #t_e6, #d_e6], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<132x128x64xf32>, memref<132x128x64xf32>) outs(%s : memref<132x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  memref.dealloc %k : memref<132x128x64xf32>
  memref.dealloc %v : memref<132x128x64xf32>
  return
}

// -----

// A depth that is not a multiple of 64 (one 128-byte row of bf16) stays on
// mma.sync: the staged grid with ldmatrix.
// CHECK-LABEL: func.func @shallow
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
#i_t = affine_map<(b, i, t, e) -> (b, i, t)>
#t_e = affine_map<(b, i, t, e) -> (b, t, e)>
#i_e = affine_map<(b, i, t, e) -> (b, i, e)>
func.func @shallow(%a: memref<8x128x32xf32>, %m: memref<8x32x128xf32>, %o: memref<8x128x128xf32>) {
  linalg.generic {indexing_maps = [#i_t, #t_e, #i_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %m : memref<8x128x32xf32>, memref<8x32x128xf32>) outs(%o : memref<8x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An output too small to fill the GPU's 132 SMs even in 64 x 64 tiles (2
// blocks) stays on mma.sync, whose smaller tiles keep more SMs busy (8
// blocks of 32 x 32).
// TMA-LABEL: func.func @small_grid
// TMA-NOT: nvgpu.tma
// CHECK-LABEL: func.func @small_grid
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: scf.parallel {{.*}} to (%c8{{.*}}, %c256{{.*}})
// CHECK: nvvm.mma.sync
#t_d7 = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e7 = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e7 = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @small_grid(%k: memref<2x128x64xf32>, %v: memref<2x128x64xf32>, %s: memref<2x64x64xf32>) {
  linalg.generic {indexing_maps = [#t_d7, #t_e7, #d_e7], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<2x128x64xf32>, memref<2x128x64xf32>) outs(%s : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A projection as torch-mlir writes it, a named linalg.matmul, is
// generalized and takes the same warpgroup grid as Linea's own contractions.
// CHECK-LABEL: func.func @named_projection
// CHECK-NOT: linalg.matmul
// CHECK: nvvm.wgmma.mma_async
func.func @named_projection(%x: memref<4096x256xf32>, %w: memref<256x256xf32>, %y: memref<4096x256xf32>) {
  linalg.matmul ins(%x, %w : memref<4096x256xf32>, memref<256x256xf32>) outs(%y : memref<4096x256xf32>)
  return
}

// -----

// A projection over a dynamic L: the grid covers the rows with ceil(L / 64)
// row tiles, counted on the host; A's rows past L are loaded clamped and
// read as zeros, and only rows below L are stored (the output is read
// first: no zero fill before it, so its loads are clamped as well).
// CHECK-LABEL: func.func @dynamic_projection
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<?x256xf32>, %{{.+}}: memref<256x256xf32>, %[[Y:[a-z0-9_]+]]: memref<?x256xf32>)
// CHECK: %[[ROWS:.+]] = memref.dim %[[Y]], %c0
// CHECK: %[[TILES:.+]] = arith.ceildivui %[[ROWS]], %c64
// CHECK: %[[BLOCKS:.+]] = arith.muli %[[TILES]], %c4
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%{{.+}}, %{{.+}}) to (%[[BLOCKS]], %{{.+}})
// CHECK: arith.minui
// CHECK: memref.load %[[Y]]
// CHECK: arith.cmpi ult, %{{.+}}, %[[ROWS]]
// CHECK: memref.load %[[X]]
// CHECK: arith.select
// CHECK: nvvm.wgmma.mma_async
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.+}}, %[[Y]]
func.func @dynamic_projection(%x: memref<?x256xf32>, %w: memref<256x256xf32>, %y: memref<?x256xf32>) {
  linalg.matmul ins(%x, %w : memref<?x256xf32>, memref<256x256xf32>) outs(%y : memref<?x256xf32>)
  return
}

// -----

// Near misses stay as they are: rows that A stores inner (the state update
// K^T V over a dynamic L has them as its depth) and a dynamic depth.
// CHECK-LABEL: func.func @dynamic_depth
// CHECK: linalg.generic
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @dynamic_depth(%k: memref<64x?xf32>, %v: memref<?x64xf32>, %s: memref<64x64xf32>) {
  linalg.matmul ins(%k, %v : memref<64x?xf32>, memref<?x64xf32>) outs(%s : memref<64x64xf32>)
  return
}

// -----

// A zero fill as it reaches the GPU pipeline from a model, generalized (a
// generic with no inputs yielding zero), is the chain's fill too: the
// accumulators start at zero, and neither the fill nor a load of the
// output is left.
// CHECK-LABEL: func.func @generalized_zero_fill
// CHECK-SAME: (%{{.+}}: memref<?x256xf32>, %{{.+}}: memref<256x256xf32>, %[[Y:[a-z0-9_]+]]: memref<?x256xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.load %[[Y]]
// CHECK: nvvm.wgmma.mma_async
// CHECK: memref.store %{{.+}}, %[[Y]]
#fill_out = affine_map<(i, j) -> (i, j)>
func.func @generalized_zero_fill(%x: memref<?x256xf32>, %w: memref<256x256xf32>, %y: memref<?x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#fill_out], iterator_types = ["parallel", "parallel"]} outs(%y : memref<?x256xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.matmul ins(%x, %w : memref<?x256xf32>, memref<256x256xf32>) outs(%y : memref<?x256xf32>)
  return
}
