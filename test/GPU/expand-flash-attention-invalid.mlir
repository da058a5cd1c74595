// RUN: linea-opt %s -split-input-file -verify-diagnostics -linea-expand-flash-attention

// The kernel's limits hold for a hand-written call too: heads of 8 are
// not whole ldmatrix loads.
func.func private @linea_flash_attention(memref<2x64x8xbf16>, memref<2x64x8xbf16>, memref<2x64x8xbf16>, memref<2x64x8xbf16>) attributes {linea.flash_attention}
func.func @narrow(%q: memref<2x64x8xbf16>, %out: memref<2x64x8xbf16>) {
  // expected-error@+1 {{flash attention takes heads of 16, 32, ..., 128 (k's as q's, out's as v's), got q 'memref<2x64x8xbf16>', k 'memref<2x64x8xbf16>', v 'memref<2x64x8xbf16>', out 'memref<2x64x8xbf16>'}}
  call @linea_flash_attention(%q, %q, %q, %out) {linea.flash_attention = {causal = true, operand_type = bf16, scale = 0.25 : f32}} : (memref<2x64x8xbf16>, memref<2x64x8xbf16>, memref<2x64x8xbf16>, memref<2x64x8xbf16>) -> ()
  return
}

// -----

// Keys of another head size than the queries'.
func.func private @linea_flash_attention(memref<64x64xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>) attributes {linea.flash_attention}
func.func @keys(%q: memref<64x64xbf16>, %k: memref<64x32xbf16>, %out: memref<64x32xbf16>) {
  // expected-error@+1 {{flash attention takes heads of 16, 32, ..., 128 (k's as q's, out's as v's)}}
  call @linea_flash_attention(%q, %k, %k, %out) {linea.flash_attention = {causal = false, operand_type = bf16, scale = 0.25 : f32}} : (memref<64x64xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>) -> ()
  return
}

// -----

// Operands of different ranks.
func.func private @linea_flash_attention(memref<2x64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<2x64x32xbf16>) attributes {linea.flash_attention}
func.func @ranks(%q: memref<2x64x32xbf16>, %k: memref<64x32xbf16>, %out: memref<2x64x32xbf16>) {
  // expected-error@+1 {{flash attention takes q, k, v and out as strided buffers [B..., L, D] of one rank, got 'memref<64x32xbf16>'}}
  call @linea_flash_attention(%q, %k, %k, %out) {linea.flash_attention = {causal = false, operand_type = bf16, scale = 0.25 : f32}} : (memref<2x64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<2x64x32xbf16>) -> ()
  return
}

// -----

// Offsets that are not a 1-D buffer of integers.
func.func private @linea_flash_attention(memref<64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<3xf32>, memref<64x32xbf16>) attributes {linea.flash_attention}
func.func @offsets(%q: memref<64x32xbf16>, %o: memref<3xf32>, %out: memref<64x32xbf16>) {
  // expected-error@+1 {{flash attention's offsets are a 1-D buffer of integers, got 'memref<3xf32>'}}
  call @linea_flash_attention(%q, %q, %q, %o, %out) {linea.flash_attention = {causal = false, operand_type = bf16, scale = 0.25 : f32}} : (memref<64x32xbf16>, memref<64x32xbf16>, memref<64x32xbf16>, memref<3xf32>, memref<64x32xbf16>) -> ()
  return
}
