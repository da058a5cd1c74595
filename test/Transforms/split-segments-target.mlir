// RUN: linea-opt %s -linea-split-segments=target=gpu | FileCheck %s
// RUN: linea-opt %s "-linea-split-segments=target=gpu chip=sm_80" -linea-select-forms=target=gpu | FileCheck %s --check-prefix=SM80
// RUN: not linea-opt %s "-linea-split-segments=target=gpu chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=REPLAN
// RUN: not linea-opt %s -linea-split-segments=target=cpu 2>&1 | FileCheck %s --check-prefix=CPU

// linea-split-segments splits for the machine the module is planned for
// (#linea.target), like every later pass: naming no chip, it makes segment
// blocks for the module's GPU (sm_80 here), recorded as it was.
// CHECK: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108,
// CHECK-LABEL: func.func @causal
// CHECK: scf.forall
// CHECK: linea.linear_attention
// CHECK: {mapping = [#gpu.block<linear_dim_0>]}

// Options that agree with the module's target are taken; the first pass to
// need the machine records it, and linea-select-forms reads that record.
// SM80: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108,
// SM80: {mapping = [#gpu.block<linear_dim_0>]}

// Options that name another machine are refused, whichever pass reads them.
// REPLAN: error: the forms here were planned for #linea.target<kind = gpu, chip = "sm_80", {{.*}}> and cannot be re-planned for #linea.target<kind = gpu, chip = "sm_90a", {{.*}}>: run one pipeline per target
// CPU: error: the forms here were planned for #linea.target<kind = gpu, chip = "sm_80", {{.*}}> and cannot be re-planned for #linea.target<kind = cpu, {{.*}}>: run one pipeline per target
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108, threads = 256, shared_memory = 166912, value_tile = 64, matrix_flops = 3.120000e+14, scalar_flops = 1.950000e+13, bytes = 2.040000e+12, step_seconds = 9.9999999999999995E-7, contraction_tile = 6.400000e+01>} {
  func.func @causal(%q: tensor<?x8xf32>, %v: tensor<?x4xf32>, %o: tensor<?xindex>) -> tensor<?x4xf32> {
    %y = linea.linear_attention %q, %q, %v offsets(%o) mask = causal
        : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?xindex> -> tensor<?x4xf32>
    return %y : tensor<?x4xf32>
  }
}
