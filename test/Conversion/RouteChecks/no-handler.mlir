// RUN: linea-opt %s "-linea-route-checks=handler=" | FileCheck %s

// Without a handler a failed check prints its message and aborts, as
// upstream lowers cf.assert (the same declarations, so that upstream's
// lowering of a cf.assert left in a GPU kernel can share them); a host
// cf.assert is lowered here too, its message with its source line.
// CHECK-DAG: llvm.func @puts(!llvm.ptr)
// CHECK-DAG: llvm.func @abort()
// CHECK-DAG: llvm.mlir.global internal constant @{{linea_check_message[_0-9]*}}("model.py:12: a front end's assertion\00")
// CHECK-NOT: linea_check_failed
// CHECK-LABEL: func.func @checked
// CHECK-SAME: (%[[OK:.+]]: i1, %[[J:.+]]: index)
// CHECK: scf.if
// CHECK:   func.call @[[FORMATTER:linea_check_failure[_0-9]*]](
// CHECK-NOT: cf.assert
// CHECK: scf.if
// CHECK:   llvm.mlir.addressof @{{linea_check_message[_0-9]*}}
// CHECK:   llvm.call @puts(
// CHECK:   llvm.call @abort()
// CHECK: func.func private @[[FORMATTER]](
// CHECK:   llvm.call @snprintf(%[[BUFFER:[^,]+]],
// CHECK:   llvm.call @puts(%[[BUFFER]]) : (!llvm.ptr) -> ()
// CHECK:   llvm.call @abort() : () -> ()
func.func @checked(%ok: i1, %j: index) {
  linea.check %ok, "prefix length {0} is outside [0, L]"(%j : index)
  cf.assert %ok, "a front end's assertion" loc("model.py":12:0)
  return
}

// Upstream's lowering of cf.assert (a GPU kernel's) finds the declarations
// this pass made.
// RUN: linea-opt %s "-linea-route-checks=handler=" -convert-cf-to-llvm | FileCheck %s --check-prefix=BOTH
// BOTH-COUNT-1: llvm.func @puts(
// BOTH-NOT: llvm.func @puts(
