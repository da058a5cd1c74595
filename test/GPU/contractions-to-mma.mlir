// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90" -linea-contractions-to-mma -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90" -linea-contractions-to-mma=precision=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: linea-opt %s "-linea-select-forms=target=gpu target-description=%S/Inputs/shared-1k.json" -linea-contractions-to-mma=precision=bf16 -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90" -linea-contractions-to-mma -canonicalize -split-input-file | FileCheck %s --check-prefix=CANON

// The state update S[b] += K[b]^T V[b] outside a sequence block: a grid of
// blocks, one per 32 x 32 output tile (the largest tile whose eight 16 x 8
// tiles keep the 8 warps busy, shrunk from 64 x 64 toward the GPU's SM
// count: 2 x 2 x 1 = 4 blocks). Per 32-deep step the block's threads copy
// K's and V's slices to shared memory as f16 (each element loaded from
// global memory once per block), then each warp loads its fragments with
// ldmatrix (.trans: both slices are depth-major) and runs two k16 steps.
// CHECK: memref.global "private" @[[SM:linea_staged_m[_0-9]*]] : memref<32x40xf16, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK: memref.global "private" @[[SA:linea_staged_a[_0-9]*]] : memref<32x40xf16, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK-LABEL: func.func @state_update
// CHECK-SAME: (%[[K:[a-z0-9_]+]]: memref<2x128x32xf32>, %[[V:[a-z0-9_]+]]: memref<2x128x64xf32>, %[[S:[a-z0-9_]+]]: memref<2x32x64xf32>)
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[BLOCK:.+]], %[[THREAD:.+]]) = (%c0{{.*}}, %c0{{.*}}) to (%c4{{.*}}, %c256{{.*}})
// CHECK:   %[[STAGED_A:.+]] = memref.get_global @[[SA]]
// CHECK:   %[[STAGED_M:.+]] = memref.get_global @[[SM]]
// CHECK:   %[[C0:.+]] = memref.load %[[S]][
// CHECK:   %[[ACC:.+]]:4 = scf.for %[[KSTEP:.+]] = %c0{{.*}} to %c128{{.*}} step %c32{{.*}} iter_args(%[[A0:.+]] = %[[C0]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK:     scf.for %{{.+}} = %[[THREAD]] to %c1024{{.*}} step %c256
// CHECK:       %[[KV:.+]] = memref.load %[[K]][
// CHECK:       %[[KH:.+]] = arith.truncf %[[KV]] : f32 to f16
// CHECK:       memref.store %[[KH]], %[[STAGED_A]][
// CHECK:     scf.for %{{.+}} = %[[THREAD]] to %c1024{{.*}} step %c256
// CHECK:       memref.load %[[V]][
// CHECK:       memref.store %{{.+}}, %[[STAGED_M]][
// CHECK:     gpu.barrier
// CHECK:     %[[AF:.+]] = nvgpu.ldmatrix %[[STAGED_A]][{{.+}}] {numTiles = 4 : i32, transpose = true}
// CHECK:     %[[BF:.+]] = nvgpu.ldmatrix %[[STAGED_M]][{{.+}}] {numTiles = 2 : i32, transpose = true}
// CHECK:     %[[D:.+]] = nvvm.mma.sync A[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]  B[%{{.+}}, %{{.+}}]  C[%[[A0]], %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-SAME:    layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:    shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK:     nvgpu.ldmatrix %[[STAGED_A]]
// CHECK:     nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK:     gpu.barrier
// CHECK:   memref.store %[[ACC]]#0, %[[S]][
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK-NOT: linalg.generic

