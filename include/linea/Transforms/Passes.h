//===- Passes.h - Linea optimization passes --------------------*- C++ -*-===//

#ifndef LINEA_TRANSFORMS_PASSES_H
#define LINEA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace linea {

#define GEN_PASS_DECL
#include "linea/Transforms/Passes.h.inc"

/// folded_attention -> fold + attention.
void populateExpandFoldedAttentionPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "linea/Transforms/Passes.h.inc"

} // namespace linea
} // namespace mlir

#endif // LINEA_TRANSFORMS_PASSES_H
