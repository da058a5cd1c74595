// RUN: linea-opt %s -linea-select-forms=explain=1 -split-input-file -verify-diagnostics | FileCheck %s
// RUN: linea-opt %s -linea-select-forms="form=quadratic" -split-input-file | FileCheck %s --check-prefix=QUAD
// RUN: linea-opt %s -linea-select-forms="target=gpu chunk-size=128" -split-input-file | FileCheck %s --check-prefix=GPU

// A long causal sequence: chunked, with the chunk the model finds cheapest
// (on the GPU, the chunk-parallel form at the forced chunk size).
// CHECK-LABEL: func.func @long_causal
// CHECK: linea.linear_attention {{.*}} mask = causal form = chunked(64) :
// QUAD-LABEL: func.func @long_causal
// QUAD: mask = causal form = quadratic :
// GPU-LABEL: func.func @long_causal
// GPU: mask = causal form = chunk_parallel(128) :
func.func @long_causal(%q: tensor<16x16384x64xf32>) -> tensor<16x16384x64xf32> {
  // expected-remark @+1 {{form chunked(64); weighed: chunked(16)}}
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<16x16384x64xf32>, tensor<16x16384x64xf32>, tensor<16x16384x64xf32> -> tensor<16x16384x64xf32>
  return %o : tensor<16x16384x64xf32>
}

// -----

// Bidirectional: the one-shot state; the decode step (L = 1 carrying its
// state) too.
// CHECK-LABEL: func.func @one_shot
// CHECK: mask = none form = oneshot :
// CHECK: mask = causal form = oneshot :
func.func @one_shot(%q: tensor<4096x64xf32>, %d: tensor<1x64xf32>, %s0: tensor<64x64xf32>)
    -> (tensor<4096x64xf32>, tensor<1x64xf32>, tensor<64x64xf32>) {
  // expected-remark @+1 {{form oneshot; weighed: oneshot}}
  %o = linea.linear_attention %q, %q, %q mask = none
      : tensor<4096x64xf32>, tensor<4096x64xf32>, tensor<4096x64xf32> -> tensor<4096x64xf32>
  // expected-remark @+1 {{form oneshot; weighed: oneshot}}
  %p, %s = linea.linear_attention %d, %d, %d init(%s0) mask = causal
      : tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>, tensor<64x64xf32>
  return %o, %p, %s : tensor<4096x64xf32>, tensor<1x64xf32>, tensor<64x64xf32>
}

// -----

// A few tokens: the quadratic masked form is cheapest.
// CHECK-LABEL: func.func @short_causal
// CHECK: mask = causal form = quadratic :
func.func @short_causal(%q: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark @+1 {{form quadratic; weighed:}}
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

// -----

// An unsplit prefix has no legal form of its own: forcing one leaves it
// undecided (linea-split-prefix comes first).
// QUAD-LABEL: func.func @no_choice
// QUAD: linea.linear_attention {{.*}} mask = prefix(%{{[a-z0-9_]+}}) : tensor
func.func @no_choice(%q: tensor<8x64xf32>, %j: index) -> tensor<8x64xf32> {
  // An unsplit prefix has no form of its own yet.
  %o = linea.linear_attention %q, %q, %q mask = prefix(%j)
      : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

// -----

// presum: the blocked scan pays a second pass for parallelism; on the CPU,
// whose loops run in order, the sequential scan wins; on the GPU too, as a
// sequence block per slice (the blocked scan's loops would launch from the
// host, per block and per row).
// CHECK-LABEL: func.func @presum
// CHECK: linea.presum {{.*}} form = scan :
// GPU-LABEL: func.func @presum
// GPU: linea.presum {{.*}} form = scan :
func.func @presum(%x: tensor<16x4096x64xf32>) -> tensor<16x4096x64xf32> {
  // expected-remark @+1 {{form scan; weighed: scan}}
  %y = linea.presum %x : tensor<16x4096x64xf32>
  return %y : tensor<16x4096x64xf32>
}
