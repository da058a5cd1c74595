// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-map-to-gpu=block-size=16 -canonicalize -split-input-file | FileCheck %s
// RUN: linea-opt %s -linea-plan-target=target=gpu -linea-map-to-gpu=block-size=16 -canonicalize -convert-parallel-loops-to-gpu -linea-host-shared-allocs -split-input-file | FileCheck %s --check-prefix=LAUNCH
// RUN: not linea-opt %s -linea-map-to-gpu=block-size=-1 2>&1 | FileCheck %s --check-prefix=BAD

// One thread per output element (8 x 4 collapsed to 32, in 2 blocks of 16);
// the reduction over k runs in each thread, its accumulator in a register:
// the output element is loaded before the loop and stored after it. A band
// of static size is guarded by its size, the block's base computed before
// the thread loop: the canonicalizer cannot merge the two loops (which
// would drop their mapping and leave the op on the host).
// CHECK-LABEL: func.func @matmul
// CHECK: %[[C:.+]] = memref.alloc() : memref<8x4xf32>
// CHECK: scf.parallel (%[[B:.+]]) = (%c0) to (%c2) step (%c1)
// CHECK:   %[[BASE:.+]] = arith.muli %[[B]], %c16
// CHECK:   scf.parallel (%[[T:.+]]) = (%c0) to (%c16) step (%c1)
// CHECK:     %[[FLAT:.+]] = arith.addi %[[BASE]], %[[T]]
// CHECK:     %[[IN:.+]] = arith.cmpi slt, %[[FLAT]], %c32
// CHECK:     scf.if %[[IN]]
// CHECK:     %[[INIT:.+]] = memref.load %[[C]][%[[I:.+]], %[[J:.+]]]
// CHECK:     %[[SUM:.+]] = scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32)
// CHECK-NOT:   memref.store
// CHECK:       %[[NEXT:.+]] = arith.addf %[[ACC]], %{{.+}} : f32
// CHECK:       scf.yield %[[NEXT]] : f32
// CHECK:     memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}

// The launch (2 blocks of 16 threads, sizes computed on the host); host
// buffers become managed memory.
// LAUNCH-LABEL: func.func @matmul
// LAUNCH: %[[STREAM:.+]] = gpu.wait async
// LAUNCH: %[[OUT:[a-z0-9_]+]], %{{.+}} = gpu.alloc async [%[[STREAM]]] () : memref<8x4xf32>
// LAUNCH: gpu.launch blocks(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}) threads(%{{.+}}, %{{.+}}, %{{.+}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}})
// LAUNCH: return %[[OUT]]

// BAD: error: linea-map-to-gpu needs a block-size in [1, 1024] (or 0: the target's), got -1
// RUN: not linea-opt %s -linea-map-to-gpu=block-size=2048 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: error: linea-map-to-gpu needs a block-size in [1, 1024] (or 0: the target's), got 2048
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>) -> memref<8x4xf32> {
  %c = memref.alloc() : memref<8x4xf32>
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %c : memref<8x4xf32>
}

// -----

