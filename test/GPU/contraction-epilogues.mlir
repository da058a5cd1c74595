// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" -linea-contractions-to-mma=precision=bf16 -split-input-file | FileCheck %s
// RUN: linea-opt %s "-linea-plan-target=target=gpu chip=sm_90a" -linea-contractions-to-mma=precision=f32 -split-input-file | FileCheck %s --check-prefix=FMA

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>
#bias = affine_map<(i, e) -> (e)>

// A projection over a dynamic L, then its bias and GELU in place (torch's
// Linear and GELU): the grid applies them to each element as it stores it,
// the bias loaded at the element's column, and the elementwise op is gone
// (no kernel of its own, no pass over the output). So on the tensor cores
// (wgmma) and on the CUDA cores (FMA).
// CHECK-LABEL: func.func @bias_gelu
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xf32>, %[[W:[^:]+]]: memref<512x256xf32>, %[[B:[^:]+]]: memref<512xf32>, %[[Y:[^:]+]]: memref<?x512xf32>)
// CHECK:         scf.parallel
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           scf.if
// CHECK:             %[[BIAS:.+]] = memref.load %[[B]][%[[J:.+]]] : memref<512xf32>
// CHECK:             %[[SUM:.+]] = arith.addf %{{.+}}, %[[BIAS]] : f32
// CHECK:             math.erf
// CHECK:             %[[GELU:.+]] = arith.mulf %[[SUM]], %{{.+}} : f32
// CHECK:             memref.store %[[GELU]], %[[Y]][%{{.+}}, %[[J]]]
// CHECK-NOT:     linalg.generic
// FMA-LABEL:   func.func @bias_gelu
// FMA:           math.fma
// FMA:           math.erf
// FMA-NOT:       linalg.generic
func.func @bias_gelu(%x: memref<?x256xf32>, %w: memref<512x256xf32>, %b: memref<512xf32>, %y: memref<?x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %root2 = arith.constant 1.41421354 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x512xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x256xf32>, memref<512x256xf32>) outs(%y : memref<?x512xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : memref<?x512xf32>, memref<512xf32>) outs(%y : memref<?x512xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %d = arith.divf %s, %root2 : f32
    %e = math.erf %d : f32
    %e1 = arith.addf %e, %one : f32
    %h = arith.mulf %e1, %half : f32
    %g = arith.mulf %s, %h : f32
    linalg.yield %g : f32
  }
  return
}

// -----

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>

// The residual add into a buffer of its own (the block's output), read
// through a view defined after the projection: the view moves before the
// grid, which stores x + x W^T into the result; the projection's own
// buffer, which nothing else reads, is never written, and goes.
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xf32>, %[[W:[^:]+]]: memref<256x256xf32>, %[[R:[^:]+]]: memref<?x256xf32>)
// CHECK:         %[[VIEW:.+]] = memref.cast %[[X]]
// CHECK:         scf.parallel
// CHECK:           %[[RES:.+]] = memref.load %[[VIEW]][%[[I:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]]
// CHECK:           %[[SUM:.+]] = arith.addf %[[RES]], %{{.+}} : f32
// CHECK:           memref.store %[[SUM]], %[[R]][%[[I]], %[[J]]]
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     memref.dealloc
// FMA-LABEL:   func.func @residual
// FMA:           math.fma
// FMA:           arith.addf
// FMA-NOT:       linalg.generic
// FMA-LABEL:   func.func @transposed_read
func.func @residual(%x: memref<?x256xf32>, %w: memref<256x256xf32>, %r: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %l = memref.dim %x, %c0 : memref<?x256xf32>
  %p = memref.alloc(%l) : memref<?x256xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<?x256xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x256xf32>, memref<256x256xf32>) outs(%p : memref<?x256xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  %view = memref.cast %x : memref<?x256xf32> to memref<?x256xf32, strided<[256, 1]>>
  linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%view, %p : memref<?x256xf32, strided<[256, 1]>>, memref<?x256xf32>) outs(%r : memref<?x256xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<?x256xf32>
  return
}

// -----

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>
#transposed = affine_map<(i, e) -> (e, i)>

// Near misses stay ops of their own: an elementwise op reading the output
// transposed (other blocks' elements), and one writing the projection's
// own input (other blocks still read it).
// CHECK-LABEL: func.func @transposed_read
// CHECK:         scf.parallel
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @writes_the_input
// CHECK:         scf.parallel
// CHECK:         linalg.generic
func.func @transposed_read(%x: memref<256x256xf32>, %w: memref<256x256xf32>, %y: memref<256x256xf32>, %z: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<256x256xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<256x256xf32>, memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#transposed, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<256x256xf32>) outs(%z : memref<256x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return
}

func.func @writes_the_input(%x: memref<256x256xf32>, %w: memref<256x256xf32>, %y: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<256x256xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<256x256xf32>, memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<256x256xf32>) outs(%x : memref<256x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return
}

// -----

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>

// The projection's output is the caller's buffer: it must hold the
// projection after the call, so an epilogue writing elsewhere stays.
// CHECK-LABEL: func.func @callers_output
// CHECK:         scf.parallel
// CHECK:         linalg.generic
func.func @callers_output(%x: memref<256x256xf32>, %w: memref<256x256xf32>, %y: memref<256x256xf32>, %z: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<256x256xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<256x256xf32>, memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<256x256xf32>) outs(%z : memref<256x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return
}

// -----

#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>

// A broadcast's run-time check between the projection and its epilogue
// (torch-mlir's "mismatched size for broadcast"): the check and its
// condition move before the grid, which then applies the epilogue.
// CHECK-LABEL: func.func @checked_broadcast
// CHECK:         %[[SAME:.+]] = arith.cmpi eq
// CHECK:         cf.assert %[[SAME]], "mismatched size for broadcast"
// CHECK:         scf.parallel
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic
func.func @checked_broadcast(%x: memref<?x256xf32>, %w: memref<256x256xf32>, %r: memref<?x256xf32>, %y: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<?x256xf32>)
  linalg.generic {indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x256xf32>, memref<256x256xf32>) outs(%y : memref<?x256xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }
  %lx = memref.dim %x, %c0 : memref<?x256xf32>
  %lr = memref.dim %r, %c0 : memref<?x256xf32>
  %same = arith.cmpi eq, %lx, %lr : index
  cf.assert %same, "mismatched size for broadcast"
  linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%y, %r : memref<?x256xf32>, memref<?x256xf32>) outs(%y : memref<?x256xf32>) {
  ^bb0(%v: f32, %u: f32, %o: f32):
    %e = math.exp %v : f32
    %s = arith.addf %e, %u : f32
    linalg.yield %s : f32
  }
  return
}
