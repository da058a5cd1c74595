// RUN: linea-opt %s -linea-plan-target=target=gpu --linea-fuse-elementwise | FileCheck %s --check-prefix=GPU
// RUN: linea-opt %s -linea-plan-target=target=cpu --linea-fuse-elementwise | FileCheck %s --check-prefix=CPU

// A bf16 sequence reversed (a gradient's flip, a gather), then widened to
// f32 for the arithmetic after it. On the GPU the widening stays a copy of
// its own (linea-read-as-stored reads its readers from the bf16 values, so
// the flip writes bf16, half the bytes); on the CPU it is computed inside
// the flip, which writes f32.
// GPU-LABEL: func.func @flip_then_widen
// GPU:       %[[FLIP:.+]] = linalg.generic
// GPU:         tensor.extract
// GPU:       } -> tensor<8x4xbf16>
// GPU:       linalg.generic {{.*}} ins(%[[FLIP]] : tensor<8x4xbf16>)
// GPU:         arith.extf
// GPU:       } -> tensor<8x4xf32>
// CPU-LABEL: func.func @flip_then_widen
// CPU:       linalg.generic
// CPU:         tensor.extract
// CPU:         arith.extf
// CPU:       -> tensor<8x4xf32>
// CPU-NOT:   linalg.generic
#id = affine_map<(l, d) -> (l, d)>
func.func @flip_then_widen(%x: tensor<8x4xbf16>) -> tensor<8x4xf32> {
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<8x4xbf16>
  %flip = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x4xbf16>) {
  ^bb0(%o: bf16):
    %l = linalg.index 0 : index
    %d = linalg.index 1 : index
    %r = arith.subi %c7, %l : index
    %v = tensor.extract %x[%r, %d] : tensor<8x4xbf16>
    linalg.yield %v : bf16
  } -> tensor<8x4xbf16>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flip : tensor<8x4xbf16>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %w = arith.extf %v : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<8x4xf32>
  return %wide : tensor<8x4xf32>
}
