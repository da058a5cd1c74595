//===- LineaOpsSyntax.cpp - Linea ops' custom assembly syntax -------------===//
//
// The custom directives of the ops' assembly formats (`custom<...>` in
// LineaOps.td): the mask and its prefix length, the feature map, the form,
// and the type lists of the sequence and linear-attention ops. The ops'
// generated parsers and printers (LineaOps.cpp) call them through
// LineaOpsDetail.h.
//
//===----------------------------------------------------------------------===//

#include "LineaOpsDetail.h"

#include "mlir/IR/DialectImplementation.h"

namespace mlir::linea {

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

ParseResult
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

void printMaskSpec(OpAsmPrinter &printer, Operation *, MaskAttr mask,
                   IntegerAttr prefixLength, Value prefixIndex) {
  printer << stringifyMask(mask.getValue());
  if (prefixLength)
    printer << "(" << prefixLength.getInt() << ")";
  else if (prefixIndex)
    printer << "(" << prefixIndex << ")";
}

ParseResult parseMaskKeyword(OpAsmParser &parser, MaskAttr &mask) {
  Mask parsed = Mask::none;
  if (parseMaskValue(parser, parsed))
    return failure();
  mask = MaskAttr::get(parser.getContext(), parsed);
  return success();
}

void printMaskKeyword(OpAsmPrinter &printer, Operation *, MaskAttr mask) {
  printer << stringifyMask(mask.getValue());
}

OptionalParseResult parseFeatureMapSpec(OpAsmParser &parser,
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

void printFeatureMapSpec(OpAsmPrinter &printer, Operation *,
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
OptionalParseResult parsePresumForm(OpAsmParser &parser, FormAttr &form) {
  return parseFormSpec(parser, form, "dim, exclusive, reverse, form");
}
OptionalParseResult parseLinearAttentionForm(OpAsmParser &parser,
                                             FormAttr &form) {
  return parseFormSpec(parser, form,
                       "init, mask, feature_map, scale, normalize, form");
}
OptionalParseResult parseGatedLinearAttentionForm(OpAsmParser &parser,
                                                  FormAttr &form) {
  return parseFormSpec(parser, form, "init, mask, scale, form");
}
void printPresumForm(OpAsmPrinter &printer, Operation *op, FormAttr form) {
  printFormSpec(printer, op, form);
}
void printLinearAttentionForm(OpAsmPrinter &printer, Operation *op,
                              FormAttr form) {
  printFormSpec(printer, op, form);
}
void printGatedLinearAttentionForm(OpAsmPrinter &printer, Operation *op,
                                   FormAttr form) {
  printFormSpec(printer, op, form);
}

/// The type list of an op whose result has its input's type: `INPUT`, or
/// with offsets `INPUT, OFFSETS -> RESULT` (SPEC writes the result out, as
/// a reader expects after two operand types).
ParseResult parseSequenceTypes(OpAsmParser &parser, Type &inputType,
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
void printSequenceTypes(OpAsmPrinter &printer, Operation *, Type inputType,
                        Type offsetsType) {
  printer << inputType;
  if (offsetsType)
    printer << ", " << offsetsType << " -> " << inputType;
}

/// The tail of a linear-attention op's type list, from its last sequence
/// operand: `LAST[, INIT][, OFFSETS][, PREFIXES]`, each present when its
/// operand is. A prefix length is an `index` (not written) or, on a packed
/// op, a tensor of one length per segment (written).
ParseResult parseStateAndSegmentTypes(
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
void printStateAndSegmentTypes(OpAsmPrinter &printer, Operation *,
                               Type lastType, Value, Type initialStateType,
                               Value, Type offsetsType, Value,
                               Type prefixType) {
  printer << lastType;
  for (Type type : {initialStateType, offsetsType})
    if (type)
      printer << ", " << type;
  if (prefixType && !prefixType.isIndex())
    printer << ", " << prefixType;
}

} // namespace mlir::linea
