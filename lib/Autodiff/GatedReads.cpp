//===- GatedReads.cpp - reads of gated states, for the gated backward -----===//
//
// chunkedValueSideReads is fla's chunk_gla_bwd for one value-side read:
// chunks of 64 rows, each chunk's own state, a decayed scan of the states
// entering the chunks, and every chunk's rows at once from the state
// entering it plus the in-chunk terms. In a chunk, the 16-row diagonal
// blocks are exact and the rows below them factor against each block's
// first row; every exponent is a sum of gates over its own interval or a
// difference within one 16-row block, so gates down to -20 are safe and
// the rounding does not grow with a chunk's total decay.
//
//===----------------------------------------------------------------------===//

#include "GatedReads.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/ChunkBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::linea;

Value mlir::linea::readState(OpBuilder &b, Location loc,
                             const GateLayout &layout, Value state, Value x,
                             ReadSide side) {
  int64_t batch = layout.numBatch;
  LoopSpace s(b.getContext(), batch, {kPar, kPar, kRed});
  AffineExpr t = s[0], out = s[1], summed = s[2];
  bool valueSide = side == ReadSide::value;
  AffineMap stateMap = valueSide ? s.map({out, summed}) : s.map({summed, out});
  int64_t outDim = batch + (valueSide ? 0 : 1);
  Value init = zerosWithBatchOf(b, loc, x, batch,
                                {tensor::getMixedSize(b, loc, x, batch),
                                 tensor::getMixedSize(b, loc, state, outDim)});
  return buildGeneric(b, loc, {state, x}, init,
                      {stateMap, s.map({t, summed}), s.map({t, out})},
                      s.iterators(), multiplyAccumulate);
}

/// The rows a value-side read cuts its sequence into: the forward's 64, or
/// a shorter static sequence rounded up to whole 16-row blocks.
static int64_t readChunkRows(Value x, int64_t seq) {
  constexpr int64_t kChunkRows = 64;
  int64_t length = cast<RankedTensorType>(x.getType()).getDimSize(seq);
  if (ShapedType::isDynamic(length) || length >= kChunkRows)
    return kChunkRows;
  return std::max<int64_t>(kSubBlock, llvm::alignTo(length, kSubBlock));
}

/// `rows[i, a] + exp(cum[i, a]) inter[i, a]` (`cum[i]` for a scalar gate),
/// written into `rows`.
static Value addDecayed(OpBuilder &b, Location loc, const GateLayout &layout,
                        Value rows, Value inter, Value cum) {
  LoopSpace s(b.getContext(), layout.numBatch, {kPar, kPar});
  AffineExpr t = s[0], a = s[1];
  AffineMap all = s.map({t, a});
  return buildGeneric(
      b, loc, {inter, cum}, rows,
      {all, layout.scalarGate ? s.map({t}) : all, all}, s.iterators(),
      [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value decayed = arith::MulFOp::create(
            nb, l, args[0], math::ExpOp::create(nb, l, args[1]));
        return arith::AddFOp::create(nb, l, args[2], decayed);
      });
}

/// The terms each 16-row block takes from its own rows,
/// `sum_(u <= s) scores[s, u] z_u[a] exp(b_s[a] - b_u[a])`, added into `acc`
/// (`[B..., I, 16, Dz]`, I the blocks): `scores` is `[B..., I, 16, J, 16]`,
/// `z` and `cum` `[B..., I, 16, D]`. The exponent is taken only where
/// `u <= s`, where it is `<= 0`.
static Value addDiagonalBlocks(OpBuilder &b, Location loc,
                               const GateLayout &layout, Value scores, Value z,
                               Value cum, Value acc) {
  LoopSpace s(b.getContext(), layout.numBatch, {kPar, kPar, kPar, kRed});
  AffineExpr block = s[0], row = s[1], a = s[2], col = s[3];
  bool scalar = layout.scalarGate;
  AffineMap rowLog = scalar ? s.map({block, row}) : s.map({block, row, a});
  AffineMap colLog = scalar ? s.map({block, col}) : s.map({block, col, a});
  return buildGeneric(
      b, loc, {scores, z, cum, cum}, acc,
      {s.map({block, row, block, col}), s.map({block, col, a}), rowLog, colLog,
       s.map({block, row, a})},
      s.iterators(), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value seen = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ule,
            linalg::IndexOp::create(nb, l, s.position(3)),
            linalg::IndexOp::create(nb, l, s.position(1)));
        Value term = decayedWhere(
            nb, l, seen, arith::MulFOp::create(nb, l, args[0], args[1]),
            arith::SubFOp::create(nb, l, args[2], args[3]));
        return arith::AddFOp::create(nb, l, args[4], term);
      });
}

