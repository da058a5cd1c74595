// Token ids (i64) gather rows of a table, as torch-mlir writes
// torch.nn.Embedding; the ids are checked against the table's rows.
func.func @main(%ids: tensor<?xi64>, %table: tensor<5x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : i64
  %zero = arith.constant 0 : i64
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%id: i64, %out: f32):
    %below = arith.cmpi slt, %id, %c5 : i64
    cf.assert %below, "index must be smaller than dim size"
    %nonnegative = arith.cmpi sge, %id, %zero : i64
    cf.assert %nonnegative, "index must be larger or equal to 0"
    %row = arith.index_cast %id : i64 to index
    %d = linalg.index 1 : index
    %x = tensor.extract %table[%row, %d] : tensor<5x3xf32>
    linalg.yield %x : f32
  } -> tensor<?x3xf32>
  return %rows : tensor<?x3xf32>
}
