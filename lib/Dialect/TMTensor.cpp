//===- TMTensor.cpp - torch-mlir's tm_tensor.scan, as Linea reads it ------===//

#include "linea/Dialect/TMTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::linea::tm_tensor;

#include "linea/Dialect/TMTensorDialect.cpp.inc"

void TMTensorDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "linea/Dialect/TMTensorOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "linea/Dialect/TMTensorOps.cpp.inc"

LogicalResult ScanOp::verify() {
  if (getInputs().size() != 1 || getOutputs().size() != 2)
    return emitOpError() << "takes one input and two outputs (the scan and "
                            "its accumulator), got "
                         << getInputs().size() << " and " << getOutputs().size();
  auto input = cast<RankedTensorType>(getInput().getType());
  auto output = cast<RankedTensorType>(getOutput().getType());
  auto accumulator = cast<RankedTensorType>(getAccumulator().getType());
  int64_t dim = getDimension();
  if (dim < 0 || dim >= input.getRank())
    return emitOpError() << "dimension " << dim << " is out of range for an "
                         << "input of rank " << input.getRank();
  if (failed(verifyCompatibleShape(input, output)) ||
      input.getElementType() != output.getElementType())
    return emitOpError() << "output type " << output
                         << " does not match input type " << input;
  SmallVector<int64_t> reduced(input.getShape());
  reduced.erase(reduced.begin() + dim);
  if (failed(verifyCompatibleShape(reduced, accumulator.getShape())) ||
      accumulator.getElementType() != input.getElementType())
    return emitOpError() << "accumulator type " << accumulator
                         << " is not the input's shape without dimension "
                         << dim;
  if (getNumResults() != 2 || getResult(0).getType() != output ||
      getResult(1).getType() != accumulator)
    return emitOpError() << "results must have the outputs' types";
  Block &body = getRegion().front();
  Type element = input.getElementType();
  if (body.getNumArguments() != 2 ||
      llvm::any_of(body.getArgumentTypes(),
                   [&](Type t) { return t != element; }))
    return emitOpError() << "region takes two " << element << " arguments";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0).getType() != element)
    return emitOpError() << "region yields one " << element;
  return success();
}

Operation *ScanOp::getCommutativeCombiner() {
  Block &body = getRegion().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  Operation *op = &body.front();
  if (!isa<arith::AddFOp, arith::AddIOp, arith::MulFOp, arith::MulIOp,
           arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp, arith::MaxSIOp, arith::MinSIOp>(op))
    return nullptr;
  bool usesBoth = (op->getOperand(0) == body.getArgument(0) &&
                   op->getOperand(1) == body.getArgument(1)) ||
                  (op->getOperand(0) == body.getArgument(1) &&
                   op->getOperand(1) == body.getArgument(0));
  if (!usesBoth || body.getTerminator()->getOperand(0) != op->getResult(0))
    return nullptr;
  return op;
}
