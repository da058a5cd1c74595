//===- LineaOpsVerify.cpp - Linea op and attribute verifiers --------------===//
//
// The verifiers of Linea's ops (hasVerifier, hasRegionVerifier) and of
// FormAttr, and the shape checks they share.
//
// Every verifier error names the operand(s) and the sizes involved, so that a
// user reading it knows which tensor to fix and how.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

using namespace mlir;
using namespace mlir::linea;

//===----------------------------------------------------------------------===//
// Shape checking helpers
//===----------------------------------------------------------------------===//

namespace {

/// An operand or result as the diagnostics name it.
struct Named {
  StringRef name;
  RankedTensorType type;
};

std::string formatDim(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks one dim of `a` against one dim of `b`; `what` names the dims
/// ("sequence length", "feature dim", ...).
LogicalResult checkDim(Operation *op, Named a, int64_t dimA, Named b,
                       int64_t dimB, StringRef what) {
  int64_t sizeA = a.type.getDimSize(dimA), sizeB = b.type.getDimSize(dimB);
  if (dimsCompatible(sizeA, sizeB))
    return success();
  return op->emitOpError() << "'" << a.name << "' " << what << " "
                           << formatDim(sizeA) << " does not match '"
                           << b.name << "' " << what << " "
                           << formatDim(sizeB);
}

LogicalResult checkRank(Operation *op, Named x, int64_t rank,
                        StringRef because) {
  if (x.type.getRank() == rank)
    return success();
  return op->emitOpError() << "'" << x.name << "' must have rank " << rank
                           << " " << because << ", but has rank "
                           << x.type.getRank();
}

/// The leading `numBatch` dims of `x` (after its first `lead`) must agree
/// with those of `ref`.
LogicalResult checkBatchDims(Operation *op, Named x, Named ref,
                             int64_t numBatch, int64_t lead = 0) {
  for (int64_t i = 0; i < numBatch; ++i) {
    int64_t a = x.type.getDimSize(lead + i), b = ref.type.getDimSize(i);
    if (!dimsCompatible(a, b))
      return op->emitOpError()
             << "'" << x.name << "' batch dim " << i << " is " << formatDim(a)
             << " but '" << ref.name << "' batch dim " << i << " is "
             << formatDim(b);
  }
  return success();
}

/// No static dim may be 0: the forms and the GPU mapping divide rows and
/// columns into non-empty tiles.
LogicalResult checkNonEmpty(Operation *op, Named x) {
  for (auto [i, size] : llvm::enumerate(x.type.getShape()))
    if (size == 0)
      return op->emitOpError() << "'" << x.name << "' dim " << i
                               << " is 0; Linea's ops take non-empty tensors";
  return success();
}

/// A sequence operand `[B..., L, D]`: non-empty, with a static feature dim.
LogicalResult checkStaticFeatureDim(Operation *op, Named x) {
  if (failed(checkNonEmpty(op, x)))
    return failure();
  if (!ShapedType::isDynamic(x.type.getDimSize(featureDim(x.type))))
    return success();
  return op->emitOpError() << "'" << x.name
                           << "' feature dim must be static, got ?";
}

LogicalResult checkSameElementType(Operation *op, Named x, Named ref) {
  if (x.type.getElementType() == ref.type.getElementType())
    return success();
  return op->emitOpError() << "'" << x.name << "' element type "
                           << x.type.getElementType() << " does not match '"
                           << ref.name << "' element type "
                           << ref.type.getElementType();
}

/// A sequence tensor `[B..., L, D]` with the batch dims, L, and element type
/// of `ref`: the checks shared by q/k/v of every attention op.
LogicalResult checkSequenceOperand(Operation *op, Named x, Named ref,
                                   bool sameLength) {
  int64_t rank = ref.type.getRank();
  if (failed(checkRank(op, x, rank, "like '" + ref.name.str() + "'")) ||
      failed(checkBatchDims(op, x, ref, rank - 2)) ||
      failed(checkStaticFeatureDim(op, x)) ||
      failed(checkSameElementType(op, x, ref)))
    return failure();
  if (sameLength)
    return checkDim(op, x, rank - 2, ref, rank - 2, "sequence length");
  return success();
}

/// A state tensor `[B..., Dk, Dv]` matching q's batch dims, k's Dk and v's
/// Dv; on a packed op one per segment, `[N, B..., Dk, Dv]`.
LogicalResult checkState(Operation *op, Named state, Named q, Named v,
                         bool perSegment) {
  int64_t rank = q.type.getRank(), lead = perSegment ? 1 : 0;
  if (!state.type.getElementType().isF32())
    return op->emitOpError() << "'" << state.name
                             << "' must have element type f32 (states "
                                "accumulate in f32), got "
                             << state.type.getElementType();
  if (failed(checkRank(op, state, rank + lead,
                       perSegment ? "([N, B..., Dk, Dv]: one state per "
                                    "segment of a packed op)"
                                  : "([B..., Dk, Dv])")))
    return failure();
  if (failed(checkBatchDims(op, state, q, rank - 2, lead)) ||
      failed(checkDim(op, state, lead + rank - 2, q, rank - 1, "Dk")) ||
      failed(checkDim(op, state, lead + rank - 1, v, rank - 1, "Dv")))
    return failure();
  return success();
}

/// The attention output `[B..., Lq, Dv]` in the element type of `v`.
LogicalResult checkOutput(Operation *op, Named out, Named q, Named v) {
  int64_t rank = q.type.getRank();
  if (failed(checkRank(op, out, rank, "like 'query'")) ||
      failed(checkBatchDims(op, out, q, rank - 2)) ||
      failed(checkDim(op, out, rank - 2, q, rank - 2, "sequence length")) ||
      failed(checkDim(op, out, rank - 1, v, rank - 1, "feature dim")) ||
      failed(checkSameElementType(op, out, v)))
    return failure();
  return success();
}

/// At least the first offset (`N + 1` of them for N segments): the rest is
/// the run-time check's (a constant's too, as it is known only as folded).
LogicalResult verifyOffsets(Operation *op,
                            TypedValue<RankedTensorType> offsets) {
  if (!offsets || offsets.getType().getDimSize(0) != 0)
    return success();
  return op->emitOpError()
         << "'offsets' must have N + 1 >= 1 entries (N segments), but has 0";
}

/// The mask, the static `prefix_length` and the `index` operand must agree.
LogicalResult checkMaskSpec(Operation *op, Mask mask,
                            std::optional<int64_t> prefixLength,
                            Value prefixIndex, Named q) {
  if (mask != Mask::prefix) {
    if (prefixLength || prefixIndex)
      return op->emitOpError() << "a prefix length is only allowed with "
                                  "mask = prefix, not mask = "
                               << stringifyMask(mask);
    return success();
  }
  if (prefixLength.has_value() == static_cast<bool>(prefixIndex))
    return op->emitOpError() << "mask = prefix needs exactly one prefix "
                                "length: a static integer or an index operand";
  if (!prefixLength)
    return success();
  int64_t seqLen = q.type.getDimSize(seqDim(q.type));
  if (*prefixLength < 0)
    return op->emitOpError() << "prefix_length " << *prefixLength
                             << " is negative";
  if (!ShapedType::isDynamic(seqLen) && *prefixLength > seqLen)
    return op->emitOpError()
           << "prefix_length " << *prefixLength
           << " exceeds the 'query' sequence length " << seqLen;
  return success();
}

LogicalResult checkAtLeastRank(Operation *op, Named x, int64_t rank,
                               StringRef layout) {
  if (x.type.getRank() >= rank)
    return success();
  return op->emitOpError() << "'" << x.name << "' must have rank >= " << rank
                           << " (" << layout << "), but has rank "
                           << x.type.getRank();
}

/// A packed op's prefix lengths are one per segment (a tensor), an unpacked
/// op's one `index`; the segment count itself is the run-time check's.
LogicalResult checkSegments(LinearAttentionOpInterface op) {
  auto offsets = cast_or_null<TypedValue<RankedTensorType>>(op.getOffsets());
  if (failed(verifyOffsets(op, offsets)))
    return failure();
  Value prefix = op.getPrefixIndex();
  if (op.isPacked() && op.getStaticPrefixLength())
    return op->emitOpError()
           << "a packed op (offsets) takes one prefix length per segment: "
              "prefix(%js) with a tensor of N lengths, not a static prefix";
  if (!prefix || isa<RankedTensorType>(prefix.getType()) == op.isPacked())
    return success();
  if (op.isPacked())
    return op->emitOpError()
           << "a packed op (offsets) takes one prefix length per segment: "
              "prefix(%js) with a tensor of N lengths, not one index";
  return op->emitOpError() << "a tensor of prefix lengths (one per segment) "
                              "needs offsets(%o), which say the segments";
}

/// q, k, v of linear and gated linear attention, and the optional states.
LogicalResult verifyLinearAttentionOperands(LinearAttentionOpInterface op) {
  Operation *raw = op.getOperation();
  Named q{"query", op.getQuery().getType()};
  Named k{"key", op.getKey().getType()};
  Named v{"value", op.getValue().getType()};
  if (failed(checkAtLeastRank(raw, q, 2, "[B..., L, Dk]")) ||
      failed(checkStaticFeatureDim(raw, q)) ||
      failed(checkSequenceOperand(raw, k, q, /*sameLength=*/true)) ||
      failed(checkSequenceOperand(raw, v, q, /*sameLength=*/true)) ||
      failed(checkDim(raw, k, featureDim(k.type), q, featureDim(q.type),
                      "feature dim (Dk)")))
    return failure();
  bool packed = op.isPacked();
  if (Value init = op.getInitialState())
    if (failed(checkState(
            raw, Named{"initial_state", cast<RankedTensorType>(init.getType())},
            q, v, packed)))
      return failure();
  if (Value fin = op.getFinalState())
    if (failed(checkState(
            raw, Named{"final_state", cast<RankedTensorType>(fin.getType())}, q,
            v, packed)))
      return failure();
  if (failed(checkOutput(raw, Named{"output", op.getOutput().getType()}, q,
                         v)))
    return failure();
  if (failed(checkMaskSpec(raw, op.getMask(), op.getStaticPrefixLength(),
                           op.getPrefixIndex(), q)))
    return failure();
  return checkSegments(op);
}

std::string listForms(ArrayRef<FormKind> kinds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(kinds, os,
                        [&](FormKind kind) { os << stringifyFormKind(kind); });
  return text;
}

/// The chosen form, if any, must be one the op can take.
LogicalResult verifyFormIsLegal(FormOpInterface op) {
  FormAttr form = op.getFormAttr();
  if (!form)
    return success();
  SmallVector<FormKind> legal = op.getLegalForms();
  if (llvm::is_contained(legal, form.getKind()))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "cannot take form " << form << ": ";
  auto attention = dyn_cast<LinearAttentionOpInterface>(op.getOperation());
  if (legal.empty() && attention && attention.isPacked())
    return diag << "a packed op (offsets) takes forms per segment, after "
                   "linea-split-segments writes it as one op per segment";
  if (legal.empty())
    return diag << "a prefix(j) op has no single form; linea-split-prefix "
                   "splits it into a bidirectional and a causal part";
  return diag << "its legal forms are " << listForms(legal);
}

} // namespace

//===----------------------------------------------------------------------===//
// FormAttr
//===----------------------------------------------------------------------===//

LogicalResult FormAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               FormKind kind, int64_t size) {
  if (size < 0 || size > kMaxFormSize)
    return emitError() << "form size " << size << " is out of range [0, "
                       << kMaxFormSize << "]";
  if (isChunkedKind(kind) && size == 0)
    return emitError() << "a " << stringifyFormKind(kind)
                       << " form needs a chunk size >= 1";
  if (size != 0 && !isChunkedKind(kind) && kind != FormKind::blocked_scan)
    return emitError() << "form '" << stringifyFormKind(kind)
                       << "' takes no size, got " << size;
  return success();
}

