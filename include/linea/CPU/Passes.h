//===- Passes.h - Linea's CPU code generation ------------------*- C++ -*-===//

#ifndef LINEA_CPU_PASSES_H
#define LINEA_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/CPU/Passes.h.inc"

} // namespace mlir::linea

#endif // LINEA_CPU_PASSES_H
