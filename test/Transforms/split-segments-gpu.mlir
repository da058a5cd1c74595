// RUN: linea-opt %s -linea-split-segments=target=gpu -verify-diagnostics
// RUN: not linea-opt %s --linea-optimize=target=gpu 2>&1 | FileCheck %s

// CHECK: error: 'linea.presum' op has packed segments (offsets), which run on the CPU only so far
// CHECK-NOT: memref.load
func.func @packed_on_gpu(%x: tensor<?x3xf32>, %o: tensor<?xindex>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'linea.presum' op has packed segments (offsets), which run on the CPU only so far: the GPU lowering has no grid over segments yet}}
  %0 = linea.presum %x offsets(%o) : tensor<?x3xf32>, tensor<?xindex> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
