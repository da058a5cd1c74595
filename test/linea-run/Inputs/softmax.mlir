func.func @main(%x: tensor<2x5x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %q = linea.presum %x : tensor<2x5x4xf32>
  %o = linea.attention %q, %k, %v mask = causal : tensor<2x5x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %o : tensor<2x5x4xf32>
}
