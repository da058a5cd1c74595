// RUN: linea-opt %s -split-input-file --linea-collapse-contraction-groups | FileCheck %s

// A projection whose heads the raise folded into the product: n is (h, d),
// contiguous in W and in the result. It becomes a matmul of views.

// CHECK-LABEL: func.func @heads_after_projection
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[W:.*]]: tensor<8x2x4xf32>, %[[INIT:.*]]: tensor<16x2x4xf32>)
// CHECK-DAG: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
// CHECK-DAG: %[[I2:.*]] = tensor.collapse_shape %[[INIT]] {{\[}}[0], [1, 2]] : tensor<16x2x4xf32> into tensor<16x8xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %[[W2]] : tensor<16x8xf32>, tensor<8x8xf32>) outs(%[[I2]] : tensor<16x8xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2]] output_shape [16, 2, 4] : tensor<16x8xf32> into tensor<16x2x4xf32>
// CHECK: return %[[E]]
func.func @heads_after_projection(%x: tensor<16x8xf32>, %w: tensor<8x2x4xf32>,
                                  %init: tensor<16x2x4xf32>) -> tensor<16x2x4xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>,
                       affine_map<(m, h, d, k) -> (k, h, d)>,
                       affine_map<(m, h, d, k) -> (m, h, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x2x4xf32>) outs(%init : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x2x4xf32>
  return %p : tensor<16x2x4xf32>
}

// -----

// Merged heads projected out: k is (h, d), and m (b, l) a dynamic batch of
// tokens. Both groups merge; the sizes stay dynamic.

// CHECK-LABEL: func.func @merged_heads_out
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<?x?x2x4xf32> into tensor<?x8xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x4x6xf32> into tensor<8x6xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x?x6xf32> into tensor<?x6xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: tensor.expand_shape {{.*}} : tensor<?x6xf32> into tensor<?x?x6xf32>
func.func @merged_heads_out(%o: tensor<?x?x2x4xf32>, %w: tensor<2x4x6xf32>,
                            %init: tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(b, l, n, h, d) -> (b, l, h, d)>,
                       affine_map<(b, l, n, h, d) -> (h, d, n)>,
                       affine_map<(b, l, n, h, d) -> (b, l, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%o, %w : tensor<?x?x2x4xf32>, tensor<2x4x6xf32>) outs(%init : tensor<?x?x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x?x6xf32>
  return %p : tensor<?x?x6xf32>
}

// -----

// Near miss: W reads the heads in the other order (d, h), so (h, d) is no
// view of it. The op stays as written.

// CHECK-LABEL: func.func @heads_transposed_in_weights
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @heads_transposed_in_weights(%x: tensor<16x8xf32>, %w: tensor<8x4x2xf32>,
                                       %init: tensor<16x2x4xf32>) -> tensor<16x2x4xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>,
                       affine_map<(m, h, d, k) -> (k, d, h)>,
                       affine_map<(m, h, d, k) -> (m, h, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x4x2xf32>) outs(%init : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x2x4xf32>
  return %p : tensor<16x2x4xf32>
}

// -----

// Near miss: the heads are a batch of the product (in every operand), which
// the kernels loop over as they are; and a body that is not a multiply-add
// (a product under a max) is no contraction at all.

// CHECK-LABEL: func.func @batch_of_heads
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @batch_of_heads(%q: tensor<2x4x16x8xf32>, %s: tensor<2x4x8x8xf32>,
                          %init: tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>,
                       affine_map<(b, h, m, n, k) -> (b, h, k, n)>,
                       affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %s : tensor<2x4x16x8xf32>, tensor<2x4x8x8xf32>) outs(%init : tensor<2x4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<2x4x16x8xf32>
  return %p : tensor<2x4x16x8xf32>
}

// CHECK-LABEL: func.func @max_of_products
// CHECK-NOT: tensor.collapse_shape
// CHECK: arith.maximumf
func.func @max_of_products(%x: tensor<16x8xf32>, %w: tensor<8x2x4xf32>,
                           %init: tensor<16x2x4xf32>) -> tensor<16x2x4xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>,
                       affine_map<(m, h, d, k) -> (k, h, d)>,
                       affine_map<(m, h, d, k) -> (m, h, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x2x4xf32>) outs(%init : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.maximumf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x2x4xf32>
  return %p : tensor<16x2x4xf32>
}

// -----

// The group's loops are not consecutive (h, then m and k, then d): the loops are
// reordered so that they are, then merged.

// CHECK-LABEL: func.func @group_split_by_another_loop
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[W:.*]]: tensor<8x2x4xf32>, %[[INIT:.*]]: tensor<16x2x4xf32>)
// CHECK-DAG: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2]]
// CHECK-DAG: %[[I2:.*]] = tensor.collapse_shape %[[INIT]] {{\[}}[0], [1, 2]]
// CHECK: linalg.generic {indexing_maps = [#[[$XMAP:.*]], #[[$WMAP:.*]], #[[$CMAP:.*]]], iterator_types = ["parallel", "parallel", "reduction"]}{{.*}} ins(%[[X]], %[[W2]] : tensor<16x8xf32>, tensor<8x8xf32>) outs(%[[I2]] : tensor<16x8xf32>)
// CHECK: tensor.expand_shape
func.func @group_split_by_another_loop(%x: tensor<16x8xf32>, %w: tensor<8x2x4xf32>,
                                       %init: tensor<16x2x4xf32>) -> tensor<16x2x4xf32> {
  %p = linalg.generic {
      indexing_maps = [affine_map<(h, m, k, d) -> (m, k)>,
                       affine_map<(h, m, k, d) -> (k, h, d)>,
                       affine_map<(h, m, k, d) -> (m, h, d)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x, %w : tensor<16x8xf32>, tensor<8x2x4xf32>) outs(%init : tensor<16x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x2x4xf32>
  return %p : tensor<16x2x4xf32>
}
