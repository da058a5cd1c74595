//===- LineaDialect.cpp - the Linea dialect -------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"

using namespace mlir;
using namespace mlir::linea;

#include "linea/Dialect/LineaDialect.cpp.inc"

void LineaDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "linea/Dialect/LineaOps.cpp.inc"
      >();
}
