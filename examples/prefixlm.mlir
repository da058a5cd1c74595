// A PrefixLM linear-attention layer: the first 96 tokens of each sequence
// attend to each other bidirectionally, the rest causally.
// 2 sequences x 4 heads, L = 384, Dk = Dv = 32, elu(x) + 1 feature map.
func.func @prefixlm_layer(%q: tensor<2x4x384x32xf32>, %k: tensor<2x4x384x32xf32>,
                          %v: tensor<2x4x384x32xf32>) -> tensor<2x4x384x32xf32> {
  %o = linea.linear_attention %q, %k, %v mask = prefix(96) feature_map = elu_plus_one
      normalize
      : tensor<2x4x384x32xf32>, tensor<2x4x384x32xf32>, tensor<2x4x384x32xf32>
      -> tensor<2x4x384x32xf32>
  return %o : tensor<2x4x384x32xf32>
}
