//===- LineaDialect.h - the Linea dialect ----------------------*- C++ -*-===//

#ifndef LINEA_DIALECT_LINEADIALECT_H
#define LINEA_DIALECT_LINEADIALECT_H

#include "mlir/IR/Dialect.h"

#include "linea/Dialect/LineaDialect.h.inc"

#endif // LINEA_DIALECT_LINEADIALECT_H
