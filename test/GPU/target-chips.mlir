// One program planned for two chips: each pass reads the numbers of the
// chip the module records (#linea.target), not a built-in H100.
// RUN: linea-opt %s "-linea-select-forms=target=gpu chip=sm_90a" -linea-map-to-gpu -split-input-file 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: linea-opt %s "-linea-select-forms=target=gpu chip=sm_80" -linea-map-to-gpu -split-input-file 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: linea-opt %s "-linea-optimize=target=gpu chip=sm_90a form=chunk_parallel chunk-size=64" -split-input-file | FileCheck %s --check-prefix=OPT90A
// RUN: linea-opt %s "-linea-optimize=target=gpu chip=sm_80 form=chunk_parallel chunk-size=64" -split-input-file | FileCheck %s --check-prefix=OPT80

// A sequence block with 180 KiB of temporaries: one block on sm_90a (227
// KiB of shared memory per block), a host loop on sm_80 (163 KiB).
// SM90A-NOT: remark
// SM90A-LABEL: func.func @block_of_180k
// SM90A: scf.forall
// SM90A: } {mapping = [#gpu.block<linear_dim_0>]}
// SM80: remark: sequence loop stays on the host: 184320 bytes of temporaries exceed 166912 bytes of shared memory
// SM80-LABEL: func.func @block_of_180k
// SM80-NOT: #gpu.block
func.func @block_of_180k(%o: memref<4x16xf32>) {
  scf.forall (%b) in (4) {
    %t = memref.alloc() : memref<180x256xf32>
    memref.dealloc %t : memref<180x256xf32>
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// A gated chunk of 64 rows with keys and values 128 wide holds 189,440 bytes
// in one block (TargetDescription::gatedChunkFitsBlock): on sm_90a its rows
// are a block per chunk, on sm_80 grids over every chunk.
// OPT90A-LABEL: func.func @gated_chunks
// OPT90A: scf.forall (%{{.+}}, %{{.+}}) in (1, 4) shared_outs(%{{.+}}) -> (tensor<1x4x64x128xf32>)
// OPT90A-NOT: tensor<1x4x4x16x16xf32>
// OPT80-LABEL: func.func @gated_chunks
// OPT80-NOT: in (1, 4) shared_outs
// OPT80: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 4, 4) shared_outs(%{{.+}}) -> (tensor<1x4x4x16x16xf32>)
// OPT80-NOT: in (1, 4) shared_outs
func.func @gated_chunks(%q: tensor<1x256x128xf32>, %g: tensor<1x256x128xf32>) -> tensor<1x256x128xf32> {
  %o = linea.gated_linear_attention %q, %q, %q, %g mask = causal
      : tensor<1x256x128xf32>, tensor<1x256x128xf32>, tensor<1x256x128xf32>, tensor<1x256x128xf32> -> tensor<1x256x128xf32>
  return %o : tensor<1x256x128xf32>
}
