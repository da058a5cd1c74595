// RUN: linea-opt %s -linea-split-segments -split-input-file | FileCheck %s

// One presum per segment, in a parallel loop over the N = |o| - 1 segments:
// segment n's rows [o_n, o_{n+1}) of the input and of the decay, the op's
// attributes kept, its rows inserted at o_n.
// CHECK-LABEL: func.func @decayed
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x?x5xf32>, %[[A:[a-z0-9_]+]]: tensor<2x?xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi32>)
// CHECK: %[[ENTRIES:.+]] = tensor.dim %[[O]], %c0
// CHECK: %[[N:.+]] = arith.subi %[[ENTRIES]], %c1
// CHECK: %[[R:.+]] = scf.forall (%[[I:.+]]) in (%[[N]]) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<2x?x5xf32>)
// CHECK:   %[[S32:.+]] = tensor.extract %[[O]][%[[I]]]
// CHECK:   %[[START:.+]] = arith.index_cast %[[S32]] : i32 to index
// CHECK:   %[[NEXT:.+]] = arith.addi %[[I]], %c1
// CHECK:   %[[E32:.+]] = tensor.extract %[[O]][%[[NEXT]]]
// CHECK:   %[[END:.+]] = arith.index_cast %[[E32]] : i32 to index
// CHECK:   %[[SIZE:.+]] = arith.subi %[[END]], %[[START]]
// CHECK:   %[[ROWS:.+]] = tensor.extract_slice %[[X]][0, %[[START]], 0] [2, %[[SIZE]], 5]
// CHECK:   %[[DECAY:.+]] = tensor.extract_slice %[[A]][0, %[[START]]] [2, %[[SIZE]]]
// CHECK:   %[[SUM:.+]] = linea.presum %[[ROWS]] decay(%[[DECAY]] : tensor<2x?xf32>) dim = 1 exclusive reverse : tensor<2x?x5xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[SUM]] into %[[OUT]][0, %[[START]], 0] [2, %[[SIZE]], 5]
// CHECK: return %[[R]]
func.func @decayed(%x: tensor<2x?x5xf32>, %a: tensor<2x?xf32>, %o: tensor<?xi32>) -> tensor<2x?x5xf32> {
  %0 = linea.presum %x decay(%a : tensor<2x?xf32>) offsets(%o) dim = 1 exclusive reverse
      : tensor<2x?x5xf32>, tensor<?xi32> -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// The chosen form goes to every segment's op; an op without offsets stays.
// CHECK-LABEL: func.func @form_kept
// CHECK: scf.forall
// CHECK:   linea.presum %{{.+}} form = blocked_scan(32) : tensor<?x3xf32>
// CHECK: linea.presum %{{.+}} exclusive : tensor<?x3xf32>
// CHECK-NOT: scf.forall
func.func @form_kept(%x: tensor<?x3xf32>, %o: tensor<?xindex>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = linea.presum %x offsets(%o) form = blocked_scan(32) : tensor<?x3xf32>, tensor<?xindex> -> tensor<?x3xf32>
  %1 = linea.presum %x exclusive : tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}
