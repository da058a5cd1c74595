// Bad options of the GPU pipeline fail the run: exit 1 and no output file,
// never a warning followed by a gpu.binary.
// RUN: rm -f %t.out
// RUN: not linea-opt %s --linea-lower-to-nvvm="format=garbage" -o %t.out 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not test -e %t.out
// RUN: not linea-opt %s --linea-lower-to-nvvm="cuda-path=/nonexistent" -o %t.out 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not test -e %t.out
// RUN: not linea-opt %s --linea-lower-to-nvvm="precision=fp8" -o %t.out 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not linea-opt %s --linea-lower-to-nvvm="chunk-size=-2" -o %t.out 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not test -e %t.out

// FORMAT: for the --format option: Cannot find option named 'garbage'!
// CUDA: error: no CUDA toolkit at '/nonexistent': bin/ptxas is missing
// PRECISION: for the --precision option: Cannot find option named 'fp8'!
// CHUNK: error: chunk-size must be in [0, 16777216], got -2

func.func @causal(%q: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
  return %o : tensor<2x64x16xf32>
}
