// RUN: linea-opt %s -linea-raise | FileCheck %s

// The heads of a raised attention merged by a transpose and a collapse, then
// projected: the normalization of the raise may fold the transpose into the
// projection, but never split its reduction over the merged heads (that
// would make a contraction over two dims, h and d, that no CPU kernel takes).

// CHECK-LABEL: func.func @merged_heads_projection
// CHECK: linea.linear_attention
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %arg3 : tensor<16x32xf32>, tensor<32x32xf32>)
// CHECK-NOT: "reduction", "reduction"
func.func @merged_heads_projection(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>,
                                   %v: tensor<4x16x8xf32>, %w: tensor<32x32xf32>) -> tensor<16x32xf32> {
  %c0 = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>,
                                            affine_map<(b, i, t, d) -> (b, t, d)>,
                                            affine_map<(b, i, t, d) -> (b, i, t)>]
      ins(%q, %k : tensor<4x16x8xf32>, tensor<4x16x8xf32>) outs(%z0 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %e1 = tensor.empty() : tensor<4x16x8xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32>) outs(%z1 : tensor<4x16x8xf32>) {
  ^bb0(%a: f32, %x: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<4x16x8xf32>
  %e2 = tensor.empty() : tensor<16x4x8xf32>
  %ot = linalg.transpose ins(%o : tensor<4x16x8xf32>) outs(%e2 : tensor<16x4x8xf32>) permutation = [1, 0, 2]
  %merged = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<16x4x8xf32> into tensor<16x32xf32>
  %e3 = tensor.empty() : tensor<16x32xf32>
  %z3 = linalg.fill ins(%c0 : f32) outs(%e3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%merged, %w : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
