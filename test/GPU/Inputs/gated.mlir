// Gated linear attention with a per-key-dim gate: 8 sequences, D = 64, with
// LENGTH substituted by the test that reads it (test/GPU/Toolkit/gated.test).
func.func @gated(%q: tensor<8xLENGTHx64xf32>, %k: tensor<8xLENGTHx64xf32>, %v: tensor<8xLENGTHx64xf32>, %g: tensor<8xLENGTHx64xf32>) -> tensor<8xLENGTHx64xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal
      : tensor<8xLENGTHx64xf32>, tensor<8xLENGTHx64xf32>, tensor<8xLENGTHx64xf32>, tensor<8xLENGTHx64xf32> -> tensor<8xLENGTHx64xf32>
  return %o : tensor<8xLENGTHx64xf32>
}
