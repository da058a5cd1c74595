// Every verifier and parser error of the dialect, one case each.
// RUN: linea-opt %s -split-input-file -verify-diagnostics

func.func @presum_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'input' must have rank >= 1, but has rank 0}}
  %0 = linea.presum %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @presum_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{dim 2 is out of range for 'input' of rank 2}}
  %0 = linea.presum %x dim = 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @presum_element_type(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = linea.presum %x : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

func.func @presum_decay_rank(%h: tensor<2x5x3xf32>, %g: tensor<2xf32>) -> tensor<2x5x3xf32> {
  // expected-error @+1 {{'decay' must have rank 2 to 3 (the leading dims of 'input' through dim 1), but has rank 1}}
  %0 = linea.presum %h decay(%g : tensor<2xf32>) : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @presum_decay_size(%h: tensor<2x5x3x4xf32>, %g: tensor<2x6xf32>) -> tensor<2x5x3x4xf32> {
  // expected-error @+1 {{'decay' dim 1 6 does not match 'input' dim 1 5}}
  %0 = linea.presum %h decay(%g : tensor<2x6xf32>) dim = 1 : tensor<2x5x3x4xf32>
  return %0 : tensor<2x5x3x4xf32>
}

// -----

func.func @presum_offsets_empty(%x: tensor<4x8xf32>, %o: tensor<0xindex>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'offsets' must have N + 1 >= 1 entries (N segments), but has 0}}
  %0 = linea.presum %x offsets(%o) : tensor<4x8xf32>, tensor<0xindex> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @presum_offsets_element_type(%x: tensor<4x8xf32>, %o: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand #1 must be 1D tensor of index or 32-bit signless integer or 64-bit signless integer values}}
  %0 = linea.presum %x offsets(%o) : tensor<4x8xf32>, tensor<3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @presum_offsets_result_type(%x: tensor<4x8xf32>, %o: tensor<3xindex>) -> tensor<4x8xf32> {
  // expected-error @+1 {{result type 'tensor<4x9xf32>' must be the input's 'tensor<4x8xf32>'}}
  %0 = linea.presum %x offsets(%o) : tensor<4x8xf32>, tensor<3xindex> -> tensor<4x9xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @presum_decay_blocked(%h: tensor<2x5x3xf32>, %g: tensor<2x5xf32>) -> tensor<2x5x3xf32> {
  // expected-error @+1 {{cannot take form #linea.form<blocked_scan>: its legal forms are scan}}
  %0 = linea.presum %h decay(%g : tensor<2x5xf32>) form = blocked_scan : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

func.func @query_rank(%q: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'query' must have rank >= 2 ([B..., L, Dk]), but has rank 1}}
  %0 = linea.linear_attention %q, %q, %q mask = causal : tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @query_dynamic_feature(%q: tensor<16x?xf32>) -> tensor<16x?xf32> {
  // expected-error @+1 {{'query' feature dim must be static, got ?}}
  %0 = linea.linear_attention %q, %q, %q mask = causal : tensor<16x?xf32>, tensor<16x?xf32>, tensor<16x?xf32> -> tensor<16x?xf32>
  return %0 : tensor<16x?xf32>
}

// -----

func.func @key_rank(%q: tensor<2x16x8xf32>, %k: tensor<16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'key' must have rank 3 like 'query', but has rank 2}}
  %0 = linea.linear_attention %q, %k, %q mask = causal : tensor<2x16x8xf32>, tensor<16x8xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @key_batch(%q: tensor<2x16x8xf32>, %k: tensor<3x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'key' batch dim 0 is 3 but 'query' batch dim 0 is 2}}
  %0 = linea.linear_attention %q, %k, %q mask = causal : tensor<2x16x8xf32>, tensor<3x16x8xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @key_length(%q: tensor<16x8xf32>, %k: tensor<12x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'key' sequence length 12 does not match 'query' sequence length 16}}
  %0 = linea.linear_attention %q, %k, %q mask = none : tensor<16x8xf32>, tensor<12x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @key_dk(%q: tensor<16x8xf32>, %k: tensor<16x4xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'key' feature dim (Dk) 4 does not match 'query' feature dim (Dk) 8}}
  %0 = linea.linear_attention %q, %k, %q mask = none : tensor<16x8xf32>, tensor<16x4xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @key_dynamic_feature(%q: tensor<16x8xf32>, %k: tensor<16x?xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'key' feature dim must be static, got ?}}
  %0 = linea.linear_attention %q, %k, %q mask = none : tensor<16x8xf32>, tensor<16x?xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @value_element_type(%q: tensor<16x8xf32>, %v: tensor<16x8xf16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'value' element type 'f16' does not match 'query' element type 'f32'}}
  %0 = linea.linear_attention %q, %q, %v mask = none : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @value_length(%q: tensor<?x8xf32>, %v: tensor<5x4xf32>) -> tensor<?x4xf32> {
  // A dynamic L is compatible with any static one: this verifies.
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<?x8xf32>, tensor<?x8xf32>, tensor<5x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

func.func @value_length_static(%q: tensor<6x8xf32>, %v: tensor<5x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'value' sequence length 5 does not match 'query' sequence length 6}}
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<6x8xf32>, tensor<6x8xf32>, tensor<5x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @state_rank(%q: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %s: tensor<8x4xf32>) -> tensor<2x16x4xf32> {
  // expected-error @+1 {{'initial_state' must have rank 3 ([B..., Dk, Dv]), but has rank 2}}
  %0 = linea.linear_attention %q, %q, %v init(%s) mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>, tensor<8x4xf32> -> tensor<2x16x4xf32>
  return %0 : tensor<2x16x4xf32>
}

