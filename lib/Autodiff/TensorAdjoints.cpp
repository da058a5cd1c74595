//===- TensorAdjoints.cpp - Adjoints of the tensor dialect's data movement -===//
//
// Slices, inserts, concatenations, reshapes and casts move values without
// arithmetic: each adjoint moves the cotangent back the opposite way.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::linea;

/// extract_slice: the result's cotangent inserted into zeros of the source.
static void adjoint(tensor::ExtractSliceOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  Value zeros = zerosLike(b, loc, op.getSource());
  ct.accumulate(b, loc, op.getSource(),
                tensor::InsertSliceOp::create(
                    b, loc, d, zeros, op.getMixedOffsets(),
                    op.getMixedSizes(), op.getMixedStrides()));
}

/// insert_slice: the inserted part's cotangent is the slice of the result's;
/// the destination's is the result's with that slice zeroed.
static void adjoint(tensor::InsertSliceOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  if (ct.isActive(op.getSource()))
    ct.accumulate(b, loc, op.getSource(),
                  tensor::ExtractSliceOp::create(
                      b, loc, op.getSourceType(), d, op.getMixedOffsets(),
                      op.getMixedSizes(), op.getMixedStrides()));
  if (ct.isActive(op.getDest())) {
    Value zeros = zerosLike(b, loc, op.getSource());
    ct.accumulate(b, loc, op.getDest(),
                  tensor::InsertSliceOp::create(
                      b, loc, zeros, d, op.getMixedOffsets(),
                      op.getMixedSizes(), op.getMixedStrides()));
  }
}

/// concat: each input's cotangent is its slice of the result's.
static void adjoint(tensor::ConcatOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  int64_t dim = op.getDim();
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value input : op.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    if (ct.isActive(input)) {
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      offsets[dim] = offset;
      ct.accumulate(b, loc, input,
                    tensor::ExtractSliceOp::create(b, loc, type, d, offsets,
                                                   sizes, strides));
    }
    AffineExpr s0, s1;
    bindSymbols(b.getContext(), s0, s1);
    offset = affine::makeComposedFoldedAffineApply(b, loc, s0 + s1,
                                                   {offset, sizes[dim]});
  }
}

static void adjoint(tensor::ExpandShapeOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  ct.accumulate(b, loc, op.getSrc(),
                tensor::CollapseShapeOp::create(b, loc, op.getSrcType(), d,
                                                op.getReassociationIndices()));
}

static void adjoint(tensor::CollapseShapeOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  ct.accumulate(b, loc, op.getSrc(),
                tensor::ExpandShapeOp::create(
                    b, loc, op.getSrcType(), d, op.getReassociationIndices(),
                    tensor::getMixedSizes(b, loc, op.getSrc())));
}

static void adjoint(tensor::CastOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  ct.accumulate(b, loc, op.getSource(),
                tensor::CastOp::create(b, loc, op.getSource().getType(), d));
}

/// extract: the scalar's cotangent at its place in zeros of the tensor.
static void adjoint(tensor::ExtractOp op, OpBuilder &b, Cotangents &ct) {
  Location loc = op.getLoc();
  Value d = ct.lookupOrZeros(b, loc, op.getResult());
  Value zeros = zerosLike(b, loc, op.getTensor());
  ct.accumulate(b, loc, op.getTensor(),
                tensor::InsertOp::create(b, loc, d, zeros, op.getIndices()));
}

std::optional<LogicalResult>
mlir::linea::emitTensorAdjoint(Operation *op, OpBuilder &b,
                               Cotangents &cotangents) {
  return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      .Case<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
            tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
            tensor::ExtractOp>([&](auto concrete) {
        adjoint(concrete, b, cotangents);
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
