// RUN: linea-opt %s --linea-optimize --linea-lower-to-nvvm="format=isa" -verify-diagnostics
// RUN: linea-opt %s --linea-optimize="target=gpu" --linea-optimize="target=gpu" | FileCheck %s
// RUN: linea-opt %s "--linea-optimize=target=gpu chip=sm_80" --linea-optimize="target=gpu" | FileCheck %s --check-prefix=SM80
// RUN: not linea-opt %s "--linea-optimize=target=gpu chip=sm_80" "--linea-optimize=target=gpu chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=REPLAN
// RUN: linea-opt %s "--linea-select-forms=target=gpu target-description=%S/../GPU/Inputs/shared-1k.json" | FileCheck %s --check-prefix=CALIBRATED

// The module records the machine its forms were planned for, every number
// of it, for the later passes to read: the built-in sm_90a (an H100) unless
// a chip is named.
// CHECK: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.900000e+14, scalar_flops = 6.700000e+13, bytes = 3.350000e+12, step_seconds = {{.*}}, contraction_tile = 6.400000e+01>}
// CHECK-LABEL: func.func @causal

// A second run that names no machine plans for the module's.
// SM80: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108, threads = 256, shared_memory = 166912, value_tile = 64, matrix_flops = 3.120000e+14, scalar_flops = 1.950000e+13, bytes = 2.040000e+12,

// Forms planned for one machine are not silently re-planned for another:
// not for another chip, nor (first RUN) for the GPU after the CPU
// (linea-lower-to-nvvm plans for the GPU itself).
// REPLAN: error: the forms here were planned for #linea.target<kind = gpu, chip = "sm_80", {{.*}}> and cannot be re-planned for #linea.target<kind = gpu, chip = "sm_90a", {{.*}}>: run one pipeline per target

// Measured numbers (a target-description file) replace the built-in ones.
// CALIBRATED: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 1024, {{.*}}, calibrated = true>}

// expected-error-re@+1 {{the forms here were planned for #linea.target<kind = cpu, {{.*}}> and cannot be re-planned for #linea.target<kind = gpu, chip = "sm_90a", {{.*}}>: run one pipeline per target}}
module {
  func.func @causal(%q: tensor<2x128x32xf32>, %v: tensor<2x128x16xf32>) -> tensor<2x128x16xf32> {
    %o = linea.linear_attention %q, %q, %v mask = causal
        : tensor<2x128x32xf32>, tensor<2x128x32xf32>, tensor<2x128x16xf32> -> tensor<2x128x16xf32>
    return %o : tensor<2x128x16xf32>
  }
}