// -----

func.func @state_batch(%q: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %s: tensor<3x8x4xf32>) -> tensor<2x16x4xf32> {
  // expected-error @+1 {{'initial_state' batch dim 0 is 3 but 'query' batch dim 0 is 2}}
  %0 = linea.linear_attention %q, %q, %v init(%s) mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>, tensor<3x8x4xf32> -> tensor<2x16x4xf32>
  return %0 : tensor<2x16x4xf32>
}

// -----

func.func @state_dk(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>, %s: tensor<7x4xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'initial_state' Dk 7 does not match 'query' Dk 8}}
  %0 = linea.linear_attention %q, %q, %v init(%s) mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32>, tensor<7x4xf32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @state_dv(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>, %s: tensor<8x5xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'initial_state' Dv 5 does not match 'value' Dv 4}}
  %0 = linea.linear_attention %q, %q, %v init(%s) mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32>, tensor<8x5xf32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @state_element_type(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>, %s: tensor<8x4xf16>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'initial_state' must have element type f32 (states accumulate in f32), got 'f16'}}
  %0 = linea.linear_attention %q, %q, %v init(%s) mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32>, tensor<8x4xf16> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @final_state_dv(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'final_state' Dv 8 does not match 'value' Dv 4}}
  %0, %1 = linea.linear_attention %q, %q, %v mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32> -> tensor<16x4xf32>, tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

func.func @output_length(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>) -> tensor<15x4xf32> {
  // expected-error @+1 {{'output' sequence length 15 does not match 'query' sequence length 16}}
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32> -> tensor<15x4xf32>
  return %0 : tensor<15x4xf32>
}

// -----

func.func @output_dv(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'output' feature dim 8 does not match 'value' feature dim 4}}
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @output_rank(%q: tensor<16x8xf32>, %v: tensor<16x4xf32>) -> tensor<1x16x4xf32> {
  // expected-error @+1 {{'output' must have rank 2 like 'query', but has rank 3}}
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32> -> tensor<1x16x4xf32>
  return %0 : tensor<1x16x4xf32>
}

// -----

func.func @output_batch(%q: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>) -> tensor<3x16x4xf32> {
  // expected-error @+1 {{'output' batch dim 0 is 3 but 'query' batch dim 0 is 2}}
  %0 = linea.linear_attention %q, %q, %v mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32> -> tensor<3x16x4xf32>
  return %0 : tensor<3x16x4xf32>
}

// -----