/// `between[B..., I, J, (d)] = sum_(J < K < I) totals[B..., K, (d)]`: the
/// log-decay of the blocks strictly between block J and block I, a sum of
/// its own terms.
static Value blocksBetween(OpBuilder &b, Location loc, int64_t numBatch,
                           bool scalar, Value totals) {
  SmallVector<utils::IteratorType> extra{kPar, kPar};
  if (!scalar)
    extra.push_back(kPar);
  extra.push_back(kRed);
  LoopSpace s(b.getContext(), numBatch, extra);
  AffineExpr to = s[0], from = s[1], d = s[2], via = s[scalar ? 2 : 3];
  OpFoldResult blocks = tensor::getMixedSize(b, loc, totals, numBatch);
  SmallVector<OpFoldResult> trailing{blocks, blocks};
  if (!scalar)
    trailing.push_back(tensor::getMixedSize(b, loc, totals, numBatch + 1));
  Value init = zerosWithBatchOf(b, loc, totals, numBatch, trailing);
  unsigned viaPosition = s.position(scalar ? 2 : 3);
  return buildGeneric(
      b, loc, {totals}, init,
      {scalar ? s.map({via}) : s.map({via, d}),
       scalar ? s.map({to, from}) : s.map({to, from, d})},
      s.iterators(), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value k = linalg::IndexOp::create(nb, l, viaPosition);
        Value after = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ult,
            linalg::IndexOp::create(nb, l, s.position(1)), k);
        Value before = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ult, k,
            linalg::IndexOp::create(nb, l, s.position(0)));
        Value inside = arith::AndIOp::create(nb, l, after, before);
        Value sum = arith::AddFOp::create(nb, l, args[1], args[0]);
        return arith::SelectOp::create(nb, l, inside, sum, args[1]);
      });
}

/// For each block I, the rows `z_u` of the blocks J before it decayed to
/// I's first row r: `[B..., I, C, Dz]`, zero from block I on. The exponent
/// `b_r - b_u` is taken as a sum of its own parts, `after[u]` (the gates
/// after u in its block) + `between[I, J]` + `first[I]` (the gate at r), all
/// `<= 0`: no difference of two long sums cancels.
static Value keysDecayedToBlocks(OpBuilder &b, Location loc, int64_t numBatch,
                                 bool scalar, Value zBlocks, Value after,
                                 Value between, Value first) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kPar, kPar});
  AffineExpr to = s[0], from = s[1], w = s[2], a = s[3];
  SmallVector<OpFoldResult> sizes = leadingSizes(b, loc, zBlocks, numBatch);
  sizes.push_back(tensor::getMixedSize(b, loc, zBlocks, numBatch));
  llvm::append_range(
      sizes,
      ArrayRef(tensor::getMixedSizes(b, loc, zBlocks)).drop_front(numBatch));
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  Value decayed = buildGeneric(
      b, loc, {zBlocks, after, between, first}, init,
      {s.map({from, w, a}), scalar ? s.map({from, w}) : s.map({from, w, a}),
       scalar ? s.map({to, from}) : s.map({to, from, a}),
       scalar ? s.map({to}) : s.map({to, a}), s.map({to, from, w, a})},
      s.iterators(), [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value earlier = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ult,
            linalg::IndexOp::create(nb, l, s.position(1)),
            linalg::IndexOp::create(nb, l, s.position(0)));
        Value exponent = arith::AddFOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[1], args[2]), args[3]);
        return decayedWhere(nb, l, earlier, args[0], exponent);
      });
  return mergeDims(b, loc, decayed, numBatch + 1);
}

