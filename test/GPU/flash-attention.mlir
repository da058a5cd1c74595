// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-flash-attention -split-input-file | FileCheck %s
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-flash-attention=precision=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-flash-attention=precision=f32 -split-input-file | FileCheck %s --check-prefix=EXACT
// RUN: linea-opt %s -linea-plan-target=target=cpu -linea-flash-attention -split-input-file | FileCheck %s --check-prefix=CPU

// A bf16 op planned for the GPU: its operands as the buffers they have
// (any strides: no copy into another layout), its output a buffer of its
// own written by the call that stands for the kernel (one declaration per
// signature), the scale 1/sqrt(64) and the mask recorded.
// CHECK:       func.func private @linea_flash_attention(memref<2x?x64xbf16, strided<[?, ?, ?], offset: ?>>, memref<2x?x64xbf16, strided<[?, ?, ?], offset: ?>>, memref<2x?x32xbf16, strided<[?, ?, ?], offset: ?>>, memref<2x?x32xbf16>) attributes {linea.flash_attention}
// CHECK-LABEL: func.func @causal
// CHECK-DAG:     %[[Q:.+]] = bufferization.to_buffer %arg0 read_only : tensor<2x?x64xbf16> to memref<2x?x64xbf16, strided<[?, ?, ?], offset: ?>>
// CHECK-DAG:     %[[K:.+]] = bufferization.to_buffer %arg1 read_only
// CHECK-DAG:     %[[V:.+]] = bufferization.to_buffer %arg2 read_only
// CHECK:         %[[L:.+]] = memref.dim %[[Q]], %c1
// CHECK:         %[[OUT:.+]] = memref.alloc(%[[L]]) : memref<2x?x32xbf16>
// CHECK:         call @linea_flash_attention(%[[Q]], %[[K]], %[[V]], %[[OUT]]) {linea.flash_attention = {causal = true, operand_type = bf16, scale = 1.250000e-01 : f32}}
// CHECK:         %[[O:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[O]]
// EXACT-LABEL: func.func @causal
// EXACT:         linea.attention
// CPU-LABEL:   func.func @causal
// CPU:           linea.attention
func.func @causal(%q: tensor<2x?x64xbf16>, %k: tensor<2x?x64xbf16>, %v: tensor<2x?x32xbf16>) -> tensor<2x?x32xbf16> {
  %o = linea.attention %q, %k, %v mask = causal : tensor<2x?x64xbf16>, tensor<2x?x64xbf16>, tensor<2x?x32xbf16> -> tensor<2x?x32xbf16>
  return %o : tensor<2x?x32xbf16>
}

// -----

// f32 operands stay exact unless a 16-bit precision is asked for; then
// they are rounded to it as they are staged.
// CHECK-LABEL: func.func @exact
// CHECK:         linea.attention
// BF16-LABEL:  func.func @exact
// BF16:          call @linea_flash_attention({{.*}}) {linea.flash_attention = {causal = false, operand_type = bf16, scale = 2.500000e-01 : f32}}
func.func @exact(%q: tensor<4x100x128xf32>, %k: tensor<4x300x128xf32>, %v: tensor<4x300x64xf32>) -> tensor<4x100x64xf32> {
  %o = linea.attention %q, %k, %v mask = none scale = 0.25 : tensor<4x100x128xf32>, tensor<4x300x128xf32>, tensor<4x300x64xf32> -> tensor<4x100x64xf32>
  return %o : tensor<4x100x64xf32>
}

// -----

// Near misses stay for linea-tile-attention: heads of 8 (not whole
// ldmatrix loads), heads past 128 (the registers).
// CHECK-LABEL: func.func @near_misses
// CHECK-COUNT-2: linea.attention
// CHECK-NOT:     call
func.func @near_misses(%q: tensor<2x64x8xbf16>, %w: tensor<2x64x256xbf16>) -> (tensor<2x64x8xbf16>, tensor<2x64x256xbf16>) {
  %a = linea.attention %q, %q, %q mask = causal : tensor<2x64x8xbf16>, tensor<2x64x8xbf16>, tensor<2x64x8xbf16> -> tensor<2x64x8xbf16>
  %b = linea.attention %w, %w, %w mask = causal : tensor<2x64x256xbf16>, tensor<2x64x256xbf16>, tensor<2x64x256xbf16> -> tensor<2x64x256xbf16>
  return %a, %b : tensor<2x64x8xbf16>, tensor<2x64x256xbf16>
}

// -----

