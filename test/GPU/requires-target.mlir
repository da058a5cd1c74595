// A GPU pass reads the machine from the module's #linea.target and never
// guesses it: on a module with none it stops with one line that names the
// pass and the pass that records the target.
// RUN: not linea-opt %s -linea-map-to-gpu 2>&1 | FileCheck %s --check-prefix=MAP
// RUN: not linea-opt %s -linea-async-copies 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: not linea-opt %s -linea-contractions-to-mma=precision=bf16 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: not linea-opt %s -linea-distribute-sequences 2>&1 | FileCheck %s --check-prefix=DISTRIBUTE
// RUN: not linea-opt %s -linea-kernel-report 2>&1 | FileCheck %s --check-prefix=REPORT
// A module planned for the CPU is not silently compiled for a GPU either.
// RUN: not linea-opt %s -linea-plan-target=target=cpu -linea-map-to-gpu 2>&1 | FileCheck %s --check-prefix=CPU
// Recorded, the same passes run.
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-distribute-sequences -linea-map-to-gpu -linea-kernel-report -o /dev/null

// MAP: error: linea-map-to-gpu needs the gpu the module is for, and none is recorded: run linea-plan-target{target=gpu} first
// ASYNC: error: linea-async-copies needs the gpu the module is for, and none is recorded: run linea-plan-target{target=gpu} first
// MMA: error: linea-contractions-to-mma needs the gpu the module is for, and none is recorded: run linea-plan-target{target=gpu} first
// DISTRIBUTE: error: linea-distribute-sequences needs the gpu the module is for, and none is recorded: run linea-plan-target{target=gpu} first
// REPORT: error: linea-kernel-report needs the gpu the module is for, and none is recorded: run linea-plan-target{target=gpu} first
// CPU: error: linea-map-to-gpu needs the gpu the module is for, and it was planned for #linea.target<kind = cpu{{.*}}>; run one pipeline per target
func.func @scale(%x: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]} outs(%x : memref<256xf32>) {
  ^bb0(%v: f32):
    %w = arith.addf %v, %v : f32
    linalg.yield %w : f32
  }
  return
}
