// Every op form parses, verifies and prints; printing is a fixpoint, and the
// generic form parses back to the same module.
// RUN: linea-opt %s | FileCheck %s
// RUN: linea-opt %s | linea-opt | FileCheck %s
// RUN: linea-opt %s --mlir-print-op-generic | linea-opt | FileCheck %s
// RUN: linea-opt %s > %t.1.mlir && linea-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK-LABEL: func.func @presum
func.func @presum(%x: tensor<2x16x8xf32>, %h: tensor<?x8xf16>, %r: tensor<5xbf16>)
    -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<?x8xf16>, tensor<5xbf16>) {
  // CHECK: linea.presum %{{.*}} : tensor<2x16x8xf32>
  %0 = linea.presum %x : tensor<2x16x8xf32>
  // CHECK: linea.presum %{{.*}} dim = 0 exclusive reverse : tensor<2x16x8xf32>
  %1 = linea.presum %x dim = 0 exclusive reverse : tensor<2x16x8xf32>
  // CHECK: linea.presum %{{.*}} exclusive : tensor<?x8xf16>
  %2 = linea.presum %h exclusive : tensor<?x8xf16>
  // CHECK: linea.presum %{{.*}} reverse : tensor<5xbf16>
  %3 = linea.presum %r reverse : tensor<5xbf16>
  return %0, %1, %2, %3 : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<?x8xf16>, tensor<5xbf16>
}

// Packed segments: the offsets' type follows the input's, then the result's.
// CHECK-LABEL: func.func @packed_presum
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x?x5xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<2x?xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<?xindex>, %[[P:[a-zA-Z0-9_]+]]: tensor<4xi32>)
// CHECK: linea.presum %[[X]] offsets(%[[O]]) exclusive : tensor<2x?x5xf32>, tensor<?xindex> -> tensor<2x?x5xf32>
// CHECK: linea.presum %[[X]] decay(%[[G]] : tensor<2x?xf32>) offsets(%[[P]]) dim = 1 reverse : tensor<2x?x5xf32>, tensor<4xi32> -> tensor<2x?x5xf32>
func.func @packed_presum(%x: tensor<2x?x5xf32>, %g: tensor<2x?xf32>, %o: tensor<?xindex>, %p: tensor<4xi32>)
    -> (tensor<2x?x5xf32>, tensor<2x?x5xf32>) {
  %0 = linea.presum %x offsets(%o) exclusive : tensor<2x?x5xf32>, tensor<?xindex> -> tensor<2x?x5xf32>
  %1 = linea.presum %x decay(%g : tensor<2x?xf32>) offsets(%p) dim = 1 reverse
      : tensor<2x?x5xf32>, tensor<4xi32> -> tensor<2x?x5xf32>
  return %0, %1 : tensor<2x?x5xf32>, tensor<2x?x5xf32>
}

// Packed linear attention: one state per segment ([N, B..., Dk, Dv]) and
// one prefix length per segment; the offsets' type follows the initial
// state's, the lengths' type follows the offsets' (an index prefix is not
// written).
// CHECK-LABEL: func.func @packed_linear_attention
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<2x?x8xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x?x6xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<2x?xf32>, %[[S:[a-zA-Z0-9_]+]]: tensor<?x2x8x6xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<?xindex>, %[[J:[a-zA-Z0-9_]+]]: tensor<?xi32>)
// CHECK: linea.linear_attention %[[Q]], %[[Q]], %[[V]] init(%[[S]]) offsets(%[[O]]) mask = prefix(%[[J]]) : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>, tensor<?x2x8x6xf32>, tensor<?xindex>, tensor<?xi32> -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
// CHECK: linea.gated_linear_attention %[[Q]], %[[Q]], %[[V]], %[[G]] offsets(%[[O]]) mask = causal : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>, tensor<2x?xf32>, tensor<?xindex> -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
func.func @packed_linear_attention(%q: tensor<2x?x8xf32>, %v: tensor<2x?x6xf32>, %g: tensor<2x?xf32>,
                                   %s0: tensor<?x2x8x6xf32>, %o: tensor<?xindex>, %js: tensor<?xi32>)
    -> (tensor<2x?x6xf32>, tensor<?x2x8x6xf32>, tensor<?x2x8x6xf32>) {
  %y, %s = linea.linear_attention %q, %q, %v init(%s0) offsets(%o) mask = prefix(%js)
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>, tensor<?x2x8x6xf32>,
        tensor<?xindex>, tensor<?xi32> -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
  %z, %t = linea.gated_linear_attention %q, %q, %v, %g offsets(%o) mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x6xf32>, tensor<2x?xf32>, tensor<?xindex>
      -> tensor<2x?x6xf32>, tensor<?x2x8x6xf32>
  return %y, %s, %t : tensor<2x?x6xf32>, tensor<?x2x8x6xf32>, tensor<?x2x8x6xf32>
}

