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

// -----

// A linea.check formats its message only when it fails, in a function of
// its own called with the sizes (signed, indices cast to i64): its buffer is
// on that function's stack, never in the checked code's. In the format a
// `%` of the text is doubled, `{{` is one brace, each value a `%lld`.
// CHECK-DAG: llvm.mlir.global internal constant @[[FORMAT:linea_check_message[_0-9]*]]("f%%.mlir: {x} 'key' length %lld does not match 'query' length %lld\00")
// CHECK-DAG: llvm.func @snprintf(!llvm.ptr, i64, !llvm.ptr, ...) -> i32
// CHECK-LABEL: func.func @sizes
// CHECK-SAME: (%[[OK:.+]]: i1, %[[LK:.+]]: index, %[[LQ:.+]]: i32)
// CHECK: %[[FAILED:.+]] = arith.xori %[[OK]], %{{.+}} : i1
// CHECK: scf.if %[[FAILED]] {
// CHECK:   %[[A:.+]] = arith.index_cast %[[LK]] : index to i64
// CHECK:   %[[B:.+]] = arith.extsi %[[LQ]] : i32 to i64
// CHECK:   func.call @[[FORMATTER:linea_check_failure[_0-9]*]](%[[A]], %[[B]]) : (i64, i64) -> ()
// CHECK-NOT: llvm.alloca
// CHECK: return
// CHECK: func.func private @[[FORMATTER]](%[[X:.+]]: i64, %[[Y:.+]]: i64)
// CHECK:   %[[BYTES:.+]] = llvm.mlir.constant(1024 : i64) : i64
// CHECK:   %[[BUFFER:.+]] = llvm.alloca %[[BYTES]] x i8 : (i64) -> !llvm.ptr
// CHECK:   %[[FMT:.+]] = llvm.mlir.addressof @[[FORMAT]] : !llvm.ptr
// CHECK:   llvm.call @snprintf(%[[BUFFER]], %[[BYTES]], %[[FMT]], %[[X]], %[[Y]]) vararg
// CHECK:   call @linea_check_failed(%[[BUFFER]]) : (!llvm.ptr) -> ()
// CHECK-NOT: linea.check
func.func @sizes(%ok: i1, %lk: index, %lq: i32) {
  linea.check %ok, "f%.mlir: {{x} 'key' length {0} does not match 'query' length {1}"(%lk, %lq : index, i32)
  return
}

// -----

// Values shown in another order than given are passed in the message's.
// CHECK-LABEL: func.func @reordered
// CHECK-SAME: (%[[OK:.+]]: i1, %[[A:.+]]: i64, %[[B:.+]]: i64)
// CHECK: func.call @{{.+}}(%[[B]], %[[A]], %[[B]]) : (i64, i64, i64) -> ()
func.func @reordered(%ok: i1, %a: i64, %b: i64) {
  linea.check %ok, "{1} then {0} then {1}"(%a, %b : i64, i64)
  return
}

// -----

// A C library function the checks call, declared with another type, is an
// error rather than a call through the wrong signature.
// expected-error@+1 {{redefinition of function 'snprintf' of different type '!llvm.func<i32 (ptr, i64, ptr, ...)>' is prohibited}}
llvm.func @snprintf(i32) -> i32
func.func @clash(%ok: i1, %j: index) {
  linea.check %ok, "prefix length {0}"(%j : index)
  return
}

// -----

// A cf.assert in a GPU kernel stays for NVVM's lowering (`__assertfail`):
// the device cannot call the host's handler. One on the host is routed.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @gather
// CHECK-NEXT: cf.assert %{{.*}}, "index must be smaller than dim size"
// CHECK-LABEL: func.func @host
// CHECK-NOT: cf.assert
// CHECK: call @linea_check_failed
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @gather(%ok: i1) kernel {
      cf.assert %ok, "index must be smaller than dim size"
      gpu.return
    }
  }
  func.func @host(%ok: i1) {
    cf.assert %ok, "index must be smaller than dim size"
    return
  }
}

// -----

// A front end's assert of an integer comparison (torch-mlir's broadcast
// check): its message gets the model's source line and both sides, printed
// by a formatter only when it fails.
// CHECK-DAG: llvm.func @snprintf(!llvm.ptr, i64, !llvm.ptr, ...) -> i32
// CHECK-DAG: llvm.mlir.global internal constant @[[FORMAT:linea_check_message[_0-9]*]]("linear.py:134: mismatched size for broadcast (compared %lld and %lld)\00")
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.+]]: index, %[[B:.+]]: index)
// CHECK: scf.if
// CHECK:   %[[X:.+]] = arith.index_cast %[[A]] : index to i64
// CHECK:   %[[Y:.+]] = arith.index_cast %[[B]] : index to i64
// CHECK:   func.call @{{linea_check_failure[_0-9]*}}(%[[X]], %[[Y]]) : (i64, i64) -> ()
// CHECK-NOT: cf.assert
func.func @broadcast(%a: index, %b: index) {
  %same = arith.cmpi eq, %a, %b : index
  cf.assert %same, "mismatched size for broadcast" loc("/site-packages/torch/nn/modules/linear.py":134:0)
  return
}
