//===- GatedReads.cpp - reads of gated states, for the gated backward -----===//
//
// chunkedValueSideReads is fla's chunk_gla_bwd for one value-side read:
// chunks of 64 rows, each chunk's own state, a decayed scan of the states
// entering the chunks, and every chunk's rows from the state entering it
// plus the in-chunk terms. In a chunk, the 16-row diagonal blocks are exact
// and the rows below them factor against a reference row between them and
// the keys; every exponent is a sum of gates over its own interval or a
// difference within one 16-row block, so gates down to -20 are safe and the
// rounding does not grow with a chunk's total decay.
//
// On a GPU whose block holds one chunk's temporaries, each chunk's rows are
// a sequence block of their own (chunkRowsInBlock: its operands copied into
// shared memory once, one pair of 16-row blocks after another), as the
// forward's rows are; elsewhere every chunk's rows are computed at once
// (inChunkReads), each step a grid over all chunks.
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
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Sums of whole blocks' log-decays, each a sum of its own terms: with
/// `pairs`, `between[B..., I, J, (d)] = sum_(J < K < I) totals[B..., K, (d)]`
/// (the blocks strictly between block J and block I); without,
/// `before[B..., I, (d)] = sum_(K < I) totals[B..., K, (d)]` (the blocks
/// before block I).
static Value blockSums(OpBuilder &b, Location loc, int64_t numBatch,
                       bool scalar, Value totals, bool pairs) {
  SmallVector<utils::IteratorType> extra{kPar};
  if (pairs)
    extra.push_back(kPar);
  if (!scalar)
    extra.push_back(kPar);
  extra.push_back(kRed);
  LoopSpace s(b.getContext(), numBatch, extra);
  unsigned next = 0;
  AffineExpr to = s[next++];
  AffineExpr from = pairs ? s[next++] : AffineExpr();
  AffineExpr d = scalar ? AffineExpr() : s[next++];
  unsigned viaPosition = s.position(next);
  AffineExpr via = s[next];
  OpFoldResult blocks = tensor::getMixedSize(b, loc, totals, numBatch);
  SmallVector<OpFoldResult> trailing{blocks};
  SmallVector<AffineExpr> outDims{to};
  if (pairs) {
    trailing.push_back(blocks);
    outDims.push_back(from);
  }
  if (!scalar) {
    trailing.push_back(tensor::getMixedSize(b, loc, totals, numBatch + 1));
    outDims.push_back(d);
  }
  Value init = zerosWithBatchOf(b, loc, totals, numBatch, trailing);
  return buildGeneric(
      b, loc, {totals}, init,
      {scalar ? s.map({via}) : s.map({via, d}), s.map(outDims)}, s.iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value k = linalg::IndexOp::create(nb, l, viaPosition);
        Value inside = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::ult, k,
            linalg::IndexOp::create(nb, l, s.position(0)));
        if (pairs)
          inside = arith::AndIOp::create(
              nb, l, inside,
              arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::ult,
                  linalg::IndexOp::create(nb, l, s.position(1)), k));
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

/// `x y^T` over a chunk's rows (`[B..., C, D]`), zero above the diagonal.
static Value causalScores(OpBuilder &b, Location loc, int64_t numBatch, Value x,
                          Value y) {
  return maskedScores(b, loc, numBatch, x, y,
                      [](OpBuilder &nb, Location l, Value row, Value col) {
                        return causallyVisible(nb, l, col, row);
                      });
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
  Value scores = causalScores(b, loc, n, x, y);
  Value rowBlocks = splitIntoBlocks(b, loc, scores, n); // [.., I, 16, C]
  Value zBlocks = splitIntoBlocks(b, loc, z, n);
  Value gBlocks = splitIntoBlocks(b, loc, g, n);
  Value cum = gatePresum(b, loc, gBlocks, n + 1, /*suffix=*/false);
  Value first = stepAlong(b, loc, cum, n + 1, b.getIndexAttr(0));
  Value earlier = keysDecayedToBlocks(
      b, loc, n, scalar, zBlocks,
      gatePresum(b, loc, gBlocks, n + 1, /*suffix=*/true),
      blockSums(b, loc, n, scalar,
                sumOverSequence(b, loc, n + 1, gBlocks, scalar),
                /*pairs=*/true),
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

/// `rows[B..., I, s, a] * exp(before[I, a] + cum[I, s, a])` (no `a` in the
/// logs for a scalar gate), written into `rows`: the rows of a chunk's
/// blocks decayed from the chunk's start, the exponent the blocks before
/// the row's own plus its own block's presum, both `<= 0`.
static Value decayFromChunkStart(OpBuilder &b, Location loc, int64_t numBatch,
                                 bool scalar, Value rows, Value before,
                                 Value cum) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kPar});
  AffineExpr block = s[0], row = s[1], a = s[2];
  return buildGeneric(
      b, loc, {before, cum}, rows,
      {scalar ? s.map({block}) : s.map({block, a}),
       scalar ? s.map({block, row}) : s.map({block, row, a}),
       s.map({block, row, a})},
      s.iterators(), [](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value exponent = arith::AddFOp::create(nb, l, args[0], args[1]);
        return arith::MulFOp::create(nb, l, args[2],
                                     math::ExpOp::create(nb, l, exponent));
      });
}

