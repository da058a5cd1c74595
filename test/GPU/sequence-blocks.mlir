// RUN: linea-opt %s "-linea-select-forms=target=gpu chip=sm_70" -linea-map-to-gpu=block-size=64 -canonicalize -split-input-file -verify-diagnostics | FileCheck %s
// RUN: linea-opt %s "-linea-select-forms=target=gpu chip=sm_70" -linea-map-to-gpu=block-size=64 -canonicalize -linea-sequence-blocks-to-launch -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=LAUNCH

// A sequence block (a forall of 2 x 3 iterations mapped to GPU blocks)
// whose temporaries fit in shared memory: it stays, one block per
// iteration, the chunk loop sequential inside, each linalg op spread over
// the 64 threads of the block (thread t takes elements t, t + 64, ...), and
// a reduction without parallel dims on thread 0.
// CHECK-LABEL: func.func @sequence_block
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (2, 3)
// CHECK:   scf.for %[[CHUNK:.+]] = %c0 to %c128 step %c32
// CHECK:     %[[TMP:.+]] = memref.alloc() : memref<32x8xf32>
// CHECK:     scf.parallel (%[[T:.+]]) = (%c0{{.*}}) to (%c64{{.*}}) step (%c1{{.*}})
// CHECK:       scf.for %{{.+}} = %[[T]] to %c256{{.*}} step %c64
// CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:     scf.parallel (%[[T2:.+]]) = (%c0{{.*}}) to (%c64{{.*}}) step (%c1{{.*}})
// CHECK:       %[[FIRST:.+]] = arith.cmpi eq, %[[T2]], %c0
// CHECK:       scf.if %[[FIRST]]
// CHECK: } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}

// The launch: 6 blocks of 64 threads (the two loop dims linearized), a
// barrier after each op, the temporary a view of the block's dynamic shared
// memory (1024 bytes, given at launch), its dealloc gone.
// LAUNCH-LABEL: func.func @sequence_block
// LAUNCH-DAG: %[[GRID:.+]] = arith.constant 6 : index
// LAUNCH-DAG: %[[BYTES:.+]] = arith.constant 1024 : i32
// LAUNCH: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[GRID]],
// LAUNCH-SAME: threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c64
// LAUNCH-SAME: dynamic_shared_memory_size %[[BYTES]]
// LAUNCH:   %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// LAUNCH:   scf.for
// LAUNCH:     %[[VIEW:.+]] = memref.view %[[SHARED]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x8xf32, #gpu.address_space<workgroup>>
// LAUNCH:     %[[TMP:.+]] = memref.memory_space_cast %[[VIEW]] : memref<32x8xf32, #gpu.address_space<workgroup>> to memref<32x8xf32>
// LAUNCH:     scf.for %{{.+}} = %[[TX]] to
// LAUNCH:     gpu.barrier
// LAUNCH:     gpu.barrier
// LAUNCH-NOT: memref.dealloc
// LAUNCH:   gpu.terminator
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#all = affine_map<(i, j) -> (i, j)>
#none = affine_map<(i, j) -> ()>
func.func @sequence_block(%x: memref<2x3x128x8xf32>, %y: memref<2x3x128x8xf32>, %total: memref<2x3xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  scf.forall (%b, %h) in (2, 3) {
    %xs = memref.subview %x[%b, %h, 0, 0] [1, 1, 128, 8] [1, 1, 1, 1] : memref<2x3x128x8xf32> to memref<128x8xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%b, %h, 0, 0] [1, 1, 128, 8] [1, 1, 1, 1] : memref<2x3x128x8xf32> to memref<128x8xf32, strided<[8, 1], offset: ?>>
    %ts = memref.subview %total[%b, %h] [1, 1] [1, 1] : memref<2x3xf32> to memref<f32, strided<[], offset: ?>>
    scf.for %chunk = %c0 to %c128 step %c32 {
      %xc = memref.subview %xs[%chunk, 0] [32, 8] [1, 1] : memref<128x8xf32, strided<[8, 1], offset: ?>> to memref<32x8xf32, strided<[8, 1], offset: ?>>
      %yc = memref.subview %ys[%chunk, 0] [32, 8] [1, 1] : memref<128x8xf32, strided<[8, 1], offset: ?>> to memref<32x8xf32, strided<[8, 1], offset: ?>>
      %tmp = memref.alloc() : memref<32x8xf32>
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%xc : memref<32x8xf32, strided<[8, 1], offset: ?>>) outs(%tmp : memref<32x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %e = math.exp %in : f32
        linalg.yield %e : f32
      }
      linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction"]}
          ins(%tmp : memref<32x8xf32>) outs(%ts : memref<f32, strided<[], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %s = arith.addf %in, %out : f32
        linalg.yield %s : f32
      }
      memref.dealloc %tmp : memref<32x8xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  return
}

