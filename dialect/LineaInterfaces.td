//===- LineaInterfaces.td - Linea op interfaces ----------------*- tablegen -*-===//
//
// What passes ask of Linea ops, stated once: which forms an op can take
// (FormOpInterface) and what a linear-attention op is, gated or not
// (LinearAttentionOpInterface). Rewrites are written against these, so one
// pattern serves both linear-attention ops.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_INTERFACES_TD
#define LINEA_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Linea_FormOpInterface : OpInterface<"FormOpInterface"> {
  let description = [{
    An op that can be computed in several forms (one-shot, chunked,
    quadratic; sequential or blocked scan). The op says which forms are legal
    for it; the cost model chooses among them and records the choice in the
    op's `form` attribute, which the verifier checks against the legal ones
    and the rewrites obey. An op without a `form` is rewritten by any pass
    whose form is legal for it.
  }];
  let cppNamespace = "::mlir::linea";
  let methods = [
    InterfaceMethod<"The chosen form, or null when none was chosen.",
      "::mlir::linea::FormAttr", "getFormAttr", (ins),
      [{ return $_op.getFormAttr(); }]>,
    InterfaceMethod<"Records the chosen form.",
      "void", "setFormAttr", (ins "::mlir::linea::FormAttr":$form),
      [{ $_op.setFormAttr(form); }]>,
    InterfaceMethod<[{
        The forms this op can take, from its mask and static sizes. Empty
        when the op has no single form (a `prefix(j)` op: split it first).
      }],
      "::llvm::SmallVector<::mlir::linea::FormKind>", "getLegalForms">,
  ];
  let extraSharedClassDeclaration = [{
    /// Whether a rewrite into `kind` may apply: the op chose `kind`, or it
    /// chose nothing and `kind` is legal for it.
    bool formAllows(::mlir::linea::FormKind kind) {
      if (::mlir::linea::FormAttr form = $_op.getFormAttr())
        return form.getKind() == kind;
      return ::llvm::is_contained($_op.getLegalForms(), kind);
    }
  }];
}

def Linea_PackedOpInterface : OpInterface<"PackedOpInterface"> {
  let description = [{
    An op that may carry packed segments: an `offsets` operand whose N + 1
    entries cut its sequence dim into N sequences, the op being defined as
    itself on each segment alone. The op says what it reads of a segment
    and builds itself on one; the segment loop (linea-split-segments, the
    reference lowering) and the adjoint read packed ops only through this.
  }];
  let cppNamespace = "::mlir::linea";
  let methods = [
    InterfaceMethod<"The offsets, or null for one sequence.",
      "::mlir::Value", "getOffsets", (ins),
      [{ return $_op.getOffsets(); }]>,
    InterfaceMethod<[{
        What the op reads of each segment: the rows of its sequences along
        the sequence dim, entry n of its per-segment operands (initial
        states, prefix lengths), and the operand its output rows are shaped
        like.
      }],
      "::mlir::linea::PackedOperands", "getPackedOperands">,
    InterfaceMethod<[{
        The op without offsets on one segment: `rows` are the segment's
        rows of getPackedOperands' sequences, `entries` entry n of its
        entries, in their order; its results are the segment's rows of the
        packed op's (and entry n of per-segment results).
      }],
      "::mlir::Operation *", "buildOnSegment",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$rows, "::mlir::ValueRange":$entries)>,
  ];
  let extraClassDeclaration = [{
    bool isPacked() { return static_cast<bool>((*this).getOffsets()); }
  }];
}

