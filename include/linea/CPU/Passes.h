//===- Passes.h - Linea's CPU code generation ------------------*- C++ -*-===//

#ifndef LINEA_CPU_PASSES_H
#define LINEA_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/CPU/Passes.h.inc"

/// Emits "`name` must be in [1, max], got `value`" on `op` unless `value`
/// is in range: the CPU passes unroll tiles of these sizes into registers.
LogicalResult checkTileOption(Operation *op, StringRef name, int64_t value,
                              int64_t max);

} // namespace mlir::linea

#endif // LINEA_CPU_PASSES_H
