//===- Passes.h - Linea optimization passes --------------------*- C++ -*-===//

#ifndef LINEA_TRANSFORMS_PASSES_H
#define LINEA_TRANSFORMS_PASSES_H

#include "linea/Analysis/CostModel.h"
#include "linea/Target/Target.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace linea {

#define GEN_PASS_DECL
#include "linea/Transforms/Passes.h.inc"

/// folded_attention -> fold + attention.
void populateExpandFoldedAttentionPatterns(RewritePatternSet &patterns);
/// fold -> scf.for over segments.
void populateFoldToLoopPatterns(RewritePatternSet &patterns);
/// extract_slice of a one-use producer -> the producer on the slice.
void populateComputeKeptSlicesPatterns(RewritePatternSet &patterns);
/// An elementwise generic's result written over an operand it reads last.
void populateElementwiseInPlacePatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "linea/Transforms/Passes.h.inc"

} // namespace linea
} // namespace mlir

#endif // LINEA_TRANSFORMS_PASSES_H
