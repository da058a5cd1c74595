//===- Passes.h - passes around bufferization ------------------*- C++ -*-===//

#ifndef LINEA_BUFFERIZATION_PASSES_H
#define LINEA_BUFFERIZATION_PASSES_H

#include "linea/Dialect/LineaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/Bufferization/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/Bufferization/Passes.h.inc"

} // namespace mlir::linea

#endif // LINEA_BUFFERIZATION_PASSES_H
