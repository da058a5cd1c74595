// A causal linear-attention layer that hands its state on: the state of the
// previous segment in, the state after this one out (for the next segment,
// or the next rank: `scripts/run-example.py examples/causal.mlir --ranks 4`
// splits the 1000 tokens across 4 MPI processes).
// 4 heads, L = 1000 (not a multiple of the chunk), Dk = Dv = 32.
func.func @causal_layer(%q: tensor<4x1000x32xf32>, %k: tensor<4x1000x32xf32>,
                        %v: tensor<4x1000x32xf32>, %s0: tensor<4x32x32xf32>)
    -> (tensor<4x1000x32xf32>, tensor<4x32x32xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v init(%s0) mask = causal scale = 0.125
      : tensor<4x1000x32xf32>, tensor<4x1000x32xf32>, tensor<4x1000x32xf32>,
        tensor<4x32x32xf32>
      -> tensor<4x1000x32xf32>, tensor<4x32x32xf32>
  return %o, %s : tensor<4x1000x32xf32>, tensor<4x32x32xf32>
}
