//===- LocationMarks.cpp - facts an op's location carries down ------------===//

#include "linea/Utils/LocationMarks.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

Location mlir::linea::withMark(Location loc, StringRef key, Attribute value) {
  MLIRContext *ctx = loc.getContext();
  auto metadata = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, key), value)});
  return FusedLoc::get(ctx, {loc}, metadata);
}

std::optional<FusedLoc> mlir::linea::markedWith(Location loc, StringRef key) {
  std::optional<FusedLoc> found;
  loc->walk([&](Location nested) {
    auto fused = dyn_cast<FusedLoc>(nested);
    auto metadata = fused
                        ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
                        : DictionaryAttr();
    if (!metadata || !metadata.get(key))
      return WalkResult::advance();
    found = fused;
    return WalkResult::interrupt();
  });
  return found;
}

Attribute mlir::linea::markOf(FusedLoc marked, StringRef key) {
  return cast<DictionaryAttr>(marked.getMetadata()).get(key);
}
