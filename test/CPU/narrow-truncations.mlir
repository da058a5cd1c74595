// RUN: linea-opt %s -split-input-file -linea-narrow-truncations | FileCheck %s

// A model's literal, an f64 constant truncated to bf16: the constant rounded
// to nearest even (1e-6 is 9.98377e-07 in bf16), no truncation left.
// CHECK-LABEL: func.func @literal
// CHECK: %[[EPS:.+]] = arith.constant 9.983770e-07 : bf16
// CHECK-NOT: arith.truncf
// CHECK: return %[[EPS]]
func.func @literal() -> bf16 {
  %c = arith.constant 1.0e-06 : f64
  %t = arith.truncf %c : f64 to bf16
  return %t : bf16
}

// -----

// Any other f64 -> 16-bit truncation goes through f32 (arith-expand takes
// f32 -> bf16 from there), scalars and vectors alike.
// CHECK-LABEL: func.func @value
// CHECK-SAME: (%[[X:.+]]: f64, %[[V:.+]]: vector<4xf64>)
// CHECK: %[[XS:.+]] = arith.truncf %[[X]] : f64 to f32
// CHECK: %[[XB:.+]] = arith.truncf %[[XS]] : f32 to bf16
// CHECK: %[[VS:.+]] = arith.truncf %[[V]] : vector<4xf64> to vector<4xf32>
// CHECK: %[[VH:.+]] = arith.truncf %[[VS]] : vector<4xf32> to vector<4xf16>
// CHECK: return %[[XB]], %[[VH]]
func.func @value(%x: f64, %v: vector<4xf64>) -> (bf16, vector<4xf16>) {
  %t = arith.truncf %x : f64 to bf16
  %u = arith.truncf %v : vector<4xf64> to vector<4xf16>
  return %t, %u : bf16, vector<4xf16>
}

// -----

// Truncations LLVM lowers itself stay: f64 -> f32, f32 -> bf16.
// CHECK-LABEL: func.func @left
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @left(%x: f64, %y: f32) -> (f32, bf16) {
  %t = arith.truncf %x : f64 to f32
  %u = arith.truncf %y : f32 to bf16
  return %t, %u : f32, bf16
}
