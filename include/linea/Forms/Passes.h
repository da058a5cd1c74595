//===- Passes.h - Linea's forms: their choice and rewrites ------*- C++ -*-===//

#ifndef LINEA_FORMS_PASSES_H
#define LINEA_FORMS_PASSES_H

#include "linea/Analysis/CostModel.h"
#include "linea/Target/Target.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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
#include "linea/Forms/Passes.h.inc"

/// prefix(j) -> bidirectional part + causal part.
void populateSplitPrefixPatterns(RewritePatternSet &patterns);
/// Bidirectional regions -> one-shot state contractions.
void populatePrefixToOneShotPatterns(RewritePatternSet &patterns);
/// Causal regions -> chunked loops; `chunkSize` is for ops without a
/// chosen form (0: the default, 64: chunkSizeFor).
void populateCausalToChunkedPatterns(RewritePatternSet &patterns,
                                     int64_t chunkSize);
/// Causal regions -> the chunk-parallel form; `chunkSize` as above. Gated
/// ops planned for the GPU (`#linea.target`) take sequence blocks per chunk
/// unless the result is a `handOff` to another compiler.
void populateCausalToChunkParallelPatterns(RewritePatternSet &patterns,
                                           int64_t chunkSize,
                                           bool handOff = false);
/// presum -> blocked two-level scan; `blockSize` 0 chooses.
void populatePresumToScanPatterns(RewritePatternSet &patterns,
                                  int64_t blockSize);
/// attention -> tiled online softmax.
void populateTileAttentionPatterns(RewritePatternSet &patterns,
                                   int64_t tileSize);

#define GEN_PASS_REGISTRATION
#include "linea/Forms/Passes.h.inc"

} // namespace linea
} // namespace mlir

#endif // LINEA_FORMS_PASSES_H
