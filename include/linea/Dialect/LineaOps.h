//===- LineaOps.h - Linea ops ----------------------------------*- C++ -*-===//

#ifndef LINEA_DIALECT_LINEAOPS_H
#define LINEA_DIALECT_LINEAOPS_H

#include "linea/Dialect/LineaDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "linea/Dialect/LineaEnums.h.inc"

#define GET_OP_CLASSES
#include "linea/Dialect/LineaOps.h.inc"

namespace mlir::linea {

/// Sequence tensors are `[B..., L, D]`: these name the positions.
inline int64_t seqDim(ShapedType t) { return t.getRank() - 2; }
inline int64_t featureDim(ShapedType t) { return t.getRank() - 1; }
inline int64_t numBatchDims(ShapedType t) { return t.getRank() - 2; }

} // namespace mlir::linea

#endif // LINEA_DIALECT_LINEAOPS_H
