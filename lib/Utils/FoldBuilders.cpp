//===- FoldBuilders.cpp - the loops and bodies of folded attention --------===//

#include "linea/Utils/FoldBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::linea;

static Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

SmallVector<Value> mlir::linea::buildSegmentLoop(OpBuilder &b, FoldOp op) {
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto type = op.getInput().getType();
  int64_t seq = seqDim(type), rank = type.getRank();
  int64_t segment = op.getSegmentLength();
  Block &body = op.getBody().front();
  Value window = body.getArgument(0);
  auto windowType = cast<RankedTensorType>(window.getType());

  SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(b, loc, x);
  Value seqLen = getValueOrCreateConstantIndexOp(b, loc, xSizes[seq]);
  Value segLen = indexConst(b, loc, segment);
  Value numSegments = arith::DivUIOp::create(b, loc, seqLen, segLen);
  Value output = tensor::EmptyOp::create(b, loc, xSizes,
                                         type.getElementType());
  SmallVector<OpFoldResult> segSizes(xSizes);
  segSizes[seq] = b.getIndexAttr(segment);
  SmallVector<OpFoldResult> windowSizes(xSizes);
  windowSizes[seq] = b.getIndexAttr(2 * segment);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto offsetsAt = [&](OpFoldResult seqOffset) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[seq] = seqOffset;
    return offsets;
  };
  auto yield = cast<YieldOp>(body.getTerminator());

  Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, zero, numSegments, one,
      ValueRange{op.getMemory(), output},
      [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
        Value start = arith::MulIOp::create(nb, l, iv, segLen);
        Value current = tensor::ExtractSliceOp::create(
            nb, l, x, offsetsAt(start), segSizes, strides);
        // W = concat(M, x[s*l : (s+1)*l]) along the sequence.
        Value w = tensor::EmptyOp::create(nb, l, windowSizes,
                                          windowType.getElementType());
        w = tensor::InsertSliceOp::create(
            nb, l, carried[0], w, offsetsAt(nb.getIndexAttr(0)),
            tensor::getMixedSizes(nb, l, carried[0]), strides);
        w = tensor::InsertSliceOp::create(
            nb, l, current, w, offsetsAt(nb.getIndexAttr(segment)),
            tensor::getMixedSizes(nb, l, current), strides);
        IRMapping mapping;
        mapping.map(window, w);
        for (Operation &nested : body.without_terminator())
          nb.clone(nested, mapping);
        Value evolved = mapping.lookupOrDefault(yield.getValue());
        // y[s*l : (s+1)*l] = M = R[l : 2l].
        Value next = tensor::ExtractSliceOp::create(
            nb, l, evolved, offsetsAt(nb.getIndexAttr(segment)), segSizes,
            strides);
        Value updated = tensor::InsertSliceOp::create(
            nb, l, next, carried[1], offsetsAt(start),
            tensor::getMixedSizes(nb, l, next), strides);
        // Copy into the carried buffer so the loop keeps one memory
        // buffer (bufferization needs the yield equivalent to the iter arg).
        if (next.getType() != op.getMemory().getType())
          next = tensor::CastOp::create(nb, l, op.getMemory().getType(), next);
        Value memory =
            linalg::CopyOp::create(nb, l, next, carried[0]).getResult(0);
        scf::YieldOp::create(nb, l, ValueRange{memory, updated});
      });
  // The loop carries (memory, output); the fold returns (output, memory).
  return {loop.getResult(1), loop.getResult(0)};
}

static Value multiplyAdd(OpBuilder &b, Location loc, ValueRange args) {
  Value prod = arith::MulFOp::create(b, loc, args[0], args[1]);
  return arith::AddFOp::create(b, loc, args[2], prod);
}

FoldOp mlir::linea::buildFoldedAttentionFold(OpBuilder &b,
                                            FoldedAttentionOp op) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  RankedTensorType xType = op.getInput().getType();
  int64_t numBatch = numBatchDims(xType);
  int64_t model = xType.getDimSize(featureDim(xType));
  int64_t heads = op.getNumHeads();
  int64_t window = 2 * op.getSegmentLength();

  auto fold = FoldOp::create(b, loc, xType, op.getMemory().getType(),
                             op.getInput(), op.getMemory(),
                             op.getSegmentLengthAttr());
  SmallVector<int64_t> windowShape(xType.getShape());
  windowShape[seqDim(xType)] = window;
  auto windowType = RankedTensorType::get(windowShape, xType.getElementType());
  Block *body = b.createBlock(&fold.getBody(), {}, {windowType}, {loc});

  Value w = castToF32(b, loc, body->getArgument(0));
  auto f32Weight = [&](Value weight) {
    return castToF32(b, loc, weight);
  };
  SmallVector<OpFoldResult> headShape =
      leadingSizes(b, loc, w, numBatch);
  llvm::append_range(headShape, ArrayRef<OpFoldResult>{
                                    b.getIndexAttr(heads),
                                    b.getIndexAttr(window),
                                    b.getIndexAttr(model / heads)});

  // Qh[b, h, n, c] = sum_d W[b, n, d] * wq[d, h * D/h + c]
  LoopSpace proj(b.getContext(), numBatch, {kPar, kPar, kPar, kRed});
  AffineExpr h = proj[0], n = proj[1], c = proj[2], d = proj[3];
  AffineExpr column = h * (model / heads) + c;
  auto project = [&](Value weight) {
    Value zeros = buildFilled(b, loc, headShape,
                              b.getF32Type(), 0);
    return buildGeneric(b, loc, {w, f32Weight(weight)}, zeros,
                        {proj.map({n, d}), proj.mapWithoutBatch({d, column}),
                         proj.map({h, n, c})},
                        proj.iterators(), multiplyAdd);
  };
  Value qh = project(op.getWq()), kh = project(op.getWk()),
        vh = project(op.getWv());
  Value attended = AttentionOp::create(
      b, loc, qh.getType(), qh, kh, vh, /*offsets=*/Value(),
      MaskAttr::get(b.getContext(), Mask::causal), FloatAttr());

  // R[b, n, e] = sum_{h, c} A[b, h, n, c] * wo[h * D/h + c, e]
  LoopSpace out(b.getContext(), numBatch, {kPar, kPar, kRed, kRed});
  AffineExpr on = out[0], oe = out[1], oh = out[2], oc = out[3];
  SmallVector<OpFoldResult> outShape = leadingSizes(b, loc, w, numBatch);
  outShape.push_back(b.getIndexAttr(window));
  outShape.push_back(b.getIndexAttr(model));
  Value r = buildGeneric(
      b, loc, {attended, f32Weight(op.getWo())},
      buildFilled(b, loc, outShape, b.getF32Type(), 0),
      {out.map({oh, on, oc}),
       out.mapWithoutBatch({oh * (model / heads) + oc, oe}),
       out.map({on, oe})},
      out.iterators(), multiplyAdd);
  r = castFromF32(b, loc, r, xType.getElementType());
  if (r.getType() != windowType)
    r = tensor::CastOp::create(b, loc, windowType, r);
  YieldOp::create(b, loc, r);

  return fold;
}
