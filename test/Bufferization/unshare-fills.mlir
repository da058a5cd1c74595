// RUN: linea-opt %s -linea-unshare-fills | FileCheck %s
// RUN: linea-opt %s -linea-unshare-fills -eliminate-empty-tensors -one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize | FileCheck %s --check-prefix=BUFFERS

// One zero fill shared by two accumulators: the second destination gets a
// fill of its own, so neither needs a copy of the zeros.
// CHECK-LABEL: func.func @two_accumulators
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} outs(%{{.+}} : tensor<4x4xf32>)
// CHECK: %[[A:.+]] = linalg.generic {{.*}} outs(%[[Z]] : tensor<4x4xf32>)
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[Z2:.+]] = linalg.fill {{.*}} outs(%[[E2]] : tensor<4x4xf32>)
// CHECK: %[[B:.+]] = linalg.generic {{.*}} outs(%[[Z2]] : tensor<4x4xf32>)

// The second accumulator is computed in the output slice it is inserted
// into, and nothing is copied.
// BUFFERS-LABEL: func.func @two_accumulators
// BUFFERS-NOT: memref.copy
// BUFFERS: return
#id = affine_map<(i, j) -> (i, j)>
func.func @two_accumulators(%x: tensor<4x4xf32>, %out: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.mulf %in, %in : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4x4xf32>
  %r = tensor.insert_slice %b into %out[4, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
  return %a, %r : tensor<4x4xf32>, tensor<8x4xf32>
}

// The form the raise leaves a model's fill in (the generic a fill
// generalizes to), of a dynamic size, shared by a LayerNorm's two sums:
// the variance's sum gets a fill of its own, and nothing is copied.
// CHECK-LABEL: func.func @generic_fill_of_two_sums
// CHECK: %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?xf64>
// CHECK: %[[Z:.+]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?xf64>)
// CHECK: %[[MEAN:.+]] = linalg.generic {{.*}} outs(%[[Z]] : tensor<?xf64>)
// CHECK: %[[E2:.+]] = tensor.empty(%{{.+}}) : tensor<?xf64>
// CHECK: %[[Z2:.+]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<?xf64>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[MEAN]] : tensor<?x8xf64>, tensor<?xf64>) outs(%[[Z2]] : tensor<?xf64>)
// BUFFERS-LABEL: func.func @generic_fill_of_two_sums
// BUFFERS-NOT: memref.copy
// BUFFERS: return
#row = affine_map<(i, j) -> (i)>
#vec = affine_map<(i) -> (i)>
func.func @generic_fill_of_two_sums(%x: tensor<?x8xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f64
  %n = tensor.dim %x, %c0 : tensor<?x8xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %z = linalg.generic {indexing_maps = [#vec], iterator_types = ["parallel"]} outs(%e : tensor<?xf64>) {
  ^bb0(%out: f64):
    linalg.yield %cst : f64
  } -> tensor<?xf64>
  %mean = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x8xf64>) outs(%z : tensor<?xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %in, %acc : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  %var = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x8xf64>, tensor<?xf64>) outs(%z : tensor<?xf64>) {
  ^bb0(%in: f64, %m: f64, %acc: f64):
    %d = arith.subf %in, %m : f64
    %sq = arith.mulf %d, %d : f64
    %t = arith.addf %sq, %acc : f64
    linalg.yield %t : f64
  } -> tensor<?xf64>
  return %mean, %var : tensor<?xf64>, tensor<?xf64>
}

// -----

// A fill whose slice an op writes in place and whose result takes it back
// (a padded tensor's interior) is one buffer, not two accumulators: left
// shared.
// CHECK-LABEL: func.func @written_in_parts
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @written_in_parts(%x: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %part = tensor.extract_slice %z[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %c = linalg.copy ins(%x : tensor<4x4xf32>) outs(%part : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.insert_slice %c into %z[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// Zeros inserted as the first slice of two layers' states: each insert
// gets a fill of its own, which eliminate-empty-tensors then places in the
// slice itself; no layer's zeros are a buffer copied into its states.
// CHECK-LABEL: func.func @inserted_in_two_places
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} -> tensor<2x8xf32>
// CHECK: tensor.insert_slice %[[Z]] into
// CHECK: %[[Z2:.+]] = linalg.fill {{.*}} -> tensor<2x8xf32>
// CHECK: tensor.insert_slice %[[Z2]] into
// BUFFERS-LABEL: func.func @inserted_in_two_places
// BUFFERS-NOT: memref.copy
// BUFFERS-NOT: memref.alloc() : memref<2x8xf32>
// BUFFERS: return
func.func @inserted_in_two_places(%s1: tensor<2x4x8xf32>, %s2: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %a = tensor.insert_slice %z into %s1[0, 0, 0] [2, 1, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x4x8xf32>
  %b = tensor.insert_slice %z into %s2[0, 0, 0] [2, 1, 8] [1, 1, 1] : tensor<2x8xf32> into tensor<2x4x8xf32>
  return %a, %b : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// Zeros made of several ops (the first of a chunked form's states zero, in
// an empty of all of them), shared by two ops' states: each gets its own
// copy of the recipe, and no states buffer is copied whole.
// CHECK-LABEL: func.func @zero_first_state_shared
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[Z1:.+]] = linalg.fill {{.*}} -> tensor<1x4xf32>
// CHECK: %[[S1:.+]] = tensor.insert_slice %[[Z1]] into %[[E1]][0, 0]
// CHECK: tensor.insert_slice %{{.+}} into %[[S1]][1, 0]
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[Z2:.+]] = linalg.fill {{.*}} -> tensor<1x4xf32>
// CHECK: %[[S2:.+]] = tensor.insert_slice %[[Z2]] into %[[E2]][0, 0]
// CHECK: tensor.insert_slice %{{.+}} into %[[S2]][1, 0]
// (The arguments are copied into the states: they are inserted.)
// BUFFERS-LABEL: func.func @zero_first_state_shared
// BUFFERS-NOT: memref.copy {{.*}} to memref<3x4xf32>
// BUFFERS: return
func.func @zero_first_state_shared(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %first = tensor.extract_slice %e[0, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<1x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%first : tensor<1x4xf32>) -> tensor<1x4xf32>
  %states = tensor.insert_slice %z into %e[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %x = tensor.insert_slice %a into %states[1, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x4xf32>
  %y = tensor.insert_slice %b into %states[1, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x4xf32>
  return %x, %y : tensor<3x4xf32>, tensor<3x4xf32>
}
