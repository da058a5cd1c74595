//===- LineaDialect.td - the Linea dialect ---------------------*- tablegen -*-===//
//
// The dialect and the base classes every Linea op and attribute derives from.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_DIALECT_TD
#define LINEA_DIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Linea_Dialect : Dialect {
  let name = "linea";
  let summary = "Sequence-mixing layers: presum, linear attention, folded attention";
  let description = [{
    Linea models the sequence-mixing layers of a language model at the level
    where their algorithmic choices live: a prefix sum along the sequence
    (`linea.presum`), linear attention with a bidirectional, causal or
    PrefixLM mask, optionally gated (`linea.linear_attention`,
    `linea.gated_linear_attention`), softmax attention (`linea.attention`) and
    folded context condensation (`linea.fold`, `linea.folded_attention`).

    Sequence tensors are `[B..., L, D]`: any number of leading batch dims,
    then the sequence, then the features. The passes rewrite bidirectional
    regions into a one-shot state computation and causal regions into the
    chunked algorithm, and lower everything to the CPU and to NVIDIA GPUs.
  }];
  let cppNamespace = "::mlir::linea";
  let useDefaultAttributePrinterParser = 1;
  // The canonicalizations shared by both linear-attention ops are patterns
  // on their interface, registered once for the dialect.
  let hasCanonicalizer = 1;
  // `linea.target`: the target the module's forms were planned for.
  let hasOperationAttrVerify = 1;
  // `linea.sharded_dim` on function arguments and results.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined with them, in LineaOps.cpp).
    void registerAttributes();

    /// Attaches the tiling and shape models both linear-attention ops share
    /// (LineaOps.cpp).
    void attachLinearAttentionModels();

    /// The discardable attribute linea-select-forms records on the op it
    /// runs on: the target its forms were planned for (TargetAttr).
    static constexpr ::llvm::StringLiteral kTargetAttrName = "linea.target";

    /// On an argument or result of a function that linea-sequence-parallel
    /// rewrote: the dim along which the value's rows are split across ranks.
    static constexpr ::llvm::StringLiteral kShardedDimAttrName =
        "linea.sharded_dim";

    /// On a function linea-differentiate made: the function it is the
    /// gradient of (a symbol reference), so a second run leaves it be.
    static constexpr ::llvm::StringLiteral kGradientOfAttrName =
        "linea.gradient_of";

    /// On an `scf.if` of linea-raise whose else region is the model's IR as
    /// written: the run-time alternative to a raise that holds only where a
    /// condition does (packed segment ids in order). Later raises leave
    /// that region be.
    static constexpr ::llvm::StringLiteral kAsWrittenAttrName =
        "linea.as_written";

    /// On a call standing for a flash-attention kernel until the program
    /// is on buffers (linea-flash-attention; linea-expand-flash-attention
    /// builds it): `{causal, scale, operand_type}`. On the private
    /// declaration such calls name: a unit attribute.
    static constexpr ::llvm::StringLiteral kFlashAttentionAttrName =
        "linea.flash_attention";
  }];
}

class Linea_Op<string mnemonic, list<Trait> traits = []>
    : Op<Linea_Dialect, mnemonic, traits>;

class Linea_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Linea_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // LINEA_DIALECT_TD
