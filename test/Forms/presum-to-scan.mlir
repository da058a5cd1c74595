// RUN: linea-opt %s -linea-presum-to-scan=block-size=16 -split-input-file | FileCheck %s

// Block sums (a loop over ceil(N / 16) blocks), an exclusive scan of the
// sums, then a scan inside each block seeded with its offset.
// CHECK-LABEL: func.func @blocked
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<100x8xf32>)
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : index
// CHECK: tensor.empty() : tensor<7x8xf32>
// CHECK: %[[SUMS:.+]] = scf.for %{{.+}} = %c0 to %[[C7]] step %c1 iter_args(%{{.+}} = %{{.+}}) -> (tensor<7x8xf32>)
// CHECK:   tensor.extract_slice %[[X]]
// CHECK:   linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: %[[OFFSETS:.+]]:2 = scf.for {{.*}} -> (tensor<1x8xf32>, tensor<7x8xf32>)
// CHECK: scf.for %[[B:.+]] = %c0 to %[[C7]] step %c1
// CHECK:   %[[SEED:.+]] = tensor.extract_slice %[[OFFSETS]]#1[%[[B]], 0] [1, 8]
// CHECK:   linalg.generic {{.*}} ins(%[[SEED]] : tensor<1x8xf32>)
// CHECK:   scf.for
// CHECK-NOT: linea.presum
func.func @blocked(%x: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %y = linea.presum %x : tensor<100x8xf32>
  return %y : tensor<100x8xf32>
}

// -----

// A presum shorter than one block is left as it is, attributes and all.
// CHECK-LABEL: func.func @short
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<12x8xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[Y:.+]] = linea.presum %[[X]] exclusive : tensor<12x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @short(%x: tensor<12x8xf32>) -> tensor<12x8xf32> {
  %y = linea.presum %x exclusive : tensor<12x8xf32>
  return %y : tensor<12x8xf32>
}
