//===- SegmentIds.h - a mask that keeps to packed documents ----*- C++ -*-===//
//
// Training packs documents into one row and keeps attention inside each
// with the ids of the tokens: `(i, t)` is kept only where
// `ids[i] == ids[t]`. Where every id is one run of tokens (the ids never
// decrease, or never increase), that is SPEC's offsets form with a segment
// per run, and the rest of the mask (causal, none) holds within each
// segment, being the same at every shift. Whether the ids run in order is
// known only at run time, so a raise that finds such a mask versions its
// root: `scf.if` the ids run in order, the packed op, else the root as
// written, which linea-raise then leaves alone.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_SEGMENTIDS_H
#define LINEA_LIB_RAISE_SEGMENTIDS_H

#include "RaiseUtils.h"

namespace mlir::linea::raise {

/// The segment ids a mask compares.
struct SegmentIds {
  /// The ids as the root reads them at the row `i` (every other dim a unit
  /// dim): one id per token.
  LoopView atRow;
  /// The comparisons of `ids[i]` with `ids[t]` in the mask, each with its
  /// value where the two are equal (`==` true, `!=` false).
  SmallVector<std::pair<const ElementExpr *, bool>> comparisons;
};

/// The segment ids `product`'s masks compare at the row and the column
/// (loops `row`, `col`), if any; none where no mask compares one tensor's
/// elements so, or where the comparisons read more than one tensor.
std::optional<SegmentIds> findSegmentIds(const Product &product, unsigned row,
                                         unsigned col);

/// The mask within each segment: `product`'s masks with the ids compared
/// equal. Failure, with `why`, unless the masks hold off the diagonal only
/// where the ids are equal: then they are `same segment and within`, for
/// every index and every length.
FailureOr<IndexPredicate> maskWithinSegments(const Product &product,
                                             const SegmentIds &segments,
                                             unsigned row, unsigned col,
                                             MLIRContext *ctx,
                                             std::string &why);

/// Builds a raise's replacement of `root` from the segments' offsets (a
/// `tensor<?xindex>`; null when the mask has no segments), in the root's
/// result type.
using PackedBuilder = function_ref<Value(OpBuilder &, Value offsets)>;

/// Replaces `root` by `build`'s value; with `segments`, only where their ids
/// run in order at run time (the root as written elsewhere), the offsets
/// being where each run starts, then the length.
void replaceRootBySegments(RewriterBase &rewriter, Operation *root,
                           const std::optional<SegmentIds> &segments,
                           PackedBuilder build);

/// Whether `op` lies in the as-written branch of such a replacement, which
/// linea-raise leaves as written.
bool isInAsWrittenBranch(Operation *op);

} // namespace mlir::linea::raise

#endif // LINEA_LIB_RAISE_SEGMENTIDS_H
