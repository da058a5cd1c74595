// RUN: linea-opt %s --linea-sequence-parallel -split-input-file | FileCheck %s

// A causal op: the sequence operands become this rank's rows (dynamic L,
// `linea.sharded_dim`). The rows run as a causal op from a zero state; one
// all-gather shares the ranks' states; the ranks before this one give the
// state its rows really start from, added to the output as `Q S` (the
// output is linear in the state), and every rank folds all the states into
// the final state (replicated: no attribute).

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// CHECK: func.func private @linea_mpi_allgather_f32(memref<?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @causal(
// CHECK-SAME: %[[Q:.*]]: tensor<2x?x8xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: %[[V:.*]]: tensor<2x?x4xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: -> (tensor<2x?x4xf32> {linea.sharded_dim = 1 : i64}, tensor<2x8x4xf32>)
// CHECK: %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// CHECK: %[[RANK:.*]] = mpi.comm_rank(%[[WORLD]]) : i32
// CHECK: %[[SIZE:.*]] = mpi.comm_size(%[[WORLD]]) : i32
// CHECK-DAG: %[[R:.*]] = arith.index_cast %[[RANK]] : i32 to index
// CHECK-DAG: %[[P:.*]] = arith.index_cast %[[SIZE]] : i32 to index
// CHECK: %[[ROWS:.*]], %[[MINE:.*]] = linea.linear_attention %[[QR:.*]], %{{.*}}, %{{.*}} mask = causal : {{.*}} -> tensor<2x?x4xf32>, tensor<2x8x4xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[MINE]] {{\[}}[0, 1, 2]] : tensor<2x8x4xf32> into tensor<64xf32>
// CHECK: %[[SEND:.*]] = memref.alloc() : memref<64xf32>
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[SEND]]
// CHECK: %[[RECV:.*]] = memref.alloc(%[[P]]) : memref<?x64xf32>
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[ALL:.*]] = bufferization.to_tensor %[[RECV]] restrict writable
// CHECK: %[[BEFORE:.*]] = scf.for %{{.*}} = %{{.*}} to %[[R]]
// CHECK:   tensor.extract_slice %[[ALL]]
// CHECK:   linalg.add
// CHECK: %[[FINAL:.*]] = scf.for %{{.*}} = %[[R]] to %[[P]]
// CHECK: %[[O:.*]] = linalg.generic {{.*}} ins(%[[QR]], %[[BEFORE]] : {{.*}}) outs(%[[ROWS]] : tensor<2x?x4xf32>)
// CHECK: return %[[O]], %[[FINAL]]
func.func @causal(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>)
    -> (tensor<2x64x4xf32>, tensor<2x8x4xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v mask = causal
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32>
      -> tensor<2x64x4xf32>, tensor<2x8x4xf32>
  return %o, %s : tensor<2x64x4xf32>, tensor<2x8x4xf32>
}

// -----

// Bidirectional and ungated: the states only add up, one mpi.allreduce;
// every row reads the sum (one matmul, no Linea op left).

// CHECK-LABEL: func.func @bidirectional(
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %{{.*}}) : memref<64xf32>, memref<64xf32>
// CHECK-NOT: linea.linear_attention
// CHECK: return
func.func @bidirectional(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>)
    -> tensor<2x64x4xf32> {
  %o = linea.linear_attention %q, %k, %v mask = none
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32> -> tensor<2x64x4xf32>
  return %o : tensor<2x64x4xf32>
}

// -----

// PrefixLM with a gate: the ranks' row counts come first (an i64
// all-gather) to place j; the record holds the prefix and causal states and
// their log-decays; the prefix rows read the folded prefix state, the
// causal rows run as a gated causal op from zero, then gain
// `q_i diag(exp(b_i)) S` with `b` the rank's own presum of the gate.

// CHECK-LABEL: func.func @gated_prefix(
// CHECK-SAME: %{{.*}}: tensor<?x8xf32> {linea.sharded_dim = 0 : i64}
// CHECK-SAME: %{{.*}}: tensor<?xf32> {linea.sharded_dim = 0 : i64}
// CHECK: call @linea_mpi_allgather_i64(
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: linea.gated_linear_attention {{.*}} mask = none
// CHECK: linea.gated_linear_attention {{.*}} mask = causal
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: linea.presum
// CHECK: math.exp
func.func @gated_prefix(%q: tensor<40x8xf32>, %k: tensor<40x8xf32>, %v: tensor<40x4xf32>,
                        %g: tensor<40xf32>) -> tensor<40x4xf32> {
  %o = linea.gated_linear_attention %q, %k, %v, %g mask = prefix(25)
      : tensor<40x8xf32>, tensor<40x8xf32>, tensor<40x4xf32>, tensor<40xf32> -> tensor<40x4xf32>
  return %o : tensor<40x4xf32>
}

