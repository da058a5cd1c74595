// RUN: linea-opt %s --linea-optimize --linea-lower-to-nvvm="format=isa" -verify-diagnostics
// RUN: linea-opt %s --linea-optimize="target=gpu" --linea-optimize="target=gpu" | FileCheck %s

// Forms planned for the CPU (and the loops they became) are not silently
// compiled for the GPU: linea-lower-to-nvvm plans for the GPU itself. The
// same target twice is fine; the module records it.
// CHECK: module attributes {linea.target = "gpu"}
// CHECK-LABEL: func.func @causal
// expected-error@+1 {{the forms here were planned for target=cpu and cannot be re-planned for target=gpu: run one pipeline per target}}
module {
  func.func @causal(%q: tensor<2x128x32xf32>, %v: tensor<2x128x16xf32>) -> tensor<2x128x16xf32> {
    %o = linea.linear_attention %q, %q, %v mask = causal
        : tensor<2x128x32xf32>, tensor<2x128x32xf32>, tensor<2x128x16xf32> -> tensor<2x128x16xf32>
    return %o : tensor<2x128x16xf32>
  }
}
