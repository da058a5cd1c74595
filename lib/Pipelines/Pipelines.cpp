//===- Pipelines.cpp - Linea's named pass pipelines -----------------------===//

#include "linea/Pipelines/Pipelines.h"

#include "linea/Conversion/Passes.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::linea::buildOptimizePipeline(OpPassManager &pm,
                                        const OptimizeOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLineaExpandFoldedAttention());
  pm.addPass(createLineaFoldToLoop());
  pm.addPass(createLineaSplitPrefix());
  pm.addPass(createCanonicalizerPass());
  LineaSelectFormsOptions select;
  select.target = options.target;
  select.form = options.form;
  select.chunkSize = options.chunkSize;
  select.explain = options.explain;
  pm.addPass(createLineaSelectForms(select));
  pm.addPass(createLineaPrefixToOneShot());
  pm.addPass(createLineaCausalToChunked());
  pm.addPass(createLineaTileAttention());
  // The forms above create presums of their own (the gates' log-decays):
  // the cost model picks the scan for those too, then the scans are built.
  pm.addPass(createLineaSelectForms(select));
  pm.addPass(createLineaPresumToScan());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::linea::buildLowerToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createLineaExpandFoldedAttention());
  pm.addPass(createConvertLineaToLinalg());
  // Elementwise arith on tensors (common in fold bodies) becomes linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Temporaries die inside their loop iteration: a fold over a long input
  // keeps only one window's buffers alive.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createLineaLowerCopies());

  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::linea::registerPipelines() {
  PassPipelineRegistration<OptimizeOptions>(
      "linea-optimize",
      "Linea's optimizing pipeline: fold loops, prefix splitting, cost-model "
      "form selection, one-shot, chunked, tiled and blocked-scan forms",
      [](OpPassManager &pm, const OptimizeOptions &options) {
        buildOptimizePipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "linea-lower-to-cpu",
      "Lower every Linea op (reference forms) and the upstream dialects to "
      "the LLVM dialect, runnable by mlir-runner and linea-run",
      buildLowerToCPUPipeline);
}

void mlir::linea::registerAllPasses() {
  registerLineaPasses();
  registerLineaConversionPasses();
  registerPipelines();
}