// -----

// A dynamic prefix length is checked against the rows of all ranks, the
// message showing both.
// CHECK-LABEL: func.func @dynamic_prefix(
// CHECK-SAME: %[[J:[a-z0-9]+]]: index)
// CHECK: linea.check %{{.+}}, "linea.linear_attention: prefix length {0} is outside [0, L] of 'query' (L = {1}, all ranks' rows)"(%[[J]], %{{.+}} : index, index)
// CHECK: linea.linear_attention {{.*}} mask = none
func.func @dynamic_prefix(%q: tensor<40x8xf32>, %v: tensor<40x4xf32>,
                          %j: index) -> tensor<40x4xf32> {
  %o = linea.linear_attention %q, %q, %v mask = prefix(%j)
      : tensor<40x8xf32>, tensor<40x8xf32>, tensor<40x4xf32> -> tensor<40x4xf32>
  return %o : tensor<40x4xf32>
}

// -----

// presum along dim 0, reversed: the totals of the ranks after this one.

// CHECK-LABEL: func.func @presum(
// CHECK-SAME: %{{.*}}: tensor<?x5xf32> {linea.sharded_dim = 0 : i64}) -> (tensor<?x5xf32> {linea.sharded_dim = 0 : i64})
// CHECK: %[[LOCAL:.*]] = linea.presum %{{.*}} dim = 0 exclusive reverse : tensor<?x5xf32>
// CHECK: linalg.reduce
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c1
// CHECK: scf.for %{{.*}} = %[[NEXT]] to
// CHECK: linalg.generic {{.*}} ins(%[[LOCAL]]
func.func @presum(%x: tensor<13x5xf32>) -> tensor<13x5xf32> {
  %y = linea.presum %x dim = 0 exclusive reverse : tensor<13x5xf32>
  return %y : tensor<13x5xf32>
}

// -----

// Row-local ops around a Linea op: the projections' inputs are traced back
// to the argument, which is split; the weights stay replicated; the inits
// take this rank's rows; the residual add is split like its operands.

// CHECK-LABEL: func.func @projected(
// CHECK-SAME: %[[X:.*]]: tensor<?x16xf32> {linea.sharded_dim = 0 : i64}, %[[W:.*]]: tensor<16x8xf32>)
// CHECK-SAME: -> (tensor<?x8xf32> {linea.sharded_dim = 0 : i64})
// CHECK: %[[ROWS:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[ROWS]]) : tensor<?x8xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<?x8xf32>)
// CHECK: %[[Q:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<?x16xf32>, tensor<16x8xf32>) outs(%[[FILL]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[Q]] : tensor<?x8xf32>
// CHECK: return %[[SUM]]
func.func @projected(%x: tensor<40x16xf32>, %w: tensor<16x8xf32>) -> tensor<40x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<40x8xf32>) -> tensor<40x8xf32>
  %q = linalg.matmul ins(%x, %w : tensor<40x16xf32>, tensor<16x8xf32>)
      outs(%init : tensor<40x8xf32>) -> tensor<40x8xf32>
  %o = linea.linear_attention %q, %q, %q mask = causal
      : tensor<40x8xf32>, tensor<40x8xf32>, tensor<40x8xf32> -> tensor<40x8xf32>
  %y = arith.addf %o, %q : tensor<40x8xf32>
  return %y : tensor<40x8xf32>
}

// -----

// Nothing is a sequence: the function and the module stay as they are.

// CHECK-NOT: dlti.map
// CHECK-LABEL: func.func @replicated(%{{.*}}: tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NOT: mpi.
func.func @replicated(%s: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  return %s : tensor<2x8x4xf32>
}

// -----

// Packed segments: the offsets stay whole on every rank (positions in the
// whole sequence), checked against all ranks' rows, and become this rank's
// (clamped to its rows: a segment with no rows here is empty). The op runs
// once, from zero states, for its rows and each segment's contribution;
// one all-gather shares them, and a loop over the segments moves the rows
// of a segment that started before this rank onto the state it starts the
// rank with (q S; the others' count of moved rows is 0); the final states
// fold every rank's.

