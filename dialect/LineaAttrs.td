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

/// A rate or size of the cost model: a positive floating-point number.
def Linea_RateParameter : APFloatParameter<"a positive number"> {
  let parser = "::mlir::linea::parseTargetNumber($_parser)";
  let printer = "$_printer << $_self.convertToDouble()";
}

def Linea_FlagParameter : AttrParameter<"bool", "true or false"> {
  let parser = "::mlir::linea::parseTargetFlag($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
  let defaultValue = "false";
}

def Linea_TargetKindParameter
    : AttrParameter<"::mlir::linea::TargetKind", "cpu or gpu"> {
  let parser = "::mlir::linea::parseTargetKind($_parser)";
  let printer = "$_printer << ::mlir::linea::stringifyTargetKind($_self)";
}

def Linea_TargetAttr : Linea_Attr<"Target", "target"> {
  let summary = "the machine a module's forms were planned for, with its numbers";
  let description = [{
    Every number a pass needs about the machine, carried by the module that
    was planned for it: `linea-select-forms` (and so `linea-optimize` and
    the pipelines) records it as the module's `linea.target` attribute, and
    the cost model, the GPU rewrites (chunk blocks, sequence blocks,
    tensor-core grids, scans) and the kernel report read it there. Passes
    run on a module without one use the built-in description of their
    target (the CPU, or an H100, `sm_90a`).

    - `kind`: `cpu` or `gpu`; `chip`: the NVIDIA chip (`sm_80`, `sm_90a`),
      empty for the CPU;
    - `units`: blocks that run at once (the SMs), 1 where loops run in
      order; `threads`: threads per GPU block; `shared_memory`: bytes of
      shared memory one block may use (the chip's opt-in maximum; 0 on the
      CPU); `value_tile`: value columns per sequence block;
    - the rates the cost model weighs forms with (`matrix_flops`,
      `scalar_flops` and `bytes` per second, `step_seconds` per sequential
      chunk step, `contraction_tile`: rows at which a contraction reaches
      half its peak);
    - `calibrated`: measured on a machine (`python3 -m linea.calibrate`,
      the `target-description` option) rather than the built-in estimates.

    ```mlir
    module attributes {linea.target = #linea.target<kind = gpu,
        chip = "sm_80", units = 108, threads = 256, shared_memory = 166912,
        value_tile = 64, matrix_flops = 3.12e14, scalar_flops = 1.95e13,
        bytes = 2.04e12, step_seconds = 1.0e-6, contraction_tile = 64.0>} {
    }
    ```
  }];
  let parameters = (ins
    Linea_TargetKindParameter:$kind,
    StringRefParameter<"the NVIDIA chip (empty for the CPU)", "\"\"">:$chip,
    "int64_t":$units,
    "int64_t":$threads,
    "int64_t":$shared_memory,
    "int64_t":$value_tile,
    Linea_RateParameter:$matrix_flops,
    Linea_RateParameter:$scalar_flops,
    Linea_RateParameter:$bytes,
    Linea_RateParameter:$step_seconds,
    Linea_RateParameter:$contraction_tile,
    Linea_FlagParameter:$calibrated
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "const ::mlir::linea::TargetDescription &":$description)>
  ];
  let extraClassDeclaration = [{
    /// The description these numbers make: the built-in one of the kind
    /// with every number of the attribute.
    ::mlir::linea::TargetDescription getDescription() const;
  }];
}

#endif // LINEA_ATTRS_TD
