func.func @main(%x: tensor<?x2xf32>, %s0: tensor<?x2x2xf32>, %o: tensor<?xindex>, %js: tensor<?xindex>)
    -> (tensor<?x2xf32>, tensor<?x2x2xf32>) {
  %y, %s = linea.linear_attention %x, %x, %x init(%s0) offsets(%o) mask = prefix(%js)
      : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x2x2xf32>, tensor<?xindex>,
        tensor<?xindex> -> tensor<?x2xf32>, tensor<?x2x2xf32>
  return %y, %s : tensor<?x2xf32>, tensor<?x2x2xf32>
}
