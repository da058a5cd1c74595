// The heads of each contraction run on OpenMP threads unless threads=1.
// RUN: linea-opt %s --linea-optimize --linea-lower-to-cpu | FileCheck %s --check-prefix=THREADS
// RUN: linea-opt %s --linea-optimize --linea-lower-to-cpu=threads=4 | FileCheck %s --check-prefix=FOUR
// RUN: linea-opt %s --linea-optimize --linea-lower-to-cpu=threads=1 | FileCheck %s --check-prefix=ONE
// RUN: linea-opt %s --linea-optimize '--linea-lower-to-cpu=vectorize=0 threads=1' | FileCheck %s --check-prefix=LOOPS
// RUN: not linea-opt %s --linea-optimize --linea-lower-to-cpu=threads=-1 2>&1 | FileCheck %s --check-prefix=BAD

// THREADS-LABEL: llvm.func @heads
// THREADS: omp.parallel {
// THREADS: omp.wsloop
// THREADS: llvm.intr.fmuladd

// FOUR-LABEL: llvm.func @heads
// FOUR: omp.parallel num_threads(%{{.*}} : i32) {

// ONE-LABEL: llvm.func @heads
// ONE-NOT: omp.
// ONE: llvm.intr.fmuladd
// ONE-NOT: omp.

// LOOPS-LABEL: llvm.func @heads
// LOOPS-NOT: omp.
// LOOPS-NOT: llvm.intr.fmuladd

// BAD: for the --threads option: '-1' value invalid for uint argument!

func.func @heads(%q: tensor<4x100x16xf32>, %k: tensor<4x100x16xf32>, %v: tensor<4x100x16xf32>) -> tensor<4x100x16xf32> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x100x16xf32>, tensor<4x100x16xf32>, tensor<4x100x16xf32> -> tensor<4x100x16xf32>
  return %o : tensor<4x100x16xf32>
}
