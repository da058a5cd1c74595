//===- Pipelines.h - Linea's named pass pipelines --------------*- C++ -*-===//

#ifndef LINEA_PIPELINES_PIPELINES_H
#define LINEA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::linea {

/// linea-optimize: the optimizing pipeline (today: canonicalization and the
/// folded_attention expansion; the cost-model driven rewrites join it).
void buildOptimizePipeline(OpPassManager &pm);

/// linea-lower-to-cpu: every Linea op through the reference lowering, one-shot
/// bufferization and the upstream conversions to the LLVM dialect.
void buildLowerToCPUPipeline(OpPassManager &pm);

/// Registers the pipelines above under their SPEC names.
void registerPipelines();

/// Registers every Linea pass and pipeline.
void registerAllPasses();

} // namespace mlir::linea

#endif // LINEA_PIPELINES_PIPELINES_H
