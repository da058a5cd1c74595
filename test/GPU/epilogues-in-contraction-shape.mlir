// RUN: linea-opt %s -linea-epilogues-in-contraction-shape -split-input-file | FileCheck %s

// A Linear over [B, L, 16] with B and L dynamic, as torch-mlir writes it:
// the zero fill runs on the contraction's init shape [B L, 32] (a fresh
// empty: a reshaped empty is one), and the bias, GELU and residual add
// read the contraction's result itself, their other operands collapsed
// alike; only the final result is expanded.
// CHECK-LABEL: func.func @batched_linear
// CHECK-SAME:  (%[[X:[^:]+]]: tensor<?x?x16xf32>, %[[W:[^:]+]]: tensor<32x16xf32>, %[[B:[^:]+]]: tensor<32xf32>, %[[R:[^:]+]]: tensor<?x?x32xf32>)
// CHECK:       %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x32xf32>
// CHECK:       %[[Z:.+]] = linalg.generic {{.*}} outs(%[[E]] : tensor<?x32xf32>)
// CHECK:       %[[X2:.+]] = tensor.collapse_shape %[[X]]
// CHECK:       %[[P:.+]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[X2]], %[[W]] : {{.*}}) outs(%[[Z]] : tensor<?x32xf32>)
// CHECK:       %[[R2:.+]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2]] : tensor<?x?x32xf32> into tensor<?x32xf32>
// CHECK:       %[[Y:.+]] = linalg.generic {{.*}}["parallel", "parallel"]{{.*}} ins(%[[P]], %[[B]], %[[R2]] : tensor<?x32xf32>, tensor<32xf32>, tensor<?x32xf32>) outs(%[[P]] : tensor<?x32xf32>)
// CHECK:         math.erf
// CHECK:       %[[OUT:.+]] = tensor.expand_shape %[[Y]]
// CHECK:       return %[[OUT]]

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(b, l, e) -> (b, l, e)>
#bias = affine_map<(b, l, e) -> (e)>
func.func @batched_linear(%x: tensor<?x?x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>,
                %r: tensor<?x?x32xf32>) -> tensor<?x?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %root2 = arith.constant 1.41421354 : f32
  %bs = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %ls = tensor.dim %x, %c1 : tensor<?x?x16xf32>
  %e = tensor.empty(%bs, %ls) : tensor<?x?x32xf32>
  %f = linalg.generic {indexing_maps = [#rows], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<?x?x32xf32>
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
  %f2 = tensor.collapse_shape %f [[0, 1], [2]] : tensor<?x?x32xf32> into tensor<?x32xf32>
  %p = linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w : tensor<?x16xf32>, tensor<32x16xf32>) outs(%f2 : tensor<?x32xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  %p3 = tensor.expand_shape %p [[0, 1], [2]] output_shape [%bs, %ls, 32] : tensor<?x32xf32> into tensor<?x?x32xf32>
  %y = linalg.generic {indexing_maps = [#rows, #bias, #rows, #rows], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p3, %b, %r : tensor<?x?x32xf32>, tensor<32xf32>, tensor<?x?x32xf32>) outs(%p3 : tensor<?x?x32xf32>) {
  ^bb0(%v: f32, %c: f32, %res: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %d = arith.divf %s, %root2 : f32
    %er = math.erf %d : f32
    %e1 = arith.addf %er, %one : f32
    %h = arith.mulf %e1, %half : f32
    %g = arith.mulf %s, %h : f32
    %out = arith.addf %g, %res : f32
    linalg.yield %out : f32
  } -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}

// -----

// Near misses stay as written: an elementwise op on an expand_shape of an
// argument (no contraction), and a reduction reading the contraction's
// expanded result (not elementwise).
// CHECK-LABEL: func.func @no_contraction
// CHECK:       tensor.expand_shape
// CHECK:       linalg.generic {{.*}}["parallel", "parallel", "parallel"]
// CHECK-LABEL: func.func @reduction_after
// CHECK:       tensor.expand_shape
// CHECK:       linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%{{.+}} : tensor<?x?x32xf32>)
#rows = affine_map<(b, l, e) -> (b, l, e)>
#sum = affine_map<(b, l, e) -> (b, l)>
#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
func.func @no_contraction(%x: tensor<?x32xf32>, %b: index, %l: index) -> tensor<?x?x32xf32> {
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %l, 32] : tensor<?x32xf32> into tensor<?x?x32xf32>
  %e = tensor.empty(%b, %l) : tensor<?x?x32xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x3 : tensor<?x?x32xf32>) outs(%e : tensor<?x?x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}

func.func @reduction_after(%x: tensor<?x16xf32>, %w: tensor<32x16xf32>, %init: tensor<?x32xf32>,
                           %b: index, %l: index) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %p = linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x16xf32>, tensor<32x16xf32>) outs(%init : tensor<?x32xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  %p3 = tensor.expand_shape %p [[0, 1], [2]] output_shape [%b, %l, 32] : tensor<?x32xf32> into tensor<?x?x32xf32>
  %e = tensor.empty(%b, %l) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p3 : tensor<?x?x32xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
