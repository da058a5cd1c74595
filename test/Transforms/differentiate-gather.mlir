// RUN: linea-opt %s --linea-differentiate -split-input-file | FileCheck %s

// An embedding's lookup: the body reads a row of the table at a token id.
// The table's cotangent is a scatter-add over the generic's points, in
// order (two tokens may be one id), each point's contribution the body's
// derivative at that point (here 2 w dy) added at the element it read.
// CHECK-LABEL: func.func @embed_vjp
// CHECK-SAME: (%[[TOK:.*]]: tensor<?xi64>, %[[TABLE:.*]]: tensor<5x3xf32>, %[[DY:.*]]: tensor<?x3xf32>) -> tensor<5x3xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<5x3xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:   scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC2:.*]] = %[[ACC]])
// CHECK:     %[[ID:.*]] = tensor.extract %[[TOK]]
// CHECK:     %[[ROW:.*]] = arith.index_cast %[[ID]]
// CHECK:     %[[W:.*]] = tensor.extract %[[TABLE]][%[[ROW]], %[[J]]]
// CHECK:     %[[D:.*]] = tensor.extract %[[DY]]
// CHECK:     %[[OLD:.*]] = tensor.extract %[[ACC2]][%[[ROW]], %[[J]]]
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK:     tensor.insert %[[NEW]] into %[[ACC2]][%[[ROW]], %[[J]]]
// CHECK: return %[[SUM]]
func.func @embed(%tokens: tensor<?xi64>, %table: tensor<5x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %tokens, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%tokens : tensor<?xi64>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%t: i64, %o: f32):
    %row = arith.index_cast %t : i64 to index
    %col = linalg.index 1 : index
    %w = tensor.extract %table[%row, %col] : tensor<5x3xf32>
    %sq = arith.mulf %w, %w : f32
    linalg.yield %sq : f32
  } -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A lookup whose value the body scales by a differentiated input: the
// input's cotangent is the usual adjoint generic (parallel, the looked-up
// value recomputed in its body), the table's a scatter-add.
// CHECK-LABEL: func.func @scaled_lookup_vjp
// CHECK: scf.for
// CHECK:   tensor.insert
// CHECK: linalg.generic
// CHECK:   tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x2xf32>
// CHECK:   linalg.yield
// CHECK: return %{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<4x2xf32>
func.func @scaled_lookup(%x: tensor<3x2xf32>, %ids: tensor<3xi32>, %table: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %ids : tensor<3x2xf32>, tensor<3xi32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %t: i32, %o: f32):
    %row = arith.index_cast %t : i32 to index
    %col = linalg.index 1 : index
    %w = tensor.extract %table[%row, %col] : tensor<4x2xf32>
    %p = arith.mulf %a, %w : f32
    linalg.yield %p : f32
  } -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
