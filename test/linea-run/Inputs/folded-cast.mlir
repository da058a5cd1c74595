// torch-mlir's lowering of `nn.Linear` on a [B, L, 128] input with B and L
// both dynamic (torch-mlir 20261001): the view that merges B and L became a
// cast to ?x1x128, folded into the layer norm that produces it. Any L but 1
// made the generic write L rows into a buffer of one: heap corruption.
#id = affine_map<(b, l, d) -> (b, l, d)>
func.func @main(%x: tensor<?x?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x128xf32>
  %e = tensor.empty(%b) : tensor<?x1x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x?x128xf32>) outs(%e : tensor<?x1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x1x128xf32> loc("normalization.py":228:0)
  %rows = tensor.collapse_shape %y [[0], [1, 2]] : tensor<?x1x128xf32> into tensor<?x128xf32>
  return %rows : tensor<?x128xf32>
}