// An output also read as an input (through a view of the same buffer)
// keeps its per-iteration load and store: a register copy could miss the
// updates the input reads.
// CHECK-LABEL: func.func @reads_its_output
// CHECK: scf.for %{{.+}} = %c0 to %c8 step %c1 {
// CHECK:   memref.load
// CHECK:   memref.store
#rows = affine_map<(i, j, k) -> (i, k)>
#cols = affine_map<(i, j, k) -> (k, j)>
#out = affine_map<(i, j, k) -> (i, j)>
func.func @reads_its_output(%c: memref<8x8xf32>, %b: memref<8x8xf32>) {
  %view = memref.subview %c[0, 0] [8, 8] [1, 1] : memref<8x8xf32> to memref<8x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#rows, #cols, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%view, %b : memref<8x8xf32, strided<[8, 1]>>, memref<8x8xf32>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction between parallel dims (the CPU loop order of S += K^T V) is
// reordered parallel-first; a host loop around it stays on the host.
// The 8 x 4 state's elements collapse to 32 threads in blocks of 16, and
// each thread sums its element over the 64 keys in a register.
// CHECK-LABEL: func.func @state_update
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[TMP:.+]] = memref.alloc() : memref<8x4xf32>
// CHECK: scf.for
// CHECK:   scf.parallel (%[[BLOCK:.+]]) = (%{{.+}}) to (%[[C2]]) step (%{{.+}}) {
// CHECK:     %[[BASE:.+]] = arith.muli %[[BLOCK]], %[[C16]] : index
// CHECK:     scf.parallel (%[[THREAD:.+]]) = (%{{.+}}) to (%[[C16]]) step (%{{.+}}) {
// CHECK:       %[[FLAT:.+]] = arith.addi %[[BASE]], %[[THREAD]] : index
// CHECK:       %[[E:.+]] = arith.remsi %[[FLAT]], %[[C4]] : index
// CHECK:       %[[D:.+]] = arith.divsi %[[FLAT]], %[[C4]] : index
// CHECK:       %[[INIT:.+]] = memref.load %[[TMP]][%[[D]], %[[E]]]
// CHECK:       %[[SUM:.+]] = scf.for %[[T:.+]] = %{{.+}} to %[[C64]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
// CHECK:         memref.load %{{.+}}[%[[T]], %[[D]]] : memref<64x8xf32>
// CHECK:         memref.load %{{.+}}[%[[T]], %[[E]]] : memref<64x4xf32>
// CHECK-NOT:     memref.store
// CHECK:       }
// CHECK:       memref.store %[[SUM]], %[[TMP]][%[[D]], %[[E]]]
// CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// LAUNCH-LABEL: func.func @state_update
// LAUNCH: gpu.alloc host_shared
// LAUNCH: scf.for
// LAUNCH:   gpu.launch
// LAUNCH: %[[READY:.+]] = gpu.wait async
// LAUNCH: %[[FREED:.+]] = gpu.dealloc async [%[[READY]]]
// LAUNCH: gpu.wait [%[[FREED]]]
#t_d = affine_map<(t, d, e) -> (t, d)>
#t_e = affine_map<(t, d, e) -> (t, e)>
#d_e = affine_map<(t, d, e) -> (d, e)>
func.func @state_update(%k: memref<64x8xf32>, %v: memref<64x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %tmp = memref.alloc() : memref<8x4xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    linalg.generic {indexing_maps = [#t_d, #t_e, #d_e], iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%k, %v : memref<64x8xf32>, memref<64x4xf32>) outs(%tmp : memref<8x4xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
  }
  memref.copy %tmp, %out : memref<8x4xf32> to memref<8x4xf32>
  memref.dealloc %tmp : memref<8x4xf32>
  return
}

// -----

// An op with one parallel iteration (a step of a host scan over a rank-1
// sequence) or none (a full reduction) is a kernel of one thread: as loops
// of one iteration the canonicalizer would fold them, mapping and all, into
// host code that reads the caller's device memory (it crashed on an H200).
// CHECK-LABEL: func.func @single_iterations
// CHECK: gpu.launch blocks(%{{.+}}) in (%{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}) threads(%{{.+}}) in (%{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}}, %{{.+}} = %c1{{.*}})
// CHECK:   math.exp
// CHECK:   gpu.terminator
// CHECK: gpu.launch blocks
// CHECK:   scf.for
// CHECK:     arith.addf
// CHECK:   gpu.terminator
// CHECK: return
func.func @single_iterations(%a: memref<1xf32>, %x: memref<16xf32>, %e: memref<1xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : memref<1xf32>) outs(%e : memref<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<16xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %y = arith.addf %acc, %in : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// torch-mlir's embedding gather asserts each id's range in its body. Each
// assert goes under an scf.if on its failure: upstream's loop-to-launch
// conversion leaves a loop with a bare cf.assert on the host (and the
// host-code check then refuses the program), but takes it nested.
// CHECK-LABEL: func.func @gather_with_asserts
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[ID:.*]] = memref.load
// CHECK:     %[[BELOW:.*]] = arith.cmpi slt, %[[ID]]
// CHECK:     %[[ABOVE:.*]] = arith.cmpi sge, %[[ID]], %{{.*}}
// CHECK:     scf.if %[[ABOVE]] {
// CHECK-NEXT:  cf.assert %[[BELOW]], "index must be smaller than dim size"
// LAUNCH-LABEL: func.func @gather_with_asserts
// LAUNCH: gpu.launch
// LAUNCH:   scf.if
// LAUNCH:     cf.assert {{.*}} "index must be smaller than dim size"
// LAUNCH:   gpu.terminator
// LAUNCH-NOT: scf.parallel
func.func @gather_with_asserts(%ids: memref<?xi64>, %table: memref<5x3xf32>, %rows: memref<?x3xf32>) {
  %c5 = arith.constant 5 : i64
  linalg.generic {indexing_maps = [affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%ids : memref<?xi64>) outs(%rows : memref<?x3xf32>) {
  ^bb0(%id: i64, %out: f32):
    %below = arith.cmpi slt, %id, %c5 : i64
    cf.assert %below, "index must be smaller than dim size"
    %row = arith.index_cast %id : i64 to index
    %d = linalg.index 1 : index
    %x = memref.load %table[%row, %d] : memref<5x3xf32>
    linalg.yield %x : f32
  }
  return
}

// -----

// A weight's gradient: a bias of 32 summed over a dynamic L, reduction
// loop first as the adjoint builds it. Its band (32, a multiple of the
// block) stays two mapped loops through the canonicalizer, and a band that
// fits one block (8) is one block's threads: both become launches (once,
// the first was merged into one unmapped loop, and the second's one-trip
// block loop folded away, each left on the host).
// CHECK-LABEL: func.func @bias_gradients
// CHECK: scf.parallel (%{{.+}}) = (%c0) to (%c2) step (%c1)
// CHECK:   arith.muli
// CHECK:   scf.parallel
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// CHECK: scf.parallel (%{{.+}}) = (%c0) to (%c8) step (%c1)
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// LAUNCH-LABEL: func.func @bias_gradients
// LAUNCH-COUNT-2: gpu.launch
// LAUNCH-NOT: scf.parallel
#per_token = affine_map<(t, d) -> (t, d)>
#per_dim = affine_map<(t, d) -> (d)>
func.func @bias_gradients(%dy: memref<?x32xf32>, %dz: memref<?x8xf32>) -> (memref<32xf32>, memref<8xf32>) {
  %db = memref.alloc() : memref<32xf32>
  %dc = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#per_token, #per_dim], iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<?x32xf32>) outs(%db : memref<32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#per_token, #per_dim], iterator_types = ["reduction", "parallel"]}
      ins(%dz : memref<?x8xf32>) outs(%dc : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return %db, %dc : memref<32xf32>, memref<8xf32>
}

// -----

// A lookup's gradient on the host (GatherAdjoint.cpp, bufferized): a loop
// nest adding each point's contribution into the table at the row its id
// names. Ids repeat, so the adds are atomic; otherwise the points are
// independent: one band over both loops, mapped as an op's band.
// CHECK-LABEL: func.func @scatter_add
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     %[[ID:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<?xi64>
// CHECK:     %[[ROW:.+]] = arith.index_cast %[[ID]]
// CHECK:     memref.atomic_rmw addf %{{.+}}, %{{.+}}[%[[ROW]], %{{.+}}] : (f32, memref<5x3xf32>) -> f32
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// LAUNCH-LABEL: func.func @scatter_add
// LAUNCH: gpu.launch
// LAUNCH:   memref.atomic_rmw addf
func.func @scatter_add(%ids: memref<?xi64>, %dy: memref<?x3xf32>, %table: memref<5x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %ids, %c0 : memref<?xi64>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %id = memref.load %ids[%i] : memref<?xi64>
      %row = arith.index_cast %id : i64 to index
      %d = memref.load %dy[%i, %j] : memref<?x3xf32>
      %old = memref.load %table[%row, %j] : memref<5x3xf32>
      %new = arith.addf %old, %d : f32
      memref.store %new, %table[%row, %j] : memref<5x3xf32>
    }
  }
  return
}

// -----

// A near miss: the body also reads the table elsewhere (a later point
// would see an earlier one's add), so the order matters and the nest stays
// as it is.
// CHECK-LABEL: func.func @reads_what_it_adds_to
// CHECK: scf.for
// CHECK:   scf.for
// CHECK-NOT: atomic_rmw
func.func @reads_what_it_adds_to(%ids: memref<?xi64>, %table: memref<5x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %ids, %c0 : memref<?xi64>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %id = memref.load %ids[%i] : memref<?xi64>
      %row = arith.index_cast %id : i64 to index
      %first = memref.load %table[%c0, %j] : memref<5x3xf32>
      %old = memref.load %table[%row, %j] : memref<5x3xf32>
      %new = arith.addf %old, %first : f32
      memref.store %new, %table[%row, %j] : memref<5x3xf32>
    }
  }
  return
}

// -----

// A zero fill right before a reduction into its buffer (a LayerNorm's sums,
// a projection on the CUDA cores) is no kernel of its own: the reduction's
// accumulators start at the fill's value. The same fill with another op
// reading the zeros in between stays a kernel.
// CHECK-LABEL: func.func @fill_starts_the_sum
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[SUMS:.+]] = memref.alloc() : memref<8xf64>
// CHECK-NOT: memref.store %[[ZERO]]
// CHECK: scf.for %{{.+}} = %c0 to %c16 step %c1 iter_args(%{{.+}} = %[[ZERO]]) -> (f64)
// CHECK: memref.store %{{.+}}, %[[SUMS]]
// CHECK-LABEL: func.func @fill_read_before_the_sum
// CHECK: memref.store %{{.+}}, %[[FILLED:.+]][%{{.+}}] : memref<8xf64>
// CHECK: memref.load %[[FILLED]]
// CHECK: scf.for
#fill_rows = affine_map<(d0, d1) -> (d0, d1)>
#fill_row = affine_map<(d0, d1) -> (d0)>
#fill_vec = affine_map<(d0) -> (d0)>
func.func @fill_starts_the_sum(%x: memref<8x16xf64>) -> memref<8xf64> {
  %zero = arith.constant 0.0 : f64
  %sums = memref.alloc() : memref<8xf64>
  linalg.generic {indexing_maps = [#fill_vec], iterator_types = ["parallel"]} outs(%sums : memref<8xf64>) {
  ^bb0(%out: f64):
    linalg.yield %zero : f64
  }
  linalg.generic {indexing_maps = [#fill_rows, #fill_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf64>) outs(%sums : memref<8xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %in, %acc : f64
    linalg.yield %s : f64
  }
  return %sums : memref<8xf64>
}
func.func @fill_read_before_the_sum(%x: memref<8x16xf64>, %copy: memref<8xf64>) -> memref<8xf64> {
  %zero = arith.constant 0.0 : f64
  %sums = memref.alloc() : memref<8xf64>
  linalg.fill ins(%zero : f64) outs(%sums : memref<8xf64>)
  linalg.copy ins(%sums : memref<8xf64>) outs(%copy : memref<8xf64>)
  linalg.generic {indexing_maps = [#fill_rows, #fill_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf64>) outs(%sums : memref<8xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %in, %acc : f64
    linalg.yield %s : f64
  }
  return %sums : memref<8xf64>
}
