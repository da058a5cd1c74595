//===- Passes.h - model IR into Linea ops ----------------------*- C++ -*-===//

#ifndef LINEA_RAISE_PASSES_H
#define LINEA_RAISE_PASSES_H

#include "linea/Dialect/LineaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/Raise/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/Raise/Passes.h.inc"

} // namespace mlir::linea

#endif // LINEA_RAISE_PASSES_H