// A packed op: the kernel walks its segments, so its offsets go to the
// call as a buffer of their own, before the output.
// CHECK-LABEL: func.func @packed
// CHECK-COUNT-3: bufferization.to_buffer %arg0 read_only : tensor<?x64xbf16> to memref<?x64xbf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[O:.+]] = bufferization.to_buffer %arg1 read_only : tensor<?xi32> to memref<?xi32>
// CHECK:         %[[OUT:.+]] = memref.alloc({{.*}}) : memref<?x64xbf16>
// CHECK:         call @linea_flash_attention(%{{.+}}, %{{.+}}, %{{.+}}, %[[O]], %[[OUT]]) {linea.flash_attention = {causal = true, operand_type = bf16, scale = 1.250000e-01 : f32}} : (memref<?x64xbf16, strided<[?, ?], offset: ?>>, memref<?x64xbf16, strided<[?, ?], offset: ?>>, memref<?x64xbf16, strided<[?, ?], offset: ?>>, memref<?xi32>, memref<?x64xbf16>) -> ()
// EXACT-LABEL: func.func @packed
// EXACT:         linea.attention {{.*}} offsets
func.func @packed(%p: tensor<?x64xbf16>, %offsets: tensor<?xi32>) -> tensor<?x64xbf16> {
  %c = linea.attention %p, %p, %p offsets(%offsets) mask = causal : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xi32> -> tensor<?x64xbf16>
  return %c : tensor<?x64xbf16>
}

// -----

// Heads split from rows by transposes that keep them innermost (as a
// model's attention block writes them) are read through transposed views
// of the rows, of any strides; heads merged back by such a transpose, the
// output's only use, are written through a transposed view of the merged
// buffer. No transpose is left to copy.
// CHECK:       func.func private @linea_flash_attention(memref<4x?x64xbf16, strided<[?, ?, ?], offset: ?>>, memref<4x?x64xbf16, strided<[?, ?, ?], offset: ?>>, memref<4x?x64xbf16, strided<[?, ?, ?], offset: ?>>, memref<4x?x64xbf16, strided<[64, 256, 1]>>)
// CHECK-LABEL: func.func @heads
// CHECK:         %[[ROWS:.+]] = bufferization.to_buffer %arg0 read_only : tensor<?x4x64xbf16> to memref<?x4x64xbf16, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[Q:.+]] = memref.transpose %[[ROWS]] (d0, d1, d2) -> (d1, d0, d2)
// CHECK:         %[[MERGED:.+]] = memref.alloc(%{{.+}}) : memref<?x4x64xbf16>
// CHECK:         %[[OUT:.+]] = memref.transpose %[[MERGED]] (d0, d1, d2) -> (d1, d0, d2) : memref<?x4x64xbf16> to memref<4x?x64xbf16, strided<[64, 256, 1]>>
// CHECK:         call @linea_flash_attention(%[[Q]], %{{.+}}, %{{.+}}, %[[OUT]])
// CHECK:         %[[O:.+]] = bufferization.to_tensor %[[MERGED]] restrict writable
// CHECK-NOT:     linalg
// CHECK:         return %[[O]]
#split = affine_map<(a, b, c) -> (b, a, c)>
#same = affine_map<(a, b, c) -> (a, b, c)>
func.func @heads(%q: tensor<?x4x64xbf16>, %k: tensor<?x4x64xbf16>, %v: tensor<?x4x64xbf16>) -> tensor<?x4x64xbf16> {
  %c0 = arith.constant 0 : index
  %l = tensor.dim %q, %c0 : tensor<?x4x64xbf16>
  %e = tensor.empty(%l) : tensor<4x?x64xbf16>
  %qh = linalg.generic {indexing_maps = [#split, #same], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<?x4x64xbf16>) outs(%e : tensor<4x?x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<4x?x64xbf16>
  %kh = linalg.transpose ins(%k : tensor<?x4x64xbf16>) outs(%e : tensor<4x?x64xbf16>) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%v : tensor<?x4x64xbf16>) outs(%e : tensor<4x?x64xbf16>) permutation = [1, 0, 2]
  %o = linea.attention %qh, %kh, %vh mask = causal : tensor<4x?x64xbf16>, tensor<4x?x64xbf16>, tensor<4x?x64xbf16> -> tensor<4x?x64xbf16>
  %m = tensor.empty(%l) : tensor<?x4x64xbf16>
  %merged = linalg.transpose ins(%o : tensor<4x?x64xbf16>) outs(%m : tensor<?x4x64xbf16>) permutation = [1, 0, 2]
  return %merged : tensor<?x4x64xbf16>
}