// CHECK-LABEL: func.func @packed_causal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x?x8xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: %[[O:[^:]*]]: tensor<?xi64>) -> (tensor<2x?x4xf32> {linea.sharded_dim = 1 : i64}, tensor<?x2x8x4xf32>)
// CHECK: call @linea_mpi_allgather_i64(
// CHECK: %[[SPAN:.*]]:2 = scf.for
// CHECK: linea.check %{{.*}}, "{{.*}}sequence-parallel.mlir:{{[0-9]+}}:{{[0-9]+}}: linea.linear_attention: 'offsets' start at {0}, not 0"
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.linear_attention: 'offsets' end at {0}, but L (all ranks' rows) is {1}"(%{{.*}}, %[[SPAN]]#1 : index, index)
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.linear_attention: 'offsets' decrease at entry {0}: {1} after {2}"
// CHECK: %[[HERE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xindex>)
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK: %[[ROWS:.*]], %[[MINE:.*]] = linea.linear_attention %[[Q]], %{{.*}}, %{{.*}} offsets(%[[HERE]]) mask = causal
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[BEFORE:.*]] = scf.for %{{.*}} iter_args(%{{.*}}) -> (tensor<?x2x8x4xf32>)
// CHECK: %[[FINAL:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[BEFORE]]) -> (tensor<?x2x8x4xf32>)
// CHECK-NOT: linea.linear_attention
// CHECK: %[[Y:.*]] = scf.forall (%[[N:.*]]) in
// CHECK:   %[[QN:.*]] = tensor.extract_slice %[[Q]][0, %{{.*}}, 0] [2, %[[SIZE:.*]], 8]
// CHECK:   %[[RN:.*]] = tensor.extract_slice %[[ROWS]]
// CHECK:   %[[BEFORERANK:.*]] = arith.cmpi slt, %{{.*}}, %[[SPAN]]#0
// CHECK:   %[[MOVED:.*]] = arith.select %[[BEFORERANK]], %[[SIZE]], %{{.*}}
// CHECK:   %[[SN:.*]] = tensor.extract_slice %[[BEFORE]][%[[N]], 0, 0, 0] [1, 2, 8, 4]
// CHECK:   %[[RM:.*]] = tensor.extract_slice %[[RN]][0, 0, 0] [2, %[[MOVED]], 4]
// CHECK:   %[[QM:.*]] = tensor.extract_slice %[[QN]][0, 0, 0] [2, %[[MOVED]], 8]
// CHECK:   %[[QS:.*]] = linalg.generic {{.*}} ins(%[[QM]], %[[SN]] : tensor<2x?x8xf32>, tensor<2x8x4xf32>) outs(%[[RM]] : tensor<2x?x4xf32>)
// CHECK:   tensor.insert_slice %[[QS]] into %[[RN]][0, 0, 0] [2, %[[MOVED]], 4]
// CHECK: return %[[Y]], %[[FINAL]]
func.func @packed_causal(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>,
                         %o: tensor<?xi64>) -> (tensor<2x64x4xf32>, tensor<?x2x8x4xf32>) {
  %y, %s = linea.linear_attention %q, %k, %v offsets(%o) mask = causal
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32>, tensor<?xi64>
      -> tensor<2x64x4xf32>, tensor<?x2x8x4xf32>
  return %y, %s : tensor<2x64x4xf32>, tensor<?x2x8x4xf32>
}

// -----

// Per-segment prefixes: on a rank each segment is two, its prefix rows here
// and the rest (2N + 1 interleaved offsets, clamped to the rank's rows), run
// as one causal op from zero states. Each segment's prefix state folds every
// rank's prefix parts (decayed), the rest continues from it through the
// ranks before; the rest's rows are the causal op again from those states,
// each segment's prefix rows q times its prefix state.

