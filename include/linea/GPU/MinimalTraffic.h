//===- MinimalTraffic.h - the bytes a source op moves at least --*- C++ -*-===//
//
// linea-mark-minimal-traffic writes the count into a source op's location;
// linea-kernel-report reads it back from the launches built from that op.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_GPU_MINIMALTRAFFIC_H
#define LINEA_GPU_MINIMALTRAFFIC_H

#include "mlir/IR/Location.h"

#include <optional>

namespace mlir::linea {

/// The key of the count in a fused location's metadata dictionary.
inline constexpr llvm::StringLiteral kMinimalBytesKey = "linea.minimal_bytes";

/// `loc` fused with the minimal byte count.
Location withMinimalBytes(Location loc, double bytes);

/// The marked location within `loc` (itself or one nested in it), if any.
std::optional<FusedLoc> markedSource(Location loc);

/// The count a marked location carries.
double minimalBytesOf(FusedLoc marked);

} // namespace mlir::linea

#endif // LINEA_GPU_MINIMALTRAFFIC_H
