// RUN: linea-opt %s --linea-approximate-exp | FileCheck %s

// f32 exps, scalar or vector, become arithmetic (fma, floor, exponent bits);
// f64 keeps its libm call.

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: math.floor
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT: math.exp
// CHECK: return
func.func @scalar(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp %x : vector<8xf32>
  return %y : vector<8xf32>
}

// CHECK-LABEL: func.func @double
// CHECK: math.exp %{{.*}} : f64
func.func @double(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
