//===- DistributePresum.cpp - presum across ranks -------------------------===//
//
// The rule for a presum (not packed, no decay) along the split dim: each
// rank scans its rows, one all-gather shares the ranks' totals, and each
// rank adds those of the ranks before it (after it, reversed).
//
//===----------------------------------------------------------------------===//

#include "DistributedUtils.h"

#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::linea::distributed {

/// presum along the sharded dim: the local scan plus the totals of the
/// ranks before this one (after it, when reversed).
Value distributePresum(OpBuilder &b, ModuleOp module, const Ranks &ranks,
                       PresumOp presum) {
  Location loc = presum.getLoc();
  Value x = presum.getInput();
  int64_t dim = presum.getScanDim();
  auto type = cast<RankedTensorType>(x.getType());
  Value local = PresumOp::create(b, loc, type, x, /*decay=*/Value(), /*offsets=*/Value(),
                                 presum.getDimAttr(),
                                 presum.getExclusiveAttr(),
                                 presum.getReverseAttr(), presum.getFormAttr());

  // This rank's total along `dim`.
  SmallVector<OpFoldResult> totalSizes = tensor::getMixedSizes(b, loc, x);
  totalSizes.erase(totalSizes.begin() + dim);
  Value zeros = buildFilled(b, loc, totalSizes, type.getElementType(), 0.0);
  Value total =
      linalg::ReduceOp::create(
          b, loc, ValueRange{x}, ValueRange{zeros}, ArrayRef<int64_t>{dim},
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            Value sum = arith::AddFOp::create(nested, nestedLoc, args[0], args[1]);
            linalg::YieldOp::create(nested, nestedLoc, sum);
          })
          .getResult(0);

  Records records;
  unsigned mine = records.add(castToF32(b, loc, total));
  records.gather(b, loc, module, ranks.size);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lo = presum.getReverse()
                 ? arith::AddIOp::create(b, loc, ranks.rank, one).getResult()
                 : arith::ConstantIndexOp::create(b, loc, 0).getResult();
  Value hi = presum.getReverse() ? ranks.size : ranks.rank;
  Value before = foldOverRanks(
      b, loc, lo, hi, castToF32(b, loc, zeros),
      [&](OpBuilder &nested, Location nestedLoc, Value sum, Value rank) {
        return addInto(nested, nestedLoc, sum,
                          records.read(nested, nestedLoc, rank, mine));
      });

  // local + before, broadcast along `dim`.
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      kept.push_back(getAffineDimExpr(d, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap broadcast = AffineMap::get(rank, 0, kept, ctx);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       type.getElementType());
  SmallVector<utils::IteratorType> parallel(rank, kPar);
  return buildGeneric(
      b, loc, ValueRange{local, before}, init, {identity, broadcast, identity},
      parallel, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value offset = args[1];
        if (offset.getType() != args[0].getType())
          offset = arith::TruncFOp::create(nested, nestedLoc, args[0].getType(),
                                           offset);
        return arith::AddFOp::create(nested, nestedLoc, args[0], offset)
            .getResult();
      });
}

} // namespace mlir::linea::distributed
