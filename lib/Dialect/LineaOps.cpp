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
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::linea;

#include "linea/Dialect/LineaEnums.cpp.inc"
#include "linea/Dialect/LineaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "linea/Dialect/LineaAttrs.cpp.inc"

void LineaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "linea/Dialect/LineaAttrs.cpp.inc"
      >();
}

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
// Custom syntax: `mask = none | causal | prefix(128) | prefix(%j)`,
// `feature_map = elu_plus_one` (omitted when identity)
//===----------------------------------------------------------------------===//

/// The keywords of an ODS enum's cases, in the order of their values (the
/// enums here number their cases from 0 without gaps).
template <typename EnumT>
static SmallVector<StringRef> enumKeywords() {
  SmallVector<StringRef> keywords;
  for (uint32_t value = 0;; ++value) {
    StringRef keyword = stringifyEnum(static_cast<EnumT>(value));
    if (keyword.empty())
      return keywords;
    keywords.push_back(keyword);
  }
}

/// Parses a bare keyword naming a case of an enum; the error lists the
/// valid keywords.
template <typename EnumT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumT &value,
                                    StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> parsed = symbolizeEnum<EnumT>(keyword);
  if (!parsed) {
    InFlightDiagnostic diag = parser.emitError(loc)
                              << "unknown " << what << " '" << keyword
                              << "'; expected ";
    llvm::interleave(enumKeywords<EnumT>(), diag, ", ");
    return diag;
  }
  value = *parsed;
  return success();
}

static ParseResult parseMaskValue(OpAsmParser &parser, Mask &mask) {
  return parseEnumKeyword<Mask>(parser, mask, "mask");
}

