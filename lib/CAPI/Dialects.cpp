//===- Dialects.cpp - Linea's C API ---------------------------------------===//
//
// Only Linea's own entry points: the dialect handle (MLIR's registration
// hooks, header-only) and pass registration. The rest of the C API (contexts,
// modules, pass managers) is MLIR's.
//
//===----------------------------------------------------------------------===//

#include "linea-c/Dialects.h"

#include "linea/Dialect/LineaDialect.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Version.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Linea, linea, mlir::linea::LineaDialect)

void lineaRegisterPasses(void) { mlir::linea::registerAllPasses(); }

const char *lineaGetVersion(void) { return LINEA_VERSION; }