// -----

// A temporary of run-time size cannot be placed in shared memory: the
// forall becomes a host loop whose ops are kernels of their own.
// CHECK-LABEL: func.func @dynamic_temporary
// CHECK-NOT: scf.forall
// CHECK: scf.for
// LAUNCH-LABEL: func.func @dynamic_temporary
func.func @dynamic_temporary(%x: memref<4x?xf32>, %y: memref<4x?xf32>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c1 : memref<4x?xf32>
  // expected-remark @below {{sequence loop stays on the host: 'memref.alloc' cannot run in one block}}
  scf.forall (%b) in (4) {
    %tmp = memref.alloc(%n) : memref<?xf32>
    %xs = memref.subview %x[%b, 0] [1, %n] [1, 1] : memref<4x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%b, 0] [1, %n] [1, 1] : memref<4x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.copy ins(%xs : memref<?xf32, strided<[1], offset: ?>>) outs(%tmp : memref<?xf32>)
    linalg.copy ins(%tmp : memref<?xf32>) outs(%ys : memref<?xf32, strided<[1], offset: ?>>)
    memref.dealloc %tmp : memref<?xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Temporaries beyond the shared-memory budget (48 KiB here) likewise.
// CHECK-LABEL: func.func @too_big
// CHECK-NOT: scf.forall
// CHECK: scf.for
// LAUNCH-LABEL: func.func @too_big
func.func @too_big(%x: memref<4x16384xf32>, %y: memref<4x16384xf32>) {
  // expected-remark @below {{sequence loop stays on the host: 65536 bytes of temporaries exceed 49152 bytes of shared memory}}
  scf.forall (%b) in (4) {
    %tmp = memref.alloc() : memref<16384xf32>
    %xs = memref.subview %x[%b, 0] [1, 16384] [1, 1] : memref<4x16384xf32> to memref<16384xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%b, 0] [1, 16384] [1, 1] : memref<4x16384xf32> to memref<16384xf32, strided<[1], offset: ?>>
    linalg.copy ins(%xs : memref<16384xf32, strided<[1], offset: ?>>) outs(%tmp : memref<16384xf32>)
    linalg.copy ins(%tmp : memref<16384xf32>) outs(%ys : memref<16384xf32, strided<[1], offset: ?>>)
    memref.dealloc %tmp : memref<16384xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A forall that is not mapped to GPU blocks is a host loop.
// CHECK-LABEL: func.func @unmapped
// CHECK-NOT: scf.forall
// CHECK: scf.for
// LAUNCH-LABEL: func.func @unmapped
// LAUNCH-NOT: gpu.launch
func.func @unmapped(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  scf.forall (%b) in (4) {
    %xs = memref.subview %x[%b, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%b, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.copy ins(%xs : memref<8xf32, strided<[1], offset: ?>>) outs(%ys : memref<8xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// A block reads its segment's bounds from the caller's offsets: scalar
// loads of a buffer from outside that the block never writes need no
// barrier, and the forall stays one block per iteration.
// CHECK-LABEL: func.func @segment_bounds
// CHECK: scf.forall
// CHECK:   memref.load %{{.+}} : memref<?xindex>
// CHECK: {mapping = [#gpu.block<linear_dim_0>]}
// LAUNCH-LABEL: func.func @segment_bounds
// LAUNCH: gpu.launch
func.func @segment_bounds(%o: memref<?xindex>, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  scf.forall (%n) in (4) {
    %start = memref.load %o[%n] : memref<?xindex>
    %next = arith.addi %n, %c1 : index
    %end = memref.load %o[%next] : memref<?xindex>
    %size = arith.subi %end, %start : index
    %xs = memref.subview %x[%start] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %ys = memref.subview %y[%start] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.copy ins(%xs : memref<?xf32, strided<[1], offset: ?>>) outs(%ys : memref<?xf32, strided<[1], offset: ?>>)
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A scalar load of a buffer the block also writes would race with the
// write without a barrier: the loop stays on the host.
// CHECK-LABEL: func.func @reads_what_it_writes
// CHECK-NOT: scf.forall
// LAUNCH-LABEL: func.func @reads_what_it_writes
func.func @reads_what_it_writes(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-remark @below {{sequence loop stays on the host: 'memref.load' cannot run in one block}}
  scf.forall (%n) in (4) {
    %v = memref.load %x[%c0] : memref<4xf32>
    memref.store %v, %x[%n] : memref<4xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