static ParseResult
parseMaskSpec(OpAsmParser &parser, MaskAttr &mask, IntegerAttr &prefixLength,
              std::optional<OpAsmParser::UnresolvedOperand> &prefixIndex) {
  Mask parsed = Mask::none;
  if (parseMaskValue(parser, parsed))
    return failure();
  mask = MaskAttr::get(parser.getContext(), parsed);
  if (parsed != Mask::prefix)
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

static ParseResult parseMaskKeyword(OpAsmParser &parser, MaskAttr &mask) {
  Mask parsed = Mask::none;
  if (parseMaskValue(parser, parsed))
    return failure();
  mask = MaskAttr::get(parser.getContext(), parsed);
  return success();
}

static void printMaskKeyword(OpAsmPrinter &printer, Operation *,
                             MaskAttr mask) {
  printer << stringifyMask(mask.getValue());
}

static OptionalParseResult parseFeatureMapSpec(OpAsmParser &parser,
                                               FeatureMapAttr &map) {
  if (failed(parser.parseOptionalKeyword("feature_map")))
    return std::nullopt;
  FeatureMap parsed = FeatureMap::identity;
  if (parser.parseEqual() ||
      parseEnumKeyword<FeatureMap>(parser, parsed, "feature map"))
    return failure();
  map = FeatureMapAttr::get(parser.getContext(), parsed);
  return success();
}

static void printFeatureMapSpec(OpAsmPrinter &printer, Operation *,
                                FeatureMapAttr map) {
  printer << "feature_map = " << stringifyFeatureMap(map.getValue());
}

/// `form = chunked(64)`, `form = oneshot`: the op's FormAttr
/// (`#linea.form<chunked, 64>` in generic form), omitted when no form was
/// chosen. It is the last keyword of the op: any other keyword here is
/// misspelt, and the error lists the op's keywords.
static OptionalParseResult parseFormSpec(OpAsmParser &parser, FormAttr &form,
                                         StringRef keywords) {
  StringRef keyword;
  llvm::SMLoc where = parser.getCurrentLocation();
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return std::nullopt;
  if (keyword != "form")
    return parser.emitError(where)
           << "unknown keyword '" << keyword << "'; expected one of "
           << keywords << ", then ':'";
  FormKind kind = FormKind::oneshot;
  if (parser.parseEqual() ||
      parseEnumKeyword<FormKind>(parser, kind, "form"))
    return failure();
  int64_t size = 0;
  if (succeeded(parser.parseOptionalLParen()) &&
      (parser.parseInteger(size) || parser.parseRParen()))
    return failure();
  form = FormAttr::getChecked(
      [&] { return parser.emitError(parser.getCurrentLocation()); },
      parser.getContext(), kind, size);
  return success(static_cast<bool>(form));
}

static void printFormSpec(OpAsmPrinter &printer, Operation *, FormAttr form) {
  printer << "form = " << stringifyFormKind(form.getKind());
  if (form.getSize())
    printer << "(" << form.getSize() << ")";
}

// The form directive of each op, with the keywords its misspelling error
// lists.
static OptionalParseResult parsePresumForm(OpAsmParser &parser,
                                           FormAttr &form) {
  return parseFormSpec(parser, form, "dim, exclusive, reverse, form");
}
static OptionalParseResult parseLinearAttentionForm(OpAsmParser &parser,
                                                    FormAttr &form) {
  return parseFormSpec(parser, form,
                       "init, mask, feature_map, scale, normalize, form");
}
static OptionalParseResult parseGatedLinearAttentionForm(OpAsmParser &parser,
                                                         FormAttr &form) {
  return parseFormSpec(parser, form, "init, mask, scale, form");
}
static void printPresumForm(OpAsmPrinter &printer, Operation *op,
                            FormAttr form) {
  printFormSpec(printer, op, form);
}
static void printLinearAttentionForm(OpAsmPrinter &printer, Operation *op,
                                     FormAttr form) {
  printFormSpec(printer, op, form);
}
static void printGatedLinearAttentionForm(OpAsmPrinter &printer,
                                          Operation *op, FormAttr form) {
  printFormSpec(printer, op, form);
}

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
// Tiling: shared by every tileable op
//===----------------------------------------------------------------------===//

namespace {

/// A tile of an op's iteration domain, as offsets and sizes of the dims of
/// each operand and result: `batch` covers the leading dims, `columns`
/// (when set) the last one; every other dim is taken whole.
struct DomainTile {
  ArrayRef<OpFoldResult> offsets, sizes;
  int64_t numBatch;
  bool hasColumns;
  /// Dims before the batch dims, kept whole: a packed op's states lead
  /// with one entry per segment.
  int64_t lead = 0;

  /// The same tile of a tensor with `count` whole dims before its batch.
  DomainTile withLead(int64_t count) const {
    DomainTile shifted = *this;
    shifted.lead = count;
    return shifted;
  }

  OpFoldResult columnOffset() const { return offsets.back(); }
  OpFoldResult columnSize() const { return sizes.back(); }
};

/// Feature dims are static (the verifier's rule, which the forms' shared
/// buffers rely on), so a value-column tile must have a static size: a tile
/// size that divides Dv, not a partial last tile.
LogicalResult verifyStaticColumnTile(Operation *op, const DomainTile &tile,
                                     Value value) {
  if (getConstantIntValue(tile.columnSize()))
    return success();
  return op->emitOpError()
         << "tiles its value columns only by a size that divides them: the "
            "feature dim must stay static (Dv = "
         << cast<RankedTensorType>(value.getType()).getShape().back() << ")";
}

/// The offsets and sizes of `value`'s tile: the batch dims and, with
/// `tileColumns`, the last dim from the domain tile; the rest whole.
void tileOf(OpBuilder &b, Location loc, Value value, const DomainTile &tile,
            bool tileColumns, SmallVector<OpFoldResult> &offsets,
            SmallVector<OpFoldResult> &sizes) {
  sizes = tensor::getMixedSizes(b, loc, value);
  offsets.assign(sizes.size(), b.getIndexAttr(0));
  for (int64_t i = 0; i < tile.numBatch; ++i) {
    offsets[tile.lead + i] = tile.offsets[i];
    sizes[tile.lead + i] = tile.sizes[i];
  }
  if (tileColumns && tile.hasColumns) {
    offsets.back() = tile.columnOffset();
    sizes.back() = tile.columnSize();
  }
}

/// `value` sliced to its tile; the slice is recorded in `slices`.
Value sliceTile(OpBuilder &b, Location loc, Value value, const DomainTile &tile,
                bool tileColumns, SmallVector<Operation *> &slices) {
  SmallVector<OpFoldResult> offsets, sizes;
  tileOf(b, loc, value, tile, tileColumns, offsets, sizes);
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto slice =
      tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
  slices.push_back(slice);
  return slice;
}

/// `type` with the sizes of its tile (static where the tile size is).
RankedTensorType tiledType(RankedTensorType type, const DomainTile &tile) {
  SmallVector<int64_t> shape(type.getShape());
  auto sizeOf = [](OpFoldResult size) {
    return getConstantIntValue(size).value_or(ShapedType::kDynamic);
  };
  for (int64_t i = 0; i < tile.numBatch; ++i)
    shape[tile.lead + i] = sizeOf(tile.sizes[i]);
  if (tile.hasColumns)
    shape.back() = sizeOf(tile.columnSize());
  return RankedTensorType::get(shape, type.getElementType());
}

/// The iteration domain `[B..., Dv]`: the batch dims of `batchLike`, the
/// last dim of `columnsLike`.
SmallVector<Range> batchAndColumnsDomain(OpBuilder &b, Location loc,
                                         Value batchLike, Value columnsLike) {
  auto type = cast<RankedTensorType>(batchLike.getType());
  SmallVector<Range> domain;
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  for (int64_t i = 0; i < numBatchDims(type); ++i)
    domain.push_back({zero, tensor::getMixedSize(b, loc, batchLike, i), one});
  int64_t last = cast<RankedTensorType>(columnsLike.getType()).getRank() - 1;
  domain.push_back({zero, tensor::getMixedSize(b, loc, columnsLike, last), one});
  return domain;
}

/// Whether `offset`/`size` cover the whole dim `dim` of `value`.
bool coversDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               OpFoldResult offset, OpFoldResult size) {
  if (!isZeroInteger(offset))
    return false;
  OpFoldResult whole = tensor::getMixedSize(b, loc, value, dim);
  return isEqualConstantIntOrValue(size, whole);
}

/// The mixed sizes of each result of `op`: static where its type is, else
/// the size of the operand dim `fromOperand(result, dim)` says.
LogicalResult
reifyFromOperands(OpBuilder &b, Operation *op,
                  function_ref<std::pair<Value, int64_t>(unsigned, int64_t)>
                      fromOperand,
                  ReifiedRankedShapedTypeDims &shapes) {
  for (OpResult result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim)) {
        sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
        continue;
      }
      auto [operand, operandDim] = fromOperand(result.getResultNumber(), dim);
      sizes.push_back(tensor::getMixedSize(b, op->getLoc(), operand, operandDim));
    }
    shapes.push_back(sizes);
  }
  return success();
}

} // namespace

