func.func @f16(%x: tensor<?x3xf16>) -> tensor<?x3xf16> {
  %y = linea.presum %x : tensor<?x3xf16>
  return %y : tensor<?x3xf16>
}

func.func @bf16(%x: tensor<?x3xbf16>) -> tensor<?x3xbf16> {
  %y = linea.presum %x : tensor<?x3xbf16>
  return %y : tensor<?x3xbf16>
}
