// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-async-copies=block-size=128 -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-select-forms=target=gpu target-description=%S/Inputs/shared-1k.json" -linea-async-copies=block-size=128 -split-input-file | FileCheck %s --check-prefix=SMALL

// A sequence block's copy of its rows of a bf16 operand into its own
// temporary (rows padded to 24 elements: whole 16-byte lines) becomes
// cp.async lines: 64 x 16 elements are 128 lines, one per thread of 128,
// each copied with bypassL1, committed and waited for after the thread's
// last line. Guarded at run time by the source's alignment; the copy as it
// was is the fallback.
// CHECK-LABEL: func.func @rows_into_shared
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: memref<4x64x16xbf16>,
// CHECK: scf.forall (%[[B:.+]]) in (4)
// CHECK:   %[[OWN:.+]] = memref.subview %{{.+}}[0, 0] [64, 16] [1, 1] : memref<64x24xbf16> to memref<64x16xbf16, strided<[24, 1]>>
// CHECK:   %[[ROWS:.+]] = memref.subview %[[Q]][%[[B]], 0, 0] [1, 64, 16]
// CHECK:   %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[ROWS]]
// CHECK:   %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[ROWS]]
// CHECK:   %[[BYTES:.+]] = arith.muli %[[OFFSET]], %c2
// CHECK:   %[[START:.+]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK:   %[[MOD:.+]] = arith.remui %[[START]], %c16
// CHECK:   %[[ALIGNED:.+]] = arith.cmpi eq, %[[MOD]], %c0
// CHECK:   scf.if %[[ALIGNED]] {
// CHECK:     %[[SHARED:.+]] = memref.memory_space_cast %[[OWN]] : memref<64x16xbf16, strided<[24, 1]>> to memref<64x16xbf16, strided<[24, 1]>, #gpu.address_space<workgroup>>
// CHECK:     scf.parallel (%[[T:.+]]) = (%c0{{.*}}) to (%c128{{.*}}) step
// CHECK:       scf.for %[[LINE:.+]] = %[[T]] to %c128{{.*}} step %c128
// CHECK:         %[[TOKEN:.+]] = nvgpu.device_async_copy %[[ROWS]][%{{.+}}, %{{.+}}], %[[SHARED]][%{{.+}}, %{{.+}}], 8 {bypassL1}
// CHECK:         %[[GROUP:.+]] = nvgpu.device_async_create_group %[[TOKEN]]
// CHECK:         scf.if %{{.+}} {
// CHECK:           nvgpu.device_async_wait %[[GROUP]] {numGroups = 0 : i32}
// CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:   } else {
// CHECK:     linalg.copy ins(%[[ROWS]] : {{.*}}) outs(%[[OWN]] :
// CHECK:   }
// SMALL-LABEL: func.func @rows_into_shared
// SMALL-NOT: nvgpu.device_async_copy
// SMALL: linalg.copy
func.func @rows_into_shared(%q: memref<4x64x16xbf16>, %o: memref<4x64x16xf32>) {
  scf.forall (%b) in (4) {
    %twin = memref.alloc() : memref<64x24xbf16>
    %own = memref.subview %twin[0, 0] [64, 16] [1, 1] : memref<64x24xbf16> to memref<64x16xbf16, strided<[24, 1]>>
    %rows = memref.subview %q[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xbf16> to memref<64x16xbf16, strided<[16, 1], offset: ?>>
    linalg.copy ins(%rows : memref<64x16xbf16, strided<[16, 1], offset: ?>>) outs(%own : memref<64x16xbf16, strided<[24, 1]>>)
    %out = memref.subview %o[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (r, c)>], iterator_types = ["parallel", "parallel"]}
        ins(%own : memref<64x16xbf16, strided<[24, 1]>>) outs(%out : memref<64x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%x: bf16, %y: f32):
      %e = arith.extf %x : bf16 to f32
      linalg.yield %e : f32
    }
    memref.dealloc %twin : memref<64x24xbf16>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Rows of 4 bf16 (8 bytes) are not whole lines, an f32 copy is not a
// 16-bit operand's, and a copy outside a sequence block is not into shared
// memory: all stay copies.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-COUNT-3: linalg.copy
// CHECK-NOT: nvgpu.device_async_copy
func.func @left_alone(%q: memref<4x64x4xbf16>, %f: memref<4x64x16xf32>, %all: memref<4x64x16xbf16>, %mine: memref<4x64x16xbf16>) {
  scf.forall (%b) in (4) {
    %narrow = memref.alloc() : memref<64x4xbf16>
    %rows = memref.subview %q[%b, 0, 0] [1, 64, 4] [1, 1, 1] : memref<4x64x4xbf16> to memref<64x4xbf16, strided<[4, 1], offset: ?>>
    linalg.copy ins(%rows : memref<64x4xbf16, strided<[4, 1], offset: ?>>) outs(%narrow : memref<64x4xbf16>)
    %wide = memref.alloc() : memref<64x16xf32>
    %frows = memref.subview %f[%b, 0, 0] [1, 64, 16] [1, 1, 1] : memref<4x64x16xf32> to memref<64x16xf32, strided<[16, 1], offset: ?>>
    linalg.copy ins(%frows : memref<64x16xf32, strided<[16, 1], offset: ?>>) outs(%wide : memref<64x16xf32>)
    memref.dealloc %narrow : memref<64x4xbf16>
    memref.dealloc %wide : memref<64x16xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  linalg.copy ins(%all : memref<4x64x16xbf16>) outs(%mine : memref<4x64x16xbf16>)
  return
}

// Bad options: one line, exit 1.
// RUN: not linea-opt %s -linea-async-copies=block-size=-1 -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK
// RUN: not linea-opt %s "-linea-contractions-to-mma=precision=bf16 block-size=-32" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-MMA
// BAD-BLOCK: error: linea-async-copies needs a block-size in [1, 1024] (or 0: the target's), got -1
// BAD-MMA: error: linea-contractions-to-mma needs a block-size in [1, 1024] (or 0: the target's), got -32
