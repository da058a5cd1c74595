// The cost model with measured rates (a target description as
// `python3 -m linea.calibrate` writes it): dearer chunk steps and cheaper
// partial tiles move the chunk from 64 to 128. On 256 cores one sequence
// keeps a quarter of them busy in the chunked form (a chunk's 64 rows at a
// time): the chunk-parallel form spreads its 256 chunks over all of them,
// while 16 sequences fill them either way and keep the chunked form's
// cached temporaries. (The model's view: no such machine measured it.) A
// bad file is one error.
// RUN: linea-opt %s -linea-select-forms | FileCheck %s --check-prefix=BUILTIN
// RUN: linea-opt %s -linea-select-forms=target-description=%S/Inputs/slow-steps.json | FileCheck %s --check-prefix=MEASURED
// RUN: linea-opt %s '--linea-optimize=target-description=%S/Inputs/slow-steps.json' | FileCheck %s --check-prefix=PIPELINE
// RUN: linea-opt %s -linea-select-forms=target-description=%S/Inputs/many-cores.json | FileCheck %s --check-prefix=CORES
// RUN: not linea-opt %s -linea-select-forms=target-description=%S/Inputs/wrong-target.json 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not linea-opt %s -linea-select-forms=target-description=%S/Inputs/negative-rate.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not linea-opt %s -linea-select-forms=target-description=%S/Inputs/not-json.json 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not linea-opt %s -linea-select-forms=target-description=%S/Inputs/absent.json 2>&1 | FileCheck %s --check-prefix=ABSENT

// BUILTIN-LABEL: func.func @long_causal
// BUILTIN: mask = causal form = chunked(64) :
// BUILTIN-LABEL: func.func @one_sequence
// BUILTIN: mask = causal form = chunked(64) :
// MEASURED-LABEL: func.func @long_causal
// MEASURED: mask = causal form = chunked(128) :
// PIPELINE-LABEL: func.func @long_causal
// PIPELINE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128
// CORES-LABEL: func.func @long_causal
// CORES: mask = causal form = chunked(64) :
// CORES-LABEL: func.func @one_sequence
// CORES: mask = causal form = chunk_parallel(64) :
// TARGET: error: target description '{{.*}}wrong-target.json': describes target 'gpu', not 'cpu'
// NEGATIVE: error: target description '{{.*}}negative-rate.json': bytesPerSecond must be a positive number
// JSON: error: target description '{{.*}}not-json.json': [2:0, byte=37]: Unexpected EOF
// ABSENT: error: target description '{{.*}}absent.json': No such file or directory

func.func @long_causal(%q: tensor<16x16384x64xf32>) -> tensor<16x16384x64xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<16x16384x64xf32>, tensor<16x16384x64xf32>, tensor<16x16384x64xf32> -> tensor<16x16384x64xf32>
  return %o : tensor<16x16384x64xf32>
}

func.func @one_sequence(%q: tensor<1x16384x64xf32>) -> tensor<1x16384x64xf32> {
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<1x16384x64xf32>, tensor<1x16384x64xf32>, tensor<1x16384x64xf32> -> tensor<1x16384x64xf32>
  return %o : tensor<1x16384x64xf32>
}
