// A causal layer of 8 sequences, D = 64, with LENGTH substituted by the
// test that reads it (test/GPU/Toolkit/chunk-parallel.test).
func.func @causal(%q: tensor<8xLENGTHx64xf32>, %k: tensor<8xLENGTHx64xf32>, %v: tensor<8xLENGTHx64xf32>) -> tensor<8xLENGTHx64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal
      : tensor<8xLENGTHx64xf32>, tensor<8xLENGTHx64xf32>, tensor<8xLENGTHx64xf32> -> tensor<8xLENGTHx64xf32>
  return %o : tensor<8xLENGTHx64xf32>
}