/// The type list of an op whose result has its input's type: `INPUT`, or
/// with offsets `INPUT, OFFSETS -> RESULT` (SPEC writes the result out, as
/// a reader expects after two operand types).
static ParseResult parseSequenceTypes(OpAsmParser &parser, Type &inputType,
                                      Type &offsetsType) {
  if (parser.parseType(inputType))
    return failure();
  if (failed(parser.parseOptionalComma()))
    return success();
  Type resultType;
  SMLoc resultLoc;
  if (parser.parseType(offsetsType) || parser.parseArrow() ||
      parser.getCurrentLocation(&resultLoc) || parser.parseType(resultType))
    return failure();
  if (resultType != inputType)
    return parser.emitError(resultLoc)
           << "result type " << resultType << " must be the input's "
           << inputType;
  return success();
}
static void printSequenceTypes(OpAsmPrinter &printer, Operation *,
                               Type inputType, Type offsetsType) {
  printer << inputType;
  if (offsetsType)
    printer << ", " << offsetsType << " -> " << inputType;
}

/// The tail of a linear-attention op's type list, from its last sequence
/// operand: `LAST[, INIT][, OFFSETS][, PREFIXES]`, each present when its
/// operand is. A prefix length is an `index` (not written) or, on a packed
/// op, a tensor of one length per segment (written).
static ParseResult parseStateAndSegmentTypes(
    OpAsmParser &parser, Type &lastType,
    std::optional<OpAsmParser::UnresolvedOperand> initialState,
    Type &initialStateType,
    std::optional<OpAsmParser::UnresolvedOperand> offsets, Type &offsetsType,
    std::optional<OpAsmParser::UnresolvedOperand> prefix, Type &prefixType) {
  if (parser.parseType(lastType))
    return failure();
  if (initialState &&
      (parser.parseComma() || parser.parseType(initialStateType)))
    return failure();
  if (offsets && (parser.parseComma() || parser.parseType(offsetsType)))
    return failure();
  if (!prefix)
    return success();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(prefixType);
  prefixType = parser.getBuilder().getIndexType();
  return success();
}
static void printStateAndSegmentTypes(OpAsmPrinter &printer, Operation *,
                                      Type lastType, Value,
                                      Type initialStateType, Value,
                                      Type offsetsType, Value,
                                      Type prefixType) {
  printer << lastType;
  for (Type type : {initialStateType, offsetsType})
    if (type)
      printer << ", " << type;
  if (prefixType && !prefixType.isIndex())
    printer << ", " << prefixType;
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

SmallVector<FormKind> PresumOp::getLegalForms() {
  // The blocked scan's block totals carry no decay.
  if (getDecay())
    return {FormKind::scan};
  return {FormKind::scan, FormKind::blocked_scan};
}

// The iteration domain is every dim but the scanned one.

SmallVector<utils::IteratorType> PresumOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(getInput().getType().getRank() - 1,
                                          utils::IteratorType::parallel);
}

