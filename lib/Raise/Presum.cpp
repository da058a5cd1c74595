//===- Presum.cpp - prefix sums from model IR -----------------------------===//
//
// torch-mlir prints `torch.cumsum` as `tm_tensor.scan` adding floats along a
// dimension: an inclusive scan is `linea.presum` along that dimension; an
// exclusive one is an exclusive presum where its accumulator starts at
// zero. The scan's second result, the last row, stays a slice of the
// presum.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Scores.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Dialect/TMTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

LogicalResult raise::raiseScan(RewriterBase &rewriter, Operation *op,
                               RaiseLog &log, Rejection &why) {
  auto scan = dyn_cast<tm_tensor::ScanOp>(op);
  if (!scan)
    return failure();
  auto type = cast<RankedTensorType>(scan.getInput().getType());
  Operation *combiner = scan.getCommutativeCombiner();
  if (!combiner || !isa<arith::AddFOp>(combiner))
    return reject(why, "the scan does not add (a linea.presum adds)");
  if (!type.getElementType().isF32() && !type.getElementType().isF16() &&
      !type.getElementType().isBF16())
    return reject(why, "the scan adds values other than f32, f16 or bf16");
  // The output's initial value is overwritten row by row; an exclusive
  // scan starts from its accumulator, which must be zero.
  bool exclusive = !scan.getInclusive();
  if (exclusive) {
    DenseElementsAttr init;
    Value accumulator = scan.getAccumulator();
    auto fill = accumulator.getDefiningOp<linalg::FillOp>();
    FloatAttr value;
    bool zero = (fill && matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
                 value.getValue().isZero()) ||
                (matchPattern(accumulator, m_Constant(&init)) &&
                 init.isSplat() && init.getSplatValue<APFloat>().isZero());
    if (!zero)
      return reject(why, "the exclusive scan starts from an accumulator that "
                         "is not zero");
  }
  if (!scan.getResult(1).use_empty())
    return reject(why, "the scan's accumulator result is used");
  Location loc = scan.getLoc();
  rewriter.setInsertionPoint(scan);
  auto presum = PresumOp::create(
      rewriter, loc, type, scan.getInput(), /*decay=*/Value(),
      rewriter.getI64IntegerAttr(scan.getDimension()),
      exclusive ? rewriter.getUnitAttr() : nullptr, /*reverse=*/nullptr,
      /*form=*/nullptr);
  log.raised(scan, "linea.presum dim = " + Twine(scan.getDimension()) +
                       (exclusive ? " exclusive" : ""));
  // The accumulator result has no uses: any value of its type will do.
  rewriter.replaceOp(scan, {presum.getOutput(), scan.getAccumulator()});
  return success();
}
