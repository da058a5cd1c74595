// RUN: linea-opt %s -linea-select-forms -split-input-file | FileCheck %s --check-prefix=CPU
// RUN: linea-opt %s "-linea-select-forms=target=gpu" -split-input-file | FileCheck %s --check-prefix=GPU

// The cost model's choices over a table of shapes, on both targets (the
// numbers behind them: `explain=1`). Causal, 16 heads of 64: a handful of
// tokens is cheapest as one masked matmul; from a thousand on, chunks. On
// the GPU, the chunk-parallel form of 128-row chunks: its staged grids read
// each operand once per block tile, where the chunked form's sequence
// blocks (16 of them for 132 SMs) read global operands once per 16 x 8
// fragment tile.
// CPU-LABEL: func.func @causal_lengths
// CPU: mask = causal form = quadratic : tensor<16x1x64xf32>
// CPU: mask = causal form = quadratic : tensor<16x8x64xf32>
// CPU: mask = causal form = quadratic : tensor<16x64x64xf32>
// CPU: mask = causal form = chunked(64) : tensor<16x1024x64xf32>
// CPU: mask = causal form = chunked(64) : tensor<16x16384x64xf32>
// GPU-LABEL: func.func @causal_lengths
// GPU: mask = causal form = quadratic : tensor<16x1x64xf32>
// GPU: mask = causal form = quadratic : tensor<16x8x64xf32>
// GPU: mask = causal form = quadratic : tensor<16x64x64xf32>
// GPU: mask = causal form = chunk_parallel(128) : tensor<16x1024x64xf32>
// GPU: mask = causal form = chunk_parallel(128) : tensor<16x16384x64xf32>
func.func @causal_lengths(%a: tensor<16x1x64xf32>, %b: tensor<16x8x64xf32>, %c: tensor<16x64x64xf32>,
                          %d: tensor<16x1024x64xf32>, %e: tensor<16x16384x64xf32>) {
  %0 = linea.linear_attention %a, %a, %a mask = causal : tensor<16x1x64xf32>, tensor<16x1x64xf32>, tensor<16x1x64xf32> -> tensor<16x1x64xf32>
  %1 = linea.linear_attention %b, %b, %b mask = causal : tensor<16x8x64xf32>, tensor<16x8x64xf32>, tensor<16x8x64xf32> -> tensor<16x8x64xf32>
  %2 = linea.linear_attention %c, %c, %c mask = causal : tensor<16x64x64xf32>, tensor<16x64x64xf32>, tensor<16x64x64xf32> -> tensor<16x64x64xf32>
  %3 = linea.linear_attention %d, %d, %d mask = causal : tensor<16x1024x64xf32>, tensor<16x1024x64xf32>, tensor<16x1024x64xf32> -> tensor<16x1024x64xf32>
  %4 = linea.linear_attention %e, %e, %e mask = causal : tensor<16x16384x64xf32>, tensor<16x16384x64xf32>, tensor<16x16384x64xf32> -> tensor<16x16384x64xf32>
  return
}

// -----

