// RUN: linea-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(linea-vectorize-scans{vector-width=4 registers=2}),canonicalize)' | FileCheck %s

// An exclusive reverse presum along the sequence of [2, 100, 20]: per head
// and 8-lane tile of the last dim (20 = 2 full tiles and a masked one), a
// running sum walks the sequence backwards and is stored before it is added.

// CHECK-LABEL: func.func @exclusive_reverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x100x20xf32>)
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-DAG: %[[LAST:.*]] = arith.constant 99 : index
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x100x20xf32>
// CHECK: scf.for %[[H:.*]] = {{.*}} iter_args(%{{.*}} = %[[EMPTY]])
// CHECK: scf.for %[[E:.*]] = {{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %[[ZEROS]], %[[OUT:.*]] = %{{.*}}) -> (vector<8xf32>, tensor<2x100x20xf32>)
// CHECK: %[[POS:.*]] = arith.subi %[[LAST]], %[[T]]
// CHECK: %[[ROW:.*]] = vector.transfer_read %[[X]][%[[H]], %[[POS]], %[[E]]], %{{.*}} : tensor<2x100x20xf32>, vector<8xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[ROW]] : vector<8xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[SUM]], %[[OUT]][%[[H]], %[[POS]], %[[E]]] : vector<8xf32>, tensor<2x100x20xf32>
// CHECK: scf.yield %[[NEXT]], %[[W]]
// CHECK-NOT: linea.presum
func.func @exclusive_reverse(%x: tensor<2x100x20xf32>) -> tensor<2x100x20xf32> {
  %y = linea.presum %x exclusive reverse : tensor<2x100x20xf32>
  return %y : tensor<2x100x20xf32>
}

// -----

// Dynamic sizes, inclusive, along dim 0: the innermost tile is masked (its
// size is not known to divide), the inclusive sum is stored after the add.

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[ROW:.*]] = vector.transfer_read {{.*}} : tensor<?x?xf32>, vector<8xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %{{.*}}, %[[ROW]] : vector<8xf32>
// CHECK: vector.transfer_write %[[NEXT]]
// CHECK-NOT: linea.presum
func.func @dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = linea.presum %x dim = 0 : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Along the innermost dim there are no lanes to stream, and the blocked
// scan is a form of its own: both are left alone.

// CHECK-LABEL: func.func @left_alone
// CHECK: linea.presum %{{.*}} dim = 1
// CHECK: linea.presum %{{.*}} form = blocked_scan(16)
func.func @left_alone(%x: tensor<4x64xf32>, %z: tensor<64x4xf32>) -> (tensor<4x64xf32>, tensor<64x4xf32>) {
  %y = linea.presum %x dim = 1 : tensor<4x64xf32>
  %w = linea.presum %z {form = #linea.form<blocked_scan, 16>} : tensor<64x4xf32>
  return %y, %w : tensor<4x64xf32>, tensor<64x4xf32>
}
