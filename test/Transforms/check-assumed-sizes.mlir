// RUN: linea-opt %s --linea-check-assumed-sizes --split-input-file | FileCheck %s

// A cast that makes a dynamic dim static is checked where it makes it.
// CHECK-LABEL: func.func @cast
// CHECK: %[[D:.+]] = tensor.dim %{{.+}}, %c1
// CHECK: %[[SAME:.+]] = arith.cmpi eq, %[[D]], %c1
// CHECK: cf.assert %[[SAME]], "model.py:3:0: tensor.cast: size mismatch of dim 1"
// CHECK: tensor.cast
func.func @cast(%x: tensor<?x?x128xf32>) -> tensor<?x1x128xf32> {
  %c = tensor.cast %x : tensor<?x?x128xf32> to tensor<?x1x128xf32> loc("model.py":3:0)
  return %c : tensor<?x1x128xf32>
}

// -----

// A cast the front end folded into the op that produces it: loop 1 is 1 by
// the output, dynamic by the input; the input's size is checked.
// CHECK-LABEL: func.func @folded_cast
// CHECK: %[[D:.+]] = tensor.dim %[[X:.+]], %c1
// CHECK: %[[SAME:.+]] = arith.cmpi eq, %[[D]], %c1
// CHECK: linea.check %[[SAME]], "model.py:7:0: linalg.generic: dim 1 of operand 0 is {0}, where the op's other operands make it {1} (the model's IR assumes that size)"
// CHECK: linalg.generic
func.func @folded_cast(%x: tensor<?x?x128xf32>, %b: index) -> tensor<?x1x128xf32> {
  %e = tensor.empty(%b) : tensor<?x1x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x?x128xf32>) outs(%e : tensor<?x1x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x1x128xf32> loc("model.py":7:0)
  return %r : tensor<?x1x128xf32>
}

// -----

// Nothing assumed: no check.
// CHECK-LABEL: func.func @consistent
// CHECK-NOT: linea.check
// CHECK-NOT: cf.assert
func.func @consistent(%x: tensor<?x128xf32>, %w: tensor<128x64xf32>, %b: index) -> tensor<?x64xf32> {
  %e = tensor.empty(%b) : tensor<?x64xf32>
  %c = tensor.cast %x : tensor<?x128xf32> to tensor<?x128xf32>
  %r = linalg.matmul ins(%c, %w : tensor<?x128xf32>, tensor<128x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
