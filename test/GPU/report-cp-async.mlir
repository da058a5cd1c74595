// The report counts a cp.async line as the 16 bytes it reads from global
// memory, a guarded copy (cp.async where the source is 16-byte aligned,
// element loads where not) as its costlier branch, and a loop strided by
// thread at the average share.
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_80 format=isa precision=f16 report=1" -o %t.mlir 2>&1 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: grep -c 'cp.async.cg.shared.global' %t.mlir | FileCheck %s --check-prefix=COPIES
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90 format=isa precision=f16 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,SM90

// The staged K^T V grid reads K (f16 as stored, by cp.async lines) and V
// (its f32 copy: bufferization reuses that buffer for the output, so it
// cannot be read as stored): 16 blocks of 32 x 32 outputs read 1024 x 32
// of each, 16 * 1024 * 32 * (2 + 4) B = 3.15e6, plus the f32 state stored,
// 4 * 64 * 64 * 4 = 65536: 3.21e6. Q S reads Q (f16 as stored) and S
// (f32) per block and stores its output: a block of R x C outputs reads
// R x 64 of Q (2 B) and 64 x C of S (4 B). Its grid has at least as many
// blocks as the planned chip has SMs (#linea.target's units): 108 on
// sm_80, so 128 blocks of 64 x 32, 128 * (64 * 64 * 2 + 64 * 32 * 4) +
// 1.05e6 = 3.15e6; 132 on sm_90, so 256 blocks of 32 x 32,
// 256 * (32 * 64 * 2 + 64 * 32 * 4) + 1.05e6 = 4.19e6.
// CHECK: remark: kernel @linea_linear_attention_inputs: 262144 threads in {{[0-9]+}} blocks, 0 FLOP, 1.57e+06 B
// CHECK: remark: kernel @linea_linear_attention_oneshot_state: 4096 threads in {{[0-9]+}} blocks, 3.36e+07 FLOP, 3.21e+06 B, {{.*}} (memory-bound, tensor cores)
// SM80: remark: kernel @linea_linear_attention_oneshot_outputs: 32768 threads in 128 blocks, 3.36e+07 FLOP, 3.15e+06 B, {{.*}}, sm_80 estimate {{.*}} (memory-bound, tensor cores)
// SM90: remark: kernel @linea_linear_attention_oneshot_outputs: 65536 threads in 256 blocks, 3.36e+07 FLOP, 4.19e+06 B, {{.*}}, sm_90 estimate {{.*}} (memory-bound, tensor cores)
// The two staged grids' f16 operands, K and Q, each by cp.async.
// COPIES: {{^}}2{{$}}
func.func @oneshot(%q: tensor<4x1024x64xf16>, %k: tensor<4x1024x64xf16>, %v: tensor<4x1024x64xf16>) -> tensor<4x1024x64xf16> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf16>, tensor<4x1024x64xf16>, tensor<4x1024x64xf16> -> tensor<4x1024x64xf16>
  return %o : tensor<4x1024x64xf16>
}
