// RUN: linea-opt %s --linea-differentiate | FileCheck %s

// A packed op's adjoint is the op's adjoint on each segment alone: a
// parallel loop over the segments that rebuilds the unpacked op on the
// segment's rows (from initial state n), runs its rule with the segment's
// rows of dy (and entry n of the final state's cotangent), and writes the
// cotangents of q, k, v to the segment's rows and of the initial state to
// entry n. q and k are one value: their two cotangents are summed.
// CHECK-LABEL: func.func @packed_vjp
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<?x3xf32>, %[[V:[a-z0-9_]+]]: tensor<?x2xf32>, %[[S0:[a-z0-9_]+]]: tensor<?x3x2xf32>, %[[O:[a-z0-9_]+]]: tensor<?xindex>, %[[DY:[a-z0-9_]+]]: tensor<?x2xf32>, %[[DS:[a-z0-9_]+]]: tensor<?x3x2xf32>)
// CHECK: %[[R:.+]]:4 = scf.forall (%[[N:.+]]) in (%{{.+}}) shared_outs({{.+}}) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x3x2xf32>)
// CHECK:   %[[START:.+]] = tensor.extract %[[O]][%[[N]]]
// CHECK:   %[[QN:.+]] = tensor.extract_slice %[[Q]][%[[START]], 0] [%[[SIZE:.+]], 3]
// CHECK:   %[[KN:.+]] = tensor.extract_slice %[[Q]][%[[START]], 0] [%[[SIZE]], 3]
// CHECK:   %[[VN:.+]] = tensor.extract_slice %[[V]][%[[START]], 0] [%[[SIZE]], 2]
// CHECK:   %[[S0N:.+]] = tensor.extract_slice %[[S0]][%[[N]], 0, 0] [1, 3, 2]
// CHECK:   linea.linear_attention %[[QN]], %[[KN]], %[[VN]] init(%[[S0N]]) mask = causal
// CHECK:   %[[DYN:.+]] = tensor.extract_slice %[[DY]][%[[START]], 0] [%[[SIZE]], 2]
// CHECK:   %[[DSN:.+]] = tensor.extract_slice %[[DS]][%[[N]], 0, 0] [1, 3, 2]
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[START]], 0] [%[[SIZE]], 3]
// CHECK:     tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[START]], 0] [%[[SIZE]], 3]
// CHECK:     tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[START]], 0] [%[[SIZE]], 2]
// CHECK:     tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[N]], 0, 0] [1, 3, 2]
// CHECK: %[[DQ:.+]] = linalg.add ins(%[[R]]#0, %[[R]]#1 : tensor<?x3xf32>, tensor<?x3xf32>)
// CHECK: return %[[DQ]], %[[R]]#2, %[[R]]#3
func.func @packed(%q: tensor<?x3xf32>, %v: tensor<?x2xf32>, %s0: tensor<?x3x2xf32>, %o: tensor<?xindex>)
    -> (tensor<?x2xf32>, tensor<?x3x2xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v init(%s0) offsets(%o) mask = causal
      : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x2xf32>, tensor<?x3x2xf32>, tensor<?xindex>
      -> tensor<?x2xf32>, tensor<?x3x2xf32>
  return %y, %s : tensor<?x2xf32>, tensor<?x3x2xf32>
}