// Packed softmax attention: the offsets' type follows the value's.
// CHECK-LABEL: func.func @packed_attention
// CHECK-SAME: (%[[Q:[a-zA-Z0-9_]+]]: tensor<4x?x16xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<?xi32>)
// CHECK: linea.attention %[[Q]], %[[Q]], %[[Q]] offsets(%[[O]]) mask = causal : tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<?xi32> -> tensor<4x?x16xf32>
func.func @packed_attention(%q: tensor<4x?x16xf32>, %o: tensor<?xi32>) -> tensor<4x?x16xf32> {
  %p = linea.attention %q, %q, %q offsets(%o) mask = causal
      : tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<?xi32> -> tensor<4x?x16xf32>
  return %p : tensor<4x?x16xf32>
}

// A decayed presum: the decay is the input's leading dims.
// CHECK-LABEL: func.func @decayed_presum
// CHECK-SAME: (%[[H:[a-zA-Z0-9_]+]]: tensor<8x?x4x3xf32>, %[[G:[a-zA-Z0-9_]+]]: tensor<8x?x4xf32>, %[[A:[a-zA-Z0-9_]+]]: tensor<8x?xbf16>)
// CHECK: linea.presum %[[H]] decay(%[[G]] : tensor<8x?x4xf32>) dim = 1 exclusive : tensor<8x?x4x3xf32>
// CHECK: linea.presum %[[H]] decay(%[[A]] : tensor<8x?xbf16>) dim = 1 reverse : tensor<8x?x4x3xf32>
func.func @decayed_presum(%h: tensor<8x?x4x3xf32>, %g: tensor<8x?x4xf32>, %a: tensor<8x?xbf16>)
    -> (tensor<8x?x4x3xf32>, tensor<8x?x4x3xf32>) {
  %0 = linea.presum %h decay(%g : tensor<8x?x4xf32>) dim = 1 exclusive : tensor<8x?x4x3xf32>
  %1 = linea.presum %h decay(%a : tensor<8x?xbf16>) dim = 1 reverse : tensor<8x?x4x3xf32>
  return %0, %1 : tensor<8x?x4x3xf32>, tensor<8x?x4x3xf32>
}

// CHECK-LABEL: func.func @linear_attention_masks
func.func @linear_attention_masks(%q: tensor<4x32x16xf32>, %k: tensor<4x32x16xf32>,
                                  %v: tensor<4x32x8xf32>) -> (tensor<4x32x8xf32>, tensor<4x32x8xf32>, tensor<4x32x8xf32>) {
  // CHECK: linea.linear_attention %{{.*}}, %{{.*}}, %{{.*}} mask = none :
  %0 = linea.linear_attention %q, %k, %v mask = none
      : tensor<4x32x16xf32>, tensor<4x32x16xf32>, tensor<4x32x8xf32> -> tensor<4x32x8xf32>
  // CHECK: mask = causal feature_map = relu scale = 1.250000e-01
  %1 = linea.linear_attention %q, %k, %v mask = causal feature_map = relu scale = 0.125
      : tensor<4x32x16xf32>, tensor<4x32x16xf32>, tensor<4x32x8xf32> -> tensor<4x32x8xf32>
  // CHECK: mask = prefix(12) feature_map = elu_plus_one normalize :
  %2 = linea.linear_attention %q, %k, %v mask = prefix(12) feature_map = elu_plus_one normalize
      : tensor<4x32x16xf32>, tensor<4x32x16xf32>, tensor<4x32x8xf32> -> tensor<4x32x8xf32>
  return %0, %1, %2 : tensor<4x32x8xf32>, tensor<4x32x8xf32>, tensor<4x32x8xf32>
}

