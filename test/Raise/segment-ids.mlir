// A packed version is raised once: a second linea-raise leaves the raised
// op and the as-written branch (`{linea.as_written}`) as they are.
// RUN: linea-opt %S/models/la_packed_causal.mlir --linea-raise --linea-raise | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[IDS:[^:]*]]: tensor<16xi64>
// CHECK: %[[RUNS:.+]]:3 = scf.for
// CHECK: scf.if
// CHECK-COUNT-1: linea.linear_attention
// CHECK: } else {
// CHECK-NOT: linea.
// CHECK-NOT: scf.if %{{.*}} -> (tensor<2x3x16x4xf32>)
// CHECK: } {linea.as_written}
// CHECK-NOT: linea.linear_attention
// CHECK: return
