//===- EliminateEmptyOuterFirst.cpp - empty tensors into outer subsets ----===//
//
// Upstream's empty-tensor elimination, one insertion at a time from the
// last in program order: an outer insertion claims a joined empty tensor
// before the inner insertions point their parts at it, so every part is
// computed in the outermost destination (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SubsetOpInterface.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAELIMINATEEMPTYOUTERFIRST
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaEliminateEmptyOuterFirstPass
    : linea::impl::LineaEliminateEmptyOuterFirstBase<
          LineaEliminateEmptyOuterFirstPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The analysis upstream's pass runs on a module.
    bufferization::OneShotBufferizationOptions options;
    options.allowReturnAllocsFromLoops = true;
    options.bufferizeFunctionBoundaries = true;
    bufferization::OneShotAnalysisState state(module, options);
    if (failed(bufferization::analyzeModuleOp(module, state)))
      return signalPassFailure();

    SmallVector<SubsetInsertionOpInterface> insertions;
    module->walk([&](SubsetInsertionOpInterface insertion) {
      insertions.push_back(insertion);
    });
    IRRewriter rewriter(&getContext());
    for (auto insertion : llvm::reverse(insertions))
      if (failed(
              bufferization::eliminateEmptyTensors(rewriter, insertion, state)))
        return signalPassFailure();
  }
};

} // namespace
