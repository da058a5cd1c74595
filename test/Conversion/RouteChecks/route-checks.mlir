// RUN: linea-opt %s -linea-route-checks -split-input-file -verify-diagnostics | FileCheck %s

// A failed check calls the handler with its message (a NUL-terminated
// constant) instead of aborting.
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:linea_check_message[_0-9]*]]("f.mlir:2:6: lengths differ\00")
// CHECK-DAG: func.func private @linea_check_failed(!llvm.ptr)
// CHECK-LABEL: func.func @checked
// CHECK-SAME: (%[[OK:.+]]: i1)
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: %[[FAILED:.+]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK: scf.if %[[FAILED]] {
// CHECK:   %[[ADDR:.+]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK:   func.call @linea_check_failed(%[[ADDR]]) : (!llvm.ptr) -> ()
// CHECK-NOT: cf.assert
func.func @checked(%ok: i1) {
  cf.assert %ok, "f.mlir:2:6: lengths differ"
  return
}

// -----

// The handler's name is an option; a symbol of another kind is an error.
func.func @linea_check_failed(%x: i32) {
  return
}
// expected-error@-3 {{'linea_check_failed' is taken; the check handler must be a function of type '(!llvm.ptr) -> ()'}}
func.func @checked(%ok: i1) {
  cf.assert %ok, "lengths differ"
  return
}
