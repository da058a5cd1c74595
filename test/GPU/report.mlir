// A static report per kernel: threads, FLOPs, bytes, intensity and an H100
// roofline estimate (labelled as one). The two tensor-core kernels are the
// one-shot contractions: K^T V = 2 * 4 * 64 * 64 * 1024 FLOPs and
// Q S = 2 * 4 * 1024 * 64 * 64 FLOPs.
// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_80 format=isa precision=f16 report=1" -o /dev/null 2>&1 | FileCheck %s

// (K^T V has 4 * 4 * 8 tiles of 16 x 8 for 16 blocks of 8 warps; Q S has
// 4 * 64 * 8 for 256 blocks.) Lanes load their fragments from global
// memory without reuse, so both are memory-bound.
// CHECK-DAG: remark: kernel @oneshot_kernel_{{[0-9]+}}: 4096 threads, 3.36e+07 FLOP, {{.*}} H100 estimate {{.*}} us ({{.*}}-bound, tensor cores)
// CHECK-DAG: remark: kernel @oneshot_kernel_{{[0-9]+}}: 65536 threads, 3.36e+07 FLOP, {{.*}} H100 estimate {{.*}} us ({{.*}}-bound, tensor cores)
// CHECK-DAG: remark: kernel @oneshot_kernel: {{[0-9]+}} threads, {{.*}} FLOP/B, H100 estimate {{.*}} us (memory-bound)
func.func @oneshot(%q: tensor<4x1024x64xf32>, %k: tensor<4x1024x64xf32>, %v: tensor<4x1024x64xf32>) -> tensor<4x1024x64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf32>, tensor<4x1024x64xf32>, tensor<4x1024x64xf32> -> tensor<4x1024x64xf32>
  return %o : tensor<4x1024x64xf32>
}