SmallVector<Range> PresumOp::getIterationDomain(OpBuilder &b) {
  SmallVector<Range> domain;
  for (int64_t dim = 0; dim < getInput().getType().getRank(); ++dim)
    if (dim != getScanDim())
      domain.push_back({b.getIndexAttr(0),
                        tensor::getMixedSize(b, getLoc(), getInput(), dim),
                        b.getIndexAttr(1)});
  return domain;
}

LogicalResult PresumOp::getResultTilePosition(
    OpBuilder &b, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  int64_t scan = getScanDim();
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  resultOffsets.insert(resultOffsets.begin() + scan, b.getIndexAttr(0));
  resultSizes.insert(resultSizes.begin() + scan,
                     tensor::getMixedSize(b, getLoc(), getInput(), scan));
  return success();
}

FailureOr<TilingResult>
PresumOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> inputOffsets, inputSizes;
  (void)getResultTilePosition(b, 0, offsets, sizes, inputOffsets, inputSizes);
  SmallVector<OpFoldResult> strides(inputOffsets.size(), b.getIndexAttr(1));
  auto slice = tensor::ExtractSliceOp::create(b, getLoc(), getInput(),
                                              inputOffsets, inputSizes, strides);
  SmallVector<Value> operands{slice};
  SmallVector<Operation *> slices{slice};
  // The decay covers the input's leading dims: the same tile of those.
  if (Value decay = getDecay()) {
    int64_t rank = getDecay().getType().getRank();
    auto decaySlice = tensor::ExtractSliceOp::create(
        b, getLoc(), decay, ArrayRef(inputOffsets).take_front(rank),
        ArrayRef(inputSizes).take_front(rank),
        ArrayRef(strides).take_front(rank));
    operands.push_back(decaySlice);
    slices.push_back(decaySlice);
  }
  // Segments are along the scanned dim, which every tile keeps whole.
  if (Value offsets = getOffsets())
    operands.push_back(offsets);
  Operation *tiled = mlir::clone(b, *this, {slice.getType()}, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()),
                      slices};
}

FailureOr<TilingResult>
PresumOp::generateResultTileValue(OpBuilder &b, unsigned,
                                  ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  int64_t scan = getScanDim();
  if (!coversDim(b, getLoc(), getInput(), scan, offsets[scan], sizes[scan]))
    return failure();
  SmallVector<OpFoldResult> domainOffsets(offsets), domainSizes(sizes);
  domainOffsets.erase(domainOffsets.begin() + scan);
  domainSizes.erase(domainSizes.begin() + scan);
  return getTiledImplementation(b, domainOffsets, domainSizes);
}

