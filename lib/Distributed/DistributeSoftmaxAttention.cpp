//===- DistributeSoftmaxAttention.cpp - softmax attention across ranks ----===//
//
// The rule for softmax attention (`linea.attention`), packed or not.
//
// A softmax row reads every key it sees, not a state: the ranks all-gather
// the keys and values (context parallelism by all-gather; O(L D) received
// per rank, where linear attention exchanges O(Dk Dv)), and each rank
// attends its own query rows to the keys those rows see.
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
namespace {

/// Every rank's key and value rows, in rank order: `[B..., Lk, D]` of all
/// ranks. All-gather records have one length, so each rank sends its rows
/// padded to the longest rank's; the keys' row span tells each rank's real
/// rows apart.
struct AllKeys {
  Value keys, values, total;
};
AllKeys gatherKeys(OpBuilder &b, Location loc, ModuleOp module,
                   const Ranks &ranks, Value k, Value v, int64_t seq) {
  RowSpan span =
      rowSpan(b, loc, module, ranks, tensor::DimOp::create(b, loc, k, seq));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value longest =
      scf::ForOp::create(
          b, loc, zero, ranks.size, one, ValueRange{zero},
          [&](OpBuilder &nb, Location l, Value rank, ValueRange iter) {
            scf::YieldOp::create(
                nb, l,
                ValueRange{arith::MaxUIOp::create(nb, l, iter[0],
                                                  span.rowsOf(nb, l, rank))});
          })
          .getResult(0);
  auto padded = [&](Value x) {
    Value rowsF32 = castToF32(b, loc, x);
    SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, rowsF32);
    shape[seq] = longest;
    return insertAlong(b, loc, rowsF32,
                       buildFilled(b, loc, shape, b.getF32Type(), 0.0), seq,
                       b.getIndexAttr(0));
  };
  Records records;
  unsigned keysAt = records.add(padded(k));
  unsigned valuesAt = records.add(padded(v));
  records.gather(b, loc, module, ranks.size);

  auto emptyAll = [&](Value x) {
    SmallVector<OpFoldResult> shape = tensor::getMixedSizes(b, loc, x);
    shape[seq] = span.total;
    return tensor::EmptyOp::create(b, loc, shape, b.getF32Type()).getResult();
  };
  auto loop = scf::ForOp::create(
      b, loc, zero, ranks.size, one, ValueRange{emptyAll(k), emptyAll(v), zero},
      [&](OpBuilder &nb, Location l, Value rank, ValueRange iter) {
        Value n = span.rowsOf(nb, l, rank);
        auto place = [&](unsigned at, Value into) {
          Value part = sliceAlong(nb, l, records.read(nb, l, rank, at), seq,
                                  nb.getIndexAttr(0), n);
          return insertAlong(nb, l, part, into, seq, iter[2], n);
        };
        scf::YieldOp::create(
            nb, l,
            ValueRange{place(keysAt, iter[0]), place(valuesAt, iter[1]),
                       arith::AddIOp::create(nb, l, iter[2], n)});
      });
  Type keyType = cast<RankedTensorType>(k.getType()).getElementType();
  Type valueType = cast<RankedTensorType>(v.getType()).getElementType();
  return {castFromF32(b, loc, loop.getResult(0), keyType),
          castFromF32(b, loc, loop.getResult(1), valueType), span.total};
}

/// `op`'s mask and scale on other operands.
Value attentionLike(OpBuilder &b, Location loc, AttentionOp op, Value q,
                    Value k, Value v) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(qType.getShape());
  shape.back() = vType.getShape().back();
  return AttentionOp::create(
      b, loc, RankedTensorType::get(shape, vType.getElementType()), q, k, v,
      /*offsets=*/Value(), op.getMaskAttr(), op.getScaleAttr());
}

/// `max(lo, min(x, hi))` on indices.
Value clampIndex(OpBuilder &b, Location loc, Value x, Value lo, Value hi) {
  return arith::MaxSIOp::create(b, loc, lo,
                                arith::MinSIOp::create(b, loc, x, hi));
}

} // namespace

/// Softmax attention on this rank's query rows against all ranks' keys. A
/// causal query at global row `i` of `Lq` sees keys `t <= i + Lk - Lq`: a
/// rank's rows see the keys up to its last row's bound, and the op on them
/// (whose causal mask aligns the queries with the end of the keys) keeps
/// that bound row by row. Packed, segment n's query rows here see its keys
/// from `o_n` up to their own last row (causal) or to `o_{n+1}`.
Value distributeSoftmaxAttention(OpBuilder &b, ModuleOp module,
                                 const Ranks &ranks, AttentionOp op) {
  Location loc = op.getLoc();
  Value q = op.getQuery();
  int64_t seq = numBatchDims(cast<RankedTensorType>(q.getType()));
  Value rows = tensor::DimOp::create(b, loc, q, seq);
  RowSpan span = rowSpan(b, loc, module, ranks, rows);
  AllKeys all =
      gatherKeys(b, loc, module, ranks, op.getKey(), op.getValue(), seq);
  bool causal = op.getMask() == Mask::causal;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value firstRow = span.offset;

  if (!op.getOffsets()) {
    if (!causal)
      return attentionLike(b, loc, op, q, all.keys, all.values);
    // Keys [0, first + rows + Lk - Lq), clamped to [0, Lk].
    Value end = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, firstRow, rows),
        arith::SubIOp::create(b, loc, all.total, span.total));
    end = clampIndex(b, loc, end, zero, all.total);
    return attentionLike(b, loc, op, q,
                         sliceAlong(b, loc, all.keys, seq, zero, end),
                         sliceAlong(b, loc, all.values, seq, zero, end));
  }

  // Queries and keys are packed alike: as many rows of each on all ranks.
  Value offsets = op.getOffsets();
  CheckOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, all.total,
                            span.total),
      checkMessageAt(op->getLoc(),
                     "linea.attention: packed keys need as many rows as the "
                     "queries, got {0} and {1} (all ranks' rows)"),
      ValueRange{all.total, span.total});
  checkGlobalOffsets(b, loc, op, offsets, span.total);
  Value localQueries = localOffsets(b, loc, offsets, firstRow, rows);
  SmallVector<OpFoldResult> outputSizes = tensor::getMixedSizes(b, loc, q);
  outputSizes.back() = tensor::getMixedSize(b, loc, op.getValue(), seq + 1);
  Value outputs = tensor::EmptyOp::create(b, loc, outputSizes,
                                          op.getType().getElementType());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return buildSegmentLoop(
             b, loc, localQueries, ValueRange{q}, seq, ValueRange{outputs},
             /*entryOutputs=*/{},
             [&](OpBuilder &nb, Location l, const Segment &segment) {
               Value keyStart = segmentOffset(nb, l, offsets, segment.index);
               Value keyEnd =
                   causal ? arith::MaxSIOp::create(
                                nb, l, keyStart,
                                arith::AddIOp::create(
                                    nb, l, firstRow,
                                    arith::AddIOp::create(nb, l, segment.start,
                                                          segment.size)))
                                .getResult()
                          : segmentOffset(nb, l, offsets,
                                          arith::AddIOp::create(
                                              nb, l, segment.index, one));
               Value keyCount = arith::SubIOp::create(nb, l, keyEnd, keyStart);
               return SmallVector<Value>{attentionLike(
                   nb, l, op, segment.slices.front(),
                   sliceAlong(nb, l, all.keys, seq, keyStart, keyCount),
                   sliceAlong(nb, l, all.values, seq, keyStart, keyCount))};
             })
      .front();
}

} // namespace mlir::linea::distributed