// CHECK-LABEL: func.func @linear_attention_states
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x?x16xf32>, %{{.*}}: tensor<2x3x?x16xf32>, %{{.*}}: tensor<2x3x?x4xf32>, %[[S0:.+]]: tensor<2x3x16x4xf32>, %[[J:.+]]: index)
func.func @linear_attention_states(%q: tensor<2x3x?x16xf32>, %k: tensor<2x3x?x16xf32>,
                                   %v: tensor<2x3x?x4xf32>, %s0: tensor<2x3x16x4xf32>,
                                   %j: index) -> (tensor<2x3x?x4xf32>, tensor<2x3x16x4xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = linea.linear_attention %[[Q]], %{{.*}}, %{{.*}} init(%[[S0]]) mask = prefix(%[[J]]) :
  // CHECK-SAME: -> tensor<2x3x?x4xf32>, tensor<2x3x16x4xf32>
  %o, %s = linea.linear_attention %q, %k, %v init(%s0) mask = prefix(%j)
      : tensor<2x3x?x16xf32>, tensor<2x3x?x16xf32>, tensor<2x3x?x4xf32>, tensor<2x3x16x4xf32>
      -> tensor<2x3x?x4xf32>, tensor<2x3x16x4xf32>
  return %o, %s : tensor<2x3x?x4xf32>, tensor<2x3x16x4xf32>
}

// CHECK-LABEL: func.func @linear_attention_half
func.func @linear_attention_half(%q: tensor<?x8xf16>, %v: tensor<?x8xf16>) -> (tensor<?x8xf16>, tensor<8x8xf32>) {
  // CHECK: linea.linear_attention {{.*}} -> tensor<?x8xf16>, tensor<8x8xf32>
  %o, %s = linea.linear_attention %q, %q, %v mask = causal
      : tensor<?x8xf16>, tensor<?x8xf16>, tensor<?x8xf16> -> tensor<?x8xf16>, tensor<8x8xf32>
  return %o, %s : tensor<?x8xf16>, tensor<8x8xf32>
}

// CHECK-LABEL: func.func @gated
func.func @gated(%q: tensor<2x64x16xf32>, %v: tensor<2x64x8xf32>, %g: tensor<2x64x16xf32>,
                 %gs: tensor<2x64xf32>, %s0: tensor<2x16x8xf32>, %j: index)
    -> (tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x16x8xf32>) {
  // CHECK: linea.gated_linear_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask = causal scale = 5.000000e-01 :
  %0 = linea.gated_linear_attention %q, %q, %v, %g mask = causal scale = 0.5
      : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x8xf32>, tensor<2x64x16xf32> -> tensor<2x64x8xf32>
  // CHECK: linea.gated_linear_attention {{.*}} init(%{{.*}}) mask = prefix(%{{.*}}) :
  %1, %s = linea.gated_linear_attention %q, %q, %v, %gs init(%s0) mask = prefix(%j)
      : tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x8xf32>, tensor<2x64xf32>, tensor<2x16x8xf32>
      -> tensor<2x64x8xf32>, tensor<2x16x8xf32>
  return %0, %1, %s : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x16x8xf32>
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %v: tensor<2x4x12x32xf32>)
    -> (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) {
  // CHECK: linea.attention %{{.*}}, %{{.*}}, %{{.*}} mask = none :
  %0 = linea.attention %q, %k, %v mask = none
      : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x32xf32> -> tensor<2x4x8x32xf32>
  // CHECK: mask = causal scale = 2.500000e-01 :
  %1 = linea.attention %q, %k, %v mask = causal scale = 0.25
      : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x32xf32> -> tensor<2x4x8x32xf32>
  return %0, %1 : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
}

