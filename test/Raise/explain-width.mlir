// RUN: linea-opt %s -linea-raise=explain=1 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: linea-opt %s -linea-raise=explain=2 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO

// explain=1 gives each reason as one line of at most 160 characters, the
// expression in it in math notation, cut where it runs over; explain=2
// gives the whole text.

// ONE: remark: linea-raise: not raised: a factor of the product, tanh(arg3[d0, d1]) * cos(arg3[d0, d1]) + exp(arg3[d0, d1]) / (sin(arg3[d0, d1]) - 2), is neither a mask, a ... (explain=2: all of it)
// ONE: remark: linea-raise: the linear attention pattern refused it: a factor of the product, tanh(arg3[d0, d1]) * cos(arg3[d0, d1]) + exp(arg3[d0, d1]) / (sin(arg3[d0, d1]) - 2), is neither a mask nor a constant
// ONE-NOT: remark
// TWO: remark: linea-raise: not raised: a factor of the product, tanh(arg3[d0, d1]) * cos(arg3[d0, d1]) + exp(arg3[d0, d1]) / (sin(arg3[d0, d1]) - 2), is neither a mask, a constant nor a decay base^(i - t) or exp(c * (i - t))
// TWO: remark: linea-raise: the linear attention pattern refused it: a factor of the product, tanh(arg3[d0, d1]) * cos(arg3[d0, d1]) + exp(arg3[d0, d1]) / (sin(arg3[d0, d1]) - 2), is neither a mask nor a constant
func.func @gated_by_data(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %g: tensor<2x16xf32>) -> tensor<2x16x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %c2 = arith.constant 2.0 : f32
  %e0 = tensor.empty() : tensor<2x16x16xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, i, t, d) -> (b, i, d)>, affine_map<(b, i, t, d) -> (b, t, d)>, affine_map<(b, i, t, d) -> (b, i, t)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%z0 : tensor<2x16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x16x4xf32>
  %z1 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<2x16x4xf32>) -> tensor<2x16x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, e, t) -> (b, i, t)>, affine_map<(b, i, e, t) -> (b, t, e)>, affine_map<(b, i, e, t) -> (b, i)>, affine_map<(b, i, e, t) -> (b, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %v, %g : tensor<2x16x16xf32>, tensor<2x16x4xf32>, tensor<2x16xf32>) outs(%z1 : tensor<2x16x4xf32>) {
  ^bb0(%a: f32, %x: f32, %gi: f32, %acc: f32):
    %i = linalg.index 1 : index
    %t = linalg.index 3 : index
    %m = arith.cmpi sle, %t, %i : index
    %th = math.tanh %gi : f32
    %co = math.cos %gi : f32
    %ex = math.exp %gi : f32
    %si = math.sin %gi : f32
    %sm = arith.subf %si, %c2 : f32
    %tc = arith.mulf %th, %co : f32
    %es = arith.divf %ex, %sm : f32
    %gate = arith.addf %tc, %es : f32
    %ag = arith.mulf %a, %gate : f32
    %p = arith.mulf %ag, %x : f32
    %z = arith.select %m, %p, %c0 : f32
    %r = arith.addf %acc, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x16x4xf32>
  return %o : tensor<2x16x4xf32>
}
