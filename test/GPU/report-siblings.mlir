// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90a format=isa report=1" -o /dev/null 2>&1 | FileCheck %s

// Two elementwise ops side by side run as one band of sibling kernels
// (4096 threads: the first op's 1024 elements, then the second's 3072).
// Each thread takes one op's element, so the band moves each element's
// load and store once: (1024 + 3072) x 8 = 32768 bytes, not every op's
// bytes on every thread (65536).
// CHECK: remark: kernel @linea_elementwise: 4096 threads in {{[0-9]+}} blocks, 4.1e+03 FLOP, 3.28e+04 B,
#id = affine_map<(d0) -> (d0)>
func.func @siblings(%a: tensor<1024xf32>, %b: tensor<3072xf32>) -> (tensor<1024xf32>, tensor<3072xf32>) {
  %ea = tensor.empty() : tensor<1024xf32>
  %na = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%ea : tensor<1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  %eb = tensor.empty() : tensor<3072xf32>
  %nb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<3072xf32>) outs(%eb : tensor<3072xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<3072xf32>
  return %na, %nb : tensor<1024xf32>, tensor<3072xf32>
}
