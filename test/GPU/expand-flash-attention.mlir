// RUN: linea-opt %s -split-input-file -linea-expand-flash-attention -canonicalize -cse | FileCheck %s

// A causal bf16 call on [2, L, 64] x [2, L, 32]: one block per sequence
// and 128 query rows (the longest tiles first), its shared tiles (rows
// padded by a line), 256 threads. Where the operands start on 16-byte
// lines the block stages by cp.async: the queries and the first keys as
// two groups, then per key tile the values (wait for all but them: the
// keys have landed), the scores on mma.sync, the rows' max by xor
// shuffles, exp2, the next keys (wait: the values have landed), P V.
// Otherwise element by element. The declaration goes.
// CHECK-NOT:   func.func private @linea_flash_attention
// CHECK-LABEL: func.func @causal(
// CHECK-SAME:      %[[Q:.+]]: memref<2x?x64xbf16>, %[[K:.+]]: memref<2x?x64xbf16>, %[[V:.+]]: memref<2x?x32xbf16>, %[[OUT:.+]]: memref<2x?x32xbf16>)
// CHECK:         %[[LQ:.+]] = memref.dim %[[Q]], %c1
// CHECK:         %[[TILES:.+]] = arith.ceildivui %[[LQ]], %c128
// CHECK:         scf.forall (%[[B:.+]], %[[T:.+]]) in (2, %[[TILES]]) {
// CHECK:           memref.alloc() : memref<128x72xbf16>
// CHECK:           memref.alloc() : memref<64x72xbf16>
// CHECK:           memref.alloc() : memref<64x40xbf16>
// CHECK:           %[[LAST:.+]] = arith.subi %[[TILES]], %c1
// CHECK:           %[[TILE:.+]] = arith.subi %[[LAST]], %[[T]]
// CHECK:           scf.parallel (%[[THREAD:.+]]) = (%c0) to (%c256) step (%c1) {
// CHECK:             memref.extract_aligned_pointer_as_index %[[Q]]
// CHECK:             scf.if %{{.+}} {
// CHECK-COUNT-4:       nvgpu.device_async_copy %[[Q]][%[[B]], {{.+}}], 8, %{{.+}} {bypassL1}
// CHECK:               nvgpu.device_async_create_group
// CHECK-COUNT-2:       nvgpu.device_async_copy %[[K]]
// CHECK:               %[[KEYS0:.+]] = nvgpu.device_async_create_group
// CHECK:               scf.for
// CHECK:                 nvgpu.device_async_copy %[[V]]
// CHECK:                 %[[VALUES:.+]] = nvgpu.device_async_create_group
// CHECK:                 nvgpu.device_async_wait %[[VALUES]] {numGroups = 1 : i32}
// CHECK:                 gpu.barrier
// CHECK:                 nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = false}
// CHECK:                 nvvm.mma.sync
// CHECK:                 gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : f32
// CHECK:                 gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32 : f32
// CHECK:                 math.exp2
// CHECK:                 gpu.barrier
// CHECK:                 nvgpu.device_async_copy %[[K]]
// CHECK:                 %[[KEYS:.+]] = nvgpu.device_async_create_group
// CHECK:                 nvgpu.device_async_wait %[[KEYS]] {numGroups = 1 : i32}
// CHECK:                 gpu.barrier
// CHECK:                 nvgpu.ldmatrix {{.+}} {numTiles = 4 : i32, transpose = true}
// CHECK:                 nvvm.mma.sync
// CHECK:                 gpu.barrier
// CHECK:               nvgpu.device_async_wait %[[KEYS0]] {numGroups = 0 : i32}
// CHECK:               scf.if
// CHECK:                 vector.store %{{.+}}, %[[OUT]][%[[B]], {{.+}}] {alignment = 4 : i64} : memref<2x?x32xbf16>, vector<2xbf16>
// CHECK:             } else {
// CHECK:               memref.load %[[Q]]
// CHECK-NOT:           nvgpu.device_async_copy
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.900000e+14, scalar_flops = 6.700000e+13, bytes = 3.350000e+12, step_seconds = 1.0E-6, contraction_tile = 6.400000e+01>} {
  func.func private @linea_flash_attention(memref<2x?x64xbf16>, memref<2x?x64xbf16>, memref<2x?x32xbf16>, memref<2x?x32xbf16>) attributes {linea.flash_attention}
  func.func @causal(%q: memref<2x?x64xbf16>, %k: memref<2x?x64xbf16>, %v: memref<2x?x32xbf16>, %out: memref<2x?x32xbf16>) {
    call @linea_flash_attention(%q, %k, %v, %out) {linea.flash_attention = {causal = true, operand_type = bf16, scale = 1.250000e-01 : f32}} : (memref<2x?x64xbf16>, memref<2x?x64xbf16>, memref<2x?x32xbf16>, memref<2x?x32xbf16>) -> ()
    return
  }
}

// -----

