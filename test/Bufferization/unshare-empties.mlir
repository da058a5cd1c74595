// RUN: linea-opt %s -split-input-file -linea-unshare-empties | FileCheck %s
// RUN: linea-opt %s -linea-unshare-empties -one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize | FileCheck %s --check-prefix=BUFFERS
// RUN: linea-opt %s -one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize | FileCheck %s --check-prefix=SHARED

// One empty tensor that two widening copies and a product write in turn
// (as CSE leaves them): each later destination gets an empty tensor of its
// own, just before its writer.
// CHECK-LABEL: func.func @three_writers
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[A:.+]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[B:.+]] = linalg.generic {{.*}} outs(%[[E2]] : tensor<4x8xf32>)
// CHECK: %[[E3:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[E3]] : tensor<4x8xf32>)

// Bufferized, three buffers, each with one writer; without the pass the
// product reuses the first copy's buffer.
// BUFFERS-LABEL: func.func @three_writers
// BUFFERS-COUNT-3: memref.alloc()
// BUFFERS-NOT: memref.alloc()
// BUFFERS: return
// SHARED-LABEL: func.func @three_writers
// SHARED-COUNT-2: memref.alloc()
// SHARED-NOT: memref.alloc()
// SHARED: return
#id = affine_map<(i, j) -> (i, j)>
func.func @three_writers(%x: tensor<4x8xbf16>, %y: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %w = arith.extf %in : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %w = arith.extf %in : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%l: f32, %r: f32, %out: f32):
    %m = arith.mulf %l, %r : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// A sequence block's temporaries keep sharing: its shared memory is scarce.
// CHECK-LABEL: func.func @in_a_block
// CHECK: scf.forall
// CHECK-COUNT-1: tensor.empty() : tensor<4xf32>
// CHECK-NOT: tensor.empty() : tensor<4xf32>
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
#v = affine_map<(i) -> (i)>
func.func @in_a_block(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %init = tensor.empty() : tensor<2x4xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<2x4xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
    %e = tensor.empty() : tensor<4xf32>
    %a = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%row : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.mulf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %b = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %b into %o[%i, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<2x4xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<2x4xf32>
}
