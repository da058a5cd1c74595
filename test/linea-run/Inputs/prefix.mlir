func.func @prefix(%q: tensor<5x2xf32>, %j: index) -> tensor<5x2xf32> {
  %0 = linea.linear_attention %q, %q, %q mask = prefix(%j) : tensor<5x2xf32>, tensor<5x2xf32>, tensor<5x2xf32> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}
