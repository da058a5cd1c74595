// The report counts a cp.async line as the 16 bytes it reads from global
// memory, a guarded copy (cp.async where the source is 16-byte aligned,
// element loads where not) as its costlier branch, and a loop strided by
// thread at the average share.
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_80 format=isa precision=f16 report=1" -o %t.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: grep -c 'cp.async.cg.shared.global' %t.mlir | FileCheck %s --check-prefix=COPIES
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90 format=isa precision=f16 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,SM90

// The staged K^T V grid reads K and V (f16 as stored, by cp.async lines):
// 16 blocks of 32 x 32 outputs read 1024 x 32 of each, 16 * 1024 * 32 *
// (2 + 2) B = 2.10e6, plus the f32 state stored, 4 * 64 * 64 * 4 = 65536:
// 2.16e6. Q S reads Q (f16 as stored) and S (f32) per block and stores its
// output as f16 (4 * 1024 * 64 * 2 = 5.24e5): a block of R x C outputs
// reads R x 64 of Q (2 B) and 64 x C of S (4 B). Its grid has at least as
// many blocks as the planned chip has SMs (#linea.target's units): 108 on
// sm_80, so 128 blocks of 64 x 32, 128 * (64 * 64 * 2 + 64 * 32 * 4) +
// 5.24e5 = 2.62e6; 132 on sm_90, so 256 blocks of 32 x 32, 256 * (32 * 64 *
// 2 + 64 * 32 * 4) + 5.24e5 = 3.67e6. No widening or narrowing kernel: each
// buffer has one writer (linea-unshare-empties), so the 16-bit tensors
// are read and written as stored.
// CHECK-NOT: remark: kernel @linea_linear_attention_inputs
// CHECK: remark: kernel @linea_linear_attention_oneshot_state: 4096 threads in {{[0-9]+}} blocks, 3.36e+07 FLOP, 2.16e+06 B, {{.*}} (memory-bound, tensor cores)
// SM80: remark: kernel @linea_linear_attention_oneshot_outputs: 32768 threads in 128 blocks, 3.36e+07 FLOP, 2.62e+06 B, {{.*}}, sm_80 estimate {{.*}} (memory-bound, tensor cores)
// SM90: remark: kernel @linea_linear_attention_oneshot_outputs: 65536 threads in 256 blocks, 3.36e+07 FLOP, 3.67e+06 B, {{.*}}, sm_90 estimate {{.*}} (memory-bound, tensor cores)
// CHECK-NOT: remark: kernel @linea_linear_attention_finish
// Both staged grids copy their f16 operands by cp.async (K and V; Q): two
// kernels with cp.async.
// COPIES: {{^}}2{{$}}
func.func @oneshot(%q: tensor<4x1024x64xf16>, %k: tensor<4x1024x64xf16>, %v: tensor<4x1024x64xf16>) -> tensor<4x1024x64xf16> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf16>, tensor<4x1024x64xf16>, tensor<4x1024x64xf16> -> tensor<4x1024x64xf16>
  return %o : tensor<4x1024x64xf16>
}
