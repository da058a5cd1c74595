// linea-lower-to-cpu: math with an LLVM intrinsic stays one (log), math
// without one calls libm (erf), a vector of it one call per element.
// RUN: linea-opt %s --linea-lower-to-cpu | FileCheck %s

// CHECK-DAG: llvm.func @erff(f32) -> f32
// CHECK-LABEL: llvm.func @gelu_parts
// CHECK: llvm.intr.log
// CHECK-COUNT-4: llvm.call @erff
// CHECK-NOT: llvm.call @erff
// CHECK: llvm.return
func.func @gelu_parts(%x: vector<4xf32>) -> vector<4xf32> {
  %e = math.log %x : vector<4xf32>
  %y = math.erf %e : vector<4xf32>
  return %y : vector<4xf32>
}
