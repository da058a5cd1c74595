// RUN: linea-opt %s -linea-plan-target | FileCheck %s --check-prefix=CPU
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: linea-opt %s -linea-plan-target=target=gpu | FileCheck %s --check-prefix=DEFAULT
// A recorded target stays where the options name none or the same one.
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_80" -linea-plan-target=target=gpu "-linea-plan-target=target=gpu chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: not linea-opt %s "-linea-plan-target=target=gpu chip=sm_80" "-linea-plan-target=target=gpu chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=REPLAN
// RUN: not linea-opt %s -linea-plan-target=target=cpu -linea-plan-target=target=gpu 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not linea-opt %s -linea-plan-target=chip=sm_80 2>&1 | FileCheck %s --check-prefix=CPUCHIP
// RUN: not linea-opt %s "-linea-plan-target=target=gpu chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP

// CPU: module attributes {linea.target = #linea.target<kind = cpu, units = 1,
// SM80: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108, threads = 256, shared_memory = 166912,
// DEFAULT: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132,
// REPLAN: error: the forms here were planned for #linea.target<kind = gpu, chip = "sm_80"{{.*}}> and cannot be re-planned for #linea.target<kind = gpu, chip = "sm_90a"
// KIND: error: the forms here were planned for #linea.target<kind = cpu{{.*}} and cannot be re-planned for #linea.target<kind = gpu
// CPUCHIP: error: chip=sm_80 names a GPU; add target=gpu
// CHIP: error: chip must name an NVIDIA chip (sm_80, sm_90a), got 'gfx90a'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
