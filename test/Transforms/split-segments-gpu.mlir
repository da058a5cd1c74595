// RUN: linea-opt %s -linea-split-segments=target=gpu -split-input-file -verify-diagnostics
// RUN: not linea-opt %s --linea-optimize=target=gpu -split-input-file 2>&1 | FileCheck %s

// CHECK: error: 'linea.presum' op has packed segments (offsets), which run on the CPU only so far
// CHECK: error: 'linea.gated_linear_attention' op has packed segments (offsets), which run on the CPU only so far
// CHECK-NOT: memref.load
func.func @packed_on_gpu(%x: tensor<?x3xf32>, %o: tensor<?xindex>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'linea.presum' op has packed segments (offsets), which run on the CPU only so far: the GPU lowering has no grid over segments yet}}
  %0 = linea.presum %x offsets(%o) : tensor<?x3xf32>, tensor<?xindex> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @packed_attention_on_gpu(%q: tensor<?x4xf32>, %g: tensor<?xf32>, %o: tensor<?xindex>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'linea.gated_linear_attention' op has packed segments (offsets), which run on the CPU only so far}}
  %y = linea.gated_linear_attention %q, %q, %q, %g offsets(%o) mask = causal
      : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xf32>, tensor<?xindex> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