func.func @output_element_type(%q: tensor<16x8xf16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'output' element type 'f32' does not match 'value' element type 'f16'}}
  %0 = linea.linear_attention %q, %q, %q mask = causal : tensor<16x8xf16>, tensor<16x8xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @prefix_too_long(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{prefix_length 17 exceeds the 'query' sequence length 16}}
  %0 = linea.linear_attention %q, %q, %q mask = prefix(17) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @prefix_negative(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{prefix_length -1 is negative}}
  %0 = linea.linear_attention %q, %q, %q mask = prefix(-1) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @prefix_missing(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{mask = prefix needs exactly one prefix length: a static integer or an index operand}}
  %0 = "linea.linear_attention"(%q, %q, %q) <{mask = #linea.mask<prefix>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @prefix_both(%q: tensor<16x8xf32>, %j: index) -> tensor<16x8xf32> {
  // expected-error @+1 {{mask = prefix needs exactly one prefix length: a static integer or an index operand}}
  %0 = "linea.linear_attention"(%q, %q, %q, %j) <{mask = #linea.mask<prefix>, prefix_length = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1>}> : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, index) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @prefix_length_without_prefix(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{a prefix length is only allowed with mask = prefix, not mask = causal}}
  %0 = "linea.linear_attention"(%q, %q, %q) <{mask = #linea.mask<causal>, prefix_length = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @normalize_with_state(%q: tensor<16x8xf32>, %s: tensor<8x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'normalize' cannot be combined with 'initial_state'}}
  %0 = linea.linear_attention %q, %q, %q init(%s) mask = causal normalize : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @unknown_mask(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown mask 'sliding'; expected none, causal, prefix}}
  %0 = linea.linear_attention %q, %q, %q mask = sliding : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @unknown_feature_map(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown feature map 'softmax'; expected identity, elu_plus_one, relu}}
  %0 = linea.linear_attention %q, %q, %q mask = none feature_map = softmax : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @unknown_attribute_value(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = linea.linear_attention %q, %q, %q mask = none scale = "big" : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @gate_rank(%q: tensor<16x8xf32>, %g: tensor<1x16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'gate' must be [B..., L, Dk] (rank 2) or [B..., L] (rank 1), but has rank 3}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<1x16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @gate_length(%q: tensor<16x8xf32>, %g: tensor<15xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'gate' sequence length 15 does not match 'query' sequence length 16}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<15xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @gate_dk(%q: tensor<16x8xf32>, %g: tensor<16x4xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'gate' feature dim (Dk) 4 does not match 'query' feature dim (Dk) 8}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x4xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @gate_batch(%q: tensor<2x16x8xf32>, %g: tensor<3x16xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'gate' batch dim 0 is 3 but 'query' batch dim 0 is 2}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = causal : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<3x16xf32> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @gated_prefix_too_long(%q: tensor<16x8xf32>, %g: tensor<16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{prefix_length 20 exceeds the 'query' sequence length 16}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = prefix(20) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @attention_prefix(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{mask = prefix is not supported by softmax attention; use none or causal}}
  %0 = linea.attention %q, %q, %q mask = prefix : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @attention_value_length(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<5x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'value' sequence length 5 does not match 'key' sequence length 6}}
  %0 = linea.attention %q, %k, %v mask = none : tensor<4x8xf32>, tensor<6x8xf32>, tensor<5x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_dk(%q: tensor<4x8xf32>, %k: tensor<6x7xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'key' feature dim (Dk) 7 does not match 'query' feature dim (Dk) 8}}
  %0 = linea.attention %q, %k, %q mask = none : tensor<4x8xf32>, tensor<6x7xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @attention_output(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'output' sequence length 6 does not match 'query' sequence length 4}}
  %0 = linea.attention %q, %k, %k mask = none : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @attention_query_rank(%q: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'query' must have rank >= 2 ([B..., Lq, Dk]), but has rank 1}}
  %0 = linea.attention %q, %q, %q mask = none : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @fold_not_multiple(%x: tensor<10x8xf32>, %m: tensor<4x8xf32>) -> tensor<10x8xf32> {
  // expected-error @+1 {{'input' sequence length 10 is not a multiple of segment_length 4}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<10x8xf32>, tensor<4x8xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    linea.yield %w : tensor<8x8xf32>
  }
  return %y : tensor<10x8xf32>
}

// -----

