//===- NormalizerColumn.h - the normalizer as a value column --*- C++ -*-===//
//
// linea-split-prefix splits a PrefixLM op into a bidirectional and a causal
// part, a normalized op once its normalizer is a value column. Passes that
// split packed ops first (linea-split-segments) take that step too: the
// pattern lives here, for both.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_NORMALIZERCOLUMN_H
#define LINEA_UTILS_NORMALIZERCOLUMN_H

#include "linea/Dialect/LineaOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// A normalized PrefixLM op -> the unnormalized op over f32 `[v, 1]`, its
/// rows divided by the ones column's afterwards and its final state without
/// that column: the normalizer crosses a split as a state column. The
/// column is a copy of every value row; a packed op takes it once, before
/// its segments (`packedOnly`: only packed ops), so that no GPU segment
/// block needs a copy as long as its segment.
void populateNormalizerAsValueColumnPatterns(RewritePatternSet &patterns,
                                             bool packedOnly,
                                             PatternBenefit benefit = 1);

} // namespace mlir::linea

#endif // LINEA_UTILS_NORMALIZERCOLUMN_H
