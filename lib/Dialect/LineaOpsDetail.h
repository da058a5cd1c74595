//===- LineaOpsDetail.h - Shared by the LineaOps*.cpp files -----*- C++ -*-===//
//
// Private to lib/Dialect. The custom directives of the ops' assembly formats
// (`custom<...>` in LineaOps.td) are defined in LineaOpsSyntax.cpp; the ops'
// generated parsers and printers, which LineaOps.cpp includes
// (GET_OP_CLASSES), call them by these declarations.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_DIALECT_LINEAOPSDETAIL_H
#define LINEA_LIB_DIALECT_LINEAOPSDETAIL_H

#include "linea/Dialect/LineaOps.h"

namespace mlir::linea {

// `mask = none | causal | prefix(128) | prefix(%j)`.
ParseResult
parseMaskSpec(OpAsmParser &parser, MaskAttr &mask, IntegerAttr &prefixLength,
              std::optional<OpAsmParser::UnresolvedOperand> &prefixIndex);
void printMaskSpec(OpAsmPrinter &printer, Operation *, MaskAttr mask,
                   IntegerAttr prefixLength, Value prefixIndex);

// A bare mask keyword.
ParseResult parseMaskKeyword(OpAsmParser &parser, MaskAttr &mask);
void printMaskKeyword(OpAsmPrinter &printer, Operation *, MaskAttr mask);

// `feature_map = elu_plus_one` (omitted when identity).
OptionalParseResult parseFeatureMapSpec(OpAsmParser &parser,
                                        FeatureMapAttr &map);
void printFeatureMapSpec(OpAsmPrinter &printer, Operation *,
                         FeatureMapAttr map);

// `form = chunked(64)`, one directive per op (for the keywords its
// misspelling error lists).
OptionalParseResult parsePresumForm(OpAsmParser &parser, FormAttr &form);
OptionalParseResult parseLinearAttentionForm(OpAsmParser &parser,
                                             FormAttr &form);
OptionalParseResult parseGatedLinearAttentionForm(OpAsmParser &parser,
                                                  FormAttr &form);
void printPresumForm(OpAsmPrinter &printer, Operation *op, FormAttr form);
void printLinearAttentionForm(OpAsmPrinter &printer, Operation *op,
                              FormAttr form);
void printGatedLinearAttentionForm(OpAsmPrinter &printer, Operation *op,
                                   FormAttr form);

// The type list of an op whose result has its input's type.
ParseResult parseSequenceTypes(OpAsmParser &parser, Type &inputType,
                               Type &offsetsType);
void printSequenceTypes(OpAsmPrinter &printer, Operation *, Type inputType,
                        Type offsetsType);

// The tail of a linear-attention op's type list.
ParseResult parseStateAndSegmentTypes(
    OpAsmParser &parser, Type &lastType,
    std::optional<OpAsmParser::UnresolvedOperand> initialState,
    Type &initialStateType,
    std::optional<OpAsmParser::UnresolvedOperand> offsets, Type &offsetsType,
    std::optional<OpAsmParser::UnresolvedOperand> prefix, Type &prefixType);
void printStateAndSegmentTypes(OpAsmPrinter &printer, Operation *,
                               Type lastType, Value, Type initialStateType,
                               Value, Type offsetsType, Value, Type prefixType);

} // namespace mlir::linea

#endif // LINEA_LIB_DIALECT_LINEAOPSDETAIL_H
