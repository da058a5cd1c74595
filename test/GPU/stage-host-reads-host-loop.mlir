// RUN: linea-opt %s "-linea-select-forms=target=gpu target-description=%S/Inputs/shared-1k.json" -linea-stage-host-reads | FileCheck %s

// A sequence block whose temporaries (4 KiB) exceed the planned GPU's
// shared memory (1 KiB) stays a host loop around kernels
// (linea-map-to-gpu): its reads of the caller's offsets are the host's,
// and read the staged copy. (On an A100 a packed, normalized PrefixLM
// layer at D = 64 is such a block; an H100 holds it.)
// CHECK-LABEL: func.func @segment_bounds
// CHECK-SAME: (%[[O:[a-z0-9_]+]]: memref<?xindex>
// CHECK: %[[STAGED:.+]] = memref.alloc(%{{.+}}) : memref<?xindex>
// CHECK: linalg.copy ins(%[[O]] : memref<?xindex>) outs(%[[STAGED]] : memref<?xindex>)
// CHECK: scf.forall
// CHECK:   memref.load %[[STAGED]][%{{.+}}] : memref<?xindex>
// CHECK:   memref.load %[[STAGED]][%{{.+}}] : memref<?xindex>
// CHECK: memref.dealloc %[[STAGED]]
func.func @segment_bounds(%o: memref<?xindex>, %x: memref<?x1024xf32>) {
  %c1 = arith.constant 1 : index
  scf.forall (%n) in (4) {
    %start = memref.load %o[%n] : memref<?xindex>
    %next = arith.addi %n, %c1 : index
    %end = memref.load %o[%next] : memref<?xindex>
    %len = arith.subi %end, %start : index
    %t = memref.alloc() : memref<1024xf32>
    %row = memref.subview %x[%start, 0] [1, 1024] [1, 1] : memref<?x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    linalg.copy ins(%row : memref<1024xf32, strided<[1], offset: ?>>) outs(%t : memref<1024xf32>)
    memref.dealloc %t : memref<1024xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
