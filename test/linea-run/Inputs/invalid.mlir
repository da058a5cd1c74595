func.func @bad(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = linea.linear_attention %q, %q, %q mask = prefix(17) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
