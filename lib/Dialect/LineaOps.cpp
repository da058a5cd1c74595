//===- LineaOps.cpp - Linea op verifiers, parsers and canonicalizations --===//
//
// Every verifier error names the operand(s) and the sizes involved, so that a
// user reading it knows which tensor to fix and how.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::linea;

#include "linea/Dialect/LineaEnums.cpp.inc"

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

/// The leading `numBatch` dims of `x` must agree with those of `ref`.
LogicalResult checkBatchDims(Operation *op, Named x, Named ref,
                             int64_t numBatch) {
  for (int64_t i = 0; i < numBatch; ++i) {
    int64_t a = x.type.getDimSize(i), b = ref.type.getDimSize(i);
    if (!dimsCompatible(a, b))
      return op->emitOpError()
             << "'" << x.name << "' batch dim " << i << " is " << formatDim(a)
             << " but '" << ref.name << "' batch dim " << i << " is "
             << formatDim(b);
  }
  return success();
}

LogicalResult checkStaticFeatureDim(Operation *op, Named x) {
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

/// A state tensor `[B..., Dk, Dv]` matching q's batch dims, k's Dk and v's Dv.
LogicalResult checkState(Operation *op, Named state, Named q, Named v) {
  int64_t rank = q.type.getRank();
  if (!state.type.getElementType().isF32())
    return op->emitOpError() << "'" << state.name
                             << "' must have element type f32 (states "
                                "accumulate in f32), got "
                             << state.type.getElementType();
  if (failed(checkRank(op, state, rank, "([B..., Dk, Dv])")) ||
      failed(checkBatchDims(op, state, q, rank - 2)) ||
      failed(checkDim(op, state, rank - 2, q, rank - 1, "Dk")) ||
      failed(checkDim(op, state, rank - 1, v, rank - 1, "Dv")))
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

/// q, k, v of linear and gated linear attention, and the optional states.
template <typename OpTy>
LogicalResult verifyLinearAttentionOperands(OpTy op) {
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
  if (Value init = op.getInitialState())
    if (failed(checkState(
            raw, Named{"initial_state", cast<RankedTensorType>(init.getType())},
            q, v)))
      return failure();
  if (Value fin = op.getFinalState())
    if (failed(checkState(
            raw, Named{"final_state", cast<RankedTensorType>(fin.getType())},
            q, v)))
      return failure();
  if (failed(checkOutput(raw, Named{"output", op.getOutput().getType()}, q,
                         v)))
    return failure();
  return checkMaskSpec(raw, op.getMask(), op.getPrefixLength(),
                       op.getPrefixIndex(), q);
}

} // namespace

//===----------------------------------------------------------------------===//
// custom<MaskSpec>: `none`, `causal`, `prefix(128)`, `prefix(%j)`
//===----------------------------------------------------------------------===//

static ParseResult
parseMaskSpec(OpAsmParser &parser, MaskAttr &mask, IntegerAttr &prefixLength,
              std::optional<OpAsmParser::UnresolvedOperand> &prefixIndex) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Mask> parsed = symbolizeMask(keyword);
  if (!parsed)
    return parser.emitError(loc) << "unknown mask '" << keyword
                                 << "'; expected none, causal or prefix";
  mask = MaskAttr::get(parser.getContext(), *parsed);
  if (*parsed != Mask::prefix)
    return success();

  if (parser.parseLParen())
    return failure();
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
  if (hasOperand.has_value()) {
    if (failed(*hasOperand))
      return failure();
    prefixIndex = operand;
  } else {
    int64_t length;
    if (parser.parseInteger(length))
      return failure();
    prefixLength = parser.getBuilder().getI64IntegerAttr(length);
  }
  return parser.parseRParen();
}

static void printMaskSpec(OpAsmPrinter &printer, Operation *, MaskAttr mask,
                          IntegerAttr prefixLength, Value prefixIndex) {
  printer << stringifyMask(mask.getValue());
  if (prefixLength)
    printer << "(" << prefixLength.getInt() << ")";
  else if (prefixIndex)
    printer << "(" << prefixIndex << ")";
}

//===----------------------------------------------------------------------===//
// PresumOp
//===----------------------------------------------------------------------===//