// CHECK-LABEL: func.func @packed_prefix(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x?x8xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: %[[O:[^:]*]]: tensor<?xi64>, %[[JS:[^:]*]]: tensor<?xindex>)
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.gated_linear_attention: 'offsets' decrease at entry {0}: {1} after {2}"
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.gated_linear_attention: 'prefix lengths' count {0} does not match the {1} segments of 'offsets'"
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.gated_linear_attention: prefix length {1} of segment {0} is outside [0, {2}], the segment's length"
// CHECK: %[[TWICE:.*]] = arith.muli %{{.*}}, %c2
// CHECK: %[[COUNT:.*]] = arith.addi %[[TWICE]], %c1
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?xindex>
// CHECK: %[[BOUNDS:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<?xindex>)
// CHECK:   scf.if
// CHECK:     tensor.extract %[[JS]]
// CHECK: %{{.*}}, %[[MINE:.*]] = linea.gated_linear_attention %[[Q]], %{{.*}} offsets(%[[BOUNDS]]) mask = causal
// CHECK: tensor.extract_slice %[[MINE]][0, 0, 0, 0] [%{{.*}}, 2, 8, 4] [2, 1, 1, 1]
// CHECK: tensor.extract_slice %[[MINE]][1, 0, 0, 0] [%{{.*}}, 2, 8, 4] [2, 1, 1, 1]
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[PREFIX:.*]] = scf.for %{{.*}} = %c0{{.*}} to %{{.*}} iter_args
// CHECK: %[[HERE:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[PREFIX]])
// CHECK: %[[FINAL:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[HERE]])
// CHECK: %[[INIT:.*]] = tensor.insert_slice %[[HERE]] into %{{.*}}[1, 0, 0, 0] [%{{.*}}, 2, 8, 4] [2, 1, 1, 1]
// CHECK: %[[REST:.*]], %{{.*}} = linea.gated_linear_attention %[[Q]], %{{.*}} init(%[[INIT]]) offsets(%[[BOUNDS]]) mask = causal
// CHECK: %[[Y:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[REST]])
// CHECK:   tensor.extract_slice %[[PREFIX]]
// CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x?x8xf32>, tensor<2x8x4xf32>)
// CHECK: return %[[Y]], %[[FINAL]]
func.func @packed_prefix(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>,
                         %g: tensor<2x64xf32>, %o: tensor<?xi64>, %js: tensor<?xindex>)
    -> (tensor<2x64x4xf32>, tensor<?x2x8x4xf32>) {
  %y, %s = linea.gated_linear_attention %q, %k, %v, %g offsets(%o) mask = prefix(%js)
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32>, tensor<2x64xf32>,
        tensor<?xi64>, tensor<?xindex> -> tensor<2x64x4xf32>, tensor<?x2x8x4xf32>
  return %y, %s : tensor<2x64x4xf32>, tensor<?x2x8x4xf32>
}

// -----

// A packed presum: the local segmented scan; each segment's total here
// (the last row of its scan, zero where it has no rows), all-gathered; the
// one segment that continues into this rank gains the totals before.

// CHECK-LABEL: func.func @packed_presum(
// CHECK: %[[HERE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xindex>)
// CHECK: %[[SCAN:.*]] = linea.presum %{{.*}} offsets(%[[HERE]])
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x2x5xf32>)
// CHECK:   tensor.extract
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[CONTINUING:.*]] = scf.if %{{.*}} -> (tensor<2x?x5xf32>)
// CHECK:   linalg.generic
// CHECK:   tensor.insert_slice %{{.*}} into %[[SCAN]]
// CHECK: } else {
// CHECK:   scf.yield %[[SCAN]]
// CHECK: return %[[CONTINUING]]
func.func @packed_presum(%x: tensor<2x13x5xf32>, %o: tensor<4xindex>) -> tensor<2x13x5xf32> {
  %y = linea.presum %x offsets(%o) : tensor<2x13x5xf32>, tensor<4xindex> -> tensor<2x13x5xf32>
  return %y : tensor<2x13x5xf32>
}

// -----

// Softmax attention: a row reads keys, not a state. The ranks all-gather
// their key and value rows (padded to the longest rank's: an all-gather's
// records have one length), put them in rank order, and each rank attends
// its query rows to the keys up to its last row's causal bound
// (first + rows + Lk - Lq, clamped to [0, Lk]).

// CHECK-LABEL: func.func @softmax_causal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x?x8xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: -> (tensor<2x?x4xf32> {linea.sharded_dim = 1 : i64})
// CHECK: call @linea_mpi_allgather_i64(
// CHECK: %[[QSPAN:.*]]:2 = scf.for
// CHECK: call @linea_mpi_allgather_i64(
// CHECK: %[[KSPAN:.*]]:2 = scf.for
// CHECK:   arith.maxui
// CHECK: call @linea_mpi_allgather_f32(
// CHECK: %[[ALL:.*]]:3 = scf.for {{.*}} -> (tensor<2x?x8xf32>, tensor<2x?x4xf32>, index)
// CHECK:   tensor.insert_slice {{.*}} : tensor<2x?x8xf32> into tensor<2x?x8xf32>
// CHECK:   tensor.insert_slice {{.*}} : tensor<2x?x4xf32> into tensor<2x?x4xf32>
// CHECK: %[[END:.*]] = arith.maxsi
// CHECK-DAG: %[[V:.*]] = tensor.extract_slice %[[ALL]]#1[0, %{{.*}}, 0] [2, %[[END]], 4]
// CHECK-DAG: %[[K:.*]] = tensor.extract_slice %[[ALL]]#0[0, %{{.*}}, 0] [2, %[[END]], 8]
// CHECK: %[[O:.*]] = linea.attention %[[Q]], %[[K]], %[[V]] mask = causal
// CHECK: return %[[O]]
func.func @softmax_causal(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>)
    -> tensor<2x64x4xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32> -> tensor<2x64x4xf32>
  return %o : tensor<2x64x4xf32>
}

