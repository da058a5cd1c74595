// RUN: linea-opt %s --transform-interpreter -split-input-file -canonicalize -cse | FileCheck %s

// Linea's ops implement TilingInterface, so upstream transforms tile them
// like any linalg op. The iteration domain is [B..., Dv]: every batch dim
// and the value columns are parallel; the sequence and key dims stay whole
// (a sequence is one recurrence). Tiling the batch by 1 and the columns by 4
// gives each forall iteration one sequence's 4 value columns.
// CHECK-LABEL: func.func @linear_attention
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<3x?x8xf32>, %[[K:[a-z0-9_]+]]: tensor<3x?x8xf32>, %[[V:[a-z0-9_]+]]: tensor<3x?x16xf32>, %[[S0:[a-z0-9_]+]]: tensor<3x8x16xf32>, %[[J:[a-z0-9_]+]]: index)
// CHECK: %[[R:.+]]:2 = scf.forall (%[[B:.+]], %[[T:.+]]) in (3, 4) shared_outs(%[[O:.+]] = %{{.+}}, %[[S:.+]] = %{{.+}})
// CHECK:   %[[C:.+]] = affine.apply #{{.+}}(%[[T]])
// CHECK:   %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[B]], 0, 0] [1, %{{.+}}, 8]
// CHECK:   %[[KS:.+]] = tensor.extract_slice %[[K]][%[[B]], 0, 0] [1, %{{.+}}, 8]
// CHECK:   %[[VS:.+]] = tensor.extract_slice %[[V]][%[[B]], 0, %[[C]]] [1, %{{.+}}, 4]
// CHECK:   %[[SS:.+]] = tensor.extract_slice %[[S0]][%[[B]], 0, %[[C]]] [1, 8, 4]
// CHECK:   %[[T:.+]], %[[TS:.+]] = linea.linear_attention %[[QS]], %[[KS]], %[[VS]] init(%[[SS]]) mask = prefix(%[[J]]) feature_map = relu : tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x4xf32>, tensor<1x8x4xf32> -> tensor<1x?x4xf32>, tensor<1x8x4xf32>
// CHECK:   tensor.parallel_insert_slice %[[T]] into %[[O]][%[[B]], 0, %[[C]]] [1, %{{.+}}, 4]
// CHECK:   tensor.parallel_insert_slice %[[TS]] into %[[S]][%[[B]], 0, %[[C]]] [1, 8, 4]
func.func @linear_attention(%q: tensor<3x?x8xf32>, %k: tensor<3x?x8xf32>, %v: tensor<3x?x16xf32>,
                            %s0: tensor<3x8x16xf32>, %j: index) -> (tensor<3x?x16xf32>, tensor<3x8x16xf32>) {
  %o, %s = linea.linear_attention %q, %k, %v init(%s0) mask = prefix(%j) feature_map = relu
      : tensor<3x?x8xf32>, tensor<3x?x8xf32>, tensor<3x?x16xf32>, tensor<3x8x16xf32> -> tensor<3x?x16xf32>, tensor<3x8x16xf32>
  return %o, %s : tensor<3x?x16xf32>, tensor<3x8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [1, 4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A normalizing op divides each row by phi(q) . z, which does not depend on
// the value columns: each column tile recomputes the same z.
// CHECK-LABEL: func.func @normalized
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (2, 3, 3)
// CHECK:   linea.linear_attention {{.*}} mask = causal normalize : tensor<1x1x7x8xf32>, tensor<1x1x7x8xf32>, tensor<1x1x7x2xf32> -> tensor<1x1x7x2xf32>
func.func @normalized(%q: tensor<2x3x7x8xf32>, %v: tensor<2x3x7x6xf32>) -> tensor<2x3x7x6xf32> {
  %o = linea.linear_attention %q, %q, %v mask = causal normalize
      : tensor<2x3x7x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x6xf32> -> tensor<2x3x7x6xf32>
  return %o : tensor<2x3x7x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [1, 1, 2]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Gated, with a per-key gate: the gate is tiled like q and k.
// CHECK-LABEL: func.func @gated
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<4x9x8xf32>, %[[V:[a-z0-9_]+]]: tensor<4x9x6xf32>, %[[G:[a-z0-9_]+]]: tensor<4x9x8xf32>)
// CHECK: scf.forall (%[[T:.+]]) in (2)
// CHECK:   %[[B:.+]] = affine.apply #{{.+}}(%[[T]])
// CHECK:   %[[GS:.+]] = tensor.extract_slice %[[G]][%[[B]], 0, 0] [2, 9, 8]
// CHECK:   linea.gated_linear_attention {{.*}}, %[[GS]] mask = causal form = chunked(4) : tensor<2x9x8xf32>, tensor<2x9x8xf32>, tensor<2x9x6xf32>, tensor<2x9x8xf32> -> tensor<2x9x6xf32>
func.func @gated(%q: tensor<4x9x8xf32>, %v: tensor<4x9x6xf32>, %g: tensor<4x9x8xf32>) -> tensor<4x9x6xf32> {
  %o = linea.gated_linear_attention %q, %q, %v, %g mask = causal form = chunked(4)
      : tensor<4x9x8xf32>, tensor<4x9x8xf32>, tensor<4x9x6xf32>, tensor<4x9x8xf32> -> tensor<4x9x6xf32>
  return %o : tensor<4x9x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.gated_linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Softmax attention: the domain is [B..., Dv] as well (query and key rows
// stay whole, so a causal offset Lk - Lq is kept).
// CHECK-LABEL: func.func @attention
// CHECK: scf.forall (%[[H:.+]]) in (2)
// CHECK:   linea.attention {{.*}} : tensor<1x5x8xf32>, tensor<1x7x8xf32>, tensor<1x7x4xf32> -> tensor<1x5x4xf32>
func.func @attention(%q: tensor<2x5x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x4xf32>) -> tensor<2x5x4xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<2x5x8xf32>, tensor<2x7x8xf32>, tensor<2x7x4xf32> -> tensor<2x5x4xf32>
  return %o : tensor<2x5x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// presum: every dim but the scanned one is parallel.
// CHECK-LABEL: func.func @presum
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (3, 2)
// CHECK:   linea.presum %{{.+}} dim = 1 exclusive : tensor<2x10x8xf32>
func.func @presum(%x: tensor<6x10x16xf32>) -> tensor<6x10x16xf32> {
  %y = linea.presum %x dim = 1 exclusive : tensor<6x10x16xf32>
  return %y : tensor<6x10x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.presum"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Packed segments lie along the scanned dim, which every tile keeps whole:
// each tile's presum takes the same offsets.
// CHECK-LABEL: func.func @packed_presum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<6x?x16xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi32>)
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (3, 2)
// CHECK:   linea.presum %{{.+}} offsets(%[[O]]) dim = 1 exclusive : tensor<2x?x8xf32>, tensor<?xi32> -> tensor<2x?x8xf32>
func.func @packed_presum(%x: tensor<6x?x16xf32>, %o: tensor<?xi32>) -> tensor<6x?x16xf32> {
  %y = linea.presum %x offsets(%o) dim = 1 exclusive : tensor<6x?x16xf32>, tensor<?xi32> -> tensor<6x?x16xf32>
  return %y : tensor<6x?x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.presum"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Packed softmax attention: every tile keeps the sequences, and with them
// the segments, whole, and takes the same offsets.
// CHECK-LABEL: func.func @packed_attention
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<6x?x16xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi64>)
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (3, 2)
// CHECK:   linea.attention %{{.+}}, %{{.+}}, %{{.+}} offsets(%[[O]]) mask = causal : tensor<2x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x8xf32>, tensor<?xi64> -> tensor<2x?x8xf32>
func.func @packed_attention(%q: tensor<6x?x16xf32>, %o: tensor<?xi64>) -> tensor<6x?x16xf32> {
  %y = linea.attention %q, %q, %q offsets(%o) mask = causal
      : tensor<6x?x16xf32>, tensor<6x?x16xf32>, tensor<6x?x16xf32>, tensor<?xi64> -> tensor<6x?x16xf32>
  return %y : tensor<6x?x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A packed linear-attention op: the per-segment states [N, B..., Dk, Dv]
// keep their segment dim whole and take the tile of the rest; offsets and
// prefix lengths go to every tile whole.
// CHECK-LABEL: func.func @packed_gated
// CHECK-SAME: (%{{.+}}: tensor<3x?x5xf32>, %{{.+}}: tensor<3x?xf32>, %{{.+}}: tensor<3x?x4xf32>, %[[S0:[a-z0-9_]+]]: tensor<?x3x5x4xf32>, %[[O:[a-z0-9_]+]]: tensor<?xi64>, %[[J:[a-z0-9_]+]]: tensor<?xindex>)
// CHECK: %[[N:.+]] = arith.subi %{{.+}}, %c1
// CHECK: %[[R:.+]]:2 = scf.forall (%[[B:.+]], %[[C:.+]]) in (2, 2) shared_outs(%{{.+}}, %[[OUT:.+]] = %{{.+}}) -> (tensor<3x?x4xf32>, tensor<?x3x5x4xf32>)
// CHECK:   %[[INIT:.+]] = tensor.extract_slice %[[S0]][0, %{{.+}}, 0, %{{.+}}] [%{{.+}}, %{{.+}}, 5, 2] [1, 1, 1, 1]
// CHECK:   %{{.+}}, %[[S:.+]] = linea.gated_linear_attention %{{.+}} init(%[[INIT]]) offsets(%[[O]]) mask = prefix(%[[J]]) : {{.+}} -> tensor<?x?x2xf32>, tensor<?x?x5x2xf32>
// CHECK:   tensor.parallel_insert_slice %[[S]] into %[[OUT]][0, %{{.+}}, 0, %{{.+}}] [%[[N]], %{{.+}}, 5, 2]
func.func @packed_gated(%q: tensor<3x?x5xf32>, %g: tensor<3x?xf32>, %v: tensor<3x?x4xf32>, %s0: tensor<?x3x5x4xf32>,
                        %o: tensor<?xi64>, %js: tensor<?xindex>) -> (tensor<3x?x4xf32>, tensor<?x3x5x4xf32>) {
  %y, %s = linea.gated_linear_attention %q, %q, %v, %g init(%s0) offsets(%o) mask = prefix(%js)
      : tensor<3x?x5xf32>, tensor<3x?x5xf32>, tensor<3x?x4xf32>, tensor<3x?xf32>, tensor<?x3x5x4xf32>,
        tensor<?xi64>, tensor<?xindex> -> tensor<3x?x4xf32>, tensor<?x3x5x4xf32>
  return %y, %s : tensor<3x?x4xf32>, tensor<?x3x5x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.gated_linear_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 2]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A decayed presum tiles its decay with the input's leading dims.
// CHECK-LABEL: func.func @decayed_presum
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (3, 2)
// CHECK:   %[[H:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0, %{{.+}}, 0] [2, 10, 2, 4] [1, 1, 1, 1]
// CHECK:   %[[G:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0, %{{.+}}] [2, 10, 2] [1, 1, 1]
// CHECK:   linea.presum %[[H]] decay(%[[G]] : tensor<2x10x2xf32>) dim = 1 : tensor<2x10x2x4xf32>
func.func @decayed_presum(%h: tensor<6x10x4x4xf32>, %g: tensor<6x10x4xf32>) -> tensor<6x10x4x4xf32> {
  %y = linea.presum %h decay(%g : tensor<6x10x4xf32>) dim = 1 : tensor<6x10x4x4xf32>
  return %y : tensor<6x10x4x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linea.presum"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [2, 2, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
