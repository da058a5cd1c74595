//===- ChunkLoop.cpp - a loop over chunks of rows -------------------------===//

#include "ChunkLoop.h"

#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// One step of the chunk loop: slices rows [start, start + size), prepares
/// them, runs the step, writes its finished rows into `out`. Returns
/// (state, out). With `padTo`, the rows are padded with zeros to that
/// static size before they are prepared, so that every temporary of the
/// step has a static size (a sequence block on the GPU cannot allocate a
/// dynamic one): zero keys add nothing to the state, zero gates decay
/// nothing, and the padded output rows are dropped. Where the feature map
/// does not keep zero rows (elu + 1 gives ones), the prepared keys'
/// padding rows are zeroed again.
std::pair<Value, Value> chunkStep(OpBuilder &b, Location loc,
                                  const ChunkLoop &form, OpFoldResult start,
                                  OpFoldResult size,
                                  std::optional<int64_t> padTo, Value state,
                                  Value out) {
  int64_t seq = numBatchDims(cast<RankedTensorType>(form.q.getType()));
  auto slice = [&](Value x) -> Value {
    return x ? sliceAlong(b, loc, x, seq, start, size) : Value();
  };
  auto pad = [&](Value x) -> Value {
    return x && padTo ? padAlong(b, loc, x, seq, *padTo) : x;
  };
  Chunk rowsIn{pad(slice(form.q)), pad(slice(form.k)), pad(slice(form.v)),
               pad(slice(form.g))};
  Chunk c = form.prepare(b, loc, rowsIn);
  if (padTo && !form.keysKeepZero)
    c.k = pad(sliceAlong(b, loc, c.k, seq, b.getIndexAttr(0), size));
  auto [rows, next] = form.step(b, loc, c, state);
  if (!rows)
    return {next, out};
  if (padTo)
    rows = sliceAlong(b, loc, rows, seq, b.getIndexAttr(0), size);
  // Finished per chunk, the rows go straight to their place in the output.
  rows = form.finish(b, loc, rows);
  return {next, insertAlong(b, loc, rows, out, seq, start)};
}

} // namespace

/// The loop over chunks carrying (S, O). Full chunks have the static size C
/// (static shapes for the contractions: vectorizable loops on the CPU,
/// tensor-core tiles on the GPU); the remainder, when L % C != 0, is one
/// more step after the loop, padded to C rows when `padTail` (every
/// temporary then has a static size: what a GPU sequence block needs for
/// shared memory). Returns (final state, output).
std::pair<Value, Value> mlir::linea::buildChunkLoop(OpBuilder &b, Location loc,
                                                    const ChunkLoop &form,
                                                    Value state) {
  int64_t seq = numBatchDims(cast<RankedTensorType>(form.q.getType()));
  Value length = tensor::DimOp::create(b, loc, form.q, seq);
  Value out = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, form.outputLike), form.outputType);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value chunk = arith::ConstantIndexOp::create(b, loc, form.chunkSize);
  Value remainder = arith::RemUIOp::create(b, loc, length, chunk);
  Value fullEnd = arith::SubIOp::create(b, loc, length, remainder);

  auto loop = scf::ForOp::create(
      b, loc, zero, fullEnd, chunk, ValueRange{state, out},
      [&](OpBuilder &nb, Location l, Value start, ValueRange carried) {
        auto [next, written] =
            chunkStep(nb, l, form, start, nb.getIndexAttr(form.chunkSize),
                      std::nullopt, carried[0], carried[1]);
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      });
  state = loop.getResult(0);
  out = loop.getResult(1);

  int64_t staticLength =
      cast<RankedTensorType>(form.q.getType()).getDimSize(seq);
  if (!ShapedType::isDynamic(staticLength) &&
      staticLength % form.chunkSize == 0)
    return {state, out};
  if (form.padTail) {
    // In a sequence block the padded remainder runs whether or not any row
    // is left (none: a chunk of zeros, which changes neither the state nor
    // the output): a branch here would keep one-shot bufferization from
    // writing the rows in place wherever the output is inserted with
    // `tensor.insert_slice` (a PrefixLM segment's causal rows into the
    // segment's rows), a dynamic allocation no block can make.
    auto [next, written] =
        chunkStep(b, loc, form, fullEnd, remainder, form.chunkSize, state, out);
    return {next, written};
  }
  Value hasTail =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, remainder, zero);
  std::optional<int64_t> padTo;
  auto tail = scf::IfOp::create(
      b, loc, hasTail,
      [&](OpBuilder &nb, Location l) {
        auto [next, written] =
            chunkStep(nb, l, form, fullEnd, remainder, padTo, state, out);
        scf::YieldOp::create(nb, l, ValueRange{next, written});
      },
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l, ValueRange{state, out});
      });
  return {tail.getResult(0), tail.getResult(1)};
}

/// Inside a sequence block the state gets a buffer of its own, which the
/// block keeps in shared memory. Otherwise empty-tensor
/// elimination would place it in the final-state output, so that every
/// chunk updates it in global memory.
Value mlir::linea::inOwnBuffer(RewriterBase &rewriter, Value state) {
  // The state starts as fill(empty), or as a copy of the initial state into
  // one.
  Operation *op = state.getDefiningOp();
  while (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(op))
    op = dps.getDpsInits()[0].getDefiningOp();
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(op)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(empty);
    rewriter.replaceOpWithNewOp<bufferization::AllocTensorOp>(
        empty, empty.getType(), empty.getDynamicSizes());
  }
  return state;
}
