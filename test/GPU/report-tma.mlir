// The report counts a TMA load's bytes where the mbarrier that tracks it
// is told to expect them (mbarrier.arrive.expect_tx), once per block: thread
// 0 alone issues them, so each thread's share is the block's bytes over its
// 128 threads.
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90a format=isa precision=bf16 report=1" -o %t.mlir 2>&1 | FileCheck %s
// RUN: grep -o 'cp.async.bulk.tensor.3d.shared::cluster.global.tile' %t.mlir | wc -l | FileCheck %s --check-prefix=LOADS

// A one-shot state of 132 heads: K^T V and Q S are two wgmma grids of 132
// blocks (a 64 x 64 tile each, one warpgroup). K^T V loads a 64 x 64 bf16
// slice of K and of V per block by TMA, 132 * 2 * 8192 B = 2.16e6, and
// stores its f32 state, 132 * 64 * 64 * 4 = 2.16e6: 4.33e6 B. Q S loads Q's
// slice by TMA (132 * 8192 B), copies the f32 state element by element
// (132 * 16384 B) and stores bf16 rows (132 * 8192 B): 4.33e6 B too.
// 2 * 64^3 * 132 = 6.92e7 FLOPs each.
// CHECK: remark: kernel @linea_linear_attention_oneshot_state: 16896 threads in 132 blocks, 6.92e+07 FLOP, 4.33e+06 B, {{.*}} (memory-bound, tensor cores)
// CHECK: remark: kernel @linea_linear_attention_oneshot_outputs: 16896 threads in 132 blocks, 6.92e+07 FLOP, 4.33e+06 B, {{.*}} (memory-bound, tensor cores)
// The two grids' three bf16 operands, K, V and Q, each by TMA.
// LOADS: {{^}}3{{$}}
func.func @oneshot(%q: tensor<132x64x64xbf16>, %k: tensor<132x64x64xbf16>, %v: tensor<132x64x64xbf16>) -> tensor<132x64x64xbf16> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<132x64x64xbf16>, tensor<132x64x64xbf16>, tensor<132x64x64xbf16> -> tensor<132x64x64xbf16>
  return %o : tensor<132x64x64xbf16>
}
