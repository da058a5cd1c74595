// Bad kernel shapes get a one-line error.
// RUN: not linea-opt %s --pass-pipeline='builtin.module(func.func(linea-vectorize-contractions{vector-width=0}))' 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not linea-opt %s --pass-pipeline='builtin.module(func.func(linea-vectorize-contractions{register-rows=17}))' 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not linea-opt %s --pass-pipeline='builtin.module(func.func(linea-vectorize-contractions{reduction-block=-3}))' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not linea-opt %s --linea-lower-to-cpu=vector-width=65 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not linea-opt %s --pass-pipeline='builtin.module(func.func(linea-vectorize-scans{registers=0}))' 2>&1 | FileCheck %s --check-prefix=SCAN
// RUN: not linea-opt %s --linea-lower-to-cpu=register-rows=-1 2>&1 | FileCheck %s --check-prefix=PIPELINEROWS
// RUN: not linea-opt %s --pass-pipeline='builtin.module(func.func(linea-vectorize-elementwise{tile=0}))' 2>&1 | FileCheck %s --check-prefix=ELEMENTWISE

// WIDTH: error: vector-width must be in [1, 64], got 0
// ROWS: error: register-rows must be in [1, 16], got 17
// BLOCK: error: reduction-block must be in [1, 16777216], got -3
// PIPELINE: error: vector-width must be in [1, 64], got 65
// SCAN: error: registers must be in [1, 32], got 0
// PIPELINEROWS: error: register-rows must be in [1, 16], got -1
// ELEMENTWISE: error: tile must be in [1, 1024], got 0

func.func @f() {
  return
}
