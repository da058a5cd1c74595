// f16 and bf16 operands accumulate in f32 (SPEC); results come back in the
// operand type. Reference lowering and linea-optimize give the same values.
// The sums at the end are ones whose 16-bit accumulation would differ: past
// 2048 (f16) or 256 (bf16) a 16-bit running sum no longer counts by one.
// RUN: linea-opt %s --linea-lower-to-cpu | mlir-runner -e main -entry-point-result=void %runner_libs | FileCheck %s
// RUN: linea-opt %s --linea-optimize --linea-lower-to-cpu | mlir-runner -e main -entry-point-result=void %runner_libs | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print(%t: tensor<2x1xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x1xf32> to memref<2x1xf32>
  %u = memref.cast %m : memref<2x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  // q = [1, 2], k = [3, 4], v = [5, 6]: causal o = [15, 78], in f16.
  %q = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf16>
  %k = arith.constant dense<[[3.0], [4.0]]> : tensor<2x1xf16>
  %v = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf16>
  %o, %s = linea.linear_attention %q, %k, %v mask = causal
      : tensor<2x1xf16>, tensor<2x1xf16>, tensor<2x1xf16> -> tensor<2x1xf16>, tensor<1x1xf32>
  // CHECK: [15],
  // CHECK-NEXT: [78]
  %o32 = arith.extf %o : tensor<2x1xf16> to tensor<2x1xf32>
  call @print(%o32) : (tensor<2x1xf32>) -> ()

  // bf16 presum: [1, 2] -> [1, 3].
  %x = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xbf16>
  %y = linea.presum %x : tensor<2x1xbf16>
  // CHECK: [1],
  // CHECK-NEXT: [3]
  %y32 = arith.extf %y : tensor<2x1xbf16> to tensor<2x1xf32>
  call @print(%y32) : (tensor<2x1xf32>) -> ()

  // Gated in bf16 with g = log(1/2): o = [15, 63].
  %g = arith.constant dense<[-0.693147182, -0.693147182]> : tensor<2xbf16>
  %qb = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xbf16>
  %kb = arith.constant dense<[[3.0], [4.0]]> : tensor<2x1xbf16>
  %vb = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xbf16>
  %og = linea.gated_linear_attention %qb, %kb, %vb, %g mask = causal
      : tensor<2x1xbf16>, tensor<2x1xbf16>, tensor<2x1xbf16>, tensor<2xbf16> -> tensor<2x1xbf16>
  // CHECK: [15],
  // CHECK-NEXT: [63]
  %og32 = arith.extf %og : tensor<2x1xbf16> to tensor<2x1xf32>
  call @print(%og32) : (tensor<2x1xf32>) -> ()

  // f16 causal, q = k = 1, v = [2048, 1, 1]: o = [2048, 2049, 2050] in f32,
  // 2049 rounding to 2048 in f16 (ties to even) and 2050 exact. An f16
  // running sum would stay at 2048.
  %ones = arith.constant dense<1.0> : tensor<3x1xf16>
  %v3 = arith.constant dense<[[2048.0], [1.0], [1.0]]> : tensor<3x1xf16>
  %o3 = linea.linear_attention %ones, %ones, %v3 mask = causal
      : tensor<3x1xf16>, tensor<3x1xf16>, tensor<3x1xf16> -> tensor<3x1xf16>
  // CHECK: [2048],
  // CHECK-NEXT: [2048],
  // CHECK-NEXT: [2050]
  %o3f = arith.extf %o3 : tensor<3x1xf16> to tensor<3x1xf32>
  call @print3(%o3f) : (tensor<3x1xf32>) -> ()

  // bf16 presum of [256, 1, 1]: [256, 257 -> 256, 258]; a bf16 running sum
  // would stay at 256.
  %x3 = arith.constant dense<[[256.0], [1.0], [1.0]]> : tensor<3x1xbf16>
  %y3 = linea.presum %x3 : tensor<3x1xbf16>
  // CHECK: [256],
  // CHECK-NEXT: [256],
  // CHECK-NEXT: [258]
  %y3f = arith.extf %y3 : tensor<3x1xbf16> to tensor<3x1xf32>
  call @print3(%y3f) : (tensor<3x1xf32>) -> ()
  return
}

func.func @print3(%t: tensor<3x1xf32>) {
  %m = bufferization.to_buffer %t : tensor<3x1xf32> to memref<3x1xf32>
  %u = memref.cast %m : memref<3x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
