// RUN: linea-opt %s --linea-sequence-parallel -split-input-file -verify-diagnostics
// RUN: not linea-opt %s -split-input-file --linea-sequence-parallel=mpi-implementation=LAM 2>&1 | FileCheck %s --check-prefix=IMPL

// IMPL: error: mpi-implementation must be OpenMPI or MPICH, got 'LAM'

// A fold's body reads every row of its window: not on a split sequence.
func.func @fold(%x: tensor<8x4xf32>, %m: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %y = linea.presum %x : tensor<8x4xf32>
  // expected-error @below {{cannot run sequence-parallel: its rows read keys from every rank}}
  %o, %mem = linea.fold %y, %m segment_length = 2 : tensor<8x4xf32>, tensor<2x4xf32> {
  ^bb0(%w: tensor<4x4xf32>):
    %r = linea.attention %w, %w, %w mask = causal
        : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    linea.yield %r : tensor<4x4xf32>
  }
  return %o : tensor<8x4xf32>
}

// -----

// A sequence and a replicated tensor as operands of one op.
func.func @mixed(%x: tensor<16x8xf32>, %k: tensor<16x8xf32>, %v: tensor<16x8xf32>)
    -> tensor<16x8xf32> {
  %q = linea.presum %x : tensor<16x8xf32>
  %w = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @below {{reads a replicated sequence operand next to sharded ones}}
  %o = linea.linear_attention %q, %w, %v mask = causal
      : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

// A sum over the split rows needs every rank's rows: not a row-local op.
func.func @reduction(%x: tensor<16x8xf32>) -> tensor<8xf32> {
  %y = linea.presum %x : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-error @below {{mixes the rows of the split sequence (operand #0 is reduced over, or indexed across its rows)}}
  %s = linalg.reduce ins(%y : tensor<16x8xf32>) outs(%init : tensor<8xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %s : tensor<8xf32>
}

// -----

// Row-local, but into an init the pass cannot resize.
func.func @init(%x: tensor<16x8xf32>, %out: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %y = linea.presum %x : tensor<16x8xf32>
  // expected-error @below {{writes into an init that linea-sequence-parallel cannot give this rank's rows}}
  %z = linalg.copy ins(%y : tensor<16x8xf32>) outs(%out : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %z : tensor<16x8xf32>
}

// -----

// One argument, two sequence dims.
// expected-error @below {{argument #0 is a sequence along dim 1 for one op and along dim 0 for another}}
func.func @two_dims(%x: tensor<16x16x8xf32>) -> (tensor<16x16x8xf32>, tensor<16x16x8xf32>) {
  %a = linea.presum %x : tensor<16x16x8xf32>
  %b = linea.presum %x dim = 0 : tensor<16x16x8xf32>
  return %a, %b : tensor<16x16x8xf32>, tensor<16x16x8xf32>
}

// -----

// The attribute names a dim of the value it is on.
// expected-error @below {{'linea.sharded_dim' on argument #0 must name a dim of a ranked tensor, got 2 : i64 on 'tensor<4x8xf32>'}}
func.func private @bad_dim(tensor<4x8xf32> {linea.sharded_dim = 2 : i64})

// -----

// expected-error @below {{unknown Linea attribute 'linea.shards' on result #0}}
func.func private @bad_name() -> (tensor<4x8xf32> {linea.shards = 0 : i64})

// -----

func.func @packed_decayed_presum(%x: tensor<16x8xf32>, %o: tensor<3xindex>) -> tensor<16x8xf32> {
  %a = arith.constant dense<0.5> : tensor<16xf32>
  // expected-error @+1 {{cannot run sequence-parallel: a decayed presum's ranks would exchange decayed totals}}
  %y = linea.presum %x decay(%a : tensor<16xf32>) offsets(%o)
      : tensor<16x8xf32>, tensor<3xindex> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}
