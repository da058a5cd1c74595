// Folded attention (seed 002): 256 tokens in segments of 16, each window of
// [evolved previous segment; current segment] through one causal 4-head
// softmax attention layer. Memory stays O(l * D) however long x is.
func.func @folded_layer(%x: tensor<2x256x32xf32>, %m0: tensor<2x16x32xf32>,
                        %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
                        %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>)
    -> (tensor<2x256x32xf32>, tensor<2x16x32xf32>) {
  %y, %m = linea.folded_attention %x, %m0 weights(%wq, %wk, %wv, %wo)
      segment_length = 16 num_heads = 4
      : tensor<2x256x32xf32>, tensor<2x16x32xf32>, tensor<32x32xf32>,
        tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
  return %y, %m : tensor<2x256x32xf32>, tensor<2x16x32xf32>
}