/// `acc[B..., s, a] + rows[s, a] exp(cum[s, a] + shift[a])` (a scalar
/// gate's logs without `a`; no `shift` where null), written into `acc`: rows
/// decayed to row s from a reference row before it, the exponent a row's
/// log-decay from the reference (plus, in a chunk's block, the blocks
/// between).
static Value addDecayed(OpBuilder &b, Location loc, int64_t numBatch,
                        bool scalar, Value rows, Value cum, Value shift,
                        Value acc) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar});
  AffineExpr row = s[0], a = s[1];
  AffineMap all = s.map({row, a});
  SmallVector<Value> inputs{rows, cum};
  SmallVector<AffineMap> maps{all, scalar ? s.map({row}) : all};
  if (shift) {
    inputs.push_back(shift);
    maps.push_back(scalar ? s.map({}) : s.map({a}));
  }
  maps.push_back(all);
  return buildGeneric(
      b, loc, inputs, acc, maps, s.iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value exponent = args[1];
        if (shift)
          exponent = arith::AddFOp::create(nb, l, exponent, args[2]);
        Value term = arith::MulFOp::create(
            nb, l, args[0], math::ExpOp::create(nb, l, exponent));
        return arith::AddFOp::create(nb, l, args.back(), term);
      });
}

/// One chunk's value-side rows `[B..., C, Dz]` (unit B...: the body of a
/// sequence block, whose temporaries are one chunk's, in shared memory):
/// the state entering the chunk read by every row and decayed from the
/// chunk's start, the exact diagonal blocks, then one key block J after
/// another, the rows below it taking
/// `exp(b_i - b_e) (scores[i, J] (z_J exp(b_e - b_J)))` with e the last row
/// of J. Each exponent is `<= 0` and a sum of gates over its own interval
/// (the blocks between, the row's own block presum) or a difference within
/// one 16-row block (J's rows to e), as in the diagonal blocks.
static Value chunkRowsInBlock(OpBuilder &b, Location loc, const GateLayout &one,
                              Value x, Value y, Value z, Value g,
                              Value entering) {
  int64_t n = one.numBatch;
  bool scalar = one.scalarGate;
  Value scores = causalScores(b, loc, n, x, y);
  Value zBlocks = splitIntoBlocks(b, loc, z, n); // [.., I, 16, Dz]
  // Each block's presum: a scan down its 16 rows, every block at once (g
  // read once).
  Value cum = buildSequentialScan(b, loc, splitIntoBlocks(b, loc, g, n), n + 1,
                                  /*exclusive=*/false, /*reverse=*/false,
                                  /*seed=*/Value());
  Value totals = stepAlong(b, loc, cum, n + 1, b.getIndexAttr(kSubBlock - 1));
  Value between = blockSums(b, loc, n, scalar, totals, /*pairs=*/true);
  Value before = blockSums(b, loc, n, scalar, totals, /*pairs=*/false);

  Value acc = splitIntoBlocks(
      b, loc, readState(b, loc, one, entering, x, ReadSide::value), n);
  acc = decayFromChunkStart(b, loc, n, scalar, acc, before, cum);
  Value scoreBlocks =
      splitIntoBlocks(b, loc, splitIntoBlocks(b, loc, scores, n), n + 2);
  acc = addDiagonalBlocks(b, loc, one, scoreBlocks, zBlocks, cum, acc);

  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t blocks = cast<RankedTensorType>(zBlocks.getType()).getDimSize(n);
  OpFoldResult width = tensor::getMixedSize(b, loc, z, n + 1);
  // One pair of blocks at a time: key block J, then each block I below it
  // (16 rows of temporaries, not C).
  auto columns = scf::ForOp::create(
      b, loc, cst(0), cst(blocks - 1), cst(1), ValueRange{acc},
      [&](OpBuilder &nb, Location l, Value column, ValueRange carried) {
        OpFoldResult unit = nb.getIndexAttr(1),
                     block = nb.getIndexAttr(kSubBlock);
        auto blockOf = [&](Value t, Value index) {
          return sliceAlong(nb, l, t, n, index, unit);
        };
        Value decayed = mergeDims(
            nb, l,
            decayAgainst(nb, l, n + 1, scalar, blockOf(zBlocks, column),
                         blockOf(cum, column), blockOf(totals, column),
                         /*towardRef=*/true),
            n);
        Value fromColumn = stepAlong(nb, l, between, n + 1, column);
        Value columnStart =
            arith::MulIOp::create(nb, l, column, cst(kSubBlock));
        Value next = arith::AddIOp::create(nb, l, column, cst(1));
        auto rowBlocks = scf::ForOp::create(
            nb, l, next, cst(blocks), cst(1), carried,
            [&](OpBuilder &ib, Location il, Value rowBlock, ValueRange inner) {
              Value rowStart =
                  arith::MulIOp::create(ib, il, rowBlock, cst(kSubBlock));
              Value pair = sliceAlong(
                  ib, il, sliceAlong(ib, il, scores, n, rowStart, block), n + 1,
                  columnStart, block);
              Value below = matmulAccumulate(
                  ib, il, n, pair, decayed,
                  zerosWithBatchOf(ib, il, z, n, {block, width}));
              auto rowBlockOf = [&](Value t) {
                return stepAlong(ib, il, t, n, rowBlock);
              };
              Value updated =
                  addDecayed(ib, il, n, scalar, below, rowBlockOf(cum),
                             rowBlockOf(fromColumn), rowBlockOf(inner[0]));
              scf::YieldOp::create(
                  ib, il,
                  insertAlong(ib, il, splitIntoBlocks(ib, il, updated, n),
                              inner[0], n, rowBlock));
            });
        scf::YieldOp::create(nb, l, rowBlocks.getResults());
      });
  return mergeDims(b, loc, columns.getResult(0), n);
}

