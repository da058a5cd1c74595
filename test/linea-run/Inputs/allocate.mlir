// A temporary of %n floats, summed into %x: with %n past the machine's
// memory the allocation fails, and the run says so instead of writing
// through null.
func.func @main(%x: tensor<1xf32>, %n: index) -> tensor<1xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (0)>],
                         iterator_types = ["reduction"]}
      ins(%ones : tensor<?xf32>) outs(%x : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %sum : tensor<1xf32>
}