LogicalResult
PresumOp::reifyResultShapes(OpBuilder &b,
                            ReifiedRankedShapedTypeDims &shapes) {
  return reifyFromOperands(
      b, *this,
      [&](unsigned, int64_t dim) { return std::make_pair(getInput(), dim); },
      shapes);
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp and GatedLinearAttentionOp
//===----------------------------------------------------------------------===//

namespace {

SmallVector<FormKind> legalLinearAttentionForms(LinearAttentionOpInterface op) {
  // Each segment of a packed op may take its own form (segments differ in
  // length, hence in cost): chosen after linea-split-segments writes them.
  if (op.isPacked())
    return {};
  if (op.isBidirectional())
    return {FormKind::oneshot, FormKind::quadratic};
  if (op.getEffectiveMask() != Mask::causal)
    return {};
  if (op.isDecodeStep())
    return {FormKind::oneshot, FormKind::chunked, FormKind::chunk_parallel,
            FormKind::quadratic};
  return {FormKind::chunked, FormKind::chunk_parallel, FormKind::quadratic};
}

/// Operands and results of a linear-attention op: q, k and the gate are
/// tiled over the batch only; `columnOperands` (v and the initial state) and
/// the results also over the value columns (the last dim).
FailureOr<TilingResult> tileLinearAttention(
    OpBuilder &b, LinearAttentionOpInterface op, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, ArrayRef<OpOperand *> columnOperands) {
  Location loc = op.getLoc();
  DomainTile tile{offsets, sizes, numBatchDims(op.getQuery().getType()), true};
  if (failed(verifyStaticColumnTile(op, tile, op.getValue())))
    return failure();
  // A packed op's states lead with one entry per segment, kept whole.
  DomainTile stateTile = tile.withLead(op.isPacked() ? 1 : 0);
  SmallVector<Operation *> slices;
  SmallVector<Value> operands;
  // Operands are told apart by position: q, k and v may be one value.
  for (OpOperand &operand : op->getOpOperands()) {
    Value x = operand.get();
    // The prefix length(s) and the offsets: along the sequence, whole.
    if (x == op.getPrefixIndex() || x == op.getOffsets()) {
      operands.push_back(x);
      continue;
    }
    bool columns = llvm::is_contained(columnOperands, &operand);
    const DomainTile &of = x == op.getInitialState() ? stateTile : tile;
    operands.push_back(sliceTile(b, loc, x, of, columns, slices));
  }
  SmallVector<Type> types{tiledType(op.getOutput().getType(), tile)};
  if (Value state = op.getFinalState())
    types.push_back(
        tiledType(cast<RankedTensorType>(state.getType()), stateTile));
  Operation *tiled = mlir::clone(b, op, types, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

/// v and the initial state: the operands tiled over the value columns.
template <typename OpTy>
SmallVector<OpOperand *> columnOperandsOf(OpTy op) {
  SmallVector<OpOperand *> operands{&op.getValueMutable()};
  for (OpOperand &init : op.getInitialStateMutable())
    operands.push_back(&init);
  return operands;
}

/// Where result `number` of a linear-attention op puts a domain tile: the
/// output `[B..., L, Dv]` and the final state `[B..., Dk, Dv]` are tiled
/// over their batch dims and last dim.
void linearAttentionResultTile(OpBuilder &b, LinearAttentionOpInterface op,
                               unsigned number, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes,
                               SmallVector<OpFoldResult> &resultOffsets,
                               SmallVector<OpFoldResult> &resultSizes) {
  DomainTile tile{offsets, sizes, numBatchDims(op.getQuery().getType()), true};
  Location loc = op.getLoc();
  int64_t rank = op.getQuery().getType().getRank();
  // The middle dim: L (from q) for the output, Dk (from k) for the state.
  OpFoldResult middle =
      number == 0 ? tensor::getMixedSize(b, loc, op.getQuery(), rank - 2)
                  : tensor::getMixedSize(b, loc, op.getKey(), rank - 1);
  resultOffsets.clear();
  resultSizes.clear();
  // A packed op's final states: every segment's entry (N, from the
  // offsets: the result itself is what the tile replaces).
  if (number == 1 && op.isPacked()) {
    resultOffsets.push_back(b.getIndexAttr(0));
    resultSizes.push_back(segmentCount(b, loc, op.getOffsets()));
  }
  resultOffsets.append(offsets.begin(), offsets.begin() + tile.numBatch);
  resultSizes.append(sizes.begin(), sizes.begin() + tile.numBatch);
  resultOffsets.push_back(b.getIndexAttr(0));
  resultSizes.push_back(middle);
  resultOffsets.push_back(tile.columnOffset());
  resultSizes.push_back(tile.columnSize());
}

/// The domain tile that yields a given result tile, when the result tile
/// takes its middle dim (L of the output, Dk of the state) whole; null
/// offsets when it does not.
std::optional<std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>>
linearAttentionDomainTile(OpBuilder &b, LinearAttentionOpInterface op,
                          unsigned number, ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) {
  int64_t rank = op.getQuery().getType().getRank();
  // A packed op's final states: not fused through (a tile of them would
  // have to take every segment's entry, which is not known statically).
  if (number == 1 && op.isPacked())
    return std::nullopt;
  bool whole = number == 0 ? coversDim(b, op.getLoc(), op.getQuery(), rank - 2,
                                       offsets[rank - 2], sizes[rank - 2])
                           : coversDim(b, op.getLoc(), op.getKey(), rank - 1,
                                       offsets[rank - 2], sizes[rank - 2]);
  if (!whole)
    return std::nullopt;
  SmallVector<OpFoldResult> domainOffsets(offsets.take_front(rank - 2));
  SmallVector<OpFoldResult> domainSizes(sizes.take_front(rank - 2));
  domainOffsets.push_back(offsets.back());
  domainSizes.push_back(sizes.back());
  return std::make_pair(domainOffsets, domainSizes);
}

LogicalResult reifyLinearAttention(OpBuilder &b, LinearAttentionOpInterface op,
                                   ReifiedRankedShapedTypeDims &shapes) {
  int64_t rank = op.getQuery().getType().getRank();
  bool packed = op.isPacked();
  if (failed(reifyFromOperands(
          b, op,
          [&](unsigned result, int64_t dim) -> std::pair<Value, int64_t> {
            // A packed op's final states lead with one per segment (N:
            // set below).
            if (result == 1 && packed && dim-- == 0)
              return {op.getOffsets(), 0};
            if (dim == rank - 1)
              return {op.getValue(), dim};
            if (dim == rank - 2 && result == 1)
              return {op.getKey(), rank - 1};
            return {op.getQuery(), dim};
          },
          shapes)))
    return failure();
  // N segments have N + 1 offsets.
  if (!packed || !op.getFinalState() ||
      !cast<RankedTensorType>(op.getFinalState().getType()).isDynamicDim(0))
    return success();
  shapes[1][0] = segmentCount(b, op.getLoc(), op.getOffsets());
  return success();
}

/// The tiling of both linear-attention ops, one model for the two: the
/// iteration domain is the batch dims and the value columns (the sequence
/// is a scan, and each value column's state is its own), operands and
/// results tiled as tileLinearAttention and linearAttentionResultTile say.
template <typename OpT>
struct LinearAttentionTiling
    : TilingInterface::ExternalModel<LinearAttentionTiling<OpT>, OpT> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto la = cast<OpT>(op);
    return SmallVector<utils::IteratorType>(
        numBatchDims(la.getQuery().getType()) + 1,
        utils::IteratorType::parallel);
  }

  SmallVector<Range> getIterationDomain(Operation *op, OpBuilder &b) const {
    auto la = cast<OpT>(op);
    return batchAndColumnsDomain(b, la.getLoc(), la.getQuery(), la.getValue());
  }

  FailureOr<TilingResult>
  getTiledImplementation(Operation *op, OpBuilder &b,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) const {
    auto la = cast<OpT>(op);
    return tileLinearAttention(b, la, offsets, sizes, columnOperandsOf(la));
  }

  LogicalResult
  getResultTilePosition(Operation *op, OpBuilder &b, unsigned number,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVector<OpFoldResult> &resultOffsets,
                        SmallVector<OpFoldResult> &resultSizes) const {
    linearAttentionResultTile(b, cast<OpT>(op), number, offsets, sizes,
                              resultOffsets, resultSizes);
    return success();
  }

  FailureOr<TilingResult>
  generateResultTileValue(Operation *op, OpBuilder &b, unsigned number,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) const {
    auto domain =
        linearAttentionDomainTile(b, cast<OpT>(op), number, offsets, sizes);
    if (!domain)
      return failure();
    return getTiledImplementation(op, b, domain->first, domain->second);
  }
};

/// The result shapes of both linear-attention ops, for the destinations of
/// tiled loops.
template <typename OpT>
struct LinearAttentionShapes
    : ReifyRankedShapedTypeOpInterface::ExternalModel<
          LinearAttentionShapes<OpT>, OpT> {
  LogicalResult reifyResultShapes(Operation *op, OpBuilder &b,
                                  ReifiedRankedShapedTypeDims &shapes) const {
    return reifyLinearAttention(b, cast<OpT>(op), shapes);
  }
};

} // namespace

LogicalResult LinearAttentionOp::verify() {
  if (failed(verifyLinearAttentionOperands(*this)))
    return failure();
  if (getNormalize() && getInitialState())
    return emitOpError() << "'normalize' cannot be combined with "
                            "'initial_state': the normalizer of a carried "
                            "state is not defined";
  return verifyFormIsLegal(*this);
}

SmallVector<FormKind> LinearAttentionOp::getLegalForms() {
  return legalLinearAttentionForms(*this);
}

/// `spec`'s prefix length as the ops' optional attribute.
static IntegerAttr prefixLengthAttr(OpBuilder &b,
                                    const LinearAttentionSpec &spec) {
  return spec.prefixLength ? b.getI64IntegerAttr(*spec.prefixLength)
                           : IntegerAttr();
}

Operation *LinearAttentionOp::createLike(OpBuilder &b, Location loc,
                                         const LinearAttentionSpec &spec) {
  MLIRContext *ctx = b.getContext();
  return LinearAttentionOp::create(
      b, loc, spec.outputType, spec.finalStateType, spec.query, spec.key,
      spec.value, spec.initialState, spec.offsets, spec.prefixIndex,
      MaskAttr::get(ctx, spec.mask), prefixLengthAttr(b, spec),
      FeatureMapAttr::get(ctx, spec.featureMap), b.getF32FloatAttr(spec.scale),
      spec.normalize ? b.getUnitAttr() : UnitAttr(), spec.form);
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

SmallVector<FormKind> GatedLinearAttentionOp::getLegalForms() {
  return legalLinearAttentionForms(*this);
}

Operation *GatedLinearAttentionOp::createLike(OpBuilder &b, Location loc,
                                              const LinearAttentionSpec &spec) {
  return GatedLinearAttentionOp::create(
      b, loc, spec.outputType, spec.finalStateType, spec.query, spec.key,
      spec.value, spec.gate, spec.initialState, spec.offsets, spec.prefixIndex,
      MaskAttr::get(b.getContext(), spec.mask), prefixLengthAttr(b, spec),
      b.getF32FloatAttr(spec.scale), spec.form);
}

//===----------------------------------------------------------------------===//
// Canonicalization, for both linear-attention ops
//===----------------------------------------------------------------------===//

#define DEBUG_TYPE "linea-canonicalize"

namespace {

/// `prefix(%j)` with a constant `%j` becomes `prefix(j)`, so that the static
/// rewrites below and the verifier's bounds check see it.
struct FoldConstantPrefixIndex
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    Value index = op.getPrefixIndex();
    APInt value;
    // (A packed op's lengths are a tensor, one per segment: never folded.)
    if (!index || !index.getType().isIndex() ||
        !matchPattern(index, m_ConstantInt(&value)))
      return rewriter.notifyMatchFailure(op, "no constant prefix operand");
    int64_t length = value.getSExtValue();
    RankedTensorType query = op.getQuery().getType();
    int64_t seqLen = query.getDimSize(seqDim(query));
    // An out-of-range constant stays an operand: folding it would turn a
    // runtime-checked program into one that no longer verifies.
    if (length < 0 || (!ShapedType::isDynamic(seqLen) && length > seqLen))
      return rewriter.notifyMatchFailure(
          op, "the constant prefix is out of range (left to its run-time "
              "check)");
    LinearAttentionSpec spec = op.getSpec();
    spec.prefixIndex = Value();
    spec.prefixLength = length;
    rewriter.replaceOp(op, op.createLike(rewriter, op.getLoc(), spec));
    return success();
  }
};

/// `prefix(0)` is `causal` and `prefix(L)` is `none`: every row reads the
/// state after the last token.
struct SimplifyStaticPrefix
    : OpInterfaceRewritePattern<LinearAttentionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(LinearAttentionOpInterface op,
                                PatternRewriter &rewriter) const override {
    // What the op behaves as is the interface's decision; this makes the
    // attribute say it.
    Mask effective = op.getEffectiveMask();
    if (op.getMask() != Mask::prefix || effective == Mask::prefix)
      return rewriter.notifyMatchFailure(
          op, "no prefix mask that behaves as causal or none");
    LinearAttentionSpec spec = op.getSpec();
    spec.mask = effective;
    spec.prefixLength = std::nullopt;
    rewriter.replaceOp(op, op.createLike(rewriter, op.getLoc(), spec));
    return success();
  }
};

} // namespace

void LineaDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<FoldConstantPrefixIndex, SimplifyStaticPrefix>(getContext());
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
  // Queries and keys are packed alike: one sequence length.
  if (getOffsets() && failed(checkDim(op, k, seqDim(k.type), q, seqDim(q.type),
                                      "sequence length (packed)")))
    return failure();
  return verifyOffsets(op, getOffsets());
}

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(
      numBatchDims(getQuery().getType()) + 1, utils::IteratorType::parallel);
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  return batchAndColumnsDomain(b, getLoc(), getQuery(), getValue());
}

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  DomainTile tile{offsets, sizes, numBatchDims(getQuery().getType()), true};
  if (failed(verifyStaticColumnTile(*this, tile, getValue())))
    return failure();
  SmallVector<Operation *> slices;
  Location loc = getLoc();
  Value q = sliceTile(b, loc, getQuery(), tile, false, slices);
  Value k = sliceTile(b, loc, getKey(), tile, false, slices);
  Value v = sliceTile(b, loc, getValue(), tile, true, slices);
  SmallVector<Value> operands{q, k, v};
  // Segments are along the sequences, which every tile keeps whole.
  if (Value offsets = getOffsets())
    operands.push_back(offsets);
  Operation *tiled =
      mlir::clone(b, *this, {tiledType(getOutput().getType(), tile)}, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  int64_t numBatch = numBatchDims(getQuery().getType());
  resultOffsets.assign(offsets.begin(), offsets.begin() + numBatch);
  resultSizes.assign(sizes.begin(), sizes.begin() + numBatch);
  resultOffsets.push_back(b.getIndexAttr(0));
  resultSizes.push_back(
      tensor::getMixedSize(b, getLoc(), getQuery(), numBatch));
  resultOffsets.push_back(offsets.back());
  resultSizes.push_back(sizes.back());
  return success();
}

