func.func @main(%x: tensor<8x4xf32>, %m: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %y = linea.presum %x : tensor<8x4xf32>
  %o, %mem = linea.fold %y, %m segment_length = 2 : tensor<8x4xf32>, tensor<2x4xf32> {
  ^bb0(%w: tensor<4x4xf32>):
    %r = linea.attention %w, %w, %w mask = causal : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    linea.yield %r : tensor<4x4xf32>
  }
  return %o : tensor<8x4xf32>
}
