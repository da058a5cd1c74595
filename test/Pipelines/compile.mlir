// The flow linea-run and linea-compile share, as the registered pipeline.
// RUN: linea-opt %s --linea-compile="check-handler=on_fail" | FileCheck %s
// RUN: linea-opt %s --linea-compile="check-handler=on_fail runtime-checks=0" | FileCheck %s --check-prefix=NOCHECKS
// RUN: linea-opt %s --linea-compile="pipeline=linea-optimize{form=chunked}" | FileCheck %s --check-prefix=PIPELINE
// RUN: not linea-opt %s --linea-compile="pipeline=no-such-pass" 2>&1 | FileCheck %s --check-prefix=BAD-PIPELINE
// RUN: not linea-opt %s --linea-compile="target=gpu gpu-options={precision=fp8}" 2>&1 | FileCheck %s --check-prefix=BAD-GPU

// The prefix length is checked once (the run-time checks go in after the
// raise, and no later pipeline inserts them again), and a failure calls the
// handler; everything is in the LLVM dialect.
// CHECK-COUNT-1: prefix length %lld is outside [0, L] of 'query'
// CHECK-NOT: prefix length %lld is outside
// CHECK: llvm.func @prefix_lm
// CHECK: llvm.call @on_fail
// NOCHECKS-NOT: prefix length
// NOCHECKS: llvm.func @prefix_lm
// PIPELINE: llvm.func @prefix_lm
// BAD-PIPELINE: error: linea-compile: cannot parse pipeline 'no-such-pass'
// BAD-GPU: error: linea-compile: bad options 'precision=fp8' (linea-lower-to-nvvm's options
func.func @prefix_lm(%q: tensor<2x37x8xf32>, %j: index) -> tensor<2x37x8xf32> {
  %o = linea.linear_attention %q, %q, %q mask = prefix(%j)
      : tensor<2x37x8xf32>, tensor<2x37x8xf32>, tensor<2x37x8xf32> -> tensor<2x37x8xf32>
  return %o : tensor<2x37x8xf32>
}
