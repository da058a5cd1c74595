// Bad pass options get a one-line error.
// RUN: not linea-opt %s -linea-causal-to-chunked=chunk-size=-1 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not linea-opt %s -linea-presum-to-scan=block-size=-2 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not linea-opt %s -linea-tile-attention=tile-size=0 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not linea-opt %s -linea-select-forms=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not linea-opt %s -linea-select-forms=form=fast 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not linea-opt %s -linea-select-forms=chunk-size=-4 2>&1 | FileCheck %s --check-prefix=SELECTCHUNK
// RUN: not linea-opt %s -linea-select-forms=chunk-size=16777217 2>&1 | FileCheck %s --check-prefix=BIGCHUNK
// RUN: not linea-opt %s --linea-optimize=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not linea-opt %s -linea-distribute-sequences=value-tile=-2 2>&1 | FileCheck %s --check-prefix=VALUETILE
// RUN: not linea-opt %s -linea-select-forms=chip=sm_80 2>&1 | FileCheck %s --check-prefix=CPUCHIP
// RUN: not linea-opt %s "-linea-select-forms=target=gpu chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP

// CHUNK: error: chunk-size must be in [0, 16777216], got -1
// BLOCK: error: block-size must be in [0, 16777216], got -2
// TILE: error: tile-size must be positive, got 0
// TARGET: for the --target option: Cannot find option named 'tpu'!
// FORM: for the --form option: Cannot find option named 'fast'!
// SELECTCHUNK: error: chunk-size must be in [0, 16777216], got -4
// BIGCHUNK: error: chunk-size must be in [0, 16777216], got 16777217
// VALUETILE: error: value-tile must be >= 0 (or -1: the target's), got -2
// CPUCHIP: error: chip=sm_80 names a GPU; add target=gpu
// CHIP: error: chip must name an NVIDIA chip (sm_80, sm_90a), got 'gfx90a'

func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// A misspelt option or pass is one line with the right spelling and the
// valid options, before MLIR's option parser answers.
// RUN: not linea-opt %s -linea-causal-to-chunked=chunk_size=4 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: not linea-opt %s "--pass-pipeline=builtin.module(func.func(linea-causal-to-chunked{chunksize=4}))" 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: linea-opt: error: 'linea-causal-to-chunked' has no option '{{chunk_?size}}'; did you mean 'chunk-size'? (its options: chunk-size)
// TYPO-NOT: {{.}}
// RUN: not linea-opt %s "--pass-pipeline=builtin.module(linea-causal_to_chunked)" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: linea-opt: error: 'linea-causal_to_chunked' is not a registered pass or pipeline; did you mean 'linea-causal-to-chunked'?
