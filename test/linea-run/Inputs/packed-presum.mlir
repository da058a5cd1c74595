func.func @main(%x: tensor<?x2xf32>, %o: tensor<?xindex>) -> tensor<?x2xf32> {
  %y = linea.presum %x offsets(%o) : tensor<?x2xf32>, tensor<?xindex> -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
