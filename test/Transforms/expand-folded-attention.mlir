// RUN: linea-opt %s -linea-expand-folded-attention | FileCheck %s

// Projections write the per-head layout [B, h, 2l, D/h] directly (weight
// column h * D/h + c), one causal linea.attention runs over all heads, and
// the output projection reads it back: no reshape, no transpose.
// CHECK-DAG: #[[WCOL:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d1 * 4 + d3)>
// CHECK-DAG: #[[WROW:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d3 * 4 + d4, d2)>
// CHECK-LABEL: func.func @folded
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x?x8xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<2x3x8xf32>, %[[WQ:[a-zA-Z0-9_]+]]: tensor<8x8xf32>, %[[WK:[a-zA-Z0-9_]+]]: tensor<8x8xf32>, %[[WV:[a-zA-Z0-9_]+]]: tensor<8x8xf32>, %[[WO:[a-zA-Z0-9_]+]]: tensor<8x8xf32>)
// CHECK: %[[Y:[a-zA-Z0-9_]+]], %[[MEM:[a-zA-Z0-9_]+]] = linea.fold %[[X]], %[[M]] segment_length = 3 : tensor<2x?x8xf32>, tensor<2x3x8xf32> {
// CHECK: ^bb0(%[[W:[a-zA-Z0-9_]+]]: tensor<2x6x8xf32>):
// CHECK:   %[[Q:[a-zA-Z0-9_]+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[WCOL]], #{{.+}}]{{.*}} ins(%[[W]], %[[WQ]] : tensor<2x6x8xf32>, tensor<8x8xf32>) outs(%{{.+}} : tensor<2x2x6x4xf32>)
// CHECK:   %[[K:[a-zA-Z0-9_]+]] = linalg.generic {{.*}} ins(%[[W]], %[[WK]]
// CHECK:   %[[V:[a-zA-Z0-9_]+]] = linalg.generic {{.*}} ins(%[[W]], %[[WV]]
// CHECK:   %[[A:[a-zA-Z0-9_]+]] = linea.attention %[[Q]], %[[K]], %[[V]] mask = causal : tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32> -> tensor<2x2x6x4xf32>
// CHECK:   %[[R:[a-zA-Z0-9_]+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[WROW]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[A]], %[[WO]]
// CHECK:   linea.yield %[[R]] : tensor<2x6x8xf32>
// CHECK: return %[[Y]], %[[MEM]]
func.func @folded(%x: tensor<2x?x8xf32>, %m: tensor<2x3x8xf32>, %wq: tensor<8x8xf32>,
                  %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>)
    -> (tensor<2x?x8xf32>, tensor<2x3x8xf32>) {
  %y, %mem = linea.folded_attention %x, %m weights(%wq, %wk, %wv, %wo)
      segment_length = 3 num_heads = 2
      : tensor<2x?x8xf32>, tensor<2x3x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %y, %mem : tensor<2x?x8xf32>, tensor<2x3x8xf32>
}