// CHECK-LABEL: func.func @fold
func.func @fold(%x: tensor<?x16x8xf32>, %m: tensor<?x4x8xf32>) -> (tensor<?x16x8xf32>, tensor<?x4x8xf32>) {
  // CHECK: linea.fold %{{.*}}, %{{.*}} segment_length = 4 : tensor<?x16x8xf32>, tensor<?x4x8xf32> {
  // CHECK-NEXT: ^bb0(%[[W:.+]]: tensor<?x8x8xf32>):
  // CHECK: linea.attention %[[W]], %[[W]], %[[W]] mask = causal
  // CHECK: linea.presum
  // CHECK: linea.yield %{{.*}} : tensor<?x8x8xf32>
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<?x16x8xf32>, tensor<?x4x8xf32> {
  ^bb0(%w: tensor<?x8x8xf32>):
    %a = linea.attention %w, %w, %w mask = causal
        : tensor<?x8x8xf32>, tensor<?x8x8xf32>, tensor<?x8x8xf32> -> tensor<?x8x8xf32>
    %b = linea.presum %a exclusive : tensor<?x8x8xf32>
    linea.yield %b : tensor<?x8x8xf32>
  }
  return %y, %mem : tensor<?x16x8xf32>, tensor<?x4x8xf32>
}

// CHECK-LABEL: func.func @folded_attention
func.func @folded_attention(%x: tensor<2x?x16xf32>, %m: tensor<2x4x16xf32>, %w: tensor<16x16xf32>)
    -> (tensor<2x?x16xf32>, tensor<2x4x16xf32>) {
  // CHECK: linea.folded_attention %{{.*}}, %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) segment_length = 4 num_heads = 2 :
  %y, %mem = linea.folded_attention %x, %m weights(%w, %w, %w, %w) segment_length = 4 num_heads = 2
      : tensor<2x?x16xf32>, tensor<2x4x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  return %y, %mem : tensor<2x?x16xf32>, tensor<2x4x16xf32>
}

// CHECK-LABEL: func.func @check
// CHECK-SAME: (%[[OK:.+]]: i1, %[[N:.+]]: index, %[[M:.+]]: i32)
func.func @check(%ok: i1, %n: index, %m: i32) {
  // CHECK: linea.check %[[OK]], "f.mlir:1:1: {{[{][{]}}literal} {0} vs {1}"(%[[N]], %[[M]] : index, i32)
  linea.check %ok, "f.mlir:1:1: {{literal} {0} vs {1}"(%n, %m : index, i32)
  // CHECK: linea.check %[[OK]], "no values"{{$}}
  linea.check %ok, "no values"
  return
}

// The docs' spellings of a form: the keyword in the custom syntax, the
// attribute in the generic one; both print as the keyword.
// CHECK-LABEL: func.func @form_spellings
func.func @form_spellings(%q: tensor<2x64x8xf32>) -> (tensor<2x64x8xf32>, tensor<2x64x8xf32>) {
  // CHECK: linea.linear_attention {{.*}} mask = causal form = chunked(64) :
  %a = linea.linear_attention %q, %q, %q mask = causal form = chunked(64)
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32> -> tensor<2x64x8xf32>
  // CHECK: linea.linear_attention {{.*}} mask = causal form = chunk_parallel(64) :
  %b = "linea.linear_attention"(%q, %q, %q) <{form = #linea.form<chunk_parallel, 64>,
      mask = #linea.mask<causal>, feature_map = #linea.feature_map<identity>, scale = 1.0 : f32,
      operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}>
      : (tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %a, %b : tensor<2x64x8xf32>, tensor<2x64x8xf32>
}

// The planned target: every number, a calibrated flag printed only where set.
// CHECK: module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108, threads = 256, shared_memory = 166912, value_tile = 64, matrix_flops = 3.120000e+14, scalar_flops = 1.950000e+13, bytes = 2.040000e+12, step_seconds = 9.9999999999999995E-7, contraction_tile = 6.400000e+01, calibrated = true>}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_80", units = 108, threads = 256, shared_memory = 166912, value_tile = 64, matrix_flops = 3.12e14, scalar_flops = 1.95e13, bytes = 2.04e12, step_seconds = 1.0e-6, contraction_tile = 64.0, calibrated = true>} {
}
// CHECK: module attributes {linea.target = #linea.target<kind = cpu, units = 2, threads = 1, shared_memory = 0, value_tile = 0, matrix_flops = 4.000000e+09, scalar_flops = 4.000000e+09, bytes = 8.000000e+09, step_seconds = 2.000000e-06, contraction_tile = 3.200000e+01>}
module attributes {linea.target = #linea.target<kind = cpu, units = 2, threads = 1, shared_memory = 0, value_tile = 0, matrix_flops = 4.0e9, scalar_flops = 4.0e9, bytes = 8.0e9, step_seconds = 2.0e-6, contraction_tile = 32.0, calibrated = false>} {
}