/// The in-chunk part of chunkedValueSideReads, for chunks `[B..., N, C, D]`
/// (the chunk axis a batch dim of `chunked`) with gates `g`: `sum_(u <= i) (x_i
/// . y_u) z_u[a] exp(b_i[a] - b_u[a])`. Left of its diagonal block, block I's
/// rows factor against its first row r, `exp(b_i - b_r) exp(b_r - b_u)`, both
/// `<= 0` (u < r <= i): one contraction of the scores with the z decayed to r
/// (keysDecayedToBlocks), its rows then decayed from r. The diagonal blocks are
/// exact. The exponents within a block are differences of the block's own
/// prefix sums (16 rows at most), not of the chunk's, whose rounding grows with
/// the chunk's total decay.
static Value inChunkReads(OpBuilder &b, Location loc, const GateLayout &chunked,
                          Value x, Value y, Value z, Value g) {
  int64_t n = chunked.numBatch;
  bool scalar = chunked.scalarGate;
  Value scores = maskedScores(
      b, loc, n, x, y, [](OpBuilder &nb, Location l, Value row, Value col) {
        return causallyVisible(nb, l, col, row);
      });
  Value rowBlocks = splitIntoBlocks(b, loc, scores, n); // [.., I, 16, C]
  Value zBlocks = splitIntoBlocks(b, loc, z, n);
  Value gBlocks = splitIntoBlocks(b, loc, g, n);
  Value cum = gatePresum(b, loc, gBlocks, n + 1, /*suffix=*/false);
  Value first = stepAlong(b, loc, cum, n + 1, b.getIndexAttr(0));
  Value earlier = keysDecayedToBlocks(
      b, loc, n, scalar, zBlocks,
      gatePresum(b, loc, gBlocks, n + 1, /*suffix=*/true),
      blocksBetween(b, loc, n, scalar,
                    sumOverSequence(b, loc, n + 1, gBlocks, scalar)),
      first);
  Value zeros = zerosWithBatchOf(
      b, loc, rowBlocks, n + 1,
      {b.getIndexAttr(kSubBlock), tensor::getMixedSize(b, loc, z, n + 1)});
  Value below = matmulAccumulate(b, loc, n + 1, rowBlocks, earlier, zeros);
  below = decayAgainst(b, loc, n + 1, scalar, below, cum, first,
                       /*towardRef=*/false);
  Value sums = addDiagonalBlocks(b, loc, chunked,
                                 splitIntoBlocks(b, loc, rowBlocks, n + 2),
                                 zBlocks, cum, below);
  return mergeDims(b, loc, sums, n);
}

Value mlir::linea::chunkedValueSideReads(OpBuilder &b, Location loc,
                                         const GateLayout &layout, Value x,
                                         Value y, Value z, Value g,
                                         Value seed) {
  ChunkGrid grid = gridFor(b, loc, x, readChunkRows(x, layout.seq()));
  auto chunksOf = [&](Value t) { return splitIntoChunks(b, loc, t, grid); };
  Value cx = chunksOf(x), cy = chunksOf(y), cz = chunksOf(z), cg = chunksOf(g);
  GateLayout chunked{layout.numBatch + 1, layout.scalarGate};
  int64_t n = chunked.numBatch;
  bool scalar = chunked.scalarGate;

  Value zeros = zerosWithBatchOf(b, loc, cz, n,
                                 {tensor::getMixedSize(b, loc, cz, n + 1),
                                  tensor::getMixedSize(b, loc, cy, n + 1)});
  Value local = gatedStateUpdate(b, loc, n, cz, cy, cg, zeros, scalar,
                                 /*stateIsZero=*/true);
  Value states = prependAlong(b, loc, seed, local, grid.seq, /*handOff=*/false);
  Value decay = prependAlong(b, loc, /*first=*/Value(),
                             sumOverSequence(b, loc, n, cg, scalar), grid.seq,
                             /*handOff=*/false);
  states = PresumOp::create(b, loc, states.getType(), states, decay,
                            /*offsets=*/Value(), b.getI64IntegerAttr(grid.seq),
                            /*exclusive=*/UnitAttr(), /*reverse=*/UnitAttr(),
                            FormAttr());
  Value entering =
      sliceAlong(b, loc, states, grid.seq, b.getIndexAttr(0), grid.count);

  Value rows =
      addDecayed(b, loc, chunked, inChunkReads(b, loc, chunked, cx, cy, cz, cg),
                 readState(b, loc, chunked, entering, cx, ReadSide::value),
                 gatePresum(b, loc, cg, n, /*suffix=*/false));
  return joinChunks(b, loc, rows, grid);
}
