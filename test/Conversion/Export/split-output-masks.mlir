// RUN: linea-opt %s --linea-split-output-masks -split-input-file | FileCheck %s

#q = affine_map<(b, i, t, d) -> (b, i, d)>
#k = affine_map<(b, i, t, d) -> (b, t, d)>
#s = affine_map<(b, i, t, d) -> (b, i, t)>

// The causal scores: the mask reads the output's indices only (t <= i), so
// the contraction keeps every product and a select on its result zeroes
// what the mask hides.
// CHECK-LABEL: func.func @causal_scores
// CHECK: %[[SUMS:.+]] = linalg.generic {{.*}}["parallel", "parallel", "parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[OUT:.+]]: f32):
// CHECK-NEXT:   %[[P:.+]] = arith.mulf %[[A]], %[[B]]
// CHECK-NEXT:   %[[R:.+]] = arith.addf %[[OUT]], %[[P]]
// CHECK-NEXT:   linalg.yield %[[R]]
// CHECK: %[[MASKED:.+]] = linalg.generic {{.*}}["parallel", "parallel", "parallel"]{{.*}} ins(%[[SUMS]] : tensor<4x8x8xf32>)
// CHECK:   %[[T:.+]] = linalg.index 2 : index
// CHECK:   %[[I:.+]] = linalg.index 1 : index
// CHECK:   %[[VISIBLE:.+]] = arith.cmpi sle, %[[T]], %[[I]] : index
// CHECK:   arith.select %[[VISIBLE]], %{{.+}}, %{{.+}} : f32
// CHECK: return %[[MASKED]]
func.func @causal_scores(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>) -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%init : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = linalg.index 2 : index
    %i = linalg.index 1 : index
    %visible = arith.cmpi sle, %t, %i : index
    %p = arith.mulf %a, %b : f32
    %m = arith.select %visible, %p, %zero : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}

// -----

#q = affine_map<(b, i, t, d) -> (b, i, d)>
#k = affine_map<(b, i, t, d) -> (b, t, d)>
#s = affine_map<(b, i, t, d) -> (b, i, t)>

// Near miss: the mask reads the reduction index d (some products of one
// output element kept, others not): the body stays as it is.
// CHECK-LABEL: func.func @reads_the_reduction
// CHECK: linalg.generic
// CHECK: linalg.index 3
// CHECK: arith.select
// CHECK-NOT: linalg.generic
func.func @reads_the_reduction(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>) -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%init : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = linalg.index 3 : index
    %low = arith.cmpi ult, %d, %c8 : index
    %p = arith.mulf %a, %b : f32
    %m = arith.select %low, %p, %zero : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}

// -----

#q = affine_map<(b, i, t, d) -> (b, i, d)>
#k = affine_map<(b, i, t, d) -> (b, t, d)>
#s = affine_map<(b, i, t, d) -> (b, i, t)>

// Near miss: the mask reads an operand's element (a product kept where q
// is positive): it stays.
// CHECK-LABEL: func.func @reads_an_operand
// CHECK: arith.cmpf
// CHECK: arith.select
// CHECK-NOT: linalg.generic
func.func @reads_an_operand(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>) -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%init : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %positive = arith.cmpf ogt, %a, %zero : f32
    %p = arith.mulf %a, %b : f32
    %m = arith.select %positive, %p, %zero : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}
