//===- Passes.h - conversions out of Linea ---------------------*- C++ -*-===//

#ifndef LINEA_CONVERSION_PASSES_H
#define LINEA_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace linea {

#define GEN_PASS_DECL
#include "linea/Conversion/Passes.h.inc"

/// The reference lowering of every Linea op (see convert-linea-to-linalg),
/// torch-mlir's tm_tensor.scan included.
void populateLineaToLinalgPatterns(RewritePatternSet &patterns);
/// tm_tensor.scan as a loop along its dimension (ScanToLoops.cpp).
void populateScanToLoopsPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "linea/Conversion/Passes.h.inc"

} // namespace linea
} // namespace mlir

#endif // LINEA_CONVERSION_PASSES_H
