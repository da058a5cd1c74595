// RUN: linea-opt %s --linea-expand-dynamic-groups --split-input-file | FileCheck %s
// RUN: linea-opt %s --linea-expand-dynamic-groups --expand-strided-metadata --split-input-file | FileCheck %s --check-prefix=LOWERED

// `[B * L, D]` rows split back into `[B, L, H, Dh]`, B and L dynamic: a
// reinterpret_cast with row-major strides (upstream's expand-strided-metadata
// crashed on the expand_shape).
// CHECK-LABEL: func.func @batch_and_length
// CHECK-SAME: (%[[M:.+]]: memref<?x128xf32>, %[[B:.+]]: index, %[[L:.+]]: index)
// CHECK: %[[BASE:.+]], %{{.+}}, %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[ROW:.+]] = arith.muli %[[L]], %c128 : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[L]], 4, 32], strides: [%[[ROW]], 128, 32, 1] : memref<f32> to memref<?x?x4x32xf32>
// CHECK-NOT: memref.expand_shape
// LOWERED-LABEL: func.func @batch_and_length
// LOWERED: memref.reinterpret_cast
func.func @batch_and_length(%m: memref<?x128xf32>, %b: index, %l: index) -> memref<?x?x4x32xf32> {
  %e = memref.expand_shape %m [[0, 1], [2, 3]] output_shape [%b, %l, 4, 32]
      : memref<?x128xf32> into memref<?x?x4x32xf32>
  return %e : memref<?x?x4x32xf32>
}

// -----

// One dynamic dim a group: upstream's lowering stands.
// CHECK-LABEL: func.func @one_dynamic_a_group
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic_a_group(%m: memref<?x128xf32>, %l: index) -> memref<2x?x128xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [2, %l, 128]
      : memref<?x128xf32> into memref<2x?x128xf32>
  return %e : memref<2x?x128xf32>
}

// -----

// A strided view (a row of 256 holding 128): the rows' stride carries over.
// CHECK-LABEL: func.func @strided_view
// CHECK-SAME: (%[[M:.+]]: memref<?x128xf32, strided<[256, 1]>>, %[[B:.+]]: index, %[[L:.+]]: index)
// CHECK: %[[BASE:.+]], %{{.+}}, %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[ROW:.+]] = arith.muli %[[L]], %c256 : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[L]], 128], strides: [%[[ROW]], 256, 1]
// CHECK-NOT: memref.expand_shape
// LOWERED-LABEL: func.func @strided_view
func.func @strided_view(%m: memref<?x128xf32, strided<[256, 1]>>, %b: index, %l: index)
    -> memref<?x?x128xf32, strided<[?, 256, 1]>> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %l, 128]
      : memref<?x128xf32, strided<[256, 1]>> into memref<?x?x128xf32, strided<[?, 256, 1]>>
  return %e : memref<?x?x128xf32, strided<[?, 256, 1]>>
}
