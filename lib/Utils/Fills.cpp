//===- Fills.cpp - recognizing a fill in either of its forms --------------===//

#include "linea/Utils/Fills.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

Value mlir::linea::filledValue(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getInputs()[0];
  if (auto map = dyn_cast<linalg::MapOp>(op)) {
    if (!map.getInputs().empty())
      return {};
    Value yielded = map.getMapper().front().getTerminator()->getOperand(0);
    return yielded.getParentBlock() == &map.getMapper().front() ? Value()
                                                                : yielded;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 0 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !generic.getIndexingMapsArray()[0].isIdentity())
    return {};
  Value yielded =
      cast<linalg::YieldOp>(generic.getBody()->getTerminator()).getValues()[0];
  if (yielded.getParentBlock() == generic.getBody())
    return {};
  return yielded;
}
