//===- SplitPrefix.h - what linea-split-prefix builds ---------*- C++ -*-===//
//
// linea-split-prefix splits a PrefixLM op into a bidirectional and a causal
// part. Other passes that must know what the split will hold (whether a
// GPU sequence block can run it) ask here rather than repeat its rules.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TRANSFORMS_SPLITPREFIX_H
#define LINEA_TRANSFORMS_SPLITPREFIX_H

#include "linea/Dialect/LineaOps.h"

namespace mlir::linea {

/// Whether the split of `op` copies all of its rows: a normalized op's
/// normalizer crosses the split as a ones column appended to every value
/// row, and the joined rows are divided by it afterwards.
bool splitPrefixCopiesRows(LinearAttentionOpInterface op);

} // namespace mlir::linea

#endif // LINEA_TRANSFORMS_SPLITPREFIX_H