/// The shared memory (bytes, an upper bound) of chunkRowsInBlock for
/// chunks of `chunk` rows, read width `dx` and row width `dz`, all f32:
/// the copies of x, y and z, the scores, the block presums and their
/// scan's row, the block sums, one key block's decayed z and one pair's
/// product; and g, read in place but materialized there where its producer
/// (the backward's reversal of the gates) fuses into the block.
static int64_t chunkRowsBlockBytes(int64_t chunk, int64_t dx, int64_t dz) {
  int64_t blocks = chunk / kSubBlock;
  int64_t copies = 2 * chunk * dx + chunk * dz;
  int64_t presums = chunk * dz + blocks * dz;
  int64_t sums = (blocks * blocks + blocks) * dz;
  int64_t pairs = 2 * kSubBlock * dz;
  int64_t gates = chunk * dz;
  return 4 * (copies + chunk * chunk + presums + sums + pairs + gates);
}

/// Whether chunkRowsInBlock's temporaries for `x` and `z` (`[B..., N, C,
/// D]`) have static sizes that fit `sharedMemory`.
static bool chunkRowsFitBlock(Value x, Value z, int64_t numBatch,
                              int64_t sharedMemory) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto zType = cast<RankedTensorType>(z.getType());
  int64_t chunk = xType.getDimSize(numBatch);
  int64_t dx = xType.getDimSize(numBatch + 1);
  int64_t dz = zType.getDimSize(numBatch + 1);
  if (ShapedType::isDynamic(chunk) || ShapedType::isDynamic(dx) ||
      ShapedType::isDynamic(dz) || chunk % kSubBlock)
    return false;
  return chunkRowsBlockBytes(chunk, dx, dz) <= sharedMemory;
}

Value mlir::linea::chunkedValueSideReads(OpBuilder &b, Location loc,
                                         const GateLayout &layout, Value x,
                                         Value y, Value z, Value g, Value seed,
                                         int64_t sharedMemory) {
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

  if (!chunkRowsFitBlock(cx, cz, n, sharedMemory)) {
    Value rows = addDecayed(
        b, loc, n, scalar,
        readState(b, loc, chunked, entering, cx, ReadSide::value),
        gatePresum(b, loc, cg, n, /*suffix=*/false), /*shift=*/Value(),
        inChunkReads(b, loc, chunked, cx, cy, cz, cg));
    return joinChunks(b, loc, rows, grid);
  }
  // x and y are read by the scores' tensor-core tiles (x by the state's
  // too), z by every term of its diagonal block: copied once into the
  // block. g is read once, by the block presums' scan.
  Value rows = inSequenceBlocks(
      b, loc, leadingSizes(b, loc, cx, n), tensor::getMixedSize(b, loc, cx, n),
      tensor::getMixedSize(b, loc, cz, n + 1),
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        return chunkRowsInBlock(
            nb, nl, chunked, leadingSliceCopy(nb, nl, cx, ivs),
            leadingSliceCopy(nb, nl, cy, ivs),
            leadingSliceCopy(nb, nl, cz, ivs), leadingSlice(nb, nl, cg, ivs),
            leadingSlice(nb, nl, entering, ivs));
      });
  return joinChunks(b, loc, rows, grid);
}
