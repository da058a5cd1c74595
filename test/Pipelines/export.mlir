// linea-export: the hand-off to another compiler. Raised, forms chosen and
// rewritten, and written in upstream dialects only: linalg.generic (never a
// named op some MLIR lacks), tensor, scf, arith, math, and cf.assert for
// the run-time checks. Upstream mlir-opt parses the result.
// RUN: linea-opt %s --linea-export | FileCheck %s
// RUN: linea-opt %s --linea-export | mlir-opt --verify-roundtrip | FileCheck %s --check-prefix=UPSTREAM
// The same pipeline from upstream mlir-opt with Linea as a plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%linea_lib/libLineaPlugin.so --load-pass-plugin=%linea_lib/libLineaPlugin.so --pass-pipeline="builtin.module(linea-export{target=gpu})" | FileCheck %s --check-prefix=GPU
// A model as torch-mlir writes it: raised to causal linear attention first.
// RUN: linea-opt %S/../Raise/models/la_causal_tril_dynamic.mlir --linea-export | FileCheck %s --check-prefix=RAISED
// RUN: linea-opt %S/../Raise/models/la_causal_tril_dynamic.mlir --linea-export="raise=false" | FileCheck %s --check-prefix=AS-WRITTEN
// Packed documents by segment ids: the raise's guarded branch (the raised
// op where the ids are in order, the model as written else) loses its
// linea.as_written mark.
// RUN: linea-opt %S/../Raise/models/la_packed_causal_dynamic.mlir --linea-export | FileCheck %s --check-prefix=PACKED
// A forced chunked form keeps its loop over the chunks.
// RUN: linea-opt %s --linea-export="form=chunked" | FileCheck %s --check-prefix=CHUNKED

// The chunk-parallel form, no loop: the chunks' products and states at
// once, the states' scan as masked sums (linea-presum-to-masked-sums), the
// causal mask on the products' results (linea-split-output-masks). The
// lengths the op's verifier cannot see are checked with cf.assert.
// CHECK-LABEL: func.func @causal
// CHECK: cf.assert %{{.+}}, "{{.*}}linea.linear_attention: 'key' sequence length ? does not match 'query' sequence length ?"
// CHECK-NOT: scf.for
// CHECK: tensor.pad
// CHECK: linalg.generic
// CHECK-NOT: scf.for
// CHECK-NOT: {{= linea\.|linea.target}}
// CHECK-NOT: linalg.fill
// CHECK-NOT: affine.apply
// UPSTREAM-LABEL: func.func @causal
// UPSTREAM: linalg.generic
// CHUNKED-LABEL: func.func @causal
// CHUNKED: scf.for
// GPU-LABEL: func.func @causal
// GPU-NOT: scf.forall
// GPU-NOT: {{= linea\.|linea.target}}
func.func @causal(%q: tensor<4x?x16xf32>, %k: tensor<4x?x16xf32>, %v: tensor<4x?x16xf32>)
    -> tensor<4x?x16xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal
      : tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32> -> tensor<4x?x16xf32>
  return %o : tensor<4x?x16xf32>
}

// Softmax attention: for the CPU the loop over key tiles (the online
// softmax); for a GPU compiler loop-free, the masked softmax by its
// definition, which that compiler tiles into kernels of its own (IREE
// 3.13's CUDA target crashed on the tiles of the GPU plan).
// CHECK-LABEL: func.func @softmax
// CHECK: scf.for
// GPU-LABEL: func.func @softmax
// GPU-NOT: scf.for
// GPU: math.exp
// GPU-NOT: scf.for
// GPU: return
func.func @softmax(%q: tensor<4x?x16xf32>, %k: tensor<4x?x16xf32>, %v: tensor<4x?x16xf32>)
    -> tensor<4x?x16xf32> {
  %o = linea.attention %q, %k, %v mask = causal
      : tensor<4x?x16xf32>, tensor<4x?x16xf32>, tensor<4x?x16xf32> -> tensor<4x?x16xf32>
  return %o : tensor<4x?x16xf32>
}

// A gated op planned for a GPU gets grids over every chunk, not Linea's block
// per chunk (the receiving compiler maps the work; IREE's CUDA target
// crashed on the blocks).
// GPU-LABEL: func.func @gated
// GPU-NOT: scf.forall
// GPU: return
func.func @gated(%q: tensor<2x64x8xf32>, %g: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %o = linea.gated_linear_attention %q, %q, %q, %g mask = causal
      : tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32>, tensor<2x64x8xf32> -> tensor<2x64x8xf32>
  return %o : tensor<2x64x8xf32>
}

// RAISED-LABEL: func.func @main
// RAISED-NOT: {{= linea\.|linea.target|scf.for}}
// RAISED: tensor.pad
// RAISED-NOT: {{= linea\.|linea.target|scf.for}}
// AS-WRITTEN-LABEL: func.func @main
// AS-WRITTEN-NOT: scf.for
// AS-WRITTEN-NOT: linalg.batch_matmul
// AS-WRITTEN: linalg.generic
// The packed layer's offsets are built as i64 (no tensor of index, which
// IREE refuses across its dispatches) and its segments run one after another
// (IREE crashes on a top-level scf.forall).
// PACKED-LABEL: func.func @main
// PACKED-NOT: scf.forall
// PACKED-NOT: xindex>
// PACKED: scf.if
// PACKED: tensor.empty(%{{.+}}) : tensor<?xi64>
// PACKED: scf.for {{.*}} -> (tensor<2x3x?x4xf32>)
// PACKED-NOT: {{xindex>|scf.forall|= linea\.|linea.as_written|linea.target}}
