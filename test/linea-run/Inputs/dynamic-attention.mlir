func.func @main(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x4xf32>, %j: index) -> tensor<?x?x4xf32> {
  %o = linea.linear_attention %q, %k, %v mask = prefix(%j) : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x4xf32> -> tensor<?x?x4xf32>
  return %o : tensor<?x?x4xf32>
}
