// torch-mlir's broadcasts of dynamic dims (`select(dim == 1, 0, i)`
// gathers) become their sources. Where the sizes are two arguments' dynamic
// lengths, which torch.export asserts equal but the IR does not relate, the
// equality is checked at run time with both sizes in the message.
// RUN: linea-opt %S/models/la_causal_tril_dynamic.mlir -linea-raise | FileCheck %s
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x?x8xf32>, %[[K:.+]]: tensor<2x3x?x8xf32>, %[[V:.+]]: tensor<2x3x?x4xf32>)
// CHECK-DAG: %[[LQ:.+]] = tensor.dim %[[Q]], %{{.+}} : tensor<2x3x?x8xf32>
// CHECK-DAG: %[[LK:.+]] = tensor.dim %[[K]], %{{.+}} : tensor<2x3x?x8xf32>
// CHECK: %[[SAME:.+]] = arith.cmpi eq, %[[LK]], %[[LQ]] : index
// CHECK: linea.check %[[SAME]], "linea-raise: two dynamic sizes the model broadcasts against each other differ, {0} and {1} (torch.export asserts they are equal)"(%[[LK]], %[[LQ]] : index, index)
// CHECK: linea.linear_attention {{.*}} mask = causal

// A call with different lengths stops with that message.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../linea-run/Inputs/npy.py f32 %t/q.npy 2 3 5 8
// RUN: %python %S/../linea-run/Inputs/npy.py f32 %t/k.npy 2 3 6 8
// RUN: %python %S/../linea-run/Inputs/npy.py f32 %t/v.npy 2 3 5 4
// RUN: not linea-run %S/models/la_causal_tril_dynamic.mlir --arg %t/q.npy --arg %t/k.npy --arg %t/v.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: linea-run: run-time check failed: linea-raise: two dynamic sizes the model broadcasts against each other differ, 6 and 5 (torch.export asserts they are equal)
