func.func @main(%x: tensor<?x8xf32>, %m: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<?x8xf32>, tensor<?x8xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    %r = linea.attention %w, %w, %w mask = causal : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    linea.yield %r : tensor<8x8xf32>
  }
  return %y : tensor<?x8xf32>
}
