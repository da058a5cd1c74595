//===- SplitSegments.cpp - packed sequences -> the op on each segment -----===//
//
// An op with offsets is, by definition, the op on each segment alone; this
// pass writes the definition out (a parallel loop over the segments, see
// buildSegmentwise), so that every later pass sees ops without offsets. For
// the GPU the loop also runs over the sequences, and each (segment,
// sequence) pair is one sequence block: the op on one segment of one
// sequence is one block's program, like a chunked op's sequence, and every
// segment of every sequence is one launch. A normalized PrefixLM op's
// normalizer becomes a value column before its segments are split
// (NormalizerColumn.h): one copy of the packed rows, not one per segment,
// which a GPU segment block could not hold. A packed softmax attention that
// runs as flash attention stays whole: that kernel walks the segments.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"
#include "linea/Utils/FlashAttentionChoice.h"
#include "linea/Utils/NormalizerColumn.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASPLITSEGMENTS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

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
    SegmentLoopKind kind = handOff ? SegmentLoopKind::inOrder
                           : machine->kind == TargetKind::gpu
                               ? SegmentLoopKind::perSegmentBlock
                               : SegmentLoopKind::perSegment;
    if (kind == SegmentLoopKind::perSegmentBlock && failed(checkSegmentBlocks()))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    // Ahead of the split (a higher benefit): the segments then hold
    // unnormalized ops.
    populateNormalizerAsValueColumnPatterns(patterns, /*packedOnly=*/true,
                                            /*benefit=*/2);
    // On the GPU the flash-attention kernel walks a packed op's segments
    // itself.
    std::function<bool(PackedOpInterface)> staysWhole;
    if (kind == SegmentLoopKind::perSegmentBlock)
      staysWhole = [precision = Precision(precision)](PackedOpInterface op) {
        auto attention = dyn_cast<AttentionOp>(op.getOperation());
        return attention && flash::operandTypeFor(attention, precision);
      };
    populateSplitSegmentsPatterns(patterns, kind, staysWhole);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  /// Each (segment, sequence) pair is one GPU block, named by one linear
  /// block dim per loop.
  LogicalResult checkSegmentBlocks() {
    WalkResult walk = getOperation()->walk([](PackedOpInterface op) {
      if (!op.isPacked() ||
          1 + op.getPackedOperands().dim <= int64_t(kMaxSequenceBlockLoops))
        return WalkResult::advance();
      op->emitOpError() << "has " << op.getPackedOperands().dim
                        << " dims before its sequence dim: with the segments "
                           "that is more than the "
                        << kMaxSequenceBlockLoops << " linear GPU block dims";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace
