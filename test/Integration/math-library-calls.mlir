// Math that LLVM has no intrinsic for (erf in GELU, tanh in its tanh form,
// atan) lowers to libm calls (a vector of it, one call per element).
// RUN: linea-opt %s --linea-lower-to-cpu | mlir-runner -e main -entry-point-result=void %runner_libs | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<16xf32>) {
  %m = bufferization.to_buffer %t : tensor<16xf32> to memref<16xf32>
  %u = memref.cast %m : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @apply(%x: tensor<16xf32>, %which: index) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = scf.index_switch %which -> f32
    case 0 {
      %v = math.erf %a : f32
      scf.yield %v : f32
    }
    case 1 {
      %v = math.tanh %a : f32
      scf.yield %v : f32
    }
    default {
      %v = math.atan %a : f32
      scf.yield %v : f32
    }
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

func.func @main() {
  %x = arith.constant dense<[0.0, 0.5, 1.0, -2.0, 3.0, -0.25, 0.75, 2.0, 0.0, 0.5, 1.0, -2.0, 3.0, -0.25, 0.75, 2.0]> : tensor<16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // CHECK: [0,  0.5205,  0.842701,  -0.995322,  0.999978,  -0.276326,  0.711156,  0.995322,
  %erf = call @apply(%x, %c0) : (tensor<16xf32>, index) -> tensor<16xf32>
  call @print(%erf) : (tensor<16xf32>) -> ()
  // CHECK: [0,  0.462117,  0.761594,  -0.964028,  0.995055,  -0.244919,  0.635149,  0.964028,
  %tanh = call @apply(%x, %c1) : (tensor<16xf32>, index) -> tensor<16xf32>
  call @print(%tanh) : (tensor<16xf32>) -> ()
  // CHECK: [0,  0.463648,  0.785398,  -1.10715,  1.24905,  -0.244979,  0.643501,  1.10715,
  %atan = call @apply(%x, %c2) : (tensor<16xf32>, index) -> tensor<16xf32>
  call @print(%atan) : (tensor<16xf32>) -> ()
  return
}
