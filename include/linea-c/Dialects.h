/*===- linea-c/Dialects.h - Linea's C API -------------------------*- C -*-===*\
|*                                                                            *|
|* The Linea dialect and passes for MLIR's C API (mlir-c): register the       *|
|* dialect through its handle (mlirDialectHandleRegisterDialect), and every   *|
|* Linea pass and pipeline with lineaRegisterPasses().                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LINEA_C_DIALECTS_H
#define LINEA_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Linea, linea);

/// Registers Linea's passes and pipelines (linea-optimize, linea-lower-to-cpu,
/// linea-lower-to-nvvm, ...) with the global pass registry, so that
/// mlirParsePassPipeline and mlir-opt-style drivers know their names.
MLIR_CAPI_EXPORTED void lineaRegisterPasses(void);

/// Linea's version, e.g. "0.2.0".
MLIR_CAPI_EXPORTED const char *lineaGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* LINEA_C_DIALECTS_H */
