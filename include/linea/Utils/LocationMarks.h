//===- LocationMarks.h - facts an op's location carries down ---*- C++ -*-===//
//
// A location travels with every op built from an op, through bufferization
// and mapping down to the kernel launches, where an attribute would not: a
// fused location whose metadata dictionary holds a key carries a fact about
// the source op (the bytes it moves at least, the name of its kernels) to
// the passes that read it there.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_LOCATIONMARKS_H
#define LINEA_UTILS_LOCATIONMARKS_H

#include "mlir/IR/Location.h"

#include <optional>

namespace mlir::linea {

/// `loc` fused with the metadata `{key = value}`.
Location withMark(Location loc, StringRef key, Attribute value);

/// The location within `loc` (itself or one nested in it) marked with
/// `key`, if any.
std::optional<FusedLoc> markedWith(Location loc, StringRef key);

/// The value a location found by markedWith holds for `key`.
Attribute markOf(FusedLoc marked, StringRef key);

} // namespace mlir::linea

#endif // LINEA_UTILS_LOCATIONMARKS_H
