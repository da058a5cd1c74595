//===- TileOptions.cpp - the range check the CPU passes share -------------===//

#include "linea/CPU/Passes.h"

using namespace mlir;

LogicalResult mlir::linea::checkTileOption(Operation *op, StringRef name,
                                           int64_t value, int64_t max) {
  if (value >= 1 && value <= max)
    return success();
  return op->emitError() << name << " must be in [1, " << max << "], got "
                         << value;
}