// -----

// Packed: each segment's query rows here (this rank's clamped offsets)
// attend to its keys on every rank, [o_n, o_{n+1}) for mask none.

// CHECK-LABEL: func.func @packed_softmax(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x?x8xf32> {linea.sharded_dim = 1 : i64}
// CHECK-SAME: %[[O:[^:]*]]: tensor<?xi64>)
// CHECK: %[[ALL:.*]]:3 = scf.for
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.attention: packed keys need as many rows as the queries, got {0} and {1} (all ranks' rows)"
// CHECK: linea.check %{{.*}}, "{{.*}}: linea.attention: 'offsets' end at {0}, but L (all ranks' rows) is {1}"
// CHECK: %[[HERE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xindex>)
// CHECK: %[[Y:.*]] = scf.forall (%[[N:.*]]) in
// CHECK:   %[[START:.*]] = tensor.extract %[[HERE]][%[[N]]]
// CHECK:   %[[QN:.*]] = tensor.extract_slice %[[Q]][0, %[[START]], 0]
// CHECK:   %[[KEY:.*]] = tensor.extract %[[O]][%[[N]]]
// CHECK:   %[[FIRST:.*]] = arith.index_cast %[[KEY]]
// CHECK-DAG: %[[VN:.*]] = tensor.extract_slice %[[ALL]]#1[0, %[[FIRST]], 0]
// CHECK-DAG: %[[KN:.*]] = tensor.extract_slice %[[ALL]]#0[0, %[[FIRST]], 0]
// CHECK:   linea.attention %[[QN]], %[[KN]], %[[VN]] mask = none
// CHECK: return %[[Y]]
func.func @packed_softmax(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x4xf32>,
                          %o: tensor<?xi64>) -> tensor<2x64x4xf32> {
  %y = linea.attention %q, %k, %v offsets(%o) mask = none
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x4xf32>, tensor<?xi64> -> tensor<2x64x4xf32>
  return %y : tensor<2x64x4xf32>
}

// -----

// Packed initial states: a segment's initial state enters the run of the
// one rank that holds its first offset (the last rank for o_n = L), zeros
// on the others, so the fold over the ranks' records starts from zeros.

// CHECK-LABEL: func.func @packed_initial_states(
// CHECK-SAME: %[[S0:[^:]*]]: tensor<3x8x4xf32>
// CHECK: %[[R:.*]] = arith.index_cast %rank
// CHECK: %[[P:.*]] = arith.index_cast %size
// CHECK: %[[SPAN:.*]]:2 = scf.for
// CHECK: %[[LASTRANK:.*]] = arith.subi %[[P]], %{{.*}}
// CHECK: %[[ISLAST:.*]] = arith.cmpi eq, %[[R]], %[[LASTRANK]]
// CHECK: %[[OWNED:.*]] = linalg.generic {{.*}} ins(%[[S0]] : tensor<3x8x4xf32>)
// CHECK:   %[[START:.*]] = tensor.extract
// CHECK:   %[[BEFOREEND:.*]] = arith.cmpi slt, %[[START]], %{{.*}}
// CHECK:   %[[OWNER:.*]] = arith.ori %[[ISLAST]], %[[BEFOREEND]]
// CHECK:   %[[AFTERFIRST:.*]] = arith.cmpi sle, %[[SPAN]]#0, %[[START]]
// CHECK:   %[[MINE:.*]] = arith.andi %[[AFTERFIRST]], %[[OWNER]]
// CHECK:   arith.select %[[MINE]], %{{.*}}, %{{.*}} : f32
// CHECK: linea.linear_attention {{.*}} init(%[[OWNED]]) offsets(%{{.*}}) mask = causal
func.func @packed_initial_states(%q: tensor<?x8xf32>, %v: tensor<?x4xf32>, %s0: tensor<3x8x4xf32>,
                                 %o: tensor<4xindex>) -> (tensor<?x4xf32>, tensor<?x8x4xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v init(%s0) offsets(%o) mask = causal
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<3x8x4xf32>, tensor<4xindex>
      -> tensor<?x4xf32>, tensor<?x8x4xf32>
  return %y, %s : tensor<?x4xf32>, tensor<?x8x4xf32>
}
