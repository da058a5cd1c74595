// RUN: linea-opt %s --linea-presum-to-masked-sums -split-input-file | FileCheck %s

// 100 rows: blocks of 10. The in-block sums under a strict 10 x 10 mask
// (exclusive: source row < target row), the block totals, their sums under
// a strict mask, added per block; no loop.
// CHECK-LABEL: func.func @exclusive
// CHECK-NOT: scf.for
// CHECK: %[[X:.+]] = tensor.expand_shape %{{.+}} {{\[\[}}0], [1, 2], [3]] output_shape [2, 10, 10, 8]
// CHECK: %[[MASK:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<10x10xf32>)
// CHECK:   arith.cmpi ult, %[[SOURCE:.+]], %[[TARGET:.+]] : index
// CHECK: %[[WITHIN:.+]] = linalg.generic {{.*}}["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} ins(%[[MASK]], %[[X]] : tensor<10x10xf32>, tensor<2x10x10x8xf32>)
// CHECK: %[[ONES:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x10xf32>)
// CHECK: %[[TOTALS:.+]] = linalg.generic {{.*}} ins(%[[ONES]], %[[X]] : tensor<1x10xf32>, tensor<2x10x10x8xf32>) outs(%{{.+}} : tensor<2x10x1x8xf32>)
// CHECK: %[[BEFORE:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[TOTALS]] : tensor<10x10xf32>, tensor<2x10x1x8xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[WITHIN]], %[[BEFORE]] : tensor<2x10x10x8xf32>, tensor<2x10x1x8xf32>)
// CHECK: tensor.collapse_shape %[[SUM]] {{\[\[}}0], [1, 2], [3]]
// CHECK-NOT: linea.presum
func.func @exclusive(%x: tensor<2x100x8xf32>) -> tensor<2x100x8xf32> {
  %y = linea.presum %x exclusive : tensor<2x100x8xf32>
  return %y : tensor<2x100x8xf32>
}

// -----

// A dynamic length: padded to whole blocks of 16 rows, the padding sliced
// off; reverse sums look at later rows (source >= target).
// CHECK-LABEL: func.func @dynamic_reverse
// CHECK: tensor.pad
// CHECK: arith.cmpi uge
// CHECK: tensor.extract_slice
// CHECK-NOT: linea.presum
func.func @dynamic_reverse(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = linea.presum %x dim = 0 reverse : tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// 16-bit input: summed in f32, rounded once at the end.
// CHECK-LABEL: func.func @bf16
// CHECK: arith.extf
// CHECK: arith.truncf
func.func @bf16(%x: tensor<7x4xbf16>) -> tensor<7x4xbf16> {
  %y = linea.presum %x : tensor<7x4xbf16>
  return %y : tensor<7x4xbf16>
}

// -----

// Near misses: a decayed presum (its weights would be differences of long
// running log-sums) and a packed one stay for their own lowerings.
// CHECK-LABEL: func.func @left
// CHECK: linea.presum %{{.+}} decay
// CHECK: linea.presum %{{.+}} offsets
func.func @left(%x: tensor<2x9x4xf32>, %g: tensor<2x9xf32>, %o: tensor<?xindex>)
    -> (tensor<2x9x4xf32>, tensor<2x9x4xf32>) {
  %y = linea.presum %x decay(%g : tensor<2x9xf32>) : tensor<2x9x4xf32>
  %z = linea.presum %x offsets(%o) : tensor<2x9x4xf32>, tensor<?xindex> -> tensor<2x9x4xf32>
  return %y, %z : tensor<2x9x4xf32>, tensor<2x9x4xf32>
}
