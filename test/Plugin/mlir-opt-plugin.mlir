// Upstream mlir-opt, with Linea loaded as a plugin, parses Linea and runs its
// pipelines (named in --pass-pipeline: pass flags are parsed before the
// plugin loads).
// RUN: mlir-opt %s --load-dialect-plugin=%linea_lib/libLineaPlugin.so --load-pass-plugin=%linea_lib/libLineaPlugin.so --pass-pipeline="builtin.module(linea-optimize)" | FileCheck %s

// The pairing docs/Embedding.md shows: the CPU target's forms, then the CPU
// lowering, down to the LLVM dialect.
// RUN: mlir-opt %s --load-dialect-plugin=%linea_lib/libLineaPlugin.so --load-pass-plugin=%linea_lib/libLineaPlugin.so --pass-pipeline="builtin.module(linea-optimize{target=cpu},linea-lower-to-cpu)" | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.func @causal(
// LLVM-NOT: linea.
// LLVM-NOT: func.func

// linea-optimize's chunked form: one loop over the chunks carrying the
// 16 x 16 state of each of the 4 sequences and the output; per chunk the
// masked scores (t <= i), the output rows written into their slice, and the
// state updated in place.
// CHECK-LABEL: func.func @causal
// CHECK-DAG: %[[L:.+]] = arith.constant 512 : index
// CHECK: %[[R:.+]]:2 = scf.for %[[START:.+]] = %{{.+}} to %[[L]] step %{{.+}} iter_args(%[[STATE:.+]] = %{{.+}}, %[[OUT:.+]] = %{{.+}}) -> (tensor<4x16x16xf32>, tensor<4x512x16xf32>)
// CHECK:   tensor.extract_slice %{{.+}}[0, %[[START]], 0]
// CHECK:   arith.cmpi sle, %[[T:.+]], %[[I:.+]] : index
// CHECK:   %[[NEXT:.+]] = linalg.generic {{.*}} outs(%[[STATE]] : tensor<4x16x16xf32>)
// CHECK:   %[[ROWS:.+]] = tensor.insert_slice %{{.+}} into %[[OUT]][0, %[[START]], 0]
// CHECK:   scf.yield %[[NEXT]], %[[ROWS]]
// CHECK: return %[[R]]#1
// CHECK-NOT: linea.linear_attention
func.func @causal(%q: tensor<4x512x16xf32>) -> tensor<4x512x16xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<4x512x16xf32>, tensor<4x512x16xf32>, tensor<4x512x16xf32> -> tensor<4x512x16xf32>
  return %o : tensor<4x512x16xf32>
}
