//===- Passes.h - Linea across processes -----------------------*- C++ -*-===//

#ifndef LINEA_DISTRIBUTED_PASSES_H
#define LINEA_DISTRIBUTED_PASSES_H

#include "linea/Dialect/LineaDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/Distributed/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/Distributed/Passes.h.inc"

/// The argument and result attribute naming the dim along which a value of
/// a sequence-parallel function is split across ranks.
constexpr llvm::StringLiteral kShardedDimAttrName =
    LineaDialect::kShardedDimAttrName;

} // namespace mlir::linea

#endif // LINEA_DISTRIBUTED_PASSES_H
