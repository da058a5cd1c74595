// RUN: linea-opt %s --linea-mark-minimal-traffic --mlir-print-debuginfo -split-input-file | FileCheck %s

// Operands and results as stored: bf16 at 2 bytes an element, the queries
// counted once though they are both q and k (4 x 1000 x 64 x 2 B for q,
// 4 x 1000 x 32 x 2 B each for v and o), plus the chunk-parallel form's
// f32 states, ceil(1000 / 64) + 1 = 17 of 64 x 32 per sequence:
// 512000 + 256000 + 256000 + 557056 = 1581056. The presum's input and
// output: 2 x 512000.
// CHECK-LABEL: func.func @marked
// CHECK: linea.linear_attention {{.*}} loc(#[[LA:loc[0-9]+]])
// CHECK: linea.presum {{.*}} loc(#[[PRESUM:loc[0-9]+]])
// CHECK-DAG: #[[LA]] = loc(fused<{linea.minimal_bytes = 1581056 : i64}>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[PRESUM]] = loc(fused<{linea.minimal_bytes = 1024000 : i64}>[#{{loc[0-9]*}}])
func.func @marked(%q: tensor<4x1000x64xbf16>, %v: tensor<4x1000x32xbf16>) -> (tensor<4x1000x32xbf16>, tensor<4x1000x64xbf16>) {
  %o = linea.linear_attention %q, %q, %v mask = causal form = chunk_parallel(64) : tensor<4x1000x64xbf16>, tensor<4x1000x64xbf16>, tensor<4x1000x32xbf16> -> tensor<4x1000x32xbf16>
  %p = linea.presum %q : tensor<4x1000x64xbf16>
  return %o, %p : tensor<4x1000x32xbf16>, tensor<4x1000x64xbf16>
}

// -----

// The chunked form passes no states through global memory; a dynamic size
// leaves the op unmarked.
// CHECK-LABEL: func.func @chunked_and_dynamic
// CHECK: linea.linear_attention {{.*}} loc(#[[CHUNKED:loc[0-9]+]])
// CHECK: linea.linear_attention {{.*}} loc(#[[DYNAMIC:loc[0-9]+]])
// CHECK-DAG: #[[CHUNKED]] = loc(fused<{linea.minimal_bytes = 65536 : i64}>[#{{loc[0-9]*}}])
// CHECK-DAG: #[[DYNAMIC]] = loc("{{.*}}":{{[0-9]+}}:{{[0-9]+}})
func.func @chunked_and_dynamic(%x: tensor<2x64x64xf32>, %y: tensor<2x?x64xf32>) -> (tensor<2x64x64xf32>, tensor<2x?x64xf32>) {
  %o = linea.linear_attention %x, %x, %x mask = causal form = chunked(16) : tensor<2x64x64xf32>, tensor<2x64x64xf32>, tensor<2x64x64xf32> -> tensor<2x64x64xf32>
  %p = linea.linear_attention %y, %y, %y mask = causal form = chunked(16) : tensor<2x?x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32> -> tensor<2x?x64xf32>
  return %o, %p : tensor<2x64x64xf32>, tensor<2x?x64xf32>
}