func.func @fold_segment_positive(%x: tensor<?x8xf32>, %m: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{segment_length must be in [1, 16777216], got 0}}
  %y, %mem = linea.fold %x, %m segment_length = 0 : tensor<?x8xf32>, tensor<?x8xf32> {
  ^bb0(%w: tensor<0x8xf32>):
    linea.yield %w : tensor<0x8xf32>
  }
  return %y : tensor<?x8xf32>
}

// -----

func.func @fold_memory_length(%x: tensor<16x8xf32>, %m: tensor<3x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'memory' sequence length 3 does not match segment_length 4}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x8xf32>, tensor<3x8xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    linea.yield %w : tensor<8x8xf32>
  }
  return %y : tensor<16x8xf32>
}

// -----

func.func @fold_memory_feature(%x: tensor<16x8xf32>, %m: tensor<4x6xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'memory' feature dim 6 does not match 'input' feature dim 8}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x8xf32>, tensor<4x6xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    linea.yield %w : tensor<8x8xf32>
  }
  return %y : tensor<16x8xf32>
}

// -----

func.func @fold_memory_rank(%x: tensor<2x16x8xf32>, %m: tensor<4x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'memory' must have rank 3 like 'input', but has rank 2}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<2x16x8xf32>, tensor<4x8xf32> {
  ^bb0(%w: tensor<2x8x8xf32>):
    linea.yield %w : tensor<2x8x8xf32>
  }
  return %y : tensor<2x16x8xf32>
}

// -----

func.func @fold_memory_batch(%x: tensor<2x16x8xf32>, %m: tensor<5x4x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'memory' batch dim 0 is 5 but 'input' batch dim 0 is 2}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<2x16x8xf32>, tensor<5x4x8xf32> {
  ^bb0(%w: tensor<2x8x8xf32>):
    linea.yield %w : tensor<2x8x8xf32>
  }
  return %y : tensor<2x16x8xf32>
}

// -----

func.func @fold_memory_element(%x: tensor<16x8xf32>, %m: tensor<4x8xbf16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'memory' element type 'bf16' does not match 'input' element type 'f32'}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x8xf32>, tensor<4x8xbf16> {
  ^bb0(%w: tensor<8x8xf32>):
    linea.yield %w : tensor<8x8xf32>
  }
  return %y : tensor<16x8xf32>
}

// -----

func.func @fold_input_rank(%x: tensor<16xf32>, %m: tensor<4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'input' must have rank >= 2 ([B..., L, D]), but has rank 1}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16xf32>, tensor<4xf32> {
  ^bb0(%w: tensor<8xf32>):
    linea.yield %w : tensor<8xf32>
  }
  return %y : tensor<16xf32>
}

// -----

func.func @fold_window_type(%x: tensor<16x8xf32>, %m: tensor<4x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{body must take one window argument of type 'tensor<8x8xf32>'}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x8xf32>, tensor<4x8xf32> {
  ^bb0(%w: tensor<4x8xf32>):
    linea.yield %w : tensor<4x8xf32>
  }
  return %y : tensor<16x8xf32>
}

// -----

func.func @fold_yield_type(%x: tensor<16x8xf32>, %m: tensor<4x8xf32>, %other: tensor<4x8xf32>) -> tensor<16x8xf32> {
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x8xf32>, tensor<4x8xf32> {
  ^bb0(%w: tensor<8x8xf32>):
    // expected-error @+1 {{yields 'tensor<4x8xf32>' but the fold window is 'tensor<8x8xf32>'}}
    linea.yield %other : tensor<4x8xf32>
  }
  return %y : tensor<16x8xf32>
}

// -----

func.func @fold_feature_dynamic(%x: tensor<16x?xf32>, %m: tensor<4x?xf32>) -> tensor<16x?xf32> {
  // expected-error @+1 {{'input' feature dim must be static, got ?}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<16x?xf32>, tensor<4x?xf32> {
  ^bb0(%w: tensor<8x?xf32>):
    linea.yield %w : tensor<8x?xf32>
  }
  return %y : tensor<16x?xf32>
}

// -----

func.func @yield_outside_fold(%x: tensor<8xf32>) {
  // expected-error @+1 {{'linea.yield' op expects parent op 'linea.fold'}}
  linea.yield %x : tensor<8xf32>
}

