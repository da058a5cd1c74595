// RUN: linea-opt %s -linea-eliminate-empty-outer-first | FileCheck %s
// RUN: linea-opt %s -linea-eliminate-empty-outer-first -one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize | FileCheck %s --check-prefix=BUFFERS
// RUN: linea-opt %s -eliminate-empty-tensors -one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize | FileCheck %s --check-prefix=UPSTREAM

// Two parts joined into an empty tensor that one block inserts into the
// output (a PrefixLM segment's bidirectional and causal rows). The outer
// insertion claims the join first: the join is the output's slice, each
// part a slice of it.
// CHECK-LABEL: func.func @joined_parts
// CHECK: scf.forall (%[[B:.+]]) in (2) shared_outs(%[[OUT:.+]] = %{{.+}})
// CHECK:   %[[JOIN:.+]] = tensor.extract_slice %[[OUT]][%[[B]], 0] [1, %{{.+}}] [1, 1]
// CHECK:   %[[HEAD:.+]] = tensor.extract_slice %[[JOIN]][0, 0] [1, %{{.+}}] [1, 1]
// CHECK:   linalg.fill {{.*}} outs(%[[HEAD]] :
// CHECK:   %[[JOINED:.+]] = tensor.insert_slice %{{.+}} into %[[JOIN]]
// CHECK:   %[[TAIL:.+]] = tensor.extract_slice %[[JOINED]][0, %{{.+}}] [1, %{{.+}}] [1, 1]
// CHECK:   linalg.fill {{.*}} outs(%[[TAIL]] :
// No buffer but the output, no copy:
// BUFFERS-LABEL: func.func @joined_parts
// BUFFERS: memref.alloc(
// BUFFERS: scf.forall
// BUFFERS-NOT: memref.alloc(
// BUFFERS-NOT: memref.copy
// BUFFERS: return
// Upstream's order (the parts first) keeps the join a buffer of its own,
// copied into the output:
// UPSTREAM-LABEL: func.func @joined_parts
// UPSTREAM: scf.forall
// UPSTREAM: memref.alloc(
// UPSTREAM: memref.copy
func.func @joined_parts(%n: index, %j: index) -> tensor<2x?xf32> {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %rest = arith.subi %n, %j : index
  %empty = tensor.empty(%n) : tensor<2x?xf32>
  %r = scf.forall (%b) in (2) shared_outs(%out = %empty) -> (tensor<2x?xf32>) {
    %e = tensor.empty(%n) : tensor<1x?xf32>
    %h = tensor.empty(%j) : tensor<1x?xf32>
    %head = linalg.fill ins(%one : f32) outs(%h : tensor<1x?xf32>) -> tensor<1x?xf32>
    %t = tensor.empty(%rest) : tensor<1x?xf32>
    %tail = linalg.fill ins(%two : f32) outs(%t : tensor<1x?xf32>) -> tensor<1x?xf32>
    %0 = tensor.insert_slice %head into %e[0, 0] [1, %j] [1, 1] : tensor<1x?xf32> into tensor<1x?xf32>
    %1 = tensor.insert_slice %tail into %0[0, %j] [1, %rest] [1, 1] : tensor<1x?xf32> into tensor<1x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %1 into %out[%b, 0] [1, %n] [1, 1] : tensor<1x?xf32> into tensor<2x?xf32>
    }
  }
  return %r : tensor<2x?xf32>
}
