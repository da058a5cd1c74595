// RUN: linea-opt %s --linea-lower-to-nvvm="chip=sm_90a format=isa" | FileCheck %s

// Model IR around the Linea ops takes the CPU's preparation on the GPU too
// (linea-fuse-elementwise): an elementwise chain as torch-mlir writes one,
// each op into a fresh tensor, is one kernel, not one per op.
// CHECK-LABEL: llvm.func @chain(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
#id = affine_map<(i, j) -> (i, j)>
func.func @chain(%x: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x256xf32>
  %e0 = tensor.empty(%n) : tensor<?x256xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x256xf32>) outs(%e0 : tensor<?x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<?x256xf32>
  %e1 = tensor.empty(%n) : tensor<?x256xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%scaled : tensor<?x256xf32>) outs(%e1 : tensor<?x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<?x256xf32>
  %e2 = tensor.empty(%n) : tensor<?x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted : tensor<?x256xf32>) outs(%e2 : tensor<?x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
