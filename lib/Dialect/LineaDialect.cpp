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

LogicalResult LineaDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  if (attribute.getName() != kTargetAttrName)
    return op->emitError() << "unknown Linea attribute '"
                           << attribute.getName().getValue() << "'";
  auto target = dyn_cast<StringAttr>(attribute.getValue());
  if (!target || (target.getValue() != "cpu" && target.getValue() != "gpu"))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be \"cpu\" or \"gpu\", not "
                           << attribute.getValue();
  return success();
}
