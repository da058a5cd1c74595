// RUN: linea-opt %s -linea-contractions-to-wmma -split-input-file | FileCheck %s

// The state update S[b] += K[b]^T V[b]: K is converted to f16 transposed, V
// to f16, then one warp per 16 x 16 tile of S (grid 64/16 x 32/16 x 2)
// accumulates over the 128 rows in WMMA steps.
// CHECK-LABEL: func.func @state_update
// CHECK-SAME: (%[[K:[a-z0-9_]+]]: memref<2x128x32xf32>, %[[V:[a-z0-9_]+]]: memref<2x128x64xf32>, %[[S:[a-z0-9_]+]]: memref<2x32x64xf32>)
// CHECK: %[[KH:.+]] = memref.alloc() : memref<2x32x128xf16>
// CHECK: linalg.generic {{.*}} ins(%[[K]] : memref<2x128x32xf32>) outs(%[[KH]] : memref<2x32x128xf16>)
// CHECK:   arith.truncf
// CHECK: %[[VH:.+]] = memref.alloc() : memref<2x128x64xf16>
// CHECK: gpu.launch blocks(%[[BX:.+]], %[[BY:.+]], %[[BZ:.+]]) in (%{{.+}} = %c4{{.*}}, %{{.+}} = %c2{{.*}}, %{{.+}} = %c2{{.*}}) threads({{.*}}) in (%{{.+}} = %c32{{.*}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}})
// CHECK:   %[[ACC:.+]] = gpu.subgroup_mma_load_matrix %[[S]]{{.*}} {leadDimension = 64 : index} : memref<2x32x64xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK:   %[[SUM:.+]] = scf.for {{.*}} iter_args(%[[C:.+]] = %[[ACC]])
// CHECK:     %[[A:.+]] = gpu.subgroup_mma_load_matrix %[[KH]]{{.*}} {leadDimension = 128 : index} : memref<2x32x128xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK:     %[[B:.+]] = gpu.subgroup_mma_load_matrix %[[VH]]{{.*}} {leadDimension = 64 : index} : memref<2x128x64xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK:     gpu.subgroup_mma_compute %[[A]], %[[B]], %[[C]]
// CHECK:   gpu.subgroup_mma_store_matrix %[[SUM]], %[[S]]
// CHECK-NOT: linalg.generic {{.*}}"reduction"
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

// Sizes that are not multiples of 16, or a body that is not a
// multiply-accumulate, stay for the CUDA-core mapping.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: gpu.launch
// CHECK-COUNT-2: linalg.generic
#i_t = affine_map<(i, t, e) -> (i, t)>
#t_e2 = affine_map<(i, t, e) -> (t, e)>
#i_e = affine_map<(i, t, e) -> (i, e)>
func.func @left_alone(%a: memref<24x16xf32>, %m: memref<16x16xf32>, %o: memref<24x16xf32>,
                      %b: memref<16x16xf32>, %p: memref<16x16xf32>) {
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
  return
}