def Linea_LinearAttentionOpInterface : OpInterface<"LinearAttentionOpInterface"> {
  let description = [{
    `o_i = scale * phi(q_i) @ S(i)` over sequences `[B..., L, D]`, with an
    optional log-space decay gate: `linea.linear_attention` and
    `linea.gated_linear_attention`. An ungated op has no gate; a gated op has
    the identity feature map and no `normalize`. `mask = none` means every
    row reads the state after the last token, for both ops.
  }];
  let cppNamespace = "::mlir::linea";
  let methods = [
    InterfaceMethod<"Queries `[B..., L, Dk]`.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getQuery", (ins),
      [{ return $_op.getQuery(); }]>,
    InterfaceMethod<"Keys `[B..., L, Dk]`.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getKey", (ins),
      [{ return $_op.getKey(); }]>,
    InterfaceMethod<"Values `[B..., L, Dv]`.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getValue", (ins),
      [{ return $_op.getValue(); }]>,
    InterfaceMethod<"The log-decay gate `[B..., L, Dk]` or `[B..., L]`; null without one.",
      "::mlir::Value", "getGate", (ins), [{ return $_op.getGate(); }]>,
    InterfaceMethod<"The initial state `[B..., Dk, Dv]` (`[N, B..., Dk, Dv]` when packed), or null.",
      "::mlir::Value", "getInitialState", (ins),
      [{ return $_op.getInitialState(); }]>,
    InterfaceMethod<[{
        The dynamic prefix length (an `index`, or with offsets a tensor of
        one length per segment), or null.
      }],
      "::mlir::Value", "getPrefixIndex", (ins),
      [{ return $_op.getPrefixIndex(); }]>,
    InterfaceMethod<"The N + 1 offsets of a packed sequence's segments, or null.",
      "::mlir::Value", "getOffsets", (ins),
      [{ return $_op.getOffsets(); }]>,
    InterfaceMethod<"The output `[B..., L, Dv]`.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getOutput", (ins),
      [{ return $_op.getOutput(); }]>,
    InterfaceMethod<"The final state result, or null.",
      "::mlir::Value", "getFinalState", (ins),
      [{ return $_op.getFinalState(); }]>,
    InterfaceMethod<"The mask.", "::mlir::linea::Mask", "getMask", (ins),
      [{ return $_op.getMask(); }]>,
    InterfaceMethod<"The static prefix length, if any.",
      "::std::optional<int64_t>", "getStaticPrefixLength", (ins), [{
        if (auto length = $_op.getPrefixLength())
          return static_cast<int64_t>(*length);
        return ::std::nullopt;
      }]>,
    InterfaceMethod<"The feature map applied to queries and keys.",
      "::mlir::linea::FeatureMap", "getFeatureMap", (ins),
      [{ return $_op.getFeatureMap(); }]>,
    InterfaceMethod<"The output scale.", "::llvm::APFloat", "getScale", (ins),
      [{ return $_op.getScale(); }]>,
    InterfaceMethod<"Whether output rows are divided by `phi(q) . z`.",
      "bool", "getNormalize", (ins), [{ return $_op.getNormalize(); }]>,
    InterfaceMethod<[{
        Creates an op of this op's kind from `spec` (a gated op takes the
        gate, an ungated one the feature map and `normalize`).
      }],
      "::mlir::Operation *", "createLike",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::mlir::linea::LinearAttentionSpec &":$spec)>,
  ];
  let extraClassDeclaration = [{
    /// The mask this op behaves as: a static `prefix(0)` is `causal` and a
    /// static `prefix(L)` is `none` (what canonicalization rewrites them to;
    /// passes that run without it ask this instead of the attribute).
    ::mlir::linea::Mask getEffectiveMask() {
      ::mlir::linea::Mask mask = (*this).getMask();
      ::std::optional<int64_t> length = (*this).getStaticPrefixLength();
      if (mask != ::mlir::linea::Mask::prefix || !length)
        return mask;
      ::mlir::RankedTensorType q = (*this).getQuery().getType();
      if (*length == 0)
        return ::mlir::linea::Mask::causal;
      if (*length == q.getDimSize(q.getRank() - 2))
        return ::mlir::linea::Mask::none;
      return mask;
    }
    /// Every row reads the state after the last token.
    bool isBidirectional() {
      return getEffectiveMask() == ::mlir::linea::Mask::none;
    }
    /// A causal op over one token (static L = 1): the recurrent decode step,
    /// whose only row reads the state after its token, as a bidirectional
    /// op's do.
    bool isDecodeStep() {
      ::mlir::RankedTensorType q = (*this).getQuery().getType();
      return getEffectiveMask() == ::mlir::linea::Mask::causal &&
             q.getDimSize(q.getRank() - 2) == 1;
    }
    /// Packed segments: the op acts on each segment alone, with one state
    /// and one prefix length per segment.
    bool isPacked() { return static_cast<bool>((*this).getOffsets()); }
    /// True for a gate with one decay per token (`[B..., L]`).
    bool hasScalarGate() {
      ::mlir::Value gate = (*this).getGate();
      return gate && ::llvm::cast<::mlir::RankedTensorType>(gate.getType())
                             .getRank() + 1 ==
                         (*this).getQuery().getType().getRank();
    }
    /// Everything that defines the op, to be changed and built again with
    /// createLike.
    ::mlir::linea::LinearAttentionSpec getSpec() {
      ::mlir::linea::LinearAttentionSpec spec;
      spec.query = (*this).getQuery();
      spec.key = (*this).getKey();
      spec.value = (*this).getValue();
      spec.gate = (*this).getGate();
      spec.initialState = (*this).getInitialState();
      spec.prefixIndex = (*this).getPrefixIndex();
      spec.offsets = (*this).getOffsets();
      spec.mask = (*this).getMask();
      spec.prefixLength = (*this).getStaticPrefixLength();
      spec.featureMap = (*this).getFeatureMap();
      spec.scale = (*this).getScale().convertToFloat();
      spec.normalize = (*this).getNormalize();
      spec.form = ::llvm::cast<::mlir::linea::FormOpInterface>(
                      (*this).getOperation()).getFormAttr();
      spec.outputType = (*this).getOutput().getType();
      if (::mlir::Value state = (*this).getFinalState())
        spec.finalStateType = state.getType();
      return spec;
    }
  }];
}

#endif // LINEA_INTERFACES_TD
