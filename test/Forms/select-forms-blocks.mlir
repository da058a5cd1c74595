// RUN: linea-opt %s "--linea-select-forms=target=gpu chip=sm_90a explain=1" -o /dev/null 2>&1 | FileCheck %s

// On a GPU, explain says per chunked candidate whether its chunk loop is one
// block per sequence or host loops, with the shared memory the block needs.
// The retnet example's op (4 heads of 64, a scalar gate, dynamic L): a block
// of chunk 128 needs more than sm_90a's 232,448 bytes (before the estimate
// counted the decayed keys, chunk 128 was chosen, and its loop ran on the
// host). The chunk-parallel form, its grids on tensor cores over however
// many chunks L makes, is chosen over both: 4 sequences would keep 4 of
// sm_90a's 132 SMs busy in the chunked form.
// CHECK: remark: form chunk_parallel(64); weighed:
// CHECK-SAME: chunked(64) {{[^;]*}}, a block of 119312 B;
// CHECK-SAME: chunked(128) {{[^;]*}}, host loops (a block of 250896 B);
func.func @retnet(%q: tensor<4x?x64xf32>, %v: tensor<4x?x64xf32>, %g: tensor<4x?xf32>) -> tensor<4x?x64xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal
      : tensor<4x?x64xf32>, tensor<4x?x64xf32>, tensor<4x?x64xf32>, tensor<4x?xf32> -> tensor<4x?x64xf32>
  return %o : tensor<4x?x64xf32>
}
