//===- Segments.cpp - the segments of a packed sequence -------------------===//

#include "linea/Utils/Segments.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

Value mlir::linea::buildPerSegment(
    OpBuilder &b, Location loc, Value offsets, ValueRange sequences,
    int64_t dim, Type resultElementType,
    function_ref<Value(OpBuilder &, Location, const Segment &)> body) {
  Value like = sequences.front();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::SubIOp::create(
      b, loc, tensor::DimOp::create(b, loc, offsets, 0), one);
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, like), resultElementType);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{count}, ValueRange{init},
      /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Segment segment;
  segment.index = forall.getInductionVars()[0];
  segment.start = segmentOffset(b, loc, offsets, segment.index);
  Value end = segmentOffset(
      b, loc, offsets, arith::AddIOp::create(b, loc, segment.index, one));
  segment.size = arith::SubIOp::create(b, loc, end, segment.start);
  for (Value x : sequences)
    segment.slices.push_back(
        sliceAlong(b, loc, x, dim, segment.start, segment.size));
  Value rows = body(b, loc, segment);
  int64_t rank = cast<RankedTensorType>(rows.getType()).getRank();
  SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0));
  at[dim] = segment.start;
  // (The sizes before the terminator, whose body holds only the inserts.)
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rows);
  sizes[dim] = segment.size;
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, rows, forall.getRegionIterArgs()[0], at, sizes,
      SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
  return forall.getResult(0);
}
