func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = linea.presum %x exclusive : tensor<4xf32>
  return %y : tensor<4xf32>
}
