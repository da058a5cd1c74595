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

// CHECK-LABEL: func.func @causal
// CHECK: scf.for
// CHECK-NOT: linea.linear_attention
func.func @causal(%q: tensor<4x512x16xf32>) -> tensor<4x512x16xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<4x512x16xf32>, tensor<4x512x16xf32>, tensor<4x512x16xf32> -> tensor<4x512x16xf32>
  return %o : tensor<4x512x16xf32>
}