//===----------------------------------------------------------------------===//
// PresumOp
//===----------------------------------------------------------------------===//

LogicalResult PresumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (rank < 1)
    return emitOpError() << "'input' must have rank >= 1, but has rank 0";
  int64_t dim = getScanDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for 'input' of "
                         << "rank " << rank;
  if (failed(checkNonEmpty(*this, Named{"input", getInput().getType()})))
    return failure();
  if (failed(verifyDecay()))
    return failure();
  if (failed(verifyOffsets(*this, getOffsets())))
    return failure();
  return verifyFormIsLegal(*this);
}

/// The decay's shape is the input's leading dims, through the scanned one.
LogicalResult PresumOp::verifyDecay() {
  TypedValue<RankedTensorType> decay = getDecay();
  if (!decay)
    return success();
  Named input{"input", getInput().getType()};
  Named named{"decay", decay.getType()};
  int64_t rank = input.type.getRank(), decayRank = named.type.getRank();
  int64_t dim = getScanDim();
  if (decayRank <= dim || decayRank > rank)
    return emitOpError() << "'decay' must have rank " << dim + 1 << " to "
                         << rank << " (the leading dims of 'input' through "
                         << "dim " << dim << "), but has rank " << decayRank;
  for (int64_t i = 0; i < decayRank; ++i)
    if (failed(checkDim(*this, named, i, input, i,
                        "dim " + std::to_string(i))))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp and GatedLinearAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult LinearAttentionOp::verify() {
  if (failed(verifyLinearAttentionOperands(*this)))
    return failure();
  if (getNormalize() && getInitialState())
    return emitOpError() << "'normalize' cannot be combined with "
                            "'initial_state': the normalizer of a carried "
                            "state is not defined";
  return verifyFormIsLegal(*this);
}

LogicalResult GatedLinearAttentionOp::verify() {
  if (failed(verifyLinearAttentionOperands(*this)))
    return failure();
  Named q{"query", getQuery().getType()};
  Named g{"gate", getGate().getType()};
  int64_t rank = q.type.getRank();
  if (g.type.getRank() != rank && g.type.getRank() != rank - 1)
    return emitOpError() << "'gate' must be [B..., L, Dk] (rank " << rank
                         << ") or [B..., L] (rank " << rank - 1
                         << "), but has rank " << g.type.getRank();
  if (failed(checkBatchDims(*this, g, q, rank - 2)) ||
      failed(checkDim(*this, g, rank - 2, q, rank - 2, "sequence length")))
    return failure();
  if (g.type.getRank() == rank &&
      failed(checkDim(*this, g, rank - 1, q, rank - 1, "feature dim (Dk)")))
    return failure();
  return verifyFormIsLegal(*this);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  Operation *op = getOperation();
  Named q{"query", getQuery().getType()};
  Named k{"key", getKey().getType()};
  Named v{"value", getValue().getType()};
  if (failed(checkAtLeastRank(op, q, 2, "[B..., Lq, Dk]")) ||
      failed(checkStaticFeatureDim(op, q)) ||
      failed(checkSequenceOperand(op, k, q, /*sameLength=*/false)) ||
      failed(checkSequenceOperand(op, v, q, /*sameLength=*/false)) ||
      failed(checkDim(op, k, featureDim(k.type), q, featureDim(q.type),
                      "feature dim (Dk)")) ||
      failed(checkDim(op, v, seqDim(v.type), k, seqDim(k.type),
                      "sequence length")) ||
      failed(checkOutput(op, Named{"output", getOutput().getType()}, q, v)))
    return failure();
  if (getMask() == Mask::prefix)
    return emitOpError() << "mask = prefix is not supported by softmax "
                            "attention; use none or causal";
  // Queries and keys are packed alike: one sequence length.
  if (getOffsets() && failed(checkDim(op, k, seqDim(k.type), q, seqDim(q.type),
                                      "sequence length (packed)")))
    return failure();
  return verifyOffsets(op, getOffsets());
}

//===----------------------------------------------------------------------===//
// FoldOp
//===----------------------------------------------------------------------===//

/// x: [B..., L, D] and memory: [B..., l, D] with `L % l == 0`.
static LogicalResult verifyFoldOperands(Operation *op, Named x, Named memory,
                                        int64_t segmentLength) {
  if (failed(checkAtLeastRank(op, x, 2, "[B..., L, D]")) ||
      failed(checkStaticFeatureDim(op, x)) ||
      failed(checkRank(op, memory, x.type.getRank(), "like 'input'")) ||
      failed(checkBatchDims(op, memory, x, numBatchDims(x.type))) ||
      failed(checkDim(op, memory, featureDim(memory.type), x,
                      featureDim(x.type), "feature dim")) ||
      failed(checkSameElementType(op, memory, x)))
    return failure();
  // Windows are 2 l rows: l stays far from where that could overflow.
  if (segmentLength <= 0 || segmentLength > kMaxFormSize)
    return op->emitOpError() << "segment_length must be in [1, "
                             << kMaxFormSize << "], got " << segmentLength;
  int64_t memoryLen = memory.type.getDimSize(seqDim(memory.type));
  if (!dimsCompatible(memoryLen, segmentLength))
    return op->emitOpError()
           << "'memory' sequence length " << memoryLen
           << " does not match segment_length " << segmentLength;
  int64_t seqLen = x.type.getDimSize(seqDim(x.type));
  if (!ShapedType::isDynamic(seqLen) && seqLen % segmentLength != 0)
    return op->emitOpError()
           << "'input' sequence length " << seqLen
           << " is not a multiple of segment_length " << segmentLength;
  return success();
}

LogicalResult FoldOp::verify() {
  return verifyFoldOperands(*this, Named{"input", getInput().getType()},
                            Named{"memory", getMemory().getType()},
                            getSegmentLength());
}

LogicalResult FoldOp::verifyRegions() {
  Block &body = getBody().front();
  RankedTensorType x = getInput().getType();
  SmallVector<int64_t> windowShape(x.getShape());
  windowShape[seqDim(x)] = 2 * getSegmentLength();
  auto window = RankedTensorType::get(windowShape, x.getElementType());
  if (body.getNumArguments() != 1 || body.getArgument(0).getType() != window)
    return emitOpError() << "body must take one window argument of type "
                         << window;
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with linea.yield";
  if (yield.getValue().getType() != window)
    return yield.emitOpError()
           << "yields " << yield.getValue().getType()
           << " but the fold window is " << window;
  return success();
}

//===----------------------------------------------------------------------===//
// FoldedAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult FoldedAttentionOp::verify() {
  Operation *op = getOperation();
  Named x{"input", getInput().getType()};
  if (failed(verifyFoldOperands(op, x, Named{"memory", getMemory().getType()},
                                getSegmentLength())))
    return failure();
  int64_t model = x.type.getDimSize(featureDim(x.type));
  auto weightType = RankedTensorType::get({model, model},
                                          x.type.getElementType());
  std::pair<StringRef, Value> weights[] = {
      {"wq", getWq()}, {"wk", getWk()}, {"wv", getWv()}, {"wo", getWo()}};
  for (auto [name, weight] : weights)
    if (weight.getType() != weightType)
      return emitOpError() << "'" << name << "' must be " << weightType
                           << " (D x D with D = " << model << "), got "
                           << weight.getType();
  int64_t heads = getNumHeads();
  if (heads <= 0 || model % heads != 0)
    return emitOpError() << "num_heads " << heads
                         << " must be positive and divide the feature dim "
                         << model;
  return success();
}
