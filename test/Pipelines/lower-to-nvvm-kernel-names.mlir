// RUN: linea-opt %s --split-input-file --linea-lower-to-nvvm="chip=sm_90a format=isa precision=bf16" | FileCheck %s
// RUN: linea-opt %s --split-input-file --linea-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=F32

// Every kernel is named after what it computes: a Linea op's after its
// family and the stage of its form, the model's own after their content;
// the stages' further kernels are numbered.

// The chunk-parallel form's three stages: the chunk states (K_c^T V_c, a
// block per chunk, written after the zero first state), the scan of states
// across chunks (that zero state and the scan), and the outputs (a block
// per chunk: the masked scores, their product with V plus Q S).
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_state_scan::@linea_linear_attention_state_scan
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_states::@linea_linear_attention_chunk_states
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_state_scan_1::
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_outputs::
// CHECK-NOT: gpu.launch_func
// The PTX entries carry the names.
// CHECK: .entry linea_linear_attention_state_scan(
func.func @causal(%q: tensor<2x256x64xf32>, %k: tensor<2x256x64xf32>, %v: tensor<2x256x64xf32>) -> tensor<2x256x64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal form = chunk_parallel(64) : tensor<2x256x64xf32>, tensor<2x256x64xf32>, tensor<2x256x64xf32> -> tensor<2x256x64xf32>
  return %o : tensor<2x256x64xf32>
}

// -----

// Sequences enough to fill half the SMs (66 of 132): the chunk states are
// one pass of a block per sequence walking the chunks (no scan), then the
// outputs.
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_states::
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_outputs::
// CHECK-NOT: gpu.launch_func
func.func @causal_many_sequences(%q: tensor<66x256x64xbf16>) -> tensor<66x256x64xbf16> {
  %o = linea.linear_attention %q, %q, %q mask = causal form = chunk_parallel(64) : tensor<66x256x64xbf16>, tensor<66x256x64xbf16>, tensor<66x256x64xbf16> -> tensor<66x256x64xbf16>
  return %o : tensor<66x256x64xbf16>
}

// -----

// PrefixLM on bf16 tensors: the prefix's one-shot state and rows, then the
// causal tail's state pass and rows, four launches: each half of the
// output written as bf16 by the kernel computing it (no narrowing kernel),
// the halves' operands read as stored (no widening one).
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_oneshot_state::
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_oneshot_outputs::
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_states::
// CHECK: gpu.launch_func {{.*}} @linea_linear_attention_chunk_outputs::
// CHECK-NOT: gpu.launch_func
func.func @prefix_halves(%q: tensor<2x16x512x128xbf16>) -> tensor<2x16x512x128xbf16> {
  %o = linea.linear_attention %q, %q, %q mask = prefix(256) : tensor<2x16x512x128xbf16>, tensor<2x16x512x128xbf16>, tensor<2x16x512x128xbf16> -> tensor<2x16x512x128xbf16>
  return %o : tensor<2x16x512x128xbf16>
}

// -----

// A scalar gate per token (RetNet, Mamba-2: fla's simple GLA), chunked:
// one kernel whose blocks run the chunk loop.
// CHECK: gpu.launch_func {{.*}} @linea_simple_gla_chunk_loop::
// CHECK-NOT: gpu.launch_func
func.func @scalar_gated(%q: tensor<2x256x64xf32>, %k: tensor<2x256x64xf32>, %v: tensor<2x256x64xf32>, %g: tensor<2x256xf32>) -> tensor<2x256x64xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal form = chunked(64) : tensor<2x256x64xf32>, tensor<2x256x64xf32>, tensor<2x256x64xf32>, tensor<2x256xf32> -> tensor<2x256x64xf32>
  return %o : tensor<2x256x64xf32>
}

// -----

// Softmax attention: flash attention's grid, one launch; on tensor cores
// the flash-attention kernel, in f32 linea-tile-attention's blocks.
// CHECK: gpu.launch_func {{.*}} @linea_attention_flash_fwd::
// CHECK-NOT: gpu.launch_func
// F32-LABEL: llvm.func @softmax
// F32: gpu.launch_func {{.*}} @linea_attention_fwd::
func.func @softmax(%q: tensor<2x256x64xf32>, %k: tensor<2x256x64xf32>, %v: tensor<2x256x64xf32>) -> tensor<2x256x64xf32> {
  %o = linea.attention %q, %k, %v mask = causal : tensor<2x256x64xf32>, tensor<2x256x64xf32>, tensor<2x256x64xf32> -> tensor<2x256x64xf32>
  return %o : tensor<2x256x64xf32>
}

// -----

// CHECK: gpu.launch_func {{.*}} @linea_presum_scan::
// CHECK-NOT: gpu.launch_func
func.func @presum(%x: tensor<2x4096x64xf32>) -> tensor<2x4096x64xf32> {
  %o = linea.presum %x : tensor<2x4096x64xf32>
  return %o : tensor<2x4096x64xf32>
}

// -----

// A model's own ops: the projection (on tensor cores with bf16, on the
// CUDA cores in f32) with its tanh as the epilogue its grid applies, a
// transpose, and a sum of squares along rows (lanes of a warp per row);
// the zero fills of the projection's and the sum's accumulators are no
// kernels of their own.
// CHECK: gpu.launch_func {{.*}} @linea_matmul::
// CHECK: gpu.launch_func {{.*}} @linea_copy::
// CHECK: gpu.launch_func {{.*}} @linea_row_reductions::
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @linea_matmul {{.*}}mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// F32: gpu.launch_func {{.*}} @linea_matmul::
// F32: gpu.launch_func {{.*}} @linea_copy::
// F32: gpu.launch_func {{.*}} @linea_row_reductions::
// F32-NOT: gpu.launch_func
#map = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @model(%x: tensor<256x128xf32>, %w: tensor<128x128xf32>) -> (tensor<128x256xf32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %y = linalg.matmul ins(%x, %w : tensor<256x128xf32>, tensor<128x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<256x128xf32>) outs(%e : tensor<256x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<256x128xf32>
  %te = tensor.empty() : tensor<128x256xf32>
  %t = linalg.generic {indexing_maps = [#tr, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<256x128xf32>) outs(%te : tensor<128x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x256xf32>
  %se = tensor.empty() : tensor<256xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<256x128xf32>) outs(%sf : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.mulf %in, %in : f32
    %r = arith.addf %q, %out : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %t, %s : tensor<128x256xf32>, tensor<256xf32>
}
