// RUN: linea-opt %s "-linea-route-checks=handler=" | FileCheck %s

// Without a handler a failed linea.check prints its message and aborts, as
// upstream lowers cf.assert (the same declarations, so that upstream's
// lowering of the cf.assert left beside it can share them).
// CHECK-DAG: llvm.func @puts(!llvm.ptr)
// CHECK-DAG: llvm.func @abort()
// CHECK-NOT: linea_check_failed
// CHECK-LABEL: func.func @checked
// CHECK-SAME: (%[[OK:.+]]: i1, %[[J:.+]]: index)
// CHECK: scf.if
// CHECK:   func.call @[[FORMATTER:linea_check_failure[_0-9]*]](
// CHECK: cf.assert %[[OK]], "left to upstream"
// CHECK: func.func private @[[FORMATTER]](
// CHECK:   llvm.call @snprintf(%[[BUFFER:[^,]+]],
// CHECK:   llvm.call @puts(%[[BUFFER]]) : (!llvm.ptr) -> ()
// CHECK:   llvm.call @abort() : () -> ()
func.func @checked(%ok: i1, %j: index) {
  linea.check %ok, "prefix length {0} is outside [0, L]"(%j : index)
  cf.assert %ok, "left to upstream"
  return
}

// A cf.assert beside a linea.check: upstream's lowering of the assert finds
// the declarations this pass made.
// RUN: linea-opt %s "-linea-route-checks=handler=" -convert-cf-to-llvm | FileCheck %s --check-prefix=BOTH
// BOTH-COUNT-1: llvm.func @puts(
// BOTH-NOT: llvm.func @puts(