int64_t PresumOp::getScanDim() {
  if (std::optional<int64_t> dim = getDim())
    return *dim;
  int64_t rank = getInput().getType().getRank();
  return rank >= 2 ? rank - 2 : 0;
}

LogicalResult PresumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (rank < 1)
    return emitOpError() << "'input' must have rank >= 1, but has rank 0";
  int64_t dim = getScanDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for 'input' of "
                         << "rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult LinearAttentionOp::verify() {
  if (failed(verifyLinearAttentionOperands(*this)))
    return failure();
  if (getNormalize() && getInitialState())
    return emitOpError() << "'normalize' cannot be combined with "
                            "'initial_state': the normalizer of a carried "
                            "state is not defined";
  return success();
}

namespace {

/// `prefix(%j)` with a constant `%j` becomes `prefix(j)`, so that the static
/// rewrites below and the verifier's bounds check see it.
template <typename OpTy>
struct FoldConstantPrefixIndex : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value index = op.getPrefixIndex();
    APInt value;
    if (!index || !matchPattern(index, m_ConstantInt(&value)))
      return failure();
    int64_t length = value.getSExtValue();
    int64_t seqLen =
        op.getQuery().getType().getDimSize(seqDim(op.getQuery().getType()));
    // An out-of-range constant stays an operand: folding it would turn a
    // runtime-checked program into one that no longer verifies.
    if (length < 0 || (!ShapedType::isDynamic(seqLen) && length > seqLen))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setPrefixLengthAttr(rewriter.getI64IntegerAttr(length));
      op.getPrefixIndexMutable().clear();
    });
    return success();
  }
};

/// `prefix(0)` is `causal`; for ungated attention `prefix(L)` is `none`.
template <typename OpTy>
struct SimplifyStaticPrefix : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getMask() != Mask::prefix || !op.getPrefixLength())
      return failure();
    int64_t length = op.getPrefixLength().value_or(0);
    int64_t seqLen =
        op.getQuery().getType().getDimSize(seqDim(op.getQuery().getType()));
    Mask replacement;
    if (length == 0)
      replacement = Mask::causal;
    else if (std::is_same_v<OpTy, LinearAttentionOp> && length == seqLen)
      replacement = Mask::none;
    else
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.setMask(replacement);
      op.removePrefixLengthAttr();
    });
    return success();
  }
};

} // namespace

void LinearAttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                    MLIRContext *context) {
  results.add<FoldConstantPrefixIndex<LinearAttentionOp>,
              SimplifyStaticPrefix<LinearAttentionOp>>(context);
}

//===----------------------------------------------------------------------===//
// GatedLinearAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult GatedLinearAttentionOp::verify() {
  if (failed(verifyLinearAttentionOperands(*this)))
    return failure();
  if (getMask() == Mask::none)
    return emitOpError() << "mask = none is not a gated mode; use causal or "
                            "prefix";
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
  if (!hasScalarGate())
    return checkDim(*this, g, rank - 1, q, rank - 1, "feature dim (Dk)");
  return success();
}

bool GatedLinearAttentionOp::prefixCoversSequence() {
  if (getMask() != Mask::prefix)
    return false;
  RankedTensorType queryType = getQuery().getType();
  int64_t seq = seqDim(queryType);
  if (std::optional<int64_t> length = getPrefixLength())
    return queryType.getDimSize(seq) == *length;
  auto slice = getQuery().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return false;
  OpFoldResult size = slice.getMixedSizes()[seq];
  return llvm::dyn_cast_if_present<Value>(size) == getPrefixIndex();
}

void GatedLinearAttentionOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldConstantPrefixIndex<GatedLinearAttentionOp>,
              SimplifyStaticPrefix<GatedLinearAttentionOp>>(context);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

float AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToFloat();
  RankedTensorType q = getQuery().getType();
  return 1.0f / std::sqrt(static_cast<float>(q.getDimSize(featureDim(q))));
}

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
  return success();
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
  if (segmentLength <= 0)
    return op->emitOpError() << "segment_length must be positive, got "
                             << segmentLength;
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

#define GET_OP_CLASSES
#include "linea/Dialect/LineaOps.cpp.inc"