FailureOr<TilingResult>
AttentionOp::generateResultTileValue(OpBuilder &b, unsigned,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  int64_t numBatch = numBatchDims(getQuery().getType());
  if (!coversDim(b, getLoc(), getQuery(), numBatch, offsets[numBatch],
                 sizes[numBatch]))
    return failure();
  SmallVector<OpFoldResult> domainOffsets(offsets.take_front(numBatch));
  SmallVector<OpFoldResult> domainSizes(sizes.take_front(numBatch));
  domainOffsets.push_back(offsets.back());
  domainSizes.push_back(sizes.back());
  return getTiledImplementation(b, domainOffsets, domainSizes);
}

LogicalResult
AttentionOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  int64_t rank = getQuery().getType().getRank();
  return reifyFromOperands(
      b, *this,
      [&](unsigned, int64_t dim) -> std::pair<Value, int64_t> {
        return {dim == rank - 1 ? getValue() : getQuery(), dim};
      },
      shapes);
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

#define GET_OP_CLASSES
#include "linea/Dialect/LineaOps.cpp.inc"

void LineaDialect::attachLinearAttentionModels() {
  MLIRContext *ctx = getContext();
  LinearAttentionOp::attachInterface<LinearAttentionTiling<LinearAttentionOp>,
                                     LinearAttentionShapes<LinearAttentionOp>>(
      *ctx);
  GatedLinearAttentionOp::attachInterface<
      LinearAttentionTiling<GatedLinearAttentionOp>,
      LinearAttentionShapes<GatedLinearAttentionOp>>(*ctx);
}