// f32 operands rounded to bf16: where they start on 16-byte lines, 8
// elements at a time by a 16-byte-aligned vector load, rounded, and
// stored as one line of the shared tile; nothing asynchronous.
// CHECK-LABEL: func.func @rounded(
// CHECK-SAME:      %[[Q:[^:]+]]: memref<4x100x32xf32>
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) in (4, 1) {
// CHECK:           scf.if
// CHECK:             scf.if %{{.+}} -> (vector<8xf32>) {
// CHECK:               vector.load %[[Q]][{{.+}}] {alignment = 16 : i64} : memref<4x100x32xf32>, vector<8xf32>
// CHECK:             arith.truncf %{{.+}} : vector<8xf32> to vector<8xbf16>
// CHECK:             vector.store %{{.+}} {alignment = 16 : i64} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT:         nvgpu.device_async_copy
// CHECK:           } else {
// CHECK:             memref.load %[[Q]]
func.func private @linea_flash_attention(memref<4x100x32xf32>, memref<4x300x32xf32>, memref<4x300x32xf32>, memref<4x100x32xf32>) attributes {linea.flash_attention}
func.func @rounded(%q: memref<4x100x32xf32>, %k: memref<4x300x32xf32>, %v: memref<4x300x32xf32>, %out: memref<4x100x32xf32>) {
  call @linea_flash_attention(%q, %k, %v, %out) {linea.flash_attention = {causal = false, operand_type = bf16, scale = 2.500000e-01 : f32}} : (memref<4x100x32xf32>, memref<4x300x32xf32>, memref<4x300x32xf32>, memref<4x100x32xf32>) -> ()
  return
}

// -----

// Packed sequences: L / 128 + N blocks per sequence; each finds its
// segment n by binary search over start(n) = o_n / 128 + n (the offsets
// read in the block), its tile is the rest, and a tile past the segment's
// rows has none. The threads address views from the segment's first row.
// CHECK-LABEL: func.func @packed(
// CHECK-SAME:      %[[Q:[^:]+]]: memref<3x?x64xbf16>, %{{.+}}: memref<3x?x64xbf16>, %{{.+}}: memref<3x?x64xbf16>, %[[O:[^:]+]]: memref<?xi64>, %[[OUT:[^:]+]]: memref<3x?x64xbf16>)
// CHECK:         %[[L:.+]] = memref.dim %[[Q]], %c1
// CHECK:         %[[BOUNDS:.+]] = memref.dim %[[O]], %c0
// CHECK:         %[[N:.+]] = arith.subi %[[BOUNDS]], %c1
// CHECK:         %[[WHOLE:.+]] = arith.divui %[[L]], %c128
// CHECK:         %[[TILES:.+]] = arith.addi %[[WHOLE]], %[[N]]
// CHECK:         scf.forall (%{{.+}}, %[[T:.+]]) in (3, %[[TILES]]) {
// CHECK:           %[[LAST:.+]] = arith.subi %[[TILES]], %c1
// CHECK:           %[[TILE:.+]] = arith.subi %[[LAST]], %[[T]]
// CHECK:           %[[FOUND:.+]]:2 = scf.while (%[[LO:.+]] = %c0, %[[HI:.+]] = %[[N]])
// CHECK:             arith.cmpi ugt
// CHECK:           } do {
// CHECK:             %[[MID:.+]] = arith.divui
// CHECK:             %[[OMID:.+]] = memref.load %[[O]][%[[MID]]]
// CHECK:             arith.cmpi ule, %{{.+}}, %[[TILE]]
// CHECK:           %[[FIRST:.+]] = memref.load %[[O]][%[[FOUND]]#0]
// CHECK:           %[[NEXT:.+]] = arith.addi %[[FOUND]]#0, %c1
// CHECK:           memref.load %[[O]][%[[NEXT]]]
// CHECK:           %[[SOME:.+]] = arith.cmpi ult
// CHECK:           %[[BASE:.+]] = arith.select %[[SOME]], %{{.+}}, %c0
// CHECK:           scf.parallel
// CHECK:             memref.subview %[[Q]][0, %[[BASE]], 0]
// CHECK:             memref.subview %[[OUT]][0, %[[BASE]], 0]
// CHECK:             nvgpu.device_async_copy
// CHECK:             vector.store
func.func private @linea_flash_attention(memref<3x?x64xbf16>, memref<3x?x64xbf16>, memref<3x?x64xbf16>, memref<?xi64>, memref<3x?x64xbf16>) attributes {linea.flash_attention}
func.func @packed(%q: memref<3x?x64xbf16>, %k: memref<3x?x64xbf16>, %v: memref<3x?x64xbf16>, %o: memref<?xi64>, %out: memref<3x?x64xbf16>) {
  call @linea_flash_attention(%q, %k, %v, %o, %out) {linea.flash_attention = {causal = true, operand_type = bf16, scale = 1.250000e-01 : f32}} : (memref<3x?x64xbf16>, memref<3x?x64xbf16>, memref<3x?x64xbf16>, memref<?xi64>, memref<3x?x64xbf16>) -> ()
  return
}