// Wide heads (Dk = Dv = 256), 4 of them: a bidirectional region is always
// the one-shot state; the causal ones take longer chunks (the state update
// K^T V per chunk is Dk x Dv, so fewer chunks pay off). The gated form
// pays an extra decay pass per chunk on the CPU and stays at 64 there. On
// the GPU, 4 heads of 4 value tiles would be 16 sequence blocks for 132
// SMs, each loading its fragments from global memory: both causal ops take
// the chunk-parallel form (32 chunks per head on every SM), whose trip
// through memory costs less; the gated one at 64 rows, whose C / 16 copies
// of decayed keys cost less than at 128 (a block per chunk, which would
// keep them in shared memory, does not fit one with Dk = 256 beyond 32
// rows), and whose pair exponentials on the CUDA cores rule out the
// quadratic form.
// CPU-LABEL: func.func @wide
// CPU: linea.linear_attention {{.*}} mask = causal form = chunked(128) :
// CPU: linea.gated_linear_attention {{.*}} mask = causal form = chunked(64) :
// CPU: linea.linear_attention {{.*}} mask = none form = oneshot :
// GPU-LABEL: func.func @wide
// GPU: linea.linear_attention {{.*}} mask = causal form = chunk_parallel(128) :
// GPU: linea.gated_linear_attention {{.*}} mask = causal form = chunk_parallel(64) :
// GPU: linea.linear_attention {{.*}} mask = none form = oneshot :
func.func @wide(%q: tensor<4x4096x256xf32>, %v: tensor<4x4096x256xf32>, %g: tensor<4x4096x256xf32>) {
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<4x4096x256xf32>, tensor<4x4096x256xf32>, tensor<4x4096x256xf32> -> tensor<4x4096x256xf32>
  %1 = linea.gated_linear_attention %q, %q, %v, %g mask = causal : tensor<4x4096x256xf32>, tensor<4x4096x256xf32>, tensor<4x4096x256xf32>, tensor<4x4096x256xf32> -> tensor<4x4096x256xf32>
  %2 = linea.linear_attention %q, %q, %v mask = none : tensor<4x4096x256xf32>, tensor<4x4096x256xf32>, tensor<4x4096x256xf32> -> tensor<4x4096x256xf32>
  return
}

// -----

// Dynamic sizes: the model assumes a long sequence and 8 sequences. On the
// GPU the chunk-parallel form's grids over (sequence, chunk) keep their
// tensor cores with a dynamic chunk count, and 8 sequences of 4096 tokens
// give them 256 chunks to spread over the SMs where the chunked form has 8
// blocks: it wins. The presum is a sequential scan on either target: the
// CPU's loops run in order, and the GPU's blocked scan would launch from
// the host per block and per row.
// CPU-LABEL: func.func @dynamic
// CPU: linea.linear_attention {{.*}} form = chunked(64) :
// CPU: linea.presum {{.*}} form = scan :
// GPU-LABEL: func.func @dynamic
// GPU: linea.linear_attention {{.*}} form = chunk_parallel(128) :
// GPU: linea.presum {{.*}} form = scan :
func.func @dynamic(%q: tensor<?x?x64xf32>) {
  %0 = linea.linear_attention %q, %q, %q mask = causal : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32> -> tensor<?x?x64xf32>
  %1 = linea.presum %q : tensor<?x?x64xf32>
  return
}

// -----

// A decayed presum has one form, the sequential scan, on either target
// (the blocked scan's block totals carry no decay).
// CPU-LABEL: func.func @decayed
// CPU: linea.presum {{.*}} decay({{.*}}) dim = 1 form = scan :
// GPU-LABEL: func.func @decayed
// GPU: linea.presum {{.*}} decay({{.*}}) dim = 1 form = scan :
func.func @decayed(%h: tensor<8x4096x64x64xf32>, %g: tensor<8x4096xf32>) {
  %0 = linea.presum %h decay(%g : tensor<8x4096xf32>) dim = 1 : tensor<8x4096x64x64xf32>
  return
}

// -----

// fla's GLA shape (2, 16384, 16, 128) with a per-key-dim gate: on the GPU
// a chunk of 64 rows fits one block's shared memory (its local states and
// rows then keep their decays and scores there), 128 does not; the
// chunk-parallel form at 64 wins. The CPU keeps the chunked form.
// CPU-LABEL: func.func @fla_gla
// CPU: linea.gated_linear_attention {{.*}} form = chunked(
// GPU-LABEL: func.func @fla_gla
// GPU: linea.gated_linear_attention {{.*}} form = chunk_parallel(64) :
func.func @fla_gla(%q: tensor<2x16x16384x128xbf16>, %g: tensor<2x16x16384x128xbf16>) -> tensor<2x16x16384x128xbf16> {
  %o = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<2x16x16384x128xbf16>, tensor<2x16x16384x128xbf16>, tensor<2x16x16384x128xbf16>, tensor<2x16x16384x128xbf16> -> tensor<2x16x16384x128xbf16>
  return %o : tensor<2x16x16384x128xbf16>
}
