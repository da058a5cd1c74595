// A static report per kernel: threads, FLOPs, bytes, intensity and a
// roofline estimate for the planned chip (labelled as one). The two tensor-core kernels are the
// one-shot contractions: K^T V = 2 * 4 * 64 * 64 * 1024 FLOPs and
// Q S = 2 * 4 * 1024 * 64 * 64 FLOPs.
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90 format=isa precision=f16 report=1" -o /dev/null 2>&1 | FileCheck %s

// (K^T V: 4 heads x 2 x 2 block tiles of 32 x 32 = 16 blocks; Q S:
// 4 x 32 x 2 of 32 x 32 = 256 blocks, the tiles shrunk until the grid
// covers sm_90's 132 SMs.) Both stage their operands through shared memory,
// whose loads and stores are not counted, and both start their
// accumulators at zero instead of a fill kernel's zeros (no third kernel,
// no output read back): 4.26e+06 and 5.24e+06 bytes of global memory
// against 2.1e+06 read and written at least, still memory-bound.
// CHECK: remark: kernel @linea_linear_attention_oneshot_state: 4096 threads in {{[0-9]+}} blocks, 3.36e+07 FLOP, 4.26e+06 B, {{.*}} sm_90 estimate {{.*}} us (memory-bound, tensor cores)
// CHECK: remark: kernel @linea_linear_attention_oneshot_outputs: 65536 threads in {{[0-9]+}} blocks, 3.36e+07 FLOP, 5.24e+06 B, {{.*}} sm_90 estimate {{.*}} us (memory-bound, tensor cores)
// CHECK-NOT: remark: kernel
// Then the op's total against its four f32 tensors of 1 MiB (the one-shot
// form keeps no per-chunk states): 9.5e+06 / 4.19e+06 = 2.27.
// CHECK: report.mlir:[[@LINE+3]]:8: remark: op total: 2 launches, 6.71e+07 FLOP, 9.5e+06 B, sm_90 estimate {{.*}} us; minimal 4.19e+06 B (operands and results as stored, per-chunk states), moved / minimal 2.27
// CHECK-NOT: remark
func.func @oneshot(%q: tensor<4x1024x64xf32>, %k: tensor<4x1024x64xf32>, %v: tensor<4x1024x64xf32>) -> tensor<4x1024x64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf32>, tensor<4x1024x64xf32>, tensor<4x1024x64xf32> -> tensor<4x1024x64xf32>
  return %o : tensor<4x1024x64xf32>
}
