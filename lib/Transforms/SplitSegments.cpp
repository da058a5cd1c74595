//===- SplitSegments.cpp - packed sequences -> the op on each segment -----===//
//
// An op with offsets is, by definition, the op on each segment alone; this
// pass writes the definition out (a parallel loop over the segments, see
// buildSegmentwise), so that every later pass sees ops without offsets. For
// the GPU the loop also runs over the sequences, and each (segment,
// sequence) pair is one sequence block: the op on one segment of one
// sequence is one block's program, like a chunked op's sequence, and every
// segment of every sequence is one launch.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Transforms/SplitPrefix.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/SequenceBlocks.h"

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
    FailureOr<TargetDescription> machine =
        planTarget(getOperation(), target, chip, targetDescription);
    if (failed(machine))
      return signalPassFailure();
    SegmentLoopKind kind = machine->kind == TargetKind::gpu
                               ? SegmentLoopKind::perSegmentBlock
                               : SegmentLoopKind::perSegment;
    if (kind == SegmentLoopKind::perSegmentBlock && failed(checkSegmentBlocks()))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateSplitSegmentsPatterns(patterns, kind);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  /// Each (segment, sequence) pair is one GPU block, named by one linear
  /// block dim per loop, and its op must be a program one block runs.
  LogicalResult checkSegmentBlocks() {
    WalkResult walk = getOperation()->walk([](PackedOpInterface op) {
      if (!op.isPacked())
        return WalkResult::advance();
      if (std::optional<StringRef> why = whyNotOneBlock(op)) {
        op->emitOpError() << "has packed segments (offsets), and on the GPU "
                             "each segment of each sequence runs as one "
                             "block, which "
                          << *why << " does not yet";
        return WalkResult::interrupt();
      }
      if (1 + op.getPackedOperands().dim <= int64_t(kMaxSequenceBlockLoops))
        return WalkResult::advance();
      op->emitOpError() << "has " << op.getPackedOperands().dim
                        << " dims before its sequence dim: with the segments "
                           "that is more than the "
                        << kMaxSequenceBlockLoops << " linear GPU block dims";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  /// The ops whose form on a segment of dynamic length has temporaries of
  /// static size (a block's shared memory): a presum's sequential scan, a
  /// causal op's chunks, a bidirectional op's state (over chunks where its
  /// rows need a copy), a prefix's two parts of those, softmax attention's
  /// query tiles over key tiles. A prefix split that copies all of the
  /// segment's rows would need a buffer as long as the segment (seen as
  /// linea-map-to-gpu's "'memref.alloc' cannot run in one block"), and its
  /// blocks would become a host loop, which cannot read the offsets in
  /// device memory.
  static std::optional<StringRef> whyNotOneBlock(PackedOpInterface op) {
    auto attention = dyn_cast<LinearAttentionOpInterface>(op.getOperation());
    if (attention && attention.getEffectiveMask() == Mask::prefix &&
        splitPrefixCopiesRows(attention))
      return StringRef("a normalized op with a prefix mask");
    return std::nullopt;
  }
};

} // namespace