// BF16-LABEL: func.func @state_update
// BF16: %[[TILES:.+]] = nvgpu.ldmatrix {{.*}} -> vector<4x2xbf16>
// BF16: %[[ROW:.+]] = vector.extract %[[TILES]][0] : vector<2xbf16> from vector<4x2xbf16>
// BF16: llvm.bitcast %[[ROW]] : vector<2xbf16> to i32
// BF16: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
#t_d = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @state_update(%k: memref<2x128x32xf32>, %v: memref<2x128x64xf32>, %s: memref<2x32x64xf32>) {
  linalg.generic {indexing_maps = [#t_d, #t_e, #d_e], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<2x128x32xf32>, memref<2x128x64xf32>) outs(%s : memref<2x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Inside a sequence block (an scf.forall mapped to GPU blocks) the
// contraction is one block's work: a thread loop of the block size, its 8 warps taking the 4 x 3 tiles
// of a 64 x 24 chunk output in turn, reading a strided chunk of the
// sequence.
// CHECK-LABEL: func.func @in_sequence
// CHECK: scf.forall
// CHECK:   scf.parallel (%[[T:.+]]) = (%c0{{.*}}) to (%c256{{.*}}) step (%c1{{.*}}) {
// CHECK:     scf.for %{{.+}} = %{{.+}} to %c12{{.*}} step %c8
// CHECK:       nvvm.mma.sync
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
#i_t = affine_map<(i, t, e) -> (i, t)>
#t_e2 = affine_map<(i, t, e) -> (t, e)>
#i_e = affine_map<(i, t, e) -> (i, e)>
func.func @in_sequence(%a: memref<4x64x64xf32>, %m: memref<4x1024x24xf32>, %o: memref<4x64x24xf32>) {
  scf.forall (%b) in (4) {
    %as = memref.subview %a[%b, 0, 0] [1, 64, 64] [1, 1, 1] : memref<4x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %ms = memref.subview %m[%b, 64, 0] [1, 64, 24] [1, 1, 1] : memref<4x1024x24xf32> to memref<64x24xf32, strided<[24, 1], offset: ?>>
    %os = memref.subview %o[%b, 0, 0] [1, 64, 24] [1, 1, 1] : memref<4x64x24xf32> to memref<64x24xf32, strided<[24, 1], offset: ?>>
    linalg.generic {indexing_maps = [#i_t, #t_e2, #i_e], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%as, %ms : memref<64x64xf32, strided<[64, 1], offset: ?>>, memref<64x24xf32, strided<[24, 1], offset: ?>>)
        outs(%os : memref<64x24xf32, strided<[24, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A contraction with one 16 x 8 output tile: one block, whose first warp
// computes; the other seven copy and wait at the barriers with it, and
// store nothing. The grid of one block is a loop over its threads alone:
// with a block dim of one iteration, the canonicalizer would fold that dim
// and drop the loop's mapping, leaving the grid (ldmatrix, mma.sync and
// barriers) on the host (the canonicalized run checks that the mapping
// survives).
// CHECK-LABEL: func.func @one_tile
// CHECK: scf.parallel (%[[T:.+]]) = (%c0{{.*}}) to (%c256{{.*}})
// CHECK:   %[[WARP:.+]] = arith.divui %[[T]], %c32
// CHECK:   %[[ACTIVE:.+]] = arith.cmpi ult, %[[WARP]], %c1
// CHECK:   scf.for
// CHECK:     gpu.barrier
// CHECK:     %[[NEXT:.+]]:4 = scf.if %[[ACTIVE]] -> (f32, f32, f32, f32) {
// CHECK:       nvvm.mma.sync
// CHECK:     } else {
// CHECK:     gpu.barrier
// CHECK:     scf.yield %[[NEXT]]#0,
// CHECK:   scf.if %[[ACTIVE]] {
// CHECK-COUNT-4: memref.store
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CANON-LABEL: func.func @one_tile
// CANON: scf.parallel (%{{.+}}) = (%c0{{.*}}) to (%c256{{.*}})
// CANON: nvvm.mma.sync
// CANON: } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
#i_t = affine_map<(i, t, e) -> (i, t)>
#t_e2 = affine_map<(i, t, e) -> (t, e)>
#i_e = affine_map<(i, t, e) -> (i, e)>
func.func @one_tile(%a: memref<16x32xf32>, %m: memref<32x8xf32>, %o: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [#i_t, #t_e2, #i_e], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %m : memref<16x32xf32>, memref<32x8xf32>) outs(%o : memref<16x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Sizes that do not tile (24 rows), dynamic rows of an op that reads its
// own output, or a body that is not a multiply-accumulate stay for the
// CUDA-core mapping.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: nvvm.mma.sync
// CHECK-COUNT-3: linalg.generic
#i_t = affine_map<(i, t, e) -> (i, t)>
#t_e2 = affine_map<(i, t, e) -> (t, e)>
#i_e = affine_map<(i, t, e) -> (i, e)>
func.func @left_alone(%a: memref<24x16xf32>, %m: memref<16x16xf32>, %o: memref<24x16xf32>,
                      %b: memref<16x16xf32>, %p: memref<16x16xf32>, %d: memref<?x16xf32>) {
  linalg.generic {indexing_maps = [#i_t, #t_e2, #i_e], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %m : memref<24x16xf32>, memref<16x16xf32>) outs(%o : memref<24x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %q = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#i_t, #t_e2, #i_e], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%b, %m : memref<16x16xf32>, memref<16x16xf32>) outs(%p : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %q = arith.maximumf %x, %y : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#i_t, #t_e2, #i_e], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%d, %m : memref<?x16xf32>, memref<16x16xf32>) outs(%d : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %q = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The causal scores P[b] += select(t <= i, Q[b] K[b]^T, 0): K's slice
// staged as it is stored ([t][d], column-major for B, so ldmatrix without
// .trans), the mask evaluated per accumulator element after
// the MMA steps (its index computation cloned with i, t the element's row
// and column), the old accumulator kept where it does not hold.
// CHECK-LABEL: func.func @masked_scores
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: memref<2x3x64x32xf32>, %[[K:[a-z0-9_]+]]: memref<2x3x64x32xf32>, %[[P:[a-z0-9_]+]]: memref<2x3x64x64xf32>)
// CHECK: %[[OLD:.+]] = memref.load %[[P]][%[[B0:.+]], %[[B1:.+]], %[[ROW:.+]], %[[COL:.+]]] :
// CHECK: %[[ACC:.+]]:4 = scf.for
// CHECK:   memref.load %[[K]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK:   nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:   nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false}
// CHECK:   nvvm.mma.sync
// CHECK: %[[VISIBLE:.+]] = arith.cmpi sle, %[[COL]], %[[ROW]] : index
// CHECK: %[[KEPT:.+]] = arith.select %[[VISIBLE]], %[[ACC]]#0, %[[OLD]] : f32
// CHECK: memref.store %[[KEPT]], %[[P]][%[[B0]], %[[B1]], %[[ROW]], %[[COL]]]
// CHECK-NOT: linalg.generic
#q = affine_map<(b, c, i, t, d) -> (b, c, i, d)>
#k = affine_map<(b, c, i, t, d) -> (b, c, t, d)>
#p = affine_map<(b, c, i, t, d) -> (b, c, i, t)>
func.func @masked_scores(%q: memref<2x3x64x32xf32>, %k: memref<2x3x64x32xf32>, %p: memref<2x3x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#q, #k, #p], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x64x32xf32>, memref<2x3x64x32xf32>) outs(%p : memref<2x3x64x64xf32>) {
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

// A mask that reads the reduction index is not a mask on the output: left
// to the generic mapping.
// CHECK-LABEL: func.func @mask_on_reduction
// CHECK-NOT: nvvm.mma.sync
// CHECK: linalg.generic
#q2 = affine_map<(i, t, d) -> (i, d)>
#k2 = affine_map<(i, t, d) -> (t, d)>
#p2 = affine_map<(i, t, d) -> (i, t)>
func.func @mask_on_reduction(%q: memref<64x32xf32>, %k: memref<64x32xf32>, %p: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#q2, #k2, #p2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<64x32xf32>, memref<64x32xf32>) outs(%p : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %i = linalg.index 0 : index
    %d = linalg.index 2 : index
    %visible = arith.cmpi sle, %d, %i : index
    %prod = arith.mulf %x, %y : f32
    %masked = arith.select %visible, %prod, %zero : f32
    %r = arith.addf %acc, %masked : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The chunk-parallel output O = P V + Q S: a fill of zeros, then two
// contractions into O, adjacent. One grid runs both: the accumulators start
// at zero (no fill, no load of O), the first contraction's 64-deep loop
// hands its results to the second's, and O is stored once. Both stage
// their A (P, Q: row-major) and M (V, S: depth-major) slices in the same
// two shared-memory globals. 128 x 128 tiles: 4 x 33 = 132 blocks.
// CHECK: memref.global "private" @[[SM:linea_staged_m[_0-9]*]] : memref<32x136xf16, #gpu.address_space<workgroup>>
// CHECK: memref.global "private" @[[SA:linea_staged_a[_0-9]*]] : memref<128x40xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @output_chain
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[V:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[Q:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[S:[a-z0-9_]+]]: memref<4x33x128x128xf32>, %[[O:[a-z0-9_]+]]: memref<4x33x128x128xf32>)
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%c0{{.*}}, %c0{{.*}}) to (%c132{{.*}}, %c256{{.*}})
// CHECK:   %[[A1:.+]] = memref.get_global @[[SA]]
// CHECK:   %[[M1:.+]] = memref.get_global @[[SM]]
// CHECK:   %[[A2:.+]] = memref.get_global @[[SA]]
// CHECK:   %[[M2:.+]] = memref.get_global @[[SM]]
// CHECK-NOT: memref.load %[[O]]
// CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[PV:.+]]:64 = scf.for %{{.+}} = %c0{{.*}} to %c128{{.*}} step %c32{{.*}} iter_args(%{{.+}} = %[[ZERO]],
// CHECK:     memref.load %[[P]]
// CHECK:     memref.store %{{.+}}, %[[A1]]
// CHECK:     memref.load %[[V]]
// CHECK:     memref.store %{{.+}}, %[[M1]]
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK:   %[[QS:.+]]:64 = scf.for %{{.+}} = %c0{{.*}} to %c128{{.*}} step %c32{{.*}} iter_args(%{{.+}} = %[[PV]]#0,
// CHECK:     memref.load %[[Q]]
// CHECK:     memref.store %{{.+}}, %[[A2]]
// CHECK:     memref.load %[[S]]
// CHECK:     memref.store %{{.+}}, %[[M2]]
// CHECK-COUNT-32: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK:   memref.store %[[QS]]#0, %[[O]]
// CHECK-NOT: scf.parallel
// CHECK-NOT: linalg.generic
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

// A contraction that reads the output it accumulates into cannot share the
// previous one's registers: two grids, the second loading O's old values.
// The fill of zeros before the first still becomes its zero accumulators.
// CHECK-LABEL: func.func @reads_output
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64x64xf32>, %[[M:[a-z0-9_]+]]: memref<64x64xf32>, %[[O:[a-z0-9_]+]]: memref<64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK-NOT: memref.load %[[O]]
// CHECK: nvvm.mma.sync
// CHECK: scf.parallel
// CHECK: memref.load %[[O]]
// CHECK: nvvm.mma.sync
#i_t4 = affine_map<(i, t, e) -> (i, t)>
#t_e4 = affine_map<(i, t, e) -> (t, e)>
#i_e4 = affine_map<(i, t, e) -> (i, e)>
func.func @reads_output(%a: memref<64x64xf32>, %m: memref<64x64xf32>, %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#i_t4, #t_e4, #i_e4], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %m : memref<64x64xf32>, memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#i_t4, #t_e4, #i_e4], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%o, %m : memref<64x64xf32>, memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Causal scores into a zero-filled P: the mask selects between the
// finished accumulators and zero in registers; P is not read.
// CHECK-LABEL: func.func @zero_filled_scores
// CHECK-SAME: (%{{.+}}: memref<2x3x64x32xf32>, %{{.+}}: memref<2x3x64x32xf32>, %[[P:[a-z0-9_]+]]: memref<2x3x64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.load %[[P]]
// CHECK: %[[ACC:.+]]:4 = scf.for
// CHECK: %[[VISIBLE:.+]] = arith.cmpi sle, %[[COL:.+]], %[[ROW:.+]] : index
// CHECK: %[[KEPT:.+]] = arith.select %[[VISIBLE]], %[[ACC]]#0, %[[ZERO]] : f32
// CHECK-NOT: memref.load %[[P]]
// CHECK: memref.store %[[KEPT]], %[[P]][%{{.+}}, %{{.+}}, %[[ROW]], %[[COL]]]
#q5 = affine_map<(b, c, i, t, d) -> (b, c, i, d)>
#k5 = affine_map<(b, c, i, t, d) -> (b, c, t, d)>
#p5 = affine_map<(b, c, i, t, d) -> (b, c, i, t)>
func.func @zero_filled_scores(%q: memref<2x3x64x32xf32>, %k: memref<2x3x64x32xf32>, %p: memref<2x3x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<2x3x64x64xf32>)
  linalg.generic {indexing_maps = [#q5, #k5, #p5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x3x64x32xf32>, memref<2x3x64x32xf32>) outs(%p : memref<2x3x64x64xf32>) {
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

// A bf16 program's operands reach f32 through widening copies (an
// elementwise extf into a fresh buffer). The staged copies read the bf16
// buffers themselves, through the operand's views rebuilt on them: as
// they are for bf16 MMAs, through f32 for f16 ones; the widening copies,
// now unread, are erased with their buffers.
// CHECK-LABEL: func.func @widened_operands
// CHECK-SAME: (%[[K16:[a-z0-9_]+]]: memref<2x128x32xbf16>, %[[V16:[a-z0-9_]+]]: memref<2x128x64xbf16>, %[[S:[a-z0-9_]+]]: memref<2x32x64xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[KVIEW:.+]] = memref.subview %[[K16]][0, 0, 0] [2, 128, 32] [1, 1, 1] : memref<2x128x32xbf16> to memref<2x128x32xbf16, strided<[4096, 32, 1]>>
// CHECK: scf.parallel
// CHECK:   %[[KE:.+]] = memref.load %[[KVIEW]][
// CHECK:   %[[KW:.+]] = arith.extf %[[KE]] : bf16 to f32
// CHECK:   arith.truncf %[[KW]] : f32 to f16
// CHECK:   memref.load %[[V16]][
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// BF16-LABEL: func.func @widened_operands
// BF16-NOT: memref.alloc
// BF16: scf.parallel
// BF16:   %[[KE:.+]] = memref.load %{{.+}}[{{.+}}] : memref<2x128x32xbf16, strided<[4096, 32, 1]>>
// BF16-NEXT: memref.store %[[KE]], %{{.+}}[{{.+}}] : memref<32x40xbf16, #gpu.address_space<workgroup>>
// BF16-NOT: arith.truncf
// BF16-NOT: linalg.generic
#id3 = affine_map<(b, t, d) -> (b, t, d)>
#t_d6 = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e6 = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e6 = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @widened_operands(%k16: memref<2x128x32xbf16>, %v16: memref<2x128x64xbf16>, %s: memref<2x32x64xf32>) {
  %k = memref.alloc() : memref<2x128x32xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k16 : memref<2x128x32xbf16>) outs(%k : memref<2x128x32xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  %v = memref.alloc() : memref<2x128x64xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v16 : memref<2x128x64xbf16>) outs(%v : memref<2x128x64xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  %ks = memref.subview %k[0, 0, 0] [2, 128, 32] [1, 1, 1] : memref<2x128x32xf32> to memref<2x128x32xf32, strided<[4096, 32, 1]>>
  linalg.generic {indexing_maps = [#t_d6, #t_e6, #d_e6], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%ks, %v : memref<2x128x32xf32, strided<[4096, 32, 1]>>, memref<2x128x64xf32>) outs(%s : memref<2x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  memref.dealloc %k : memref<2x128x32xf32>
  memref.dealloc %v : memref<2x128x64xf32>
  return
}

// -----

// A widened copy that something else reads too (here an elementwise exp)
// stays; the contraction still reads the bf16 buffer.
// CHECK-LABEL: func.func @widened_and_read
// BF16-LABEL: func.func @widened_and_read
// BF16-SAME: (%[[K16:[a-z0-9_]+]]: memref<2x128x32xbf16>
// BF16: %[[K:.+]] = memref.alloc() : memref<2x128x32xf32>
// BF16: linalg.generic {{.*}} ins(%[[K16]] : memref<2x128x32xbf16>) outs(%[[K]] : memref<2x128x32xf32>)
// BF16: linalg.generic {{.*}} ins(%[[K]] : memref<2x128x32xf32>)
// BF16: scf.parallel
// BF16:   memref.load %[[K16]][
// BF16: memref.dealloc %[[K]]
#id4 = affine_map<(b, t, d) -> (b, t, d)>
#t_d7 = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e7 = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e7 = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @widened_and_read(%k16: memref<2x128x32xbf16>, %v: memref<2x128x64xf32>, %s: memref<2x32x64xf32>, %e: memref<2x128x32xf32>) {
  %k = memref.alloc() : memref<2x128x32xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k16 : memref<2x128x32xbf16>) outs(%k : memref<2x128x32xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k : memref<2x128x32xf32>) outs(%e : memref<2x128x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %w = math.exp %x : f32
    linalg.yield %w : f32
  }
  linalg.generic {indexing_maps = [#t_d7, #t_e7, #d_e7], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<2x128x32xf32>, memref<2x128x64xf32>) outs(%s : memref<2x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  memref.dealloc %k : memref<2x128x32xf32>
  return
}

// -----

// A zero-filled f32 result that a narrowing copy (truncf into a bf16
// buffer, through a reshape) is the only reader of: the grid stores bf16
// into that buffer, reshaped back to the result's shape; the fill, the
// f32 buffer and the copy are gone.
// BF16-LABEL: func.func @narrowed_result
// BF16-NOT: memref<2x64x64xf32>
// BF16: %[[OUT:.+]] = memref.alloc() : memref<128x64xbf16>
// BF16: %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [2, 64, 64] : memref<128x64xbf16> into memref<2x64x64xbf16>
// BF16: scf.parallel
// BF16:   %[[NARROW:.+]] = arith.truncf %{{.+}}#0 : f32 to bf16
// BF16:   memref.store %[[NARROW]], %[[VIEW]][
// BF16-NOT: linalg.generic
// BF16-NOT: memref.dealloc
// BF16: return %[[OUT]]
#i_t8 = affine_map<(b, i, t, e) -> (b, i, t)>
#t_e8 = affine_map<(b, i, t, e) -> (b, t, e)>
#i_e8 = affine_map<(b, i, t, e) -> (b, i, e)>
#id2 = affine_map<(r, c) -> (r, c)>
func.func @narrowed_result(%a: memref<2x64x32xf32>, %m: memref<2x32x64xf32>) -> memref<128x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %o = memref.alloc() : memref<2x64x64xf32>
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x64xf32>)
  linalg.generic {indexing_maps = [#i_t8, #t_e8, #i_e8], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %m : memref<2x64x32xf32>, memref<2x32x64xf32>) outs(%o : memref<2x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  %flat = memref.collapse_shape %o [[0, 1], [2]] : memref<2x64x64xf32> into memref<128x64xf32>
  %out = memref.alloc() : memref<128x64xbf16>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%flat : memref<128x64xf32>) outs(%out : memref<128x64xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %n = arith.truncf %x : f32 to bf16
    linalg.yield %n : bf16
  }
  memref.dealloc %o : memref<2x64x64xf32>
  return %out : memref<128x64xbf16>
}

// -----

// A bf16 buffer written after the widening copy (here through another view
// of its memory) no longer holds what the copy read: the contraction reads
// the f32 copy, which stays.
// BF16-LABEL: func.func @source_overwritten
// BF16: %[[K:.+]] = memref.alloc() : memref<2x128x32xf32>
// BF16: linalg.generic {{.*}} outs(%[[K]] : memref<2x128x32xf32>)
// BF16: linalg.fill
// BF16: scf.parallel
// BF16:   memref.load %[[K]][
#id5 = affine_map<(b, t, d) -> (b, t, d)>
#t_d9 = affine_map<(b, t, d, e) -> (b, t, d)>
#t_e9 = affine_map<(b, t, d, e) -> (b, t, e)>
#d_e9 = affine_map<(b, t, d, e) -> (b, d, e)>
func.func @source_overwritten(%all: memref<3x128x32xbf16>, %v: memref<2x128x64xf32>, %s: memref<2x32x64xf32>) {
  %k16 = memref.subview %all[0, 0, 0] [2, 128, 32] [1, 1, 1] : memref<3x128x32xbf16> to memref<2x128x32xbf16, strided<[4096, 32, 1]>>
  %k = memref.alloc() : memref<2x128x32xf32>
  linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k16 : memref<2x128x32xbf16, strided<[4096, 32, 1]>>) outs(%k : memref<2x128x32xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  %zero = arith.constant 0.0 : bf16
  %second = memref.subview %all[1, 0, 0] [1, 128, 32] [1, 1, 1] : memref<3x128x32xbf16> to memref<1x128x32xbf16, strided<[4096, 32, 1], offset: 4096>>
  linalg.fill ins(%zero : bf16) outs(%second : memref<1x128x32xbf16, strided<[4096, 32, 1], offset: 4096>>)
  linalg.generic {indexing_maps = [#t_d9, #t_e9, #d_e9], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%k, %v : memref<2x128x32xf32>, memref<2x128x64xf32>) outs(%s : memref<2x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  memref.dealloc %k : memref<2x128x32xf32>
  return
}

// -----

// Inside a sequence block, two contractions into one zero-filled output in
// a row (a chunk's rows: P V, then Q S) are one chain on the same
// accumulators, from zero: each warp's tile runs both depth loops (8 tiles
// for 8 warps: strips of one), the fill is gone. The rows (the only
// writers of their f32 buffer, which a narrowing copy after the loop alone
// reads) are stored as bf16 into a slice of the narrowed buffer, allocated
// before the loop; the copy and the f32 buffer are gone.
// BF16-LABEL: func.func @chain_in_sequence
// BF16-NOT: linalg.fill
// BF16: %[[OUT:.+]] = memref.alloc() : memref<256x16xbf16>
// BF16: scf.forall (%[[B:.+]]) in (4)
// BF16:   %[[WHOLE:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1], [2]] output_shape [4, 64, 16]
// BF16:   %[[ROWS:.+]] = memref.subview %[[WHOLE]][%[[B]], 0, 0] [1, 64, 16]
// BF16:   scf.parallel
// BF16:     scf.for %{{.+}} = %{{.+}} to %c8{{.*}} step %c8
// BF16:       %[[PV:.+]]:4 = scf.for %{{.+}} = %{{.+}} to %c64{{.*}} step %c16{{.*}} iter_args(%{{.+}} = %[[ZERO:[a-z_0-9]+]], %{{.+}} = %[[ZERO]],
// BF16:         nvvm.mma.sync
// BF16:       %[[QS:.+]]:4 = scf.for %{{.+}} = %{{.+}} to %c32{{.*}} step %c16{{.*}} iter_args(%{{.+}} = %[[PV]]#0,
// BF16:         nvvm.mma.sync
// BF16:       %[[N:.+]] = arith.truncf %[[QS]]#0 : f32 to bf16
// BF16:       memref.store %[[N]], %[[ROWS]][
// BF16-NOT: linalg.generic
// BF16: return %[[OUT]]
#ci = affine_map<(i, t, e) -> (i, t)>
#ct = affine_map<(i, t, e) -> (t, e)>
#ce = affine_map<(i, t, e) -> (i, e)>
#cid = affine_map<(r, c) -> (r, c)>
func.func @chain_in_sequence(%p: memref<4x64x64xf32>, %v: memref<4x64x16xf32>, %q: memref<4x64x32xf32>, %s: memref<4x32x16xf32>) -> memref<256x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %rows = memref.alloc() : memref<4x64x16xf32>
  scf.forall (%b) in (4) {
    %ps = memref.subview %p[%b, 0, 0] [1, 64, 64] [1, 1, 1] : memref<4x64x64xf32> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    %vs = memref.subview %v[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    %qs = memref.subview %q[%b, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %ss = memref.subview %s[%b, 0, 0] [1, 32, 16] [1, 1, 1] : memref<4x32x16xf32> to memref<32x16xf32, strided<[16, 1], offset: ?>>
    %os = memref.subview %rows[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%os : memref<64x16xf32, strided<[16, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#ci, #ct, #ce], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%ps, %vs : memref<64x64xf32, strided<[64, 1], offset: ?>>, memref<64x16xf32, strided<[16, 1], offset: ?>>)
        outs(%os : memref<64x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#ci, #ct, #ce], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%qs, %ss : memref<64x32xf32, strided<[32, 1], offset: ?>>, memref<32x16xf32, strided<[16, 1], offset: ?>>)
        outs(%os : memref<64x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  %flat = memref.collapse_shape %rows [[0, 1], [2]] : memref<4x64x16xf32> into memref<256x16xf32>
  %out = memref.alloc() : memref<256x16xbf16>
  linalg.generic {indexing_maps = [#cid, #cid], iterator_types = ["parallel", "parallel"]}
      ins(%flat : memref<256x16xf32>) outs(%out : memref<256x16xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %n = arith.truncf %x : f32 to bf16
    linalg.yield %n : bf16
  }
  memref.dealloc %rows : memref<4x64x16xf32>
  return %out : memref<256x16xbf16>
}

// -----

// Inside a sequence block, temporaries that only tensor cores read (the
// decayed queries a generic writes, a copy of the values) hold bf16 in rows
// padded by 8 elements, their writers narrowing what they write; the warps
// load their fragments with ldmatrix (x4 for A, row-major; x2 .trans for
// the values, stored depth-major) from the workgroup view of them. The f32
// temporaries are gone.
// BF16-LABEL: func.func @narrowed_in_sequence
// BF16-NOT: memref<64x32xf32>
// BF16: scf.forall
// BF16:   %[[VT:.+]] = memref.alloc() : memref<32x24xbf16>
// BF16:   %[[VROWS:.+]] = memref.subview %[[VT]][0, 0] [32, 16] [1, 1] : memref<32x24xbf16> to memref<32x16xbf16, strided<[24, 1]>>
// BF16:   %[[QT:.+]] = memref.alloc() : memref<64x40xbf16>
// BF16:   %[[QROWS:.+]] = memref.subview %[[QT]][0, 0] [64, 32] [1, 1] : memref<64x40xbf16> to memref<64x32xbf16, strided<[40, 1]>>
// BF16:   linalg.generic {{.*}} outs(%[[QROWS]] : memref<64x32xbf16, strided<[40, 1]>>)
// BF16:     %[[N:.+]] = arith.truncf %{{.+}} : f32 to bf16
// BF16:     linalg.yield %[[N]] : bf16
// BF16:   linalg.generic {{.*}} outs(%[[VROWS]] : memref<32x16xbf16, strided<[24, 1]>>)
// BF16:     arith.truncf
// BF16:   %[[QS:.+]] = memref.memory_space_cast %[[QROWS]] : memref<64x32xbf16, strided<[40, 1]>> to memref<64x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>>
// BF16:   %[[VS:.+]] = memref.memory_space_cast %[[VROWS]] : memref<32x16xbf16, strided<[24, 1]>> to memref<32x16xbf16, strided<[24, 1]>, #gpu.address_space<workgroup>>
// BF16:   scf.parallel
// BF16:     nvgpu.ldmatrix %[[VS]][{{.+}}] {numTiles = 2 : i32, transpose = true}
// BF16:     nvgpu.ldmatrix %[[QS]][{{.+}}] {numTiles = 4 : i32, transpose = false}
// BF16:     nvvm.mma.sync
// BF16:   memref.dealloc %[[VT]] : memref<32x24xbf16>
// BF16:   memref.dealloc %[[QT]] : memref<64x40xbf16>
// With shared memory too small for the block's temporaries (it becomes a
// host loop over global buffers), they are still narrowed, but lanes load
// their own elements: no workgroup views.
// SMALL-LABEL: func.func @narrowed_in_sequence
// SMALL: memref.alloc() : memref<64x40xbf16>
// SMALL-NOT: memory_space_cast
// SMALL-NOT: nvgpu.ldmatrix
// SMALL: nvvm.mma.sync
// SMALL-LABEL: func.func @read_elsewhere
#ni = affine_map<(i, t, e) -> (i, t)>
#nt = affine_map<(i, t, e) -> (t, e)>
#ne = affine_map<(i, t, e) -> (i, e)>
#nid = affine_map<(r, c) -> (r, c)>
func.func @narrowed_in_sequence(%q: memref<4x64x32xf32>, %v: memref<4x32x16xf32>, %o: memref<4x64x16xf32>) {
  %two = arith.constant 2.0 : f32
  scf.forall (%b) in (4) {
    %qs = memref.subview %q[%b, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %vs = memref.subview %v[%b, 0, 0] [1, 32, 16] [1, 1, 1] : memref<4x32x16xf32> to memref<32x16xf32, strided<[16, 1], offset: ?>>
    %os = memref.subview %o[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    %vown = memref.alloc() : memref<32x16xf32>
    %decayed = memref.alloc() : memref<64x32xf32>
    linalg.generic {indexing_maps = [#nid, #nid], iterator_types = ["parallel", "parallel"]}
        ins(%qs : memref<64x32xf32, strided<[32, 1], offset: ?>>) outs(%decayed : memref<64x32xf32>) {
    ^bb0(%x: f32, %out: f32):
      %d = arith.mulf %x, %two : f32
      linalg.yield %d : f32
    }
    linalg.copy ins(%vs : memref<32x16xf32, strided<[16, 1], offset: ?>>) outs(%vown : memref<32x16xf32>)
    linalg.generic {indexing_maps = [#ni, #nt, #ne], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%decayed, %vown : memref<64x32xf32>, memref<32x16xf32>)
        outs(%os : memref<64x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    memref.dealloc %vown : memref<32x16xf32>
    memref.dealloc %decayed : memref<64x32xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A temporary that an elementwise op reads as well (a decay reading the
// block's queries) keeps f32: its lanes load and narrow their own
// elements; one a generic accumulates into is not narrowed either.
// BF16-LABEL: func.func @read_elsewhere
// BF16-NOT: memref.alloc() : memref<{{.*}}xbf16>
// BF16-NOT: nvgpu.ldmatrix
// BF16: nvvm.mma.sync
#ni = affine_map<(i, t, e) -> (i, t)>
#nt = affine_map<(i, t, e) -> (t, e)>
#ne = affine_map<(i, t, e) -> (i, e)>
#nid = affine_map<(r, c) -> (r, c)>
func.func @read_elsewhere(%q: memref<4x64x32xf32>, %v: memref<4x32x16xf32>, %o: memref<4x64x16xf32>, %e: memref<4x64x32xf32>) {
  %two = arith.constant 2.0 : f32
  scf.forall (%b) in (4) {
    %qs = memref.subview %q[%b, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %vs = memref.subview %v[%b, 0, 0] [1, 32, 16] [1, 1, 1] : memref<4x32x16xf32> to memref<32x16xf32, strided<[16, 1], offset: ?>>
    %os = memref.subview %o[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    %es = memref.subview %e[%b, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %mine = memref.alloc() : memref<64x32xf32>
    linalg.copy ins(%qs : memref<64x32xf32, strided<[32, 1], offset: ?>>) outs(%mine : memref<64x32xf32>)
    linalg.generic {indexing_maps = [#nid, #nid], iterator_types = ["parallel", "parallel"]}
        ins(%mine : memref<64x32xf32>) outs(%es : memref<64x32xf32, strided<[32, 1], offset: ?>>) {
    ^bb0(%x: f32, %out: f32):
      %d = arith.mulf %x, %two : f32
      linalg.yield %d : f32
    }
    %vown = memref.alloc() : memref<32x16xf32>
    linalg.copy ins(%vs : memref<32x16xf32, strided<[16, 1], offset: ?>>) outs(%vown : memref<32x16xf32>)
    linalg.generic {indexing_maps = [#nid, #nid], iterator_types = ["parallel", "parallel"]}
        ins(%vs : memref<32x16xf32, strided<[16, 1], offset: ?>>) outs(%vown : memref<32x16xf32>) {
    ^bb0(%x: f32, %out: f32):
      %d = arith.addf %x, %out : f32
      linalg.yield %d : f32
    }
    linalg.generic {indexing_maps = [#ni, #nt, #ne], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%mine, %vown : memref<64x32xf32>, memref<32x16xf32>)
        outs(%os : memref<64x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %m : f32
      linalg.yield %r : f32
    }
    memref.dealloc %mine : memref<64x32xf32>
    memref.dealloc %vown : memref<32x16xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Ops between two contractions into one output may do other work: here the
// queries of the second are decayed (into their own buffer) after the
// first, and the zero fill comes before a copy that leaves the output
// alone. One chain, built where its last member was (after the decay, which
// it reads), from zero accumulators: one grid, no fill.
// CHECK-LABEL: func.func @chain_around_decay
// CHECK-NOT: linalg.fill
// CHECK: linalg.copy
// CHECK: %[[DQ:.+]] = memref.alloc() : memref<4x128x128xf32>
// CHECK: linalg.generic {{.*}} outs(%[[DQ]] : memref<4x128x128xf32>)
// CHECK: scf.parallel
// CHECK-COUNT-2: scf.for %{{.+}} iter_args
// CHECK-NOT: scf.parallel
#dc_i = affine_map<(b, i, t, e) -> (b, i, t)>
#dc_t = affine_map<(b, i, t, e) -> (b, t, e)>
#dc_e = affine_map<(b, i, t, e) -> (b, i, e)>
#dc_id = affine_map<(b, i, e) -> (b, i, e)>
func.func @chain_around_decay(%p: memref<4x128x128xf32>, %v: memref<4x128x128xf32>, %q: memref<4x128x128xf32>,
                              %s: memref<4x128x128xf32>, %o: memref<4x128x128xf32>, %w: memref<4x128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<4x128x128xf32>)
  linalg.copy ins(%q : memref<4x128x128xf32>) outs(%w : memref<4x128x128xf32>)
  linalg.generic {indexing_maps = [#dc_i, #dc_t, #dc_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%p, %v : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%o : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  %dq = memref.alloc() : memref<4x128x128xf32>
  linalg.generic {indexing_maps = [#dc_id, #dc_id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : memref<4x128x128xf32>) outs(%dq : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %d = math.exp %x : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#dc_i, #dc_t, #dc_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%dq, %s : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%o : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  memref.dealloc %dq : memref<4x128x128xf32>
  return
}

// -----

// An op between them that writes what the first contraction reads (its
// values, overwritten after it) keeps them apart: the first must run
// before the write. Two grids.
// CHECK-LABEL: func.func @chain_broken_by_write
// CHECK: scf.parallel
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : memref<4x128x128xf32>)
// CHECK: scf.parallel
#bw_i = affine_map<(b, i, t, e) -> (b, i, t)>
#bw_t = affine_map<(b, i, t, e) -> (b, t, e)>
#bw_e = affine_map<(b, i, t, e) -> (b, i, e)>
#bw_id = affine_map<(b, i, e) -> (b, i, e)>
func.func @chain_broken_by_write(%p: memref<4x128x128xf32>, %v: memref<4x128x128xf32>, %q: memref<4x128x128xf32>,
                                 %s: memref<4x128x128xf32>, %o: memref<4x128x128xf32>) {
  linalg.generic {indexing_maps = [#bw_i, #bw_t, #bw_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%p, %v : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%o : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#bw_id, #bw_id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : memref<4x128x128xf32>) outs(%v : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %d = math.exp %x : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#bw_i, #bw_t, #bw_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%q, %s : memref<4x128x128xf32>, memref<4x128x128xf32>) outs(%o : memref<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A projection over a dynamic L whose activations are stored bf16: on
// mma.sync, the grid's row tiles cover L, and each cp.async line of a row
// past L reads no source element (its source size 0: zeros), from a row
// clamped inside.
// BF16-LABEL: func.func @dynamic_projection_as_stored
// BF16-SAME: (%[[X16:[a-z0-9_]+]]: memref<?x256xbf16>
// BF16: %[[ROWS:.+]] = memref.dim
// BF16: arith.ceildivui %[[ROWS]]
// BF16: scf.parallel
// BF16: %[[INSIDE:.+]] = arith.cmpi ult, %{{.+}}, %[[ROWS]]
// BF16: arith.minui
// BF16: %[[SIZE:.+]] = arith.select %[[INSIDE]], %c8{{[_0-9]*}}, %c0{{[_0-9]*}} : index
// BF16: nvgpu.device_async_copy %[[X16]][%{{.+}}, %{{.+}}], %{{.+}}[%{{.+}}, %{{.+}}], 8, %[[SIZE]] {bypassL1}
// BF16: nvvm.mma.sync
#row_d = affine_map<(i, j) -> (i, j)>
func.func @dynamic_projection_as_stored(%x16: memref<?x256xbf16>, %w: memref<256x128xf32>, %y: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %l = memref.dim %x16, %c0 : memref<?x256xbf16>
  %x = memref.alloc(%l) : memref<?x256xf32>
  linalg.generic {indexing_maps = [#row_d, #row_d], iterator_types = ["parallel", "parallel"]}
      ins(%x16 : memref<?x256xbf16>) outs(%x : memref<?x256xf32>) {
  ^bb0(%a: bf16, %b: f32):
    %w16 = arith.extf %a : bf16 to f32
    linalg.yield %w16 : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<?x128xf32>)
  linalg.matmul ins(%x, %w : memref<?x256xf32>, memref<256x128xf32>) outs(%y : memref<?x128xf32>)
  memref.dealloc %x : memref<?x256xf32>
  return
}

// -----

// Ragged columns: a normalized op's values and their ones column, 64 + 1.
// The last of the nine 16 x 8 column tiles loads M's columns past 65 as
// zeros (the column clamped, the value replaced) and stores only column
// 64; lanes load their own fragment elements (ldmatrix would read past the
// columns).
// CHECK-LABEL: func.func @ragged_columns
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<2x64x64xf32>, %[[V:[a-z0-9_]+]]: memref<2x64x65xf32>, %[[O:[a-z0-9_]+]]: memref<2x64x65xf32>)
// CHECK: scf.parallel
// CHECK: scf.for {{.+}} iter_args
// CHECK: %[[INSIDE:.+]] = arith.cmpi ult, %[[E:.+]], %c65
// CHECK: %[[LAST:.+]] = arith.minui %[[E]], %{{.+}} : index
// CHECK: %[[X:.+]] = memref.load %[[V]][%{{.+}}, %{{.+}}, %[[LAST]]]
// CHECK: arith.select %[[INSIDE]], %[[X]], %{{.+}} : f32
// CHECK: nvvm.mma.sync
// CHECK: %[[STORED:.+]] = arith.cmpi ult, %{{.+}}, %c65
// CHECK: scf.if %[[STORED]]
// CHECK-NEXT: memref.store %{{.+}}, %[[O]]
// CHECK-NOT: nvgpu.ldmatrix
#rc_i = affine_map<(b, i, t, e) -> (b, i, t)>
#rc_t = affine_map<(b, i, t, e) -> (b, t, e)>
#rc_e = affine_map<(b, i, t, e) -> (b, i, e)>
func.func @ragged_columns(%p: memref<2x64x64xf32>, %v: memref<2x64x65xf32>, %o: memref<2x64x65xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<2x64x65xf32>)
  linalg.generic {indexing_maps = [#rc_i, #rc_t, #rc_e], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%p, %v : memref<2x64x64xf32>, memref<2x64x65xf32>) outs(%o : memref<2x64x65xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The chunk-parallel form's local states over the chunks of a dynamic L:
// a batch dim of dynamic size. The grid has a block tile per (sequence,
// chunk) that the run-time count gives (the count on the host, each block
// splitting its index by it), every tile whole: on tensor cores, not a
// scalar grid.
// CHECK-LABEL: func.func @dynamic_chunks
// CHECK: nvvm.mma.sync
// BF16-LABEL: func.func @dynamic_chunks
// BF16-SAME: (%[[K:[a-z0-9_]+]]: memref<2x?x64x64xf32>
// BF16: %[[CHUNKS:.+]] = memref.dim %{{.+}}, %c1
// BF16: %[[BLOCKS:.+]] = arith.muli %[[CHUNKS]], %{{.+}} : index
// BF16: scf.parallel (%[[B:.+]], %{{.+}}) = (%{{.+}}, %{{.+}}) to (%[[BLOCKS]], %{{.+}})
// BF16: arith.remui %{{.+}}, %[[CHUNKS]] : index
// BF16: nvgpu.ldmatrix
// BF16: nvvm.mma.sync
#dc_k = affine_map<(b, n, d, t, e) -> (b, n, t, d)>
#dc_v = affine_map<(b, n, d, t, e) -> (b, n, t, e)>
#dc_s = affine_map<(b, n, d, t, e) -> (b, n, d, e)>
func.func @dynamic_chunks(%k: memref<2x?x64x64xf32>, %v: memref<2x?x64x64xf32>, %s: memref<2x?x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2x?x64x64xf32>)
  linalg.generic {indexing_maps = [#dc_k, #dc_v, #dc_s], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
      ins(%k, %v : memref<2x?x64x64xf32>, memref<2x?x64x64xf32>) outs(%s : memref<2x?x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}