// -----

func.func @folded_weight_shape(%x: tensor<16x8xf32>, %m: tensor<4x8xf32>, %w: tensor<8x8xf32>, %bad: tensor<8x4xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'wk' must be 'tensor<8x8xf32>' (D x D with D = 8), got 'tensor<8x4xf32>'}}
  %y, %mem = linea.folded_attention %x, %m weights(%w, %bad, %w, %w) segment_length = 4 num_heads = 2 : tensor<16x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @folded_heads(%x: tensor<16x8xf32>, %m: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{num_heads 3 must be positive and divide the feature dim 8}}
  %y, %mem = linea.folded_attention %x, %m weights(%w, %w, %w, %w) segment_length = 4 num_heads = 3 : tensor<16x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @folded_not_multiple(%x: tensor<18x8xf32>, %m: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<18x8xf32> {
  // expected-error @+1 {{'input' sequence length 18 is not a multiple of segment_length 4}}
  %y, %mem = linea.folded_attention %x, %m weights(%w, %w, %w, %w) segment_length = 4 num_heads = 2 : tensor<18x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %y : tensor<18x8xf32>
}

// -----

func.func @truncated(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{expected ':'}}
  %0 = linea.linear_attention %q, %q, %q mask = causal
}

// -----

func.func @form_chunk_zero(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{a chunked form needs a chunk size >= 1}}
  %0 = linea.linear_attention %q, %q, %q mask = causal form = chunked(0) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @form_size_out_of_range(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{form size 16777217 is out of range [0, 16777216]}}
  %0 = linea.linear_attention %q, %q, %q mask = causal form = chunked(16777217) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @form_takes_no_size(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{form 'oneshot' takes no size, got 4}}
  %0 = linea.linear_attention %q, %q, %q mask = none form = oneshot(4) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @unknown_form(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown form 'fast'; expected oneshot, chunked, quadratic, scan, blocked_scan, chunk_parallel}}
  %0 = linea.linear_attention %q, %q, %q mask = none form = fast : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @oneshot_on_causal(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{cannot take form #linea.form<oneshot>: its legal forms are chunked, chunk_parallel, quadratic}}
  %0 = linea.linear_attention %q, %q, %q mask = causal form = oneshot : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @form_on_unsplit_prefix(%q: tensor<16x8xf32>, %g: tensor<16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{a prefix(j) op has no single form; linea-split-prefix splits it into a bidirectional and a causal part}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = prefix(5) form = chunked(4) : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @presum_chunked(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{its legal forms are scan, blocked_scan}}
  %0 = linea.presum %x form = chunked(4) : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @generic_form_checked(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{a chunked form needs a chunk size >= 1}}
  %0 = "linea.linear_attention"(%q, %q, %q) <{mask = #linea.mask<causal>, form = #linea.form<chunked, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>}> : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @fold_segment_huge(%x: tensor<?x8xf32>, %m: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{segment_length must be in [1, 16777216], got 4611686018427387904}}
  %y, %mem = linea.fold %x, %m segment_length = 4611686018427387904 : tensor<?x8xf32>, tensor<?x8xf32> {
  ^bb0(%w: tensor<?x8xf32>):
    linea.yield %w : tensor<?x8xf32>
  }
  return %y : tensor<?x8xf32>
}

// -----

func.func @zero_feature_dim(%q: tensor<16x0xf32>) -> tensor<16x0xf32> {
  // expected-error @+1 {{'query' dim 1 is 0; Linea's ops take non-empty tensors}}
  %0 = linea.linear_attention %q, %q, %q mask = causal : tensor<16x0xf32>, tensor<16x0xf32>, tensor<16x0xf32> -> tensor<16x0xf32>
  return %0 : tensor<16x0xf32>
}

// -----

func.func @zero_batch_dim(%q: tensor<0x16x8xf32>, %v: tensor<0x16x4xf32>) -> tensor<0x16x4xf32> {
  // expected-error @+1 {{'query' dim 0 is 0; Linea's ops take non-empty tensors}}
  %0 = linea.attention %q, %q, %v mask = none : tensor<0x16x8xf32>, tensor<0x16x8xf32>, tensor<0x16x4xf32> -> tensor<0x16x4xf32>
  return %0 : tensor<0x16x4xf32>
}

// -----

func.func @zero_value_columns(%q: tensor<16x8xf32>, %v: tensor<16x0xf32>) -> tensor<16x0xf32> {
  // expected-error @+1 {{'value' dim 1 is 0; Linea's ops take non-empty tensors}}
  %0 = linea.linear_attention %q, %q, %v mask = none : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x0xf32> -> tensor<16x0xf32>
  return %0 : tensor<16x0xf32>
}

// -----

func.func @presum_empty(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
  // expected-error @+1 {{'input' dim 1 is 0; Linea's ops take non-empty tensors}}
  %0 = linea.presum %x : tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

func.func @fold_empty(%x: tensor<2x0x8xf32>, %m: tensor<2x4x8xf32>) -> tensor<2x0x8xf32> {
  // expected-error @+1 {{'input' dim 1 is 0; Linea's ops take non-empty tensors}}
  %y, %mem = linea.fold %x, %m segment_length = 4 : tensor<2x0x8xf32>, tensor<2x4x8xf32> {
  ^bb0(%w: tensor<2x8x8xf32>):
    linea.yield %w : tensor<2x8x8xf32>
  }
  return %y : tensor<2x0x8xf32>
}

// -----

func.func @misspelt_keyword(%q: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown keyword 'normalise'; expected one of init, mask, feature_map, scale, normalize, form, then ':'}}
  %0 = linea.linear_attention %q, %q, %q mask = causal normalise : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @misspelt_presum_keyword(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown keyword 'exclusve'; expected one of dim, exclusive, reverse, form, then ':'}}
  %0 = linea.presum %x exclusve : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @misspelt_gated_keyword(%q: tensor<16x8xf32>, %g: tensor<16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{unknown keyword 'normalize'; expected one of init, mask, scale, form, then ':'}}
  %0 = linea.gated_linear_attention %q, %q, %q, %g mask = causal normalize : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// The planned target is a #linea.target, not a name.
// expected-error@+1 {{'linea.target' must be a #linea.target<...>, not "gpu"}}
module attributes {linea.target = "gpu"} {
}

// -----

// expected-error@+2 {{expected target kind 'cpu' or 'gpu', got 'tpu'}}
// expected-error@+1 {{failed to parse Linea_TargetAttr parameter 'kind'}}
module attributes {linea.target = #linea.target<kind = tpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+1 {{a GPU target names its chip (sm_XX), got ''}}
module attributes {linea.target = #linea.target<kind = gpu, units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+1 {{a CPU target has no chip, got 'sm_80'}}
module attributes {linea.target = #linea.target<kind = cpu, chip = "sm_80", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+1 {{target units must be >= 1, got 0}}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 0, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+1 {{target shared_memory and value_tile must be >= 0, got -1 and 64}}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = -1, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+1 {{target bytes must be a positive number, got 0}}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 0.0, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
}

// -----

// expected-error@+2 {{expected 'true' or 'false', got 'yes'}}
// expected-error@+1 {{failed to parse Linea_TargetAttr parameter 'calibrated'}}
module attributes {linea.target = #linea.target<kind = gpu, chip = "sm_90a", units = 132, threads = 256, shared_memory = 232448, value_tile = 64, matrix_flops = 9.9e14, scalar_flops = 6.7e13, bytes = 3.35e12, step_seconds = 1.0e-6, contraction_tile = 64.0, calibrated = yes>} {
}

// -----

// expected-error@+1 {{unknown Linea attribute 'linea.chunk'}}
module attributes {linea.chunk = 64} {
}

// -----

func.func @check_refers_past_its_values(%ok: i1, %n: index) {
  // expected-error @+1 {{'linea.check' op message refers to value {1}, but the check has 1 values}}
  linea.check %ok, "size {0} is not {1}"(%n : index)
  return
}

// -----

func.func @check_hides_a_value(%ok: i1, %n: index, %m: i32) {
  // expected-error @+1 {{'linea.check' op value 1 is not shown in the message}}
  linea.check %ok, "size {0}"(%n, %m : index, i32)
  return
}

// -----

func.func @check_of_a_float(%ok: i1, %x: f32) {
  // expected-error @+1 {{must be variadic of index or signless integer}}
  linea.check %ok, "x = {0}"(%x : f32)
  return
}

// -----

func.func @packed_state_rank(%q: tensor<?x8xf32>, %s0: tensor<8x8xf32>, %o: tensor<?xindex>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'initial_state' must have rank 3 ([N, B..., Dk, Dv]: one state per segment of a packed op), but has rank 2}}
  %y = linea.linear_attention %q, %q, %q init(%s0) offsets(%o) mask = causal
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<8x8xf32>, tensor<?xindex> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @packed_state_batch(%q: tensor<2x?x8xf32>, %o: tensor<?xindex>) -> tensor<?x3x8x8xf32> {
  // expected-error @+1 {{'final_state' batch dim 0 is 3 but 'query' batch dim 0 is 2}}
  %y, %s = linea.gated_linear_attention %q, %q, %q, %q offsets(%o) mask = causal
      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<?xindex>
      -> tensor<2x?x8xf32>, tensor<?x3x8x8xf32>
  return %s : tensor<?x3x8x8xf32>
}

// -----

func.func @packed_static_prefix(%q: tensor<?x8xf32>, %o: tensor<?xindex>) -> tensor<?x8xf32> {
  // expected-error @+1 {{a packed op (offsets) takes one prefix length per segment: prefix(%js) with a tensor of N lengths, not a static prefix}}
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = prefix(4)
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xindex> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @packed_index_prefix(%q: tensor<?x8xf32>, %o: tensor<?xindex>, %j: index) -> tensor<?x8xf32> {
  // expected-error @+1 {{a packed op (offsets) takes one prefix length per segment: prefix(%js) with a tensor of N lengths, not one index}}
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = prefix(%j)
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xindex> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @prefixes_without_offsets(%q: tensor<?x8xf32>, %js: tensor<?xindex>) -> tensor<?x8xf32> {
  // expected-error @+1 {{a tensor of prefix lengths (one per segment) needs offsets(%o), which say the segments}}
  %y = linea.linear_attention %q, %q, %q mask = prefix(%js)
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xindex> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @packed_form(%q: tensor<?x8xf32>, %o: tensor<?xindex>) -> tensor<?x8xf32> {
  // expected-error @+1 {{cannot take form #linea.form<chunked, 64>: a packed op (offsets) takes forms per segment, after linea-split-segments writes it as one op per segment}}
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = causal form = chunked(64)
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xindex> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @packed_no_offsets(%q: tensor<?x8xf32>, %o: tensor<0xi64>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'offsets' must have N + 1 >= 1 entries (N segments), but has 0}}
  %y = linea.linear_attention %q, %q, %q offsets(%o) mask = none
      : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<0xi64> -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

func.func @packed_attention_lengths(%q: tensor<8x4xf32>, %k: tensor<12x4xf32>, %o: tensor<3xindex>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'key' sequence length (packed) 12 does not match 'query' sequence length (packed) 8}}
  %y = linea.attention %q, %k, %k offsets(%o) mask = causal
      : tensor<8x4xf32>, tensor<12x4xf32>, tensor<12x4xf32>, tensor<3xindex> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A flash-attention call records the mask, the scale and a 16-bit
// tensor-core type.
func.func private @kernel(memref<1x64x32xbf16>, memref<1x64x32xbf16>, memref<1x64x32xbf16>, memref<1x64x32xbf16>) attributes {linea.flash_attention}
func.func @flash_call(%x: memref<1x64x32xbf16>) {
  // expected-error@+1 {{'linea.flash_attention' is a unit attribute on a declaration, or on a call of (q, k, v, out) or (q, k, v, offsets, out) {causal = bool, scale = f32, operand_type = bf16 or f16}}}
  call @kernel(%x, %x, %x, %x) {linea.flash_attention = {causal = true, scale = 1.0 : f32, operand_type = f32}} : (memref<1x64x32xbf16>, memref<1x64x32xbf16>, memref<1x64x32xbf16>, memref<1x64x32xbf16>) -> ()
  return
}
