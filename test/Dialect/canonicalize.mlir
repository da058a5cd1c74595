// RUN: linea-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @prefix_zero_is_causal
func.func @prefix_zero_is_causal(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: linea.linear_attention {{.*}} mask = causal :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(0) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @prefix_full_is_none
func.func @prefix_full_is_none(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // CHECK: linea.linear_attention {{.*}} mask = none :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(16) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @prefix_in_between_stays
func.func @prefix_in_between_stays(%q: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // With a dynamic L, prefix(16) may or may not be the whole sequence.
  // CHECK: linea.linear_attention {{.*}} mask = prefix(16) :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(16) : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @constant_index_becomes_static
func.func @constant_index_becomes_static(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %j = arith.constant 5 : index
  // CHECK: linea.linear_attention {{.*}} mask = prefix(5) :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(%j) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @constant_index_zero_becomes_causal
func.func @constant_index_zero_becomes_causal(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %j = arith.constant 0 : index
  // CHECK: linea.linear_attention {{.*}} mask = causal :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(%j) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @constant_index_out_of_range_stays
func.func @constant_index_out_of_range_stays(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %j = arith.constant 17 : index
  // CHECK: %[[J:.+]] = arith.constant 17 : index
  // CHECK: linea.linear_attention {{.*}} mask = prefix(%[[J]]) :
  %0 = linea.linear_attention %q, %q, %q mask = prefix(%j) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @gated_prefix_zero_is_causal
func.func @gated_prefix_zero_is_causal(%q: tensor<16x8xf32>, %g: tensor<16xf32>) -> tensor<16x8xf32> {
  // CHECK: linea.gated_linear_attention {{.*}} mask = causal :
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = prefix(0) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @gated_prefix_full_is_none
func.func @gated_prefix_full_is_none(%q: tensor<16x8xf32>, %g: tensor<16xf32>) -> tensor<16x8xf32> {
  // A gated `none` is defined as prefix(L): every row sees the decayed final state.
  // CHECK: linea.gated_linear_attention {{.*}} mask = none :
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = prefix(16) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @unused_is_erased
func.func @unused_is_erased(%x: tensor<16x8xf32>) {
  // CHECK-NOT: linea.presum
  %0 = linea.presum %x : tensor<16x8xf32>
  return
}

// -----

// A check that always holds goes; one that may fail stays.
// CHECK-LABEL: func.func @check_that_holds
// CHECK-SAME: (%[[OK:.+]]: i1, %[[N:.+]]: index)
// CHECK-NOT: linea.check %true
// CHECK: linea.check %[[OK]], "{0}"(%[[N]] : index)
// CHECK-NOT: linea.check
func.func @check_that_holds(%ok: i1, %n: index) {
  %true = arith.constant true
  linea.check %true, "never {0}"(%n : index)
  linea.check %ok, "{0}"(%n : index)
  return
}
