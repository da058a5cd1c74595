func.func @causal(%q: tensor<2x?x16xf32>) -> tensor<2x?x16xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<2x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16xf32> -> tensor<2x?x16xf32>
  return %o : tensor<2x?x16xf32>
}
