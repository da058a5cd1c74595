func.func @causal(%q: tensor<4x1024x64xf32>, %k: tensor<4x1024x64xf32>, %v: tensor<4x1024x64xf32>) -> (tensor<4x1024x64xf32>, tensor<4x64x64xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v mask = causal : tensor<4x1024x64xf32>, tensor<4x1024x64xf32>, tensor<4x1024x64xf32> -> tensor<4x1024x64xf32>, tensor<4x64x64xf32>
  return %o, %s : tensor<4x1024x64xf32>, tensor<4x64x64xf32>
}
