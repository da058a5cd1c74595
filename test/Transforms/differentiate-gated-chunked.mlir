// RUN: linea-opt %s --linea-differentiate=target=gpu -canonicalize -cse | FileCheck %s --check-prefix=GPU
// A module planned for a GPU takes the GPU's form whatever the option says.
// RUN: linea-opt %s --linea-plan-target=target=gpu --linea-differentiate -canonicalize -cse | FileCheck %s --check-prefix=GPU
// RUN: linea-opt %s --linea-differentiate -canonicalize -cse | FileCheck %s --check-prefix=CPU

// A gate per key dim: dq and dk read the states on their value side. For
// the GPU each read is chunked (100 rows: two chunks of 64, padded): the
// chunks' own states, a decayed scan of [seed; those] along the chunk axis,
// the in-chunk sums of 16-row blocks (their own presums, both ways); dv is
// a gated op over the reversed rows, and dg the reverse presum. No loop
// runs over the rows. On the CPU both recurrences run one row at a time.
// GPU-LABEL: func.func @gated_per_dim_vjp
// GPU-NOT:     scf.for
// GPU:         linea.presum %{{.*}} decay(%{{.*}} : tensor<2x3x4xf32>) dim = 1 : tensor<2x3x4x3xf32>
// GPU:         linea.presum %{{.*}} dim = 3 : tensor<2x2x4x16x4xf32>
// GPU:         linea.presum %{{.*}} dim = 3 exclusive reverse : tensor<2x2x4x16x4xf32>
// GPU:         linea.presum %{{.*}} decay(%{{.*}} : tensor<2x3x4xf32>) dim = 1 : tensor<2x3x4x3xf32>
// GPU:         linea.gated_linear_attention {{.*}} mask = causal : tensor<2x100x4xf32>, tensor<2x100x4xf32>, tensor<2x100x3xf32>, tensor<2x100x4xf32> -> tensor<2x100x3xf32>, tensor<2x4x3xf32>
// GPU:         linea.presum %{{.*}} dim = 1 reverse : tensor<2x100x4xf32>
// GPU-NOT:     scf.for
// GPU:         return
// CPU-LABEL: func.func @gated_per_dim_vjp
// CPU-NOT:     linea.gated_linear_attention
// CPU:         scf.for
// CPU:         scf.for
// CPU:         linea.presum %{{.*}} dim = 1 reverse : tensor<2x100x4xf32>
func.func @gated_per_dim(%q: tensor<2x100x4xf32>, %k: tensor<2x100x4xf32>, %v: tensor<2x100x3xf32>, %g: tensor<2x100x4xf32>) -> tensor<2x100x3xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal : tensor<2x100x4xf32>, tensor<2x100x4xf32>, tensor<2x100x3xf32>, tensor<2x100x4xf32> -> tensor<2x100x3xf32>
  return %o : tensor<2x100x3xf32>
}
