// Tiny programs with hand-computed answers, lowered by linea-lower-to-cpu and
// run by mlir-runner.
// RUN: linea-opt %s --linea-lower-to-cpu | mlir-runner -e main -entry-point-result=void %runner_libs | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print2(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  // x = [[1, 10], [2, 20], [3, 30]] (L = 3, D = 2).
  %x = arith.constant dense<[[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]> : tensor<3x2xf32>
  // CHECK: [1,   10],
  // CHECK-NEXT: [3,   30],
  // CHECK-NEXT: [6,   60]
  %inc = linea.presum %x : tensor<3x2xf32>
  %inc_d = tensor.cast %inc : tensor<3x2xf32> to tensor<?x?xf32>
  call @print2(%inc_d) : (tensor<?x?xf32>) -> ()
  // CHECK: [0,   0],
  // CHECK-NEXT: [1,   10],
  // CHECK-NEXT: [3,   30]
  %exc = linea.presum %x exclusive : tensor<3x2xf32>
  %exc_d = tensor.cast %exc : tensor<3x2xf32> to tensor<?x?xf32>
  call @print2(%exc_d) : (tensor<?x?xf32>) -> ()
  // Reverse exclusive: y_i = sum_{j > i} x_j.
  // CHECK: [5,   50],
  // CHECK-NEXT: [3,   30],
  // CHECK-NEXT: [0,   0]
  %rev = linea.presum %x exclusive reverse : tensor<3x2xf32>
  %rev_d = tensor.cast %rev : tensor<3x2xf32> to tensor<?x?xf32>
  call @print2(%rev_d) : (tensor<?x?xf32>) -> ()

  // Causal linear attention, 2 tokens, Dk = Dv = 1: q = [1, 2], k = [3, 4],
  // v = [5, 6]. o_0 = 1 * (3*5) = 15; o_1 = 2 * (15 + 24) = 78.
  %q = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %k = arith.constant dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %v = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  // CHECK: [15],
  // CHECK-NEXT: [78]
  %o, %s = linea.linear_attention %q, %k, %v mask = causal
      : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32> -> tensor<2x1xf32>, tensor<1x1xf32>
  %o_d = tensor.cast %o : tensor<2x1xf32> to tensor<?x?xf32>
  call @print2(%o_d) : (tensor<?x?xf32>) -> ()
  // final_state = 15 + 24 = 39.
  // CHECK: [39]
  %s_d = tensor.cast %s : tensor<1x1xf32> to tensor<?x?xf32>
  call @print2(%s_d) : (tensor<?x?xf32>) -> ()
  // Bidirectional: both rows see S = 39: o = [39, 78].
  // CHECK: [39],
  // CHECK-NEXT: [78]
  %on = linea.linear_attention %q, %k, %v mask = none
      : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %on_d = tensor.cast %on : tensor<2x1xf32> to tensor<?x?xf32>
  call @print2(%on_d) : (tensor<?x?xf32>) -> ()

  // Gated, scalar gate g = log(1/2) per token: S_0 = 15, S_1 = 15/2 + 24 =
  // 31.5, o = [15, 63].
  %g = arith.constant dense<[-0.693147182, -0.693147182]> : tensor<2xf32>
  // CHECK: [15],
  // CHECK-NEXT: [63]
  %og = linea.gated_linear_attention %q, %k, %v, %g mask = causal
      : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2xf32> -> tensor<2x1xf32>
  %og_d = tensor.cast %og : tensor<2x1xf32> to tensor<?x?xf32>
  call @print2(%og_d) : (tensor<?x?xf32>) -> ()

  // Softmax attention: one query, scores 0 and log 3 give weights 1/4, 3/4;
  // v = [4, 8] gives 1 + 6 = 7.
  %sq = arith.constant dense<[[1.0]]> : tensor<1x1xf32>
  %sk = arith.constant dense<[[0.0], [1.09861229]]> : tensor<2x1xf32>
  %sv = arith.constant dense<[[4.0], [8.0]]> : tensor<2x1xf32>
  // CHECK: [7]
  %a = linea.attention %sq, %sk, %sv mask = causal scale = 1.0
      : tensor<1x1xf32>, tensor<2x1xf32>, tensor<2x1xf32> -> tensor<1x1xf32>
  %a_d = tensor.cast %a : tensor<1x1xf32> to tensor<?x?xf32>
  call @print2(%a_d) : (tensor<?x?xf32>) -> ()

  // Fold with body W -> 2 W, segments of 1 over x = [1, 2, 3], memory [m]:
  // M_0 = m; R = 2 [M; x_s]; y_s = M' = 2 x_s: y = [2, 4, 6], final M = 6.
  %fx = arith.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %fm = arith.constant dense<[[100.0]]> : tensor<1x1xf32>
  // CHECK: [2],
  // CHECK-NEXT: [4],
  // CHECK-NEXT: [6]
  // CHECK: [6]
  %fy, %fmem = linea.fold %fx, %fm segment_length = 1 : tensor<3x1xf32>, tensor<1x1xf32> {
  ^bb0(%w: tensor<2x1xf32>):
    %twice = arith.addf %w, %w : tensor<2x1xf32>
    linea.yield %twice : tensor<2x1xf32>
  }
  %fy_d = tensor.cast %fy : tensor<3x1xf32> to tensor<?x?xf32>
  call @print2(%fy_d) : (tensor<?x?xf32>) -> ()
  %fmem_d = tensor.cast %fmem : tensor<1x1xf32> to tensor<?x?xf32>
  call @print2(%fmem_d) : (tensor<?x?xf32>) -> ()

  // A body that mixes memory into the current rows: R = presum(W), so the
  // running total crosses segments. Segments of 1 over [1, 2, 3], m = 0.5:
  // s0: [0.5, 1.5] -> y0 = 1.5; s1: [1.5, 3.5] -> 3.5; s2: [3.5, 6.5] -> 6.5.
  %m0 = arith.constant dense<[[0.5]]> : tensor<1x1xf32>
  // CHECK: [1.5],
  // CHECK-NEXT: [3.5],
  // CHECK-NEXT: [6.5]
  %py, %pm = linea.fold %fx, %m0 segment_length = 1 : tensor<3x1xf32>, tensor<1x1xf32> {
  ^bb0(%w: tensor<2x1xf32>):
    %r = linea.presum %w : tensor<2x1xf32>
    linea.yield %r : tensor<2x1xf32>
  }
  %py_d = tensor.cast %py : tensor<3x1xf32> to tensor<?x?xf32>
  call @print2(%py_d) : (tensor<?x?xf32>) -> ()
  return
}
