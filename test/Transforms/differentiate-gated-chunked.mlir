// RUN: linea-opt %s --linea-differentiate=target=gpu -canonicalize -cse | FileCheck %s --check-prefix=GPU
// A module planned for a GPU takes the GPU's form whatever the option says.
// RUN: linea-opt %s --linea-plan-target=target=gpu --linea-differentiate -canonicalize -cse | FileCheck %s --check-prefix=GPU
// A GPU whose blocks hold 48 KiB of shared memory: the wide op's chunk rows
// do not fit one, and run on grids over every chunk.
// RUN: linea-opt %s --linea-plan-target="target=gpu chip=sm_75" --linea-differentiate -canonicalize -cse | FileCheck %s --check-prefix=SMALL
// RUN: linea-opt %s --linea-differentiate -canonicalize -cse | FileCheck %s --check-prefix=CPU

// A gate per key dim: dq and dk read the states on their value side. For
// the GPU each read is chunked (100 rows: two chunks of 64, padded): the
// chunks' own states, a decayed scan of [seed; those] along the chunk axis,
// then each chunk's rows in a GPU block of its own (an scf.forall mapped to
// blocks: its 16-row block presums, then one pair of 16-row blocks after
// another); dv is a gated op over the reversed rows, and dg the reverse
// presum. No loop outside the blocks runs over the rows. On the CPU both
// recurrences run one row at a time.
// GPU-LABEL: func.func @gated_per_dim_vjp
// GPU-NOT:     scf.for
// GPU:         linea.presum %{{.*}} decay(%{{.*}} : tensor<2x3x4xf32>) dim = 1 : tensor<2x3x4x3xf32>
// GPU:         scf.forall (%{{.*}}, %{{.*}}) in (2, 2) {{.*}} -> (tensor<2x2x64x4xf32>)
// GPU:           scf.for %{{.*}} = %c0 to %c16
// GPU:           scf.for %{{.*}} = %c0 to %c3
// GPU:             scf.for
// GPU:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// GPU:         linea.presum %{{.*}} decay(%{{.*}} : tensor<2x3x4xf32>) dim = 1 : tensor<2x3x4x3xf32>
// GPU:         scf.forall
// GPU:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// GPU-NOT:     scf.for
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

// Key and value widths of 64: one chunk's rows need about 110 KiB of
// shared memory, which sm_90a's blocks hold and sm_75's do not. There, the
// reads take every chunk's 16-row blocks at once: their presums both ways
// as linea.presum ops, on grids.
// GPU-LABEL: func.func @gated_wide_vjp
// GPU:         scf.forall
// GPU:         scf.forall
// SMALL-LABEL: func.func @gated_wide_vjp
// SMALL-NOT:   scf.forall
// SMALL:       linea.presum %{{.*}} dim = 3 : tensor<1x1x4x16x64xf32>
// SMALL:       linea.presum %{{.*}} dim = 3 exclusive reverse : tensor<1x1x4x16x64xf32>
// SMALL-NOT:   scf.forall
// SMALL:       return
func.func @gated_wide(%q: tensor<1x64x64xf32>, %k: tensor<1x64x64xf32>, %v: tensor<1x64x64xf32>, %g: tensor<1x64x64xf32>) -> tensor<1x64x64xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal : tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
  return %o : tensor<1x64x64xf32>
}
