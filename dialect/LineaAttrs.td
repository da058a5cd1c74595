//===- LineaAttrs.td - Linea attributes ------------------------*- tablegen -*-===//

#ifndef LINEA_ATTRS_TD
#define LINEA_ATTRS_TD

include "LineaDialect.td"
include "LineaEnums.td"

def Linea_FormAttr : Linea_Attr<"Form", "form"> {
  let summary = "the form an op takes: its algorithm and, where it has one, its size";
  let description = [{
    The decision of the cost model (`linea-select-forms`), recorded on the op
    it concerns and obeyed by the rewrites:
    - `#linea.form<oneshot>`: the one-shot state `S = phi(K)^T V`,
      `O = phi(Q) S` (bidirectional regions, the `L = 1` decode step);
    - `#linea.form<chunked, 64>`: the chunked algorithm with chunks of 64
      rows (causal regions), one chunk after the other;
    - `#linea.form<chunk_parallel, 64>`: the same chunks in three phases
      that are each parallel over chunks (local states, a scan of the
      states along the chunk axis, outputs);
    - `#linea.form<quadratic>`: the masked quadratic form of the definition;
    - `#linea.form<scan>`, `#linea.form<blocked_scan>` (presum): the
      sequential scan, or the blocked two-level scan (`size` rows per block,
      0 to let `linea-presum-to-scan` choose).

    Which forms an op may take is the op's to say (`FormOpInterface`); its
    verifier rejects any other. An op's custom syntax writes its form as a
    keyword (`form = chunked(64)`); the attribute is what the generic form
    and the pass options show (a dialect attribute directly before the op's
    `: types` would take them as its own type).

    ```mlir
    %o = linea.linear_attention %q, %k, %v mask = causal
        form = chunked(64) : ...
    // generic form
    %o = "linea.linear_attention"(%q, %k, %v) <{form = #linea.form<chunked, 64>,
        mask = #linea.mask<causal>, ...}> : (...) -> ...
    ```
  }];
  let parameters = (ins
    EnumParameter<Linea_FormKind>:$kind,
    DefaultValuedParameter<"int64_t", "0">:$size
  );
  let assemblyFormat = "`<` $kind (`,` $size^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The rows per chunk of a chunked or chunk-parallel form (0 for other
    /// forms).
    int64_t getChunkSize() const {
      return isChunkedKind(getKind()) ? getSize() : 0;
    }
  }];
}

#endif // LINEA_ATTRS_TD
