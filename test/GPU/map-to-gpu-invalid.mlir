// RUN: linea-opt %s "-linea-select-forms=target=gpu target-description=%S/Inputs/shared-1k.json" -linea-map-to-gpu -split-input-file -verify-diagnostics

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

// -----

// A sequence block whose temporaries a tensor-core warp reads as workgroup
// memory (ldmatrix) cannot become a host loop over global buffers: refused
// (linea-contractions-to-mma decided with a larger shared memory).
func.func @shared_views_too_large(%o: memref<4x16xbf16>) {
  // expected-remark @below {{sequence loop stays on the host: 65536 bytes of temporaries exceed 1024 bytes of shared memory}}
  // expected-error @below {{sequence block reads its temporaries as shared memory (ldmatrix) but cannot be one block: run linea-contractions-to-mma for the same #linea.target}}
  scf.forall (%b) in (4) {
    %t = memref.alloc() : memref<128x256xbf16>
    %w = memref.memory_space_cast %t : memref<128x256xbf16> to memref<128x256xbf16, #gpu.address_space<workgroup>>
    memref.dealloc %t : memref<128x256xbf16>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
