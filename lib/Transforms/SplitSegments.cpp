//===- SplitSegments.cpp - packed sequences -> the op on each segment -----===//
//
// An op with offsets is, by definition, the op on each segment alone; this
// pass writes the definition out (a parallel loop over the segments, see
// buildSegmentwise), so that every later pass sees ops without offsets.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/Segments.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITSEGMENTS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

#define DEBUG_TYPE "linea-split-segments"

using namespace mlir;
using namespace mlir::linea;

namespace {

struct LineaSplitSegmentsPass
    : linea::impl::LineaSplitSegmentsBase<LineaSplitSegmentsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (target == TargetKind::gpu) {
      WalkResult packed = getOperation()->walk([](PackedOpInterface op) {
        if (!op.isPacked())
          return WalkResult::advance();
        op->emitOpError() << "has packed segments (offsets), which run on the "
                             "CPU only so far: the GPU lowering has no grid "
                             "over segments yet";
        return WalkResult::interrupt();
      });
      if (packed.wasInterrupted())
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateSplitSegmentsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
