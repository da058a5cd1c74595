// RUN: linea-opt %s --split-input-file --linea-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s
// RUN: linea-opt %s --split-input-file --linea-lower-to-nvvm="chip=sm_90a format=isa precision=f32" | FileCheck %s --check-prefix=F32

// precision=auto, the default: a contraction of an op whose tensors are
// bf16 (or f16) runs on tensor cores in that type, f32 accumulation; one
// of f32 tensors stays on the CUDA cores. precision=f32 keeps every one
// there.

// A bf16 program: its chunk states, its masked scores and its outputs on
// bf16 tensor cores.
// CHECK-LABEL: gpu.binary @linea_linear_attention_chunk_states
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: gpu.binary @linea_linear_attention_chunk_outputs
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F32-NOT: mma
func.func @bf16_program(%q: tensor<4x1024x64xbf16>, %k: tensor<4x1024x64xbf16>, %v: tensor<4x1024x64xbf16>) -> tensor<4x1024x64xbf16> {
  %o = linea.linear_attention %q, %k, %v mask = causal form = chunk_parallel(128) : tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16> -> tensor<4x1024x64xbf16>
  return %o : tensor<4x1024x64xbf16>
}

// -----

// An f16 op inside an f32 program (its arguments rounded in the program):
// f16 tensor cores for its contractions.
// CHECK-LABEL: gpu.binary @linea_linear_attention_oneshot_state
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @f16_op(%q32: tensor<4x1024x64xf32>, %k32: tensor<4x1024x64xf32>, %v32: tensor<4x1024x64xf32>) -> tensor<4x1024x64xf32> {
  %q = arith.truncf %q32 : tensor<4x1024x64xf32> to tensor<4x1024x64xf16>
  %k = arith.truncf %k32 : tensor<4x1024x64xf32> to tensor<4x1024x64xf16>
  %v = arith.truncf %v32 : tensor<4x1024x64xf32> to tensor<4x1024x64xf16>
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf16>, tensor<4x1024x64xf16>, tensor<4x1024x64xf16> -> tensor<4x1024x64xf16>
  %w = arith.extf %o : tensor<4x1024x64xf16> to tensor<4x1024x64xf32>
  return %w : tensor<4x1024x64xf32>
}

// -----

// An f32 projection beside a bf16 op: the projection stays on the CUDA
// cores, the op's contractions take bf16 tensor cores.
// CHECK-LABEL: gpu.binary @linea_linear_attention_oneshot_state
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: gpu.binary @linea_matmul
// CHECK-NOT: mma.sync
// CHECK-NOT: gpu.binary
func.func @mixed(%q: tensor<4x1024x64xbf16>, %k: tensor<4x1024x64xbf16>, %v: tensor<4x1024x64xbf16>, %x: tensor<256x128xf32>, %w: tensor<128x128xf32>) -> (tensor<4x1024x64xbf16>, tensor<256x128xf32>) {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16>, tensor<4x1024x64xbf16> -> tensor<4x1024x64xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %y = linalg.matmul ins(%x, %w : tensor<256x128xf32>, tensor<128x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %o, %y : tensor<4x1024x64xbf16>, tensor<256x128xf32>
}
