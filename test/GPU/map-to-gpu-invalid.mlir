// RUN: linea-opt %s -linea-map-to-gpu -split-input-file -verify-diagnostics

// The mapping is for buffers: a forall on tensors is refused, not mangled.
func.func @tensor_forall(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{linea-map-to-gpu runs on buffers: bufferize this scf.forall first}}
  %r = scf.forall (%b) in (4) shared_outs(%o = %e) -> (tensor<4x8xf32>) {
    %s = tensor.extract_slice %x[%b, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%b, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    }
  }
  return %r : tensor<4x8xf32>
}
