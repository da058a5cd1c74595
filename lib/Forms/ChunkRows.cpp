//===- ChunkRows.cpp - a chunk's output rows, for both chunked forms ------===//

#include "ChunkRows.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/ChunkBuilders.h"
#include "linea/Utils/SequenceBlocks.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

Value causalVisible(OpBuilder &b, Location loc, Value row, Value col) {
  return causallyVisible(b, loc, col, row);
}

/// Zeros `[B..., rows of x, cols of y]`.
Value zerosFor(OpBuilder &b, Location loc, int64_t numBatch, Value x,
               Value y) {
  return zerosWithBatchOf(b, loc, x, numBatch,
                          {tensor::getMixedSize(b, loc, x, numBatch),
                           tensor::getMixedSize(b, loc, y, numBatch + 1)});
}

/// The largest |b| up to which the decayed scores may factor into
/// `(q_i exp(b_i)) (k_t exp(-b_t))`: exp(30) ~ 1e13 keeps the masked-out
/// products (whose true decay exceeds 1) far from f32's range, and the
/// visible ones are the exact terms up to a few ulp.
constexpr float kFactorableLogDecay = 30.0f;

/// `max |b|` over all of `cum` (every batch, every chunk) as an f32 scalar.
Value largestLogDecay(OpBuilder &b, Location l, Value cum) {
  auto type = cast<RankedTensorType>(cum.getType());
  Value init = tensor::EmptyOp::create(b, l, ArrayRef<int64_t>{}, b.getF32Type());
  init = linalg::FillOp::create(b, l, f32Constant(b, l, 0.0f), init).getResult(0);
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value largest =
      linalg::ReduceOp::create(
          b, l, ValueRange{cum}, ValueRange{init}, dims,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            Value magnitude = math::AbsFOp::create(nb, nl, args[0]);
            linalg::YieldOp::create(
                nb, nl,
                ValueRange{arith::MaximumFOp::create(nb, nl, magnitude, args[1])
                               .getResult()});
          })
          .getResult(0);
  return tensor::ExtractOp::create(b, l, largest, ValueRange{});
}

/// The decayed causal scores of a static chunk of C = n x 16 rows, safe for
/// any gate `<= 0`, mostly on tensor cores. The 16 x 16 diagonal blocks take
/// the exact form; below them, block column J factors against its own last
/// row r = 16 J + 15, which lies between every key t of the block and every
/// query i below it:
///   exp(b_i - b_t) = exp(b_i - b_r) exp(b_r - b_t),  both exponents <= 0,
/// so `scores[i > r, J] = (q_i exp(b_i - b_r)) (k_t exp(b_r - b_t))^T` is a
/// plain contraction (the rows `i <= r` zeroed in the decayed queries). The
/// exact exponentials drop from C x C x Dk to C x 16 x Dk; fla splits its
/// chunks the same way. A loop over the block columns keeps one buffer of
/// each kind (a GPU block holds them in shared memory).
Value subBlockScores(OpBuilder &b, Location l, int64_t numBatch, bool scalar,
                     const Chunk &c, Value cum, int64_t length) {
  Value zeros = zerosWithBatchOf(b, l, c.q, numBatch,
                                 {b.getIndexAttr(length), b.getIndexAttr(length)});
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  OpFoldResult block = b.getIndexAttr(kSubBlock);
  auto columns = scf::ForOp::create(
      b, l, cst(0), cst(length), cst(kSubBlock), ValueRange{zeros},
      [&](OpBuilder &nb, Location nl, Value first, ValueRange carried) {
        Value kBlock = sliceAlong(nb, nl, c.k, numBatch, first, block);
        Value cumBlock = sliceAlong(nb, nl, cum, numBatch, first, block);
        Value diagonal = decayedScores(
            nb, nl, numBatch, sliceAlong(nb, nl, c.q, numBatch, first, block),
            kBlock, cumBlock, cumBlock, scalar, causalVisible);
        Value last = arith::AddIOp::create(nb, nl, first, cst(kSubBlock - 1));
        Value ref = stepAlong(nb, nl, cum, numBatch, last);
        Value queries = decayAgainst(nb, nl, numBatch, scalar, c.q, cum, ref,
                                     /*towardRef=*/false, last);
        Value keys = decayAgainst(nb, nl, numBatch, scalar, kBlock, cumBlock,
                                  ref, /*towardRef=*/true);
        // The column block [all rows, first : first + 16): the diagonal
        // block in place, then the rows below it added.
        Value scores = carried[0];
        Value column = sliceAlong(nb, nl, scores, numBatch + 1, first, block);
        column = insertAlong(nb, nl, diagonal, column, numBatch, first);
        column = scoresAccumulate(nb, nl, numBatch, queries, keys, column);
        scf::YieldOp::create(
            nb, nl, insertAlong(nb, nl, column, scores, numBatch + 1, first));
      });
  return columns.getResult(0);
}

/// For each query block I (batch dim `numBatch` of `ref`, its first row's
/// log-decays), the keys before it decayed to that row:
/// `keys[B..., I, t, d] = k[t, d] exp(ref[I, d] - b[t, d])` for `t < 16 I`,
/// 0 from the block on. Every exponent taken is `<= 0`.
Value keysBeforeEachBlock(OpBuilder &b, Location l, int64_t numBatch,
                          bool scalar, Value k, Value cum, Value ref) {
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kPar});
  AffineExpr block = s[0], t = s[1], d = s[2];
  AffineMap logMap = scalar ? s.map({t}) : s.map({t, d});
  AffineMap refMap = scalar ? s.map({block}) : s.map({block, d});
  SmallVector<OpFoldResult> sizes = leadingSizes(b, l, k, numBatch);
  sizes.push_back(tensor::getMixedSize(b, l, ref, numBatch));
  sizes.push_back(tensor::getMixedSize(b, l, k, numBatch));
  sizes.push_back(tensor::getMixedSize(b, l, k, numBatch + 1));
  Value init = tensor::EmptyOp::create(b, l, sizes, b.getF32Type());
  return buildGeneric(
      b, l, {k, cum, ref}, init, {s.map({t, d}), logMap, refMap, s.map({block, t, d})},
      s.iterators(), [&](OpBuilder &nb, Location el, ValueRange args) -> Value {
        Value blockStart = arith::MulIOp::create(
            nb, el, linalg::IndexOp::create(nb, el, s.position(0)),
            arith::ConstantIndexOp::create(nb, el, kSubBlock));
        Value before = arith::CmpIOp::create(
            nb, el, arith::CmpIPredicate::slt,
            linalg::IndexOp::create(nb, el, s.position(1)), blockStart);
        return decayedWhere(nb, el, before, args[0],
                            arith::SubFOp::create(nb, el, args[2], args[1]));
      });
}

/// The exact diagonal blocks `[B..., n, 16, 16]` with one GPU block per
/// (B..., block) (a sequence block): its threads first copy the block's 16
/// rows of q, k and b into temporaries of its own, which a sequence block
/// keeps in shared memory, so each element leaves global memory once rather
/// than once per score of the block that reads it (16 times).
Value diagonalPerBlock(OpBuilder &b, Location l, int64_t numBatch,
                       bool scalar, Value qBlocks, Value kBlocks,
                       Value cumBlocks) {
  int64_t loops = numBatch + 1;
  OpFoldResult side = b.getIndexAttr(kSubBlock);
  return inSequenceBlocks(
      b, l, leadingSizes(b, l, qBlocks, loops), side, side,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        Value cum = leadingSliceCopy(nb, nl, cumBlocks, ivs);
        return decayedScores(nb, nl, loops,
                             leadingSliceCopy(nb, nl, qBlocks, ivs),
                             leadingSliceCopy(nb, nl, kBlocks, ivs), cum, cum,
                             scalar, causalVisible);
      });
}

/// The exact decayed causal scores of `q` against `k` (rows of the same
/// chunk or block) where they are computed on grids over every chunk, not
/// in sequence blocks. A scalar gate's decay leaves the contraction there:
/// the plain scores, then the decay as their epilogue (C x C exponentials,
/// not C x C x Dk; and a matmul that another compiler tiles as one: IREE's
/// GPU target cannot distribute the fused form).
Value exactScoresOnGrids(OpBuilder &b, Location l, int64_t numBatch,
                         bool scalar, Value q, Value k, Value cum) {
  if (scalar)
    return scalarDecayedScores(b, l, numBatch, q, k, cum, cum, causalVisible);
  return decayedScores(b, l, numBatch, q, k, cum, cum, scalar, causalVisible);
}

/// subBlockScores without its loop, for the chunk-parallel form's grids
/// (no launches from the host): every query block I = the rows `16 I ..
/// 16 I + 15` at once, a batch dim. Block I factors against its own first
/// row r = 16 I, which lies between every query i of the block and every
/// key t before it (fla's reference row):
///   exp(b_i - b_t) = exp(b_i - b_r) exp(b_r - b_t),  both exponents <= 0,
/// so the rows of block I left of its diagonal block are one contraction of
/// its decayed queries (16 x Dk) with the keys decayed to its row r (C x
/// Dk, zero from r on: C / 16 copies of the keys in all). The diagonal
/// blocks take the exact form; one elementwise pass puts them in place.
Value blockBatchedScores(OpBuilder &b, Location l, int64_t numBatch,
                         bool scalar, const Chunk &c, Value cum,
                         bool diagonalInBlocks) {
  // Rows are dim numBatch of q, k and cum alike.
  Value qBlocks = splitIntoBlocks(b, l, c.q, numBatch);
  Value kBlocks = splitIntoBlocks(b, l, c.k, numBatch);
  Value cumBlocks = splitIntoBlocks(b, l, cum, numBatch);
  Value diagonal =
      diagonalInBlocks
          ? diagonalPerBlock(b, l, numBatch, scalar, qBlocks, kBlocks,
                             cumBlocks)
          : exactScoresOnGrids(b, l, numBatch + 1, scalar, qBlocks, kBlocks,
                               cumBlocks);
  Value ref = stepAlong(b, l, cumBlocks, numBatch + 1, b.getIndexAttr(0));
  Value queries = decayAgainst(b, l, numBatch + 1, scalar, qBlocks, cumBlocks,
                               ref, /*towardRef=*/false);
  Value keys = keysBeforeEachBlock(b, l, numBatch, scalar, c.k, cum, ref);
  Value left = scoresAccumulate(
      b, l, numBatch + 1, queries, keys,
      zerosWithBatchOf(b, l, queries, numBatch + 1,
                       {b.getIndexAttr(kSubBlock),
                        tensor::getMixedSize(b, l, keys, numBatch + 1)}));
  // [B..., I, s, J, u]: block J of block I's rows; the diagonal where J = I.
  Value blocks = splitIntoBlocks(b, l, left, numBatch + 2);
  LoopSpace s(b.getContext(), numBatch, {kPar, kPar, kPar, kPar});
  AffineExpr qBlock = s[0], row = s[1], kBlock = s[2], col = s[3];
  AffineMap all = s.map({qBlock, row, kBlock, col});
  Value placed = buildGeneric(
      b, l, {diagonal}, blocks, {s.map({qBlock, row, col}), all},
      s.iterators(), [&](OpBuilder &nb, Location el, ValueRange args) -> Value {
        Value onDiagonal = arith::CmpIOp::create(
            nb, el, arith::CmpIPredicate::eq,
            linalg::IndexOp::create(nb, el, s.position(0)),
            linalg::IndexOp::create(nb, el, s.position(2)));
        return arith::SelectOp::create(nb, el, onDiagonal, args[0], args[1]);
      });
  return mergeDims(b, l, mergeDims(b, l, placed, numBatch + 2), numBatch);
}

/// The static chunk length for which subBlockScores applies, if any.
std::optional<int64_t> subBlockLength(Value q, int64_t numBatch) {
  int64_t length = cast<RankedTensorType>(q.getType()).getDimSize(numBatch);
  if (ShapedType::isDynamic(length) || length % kSubBlock || length < 2 * kSubBlock)
    return std::nullopt;
  return length;
}

/// The decayed causal scores `q_i . k_t exp(b_i - b_t)`. Where every |b| is
/// at most kFactorableLogDecay, the decay folds into the operands (fla's
/// form): one masked contraction of decayed queries and keys, which the CPU
/// register-tiles (C x Dk exponentials, not C x C x Dk). Steeper gates (down
/// to -20 a step), and every GPU kernel (which cannot branch on the data
/// between forms), take the safe form: sub-blocked where the chunk is static
/// (subBlockScores, or blockBatchedScores as the plan says), else the exact
/// one, whose exponents are each a difference within the chunk, `<= 0`
/// where visible.
Value gatedScores(OpBuilder &b, Location l, int64_t numBatch, bool scalar,
                  const Chunk &c, Value cum, const GatedScoresPlan &plan) {
  auto exact = [&](OpBuilder &nb, Location nl) {
    if (std::optional<int64_t> length = subBlockLength(c.q, numBatch))
      return plan.blocksAtOnce
                 ? blockBatchedScores(nb, nl, numBatch, scalar, c, cum,
                                      plan.diagonalInBlocks)
                 : subBlockScores(nb, nl, numBatch, scalar, c, cum, *length);
    if (plan.blocksAtOnce && !plan.diagonalInBlocks)
      return exactScoresOnGrids(nb, nl, numBatch, scalar, c.q, c.k, cum);
    return decayedScores(nb, nl, numBatch, c.q, c.k, cum, cum, scalar,
                         causalVisible);
  };
  if (!plan.mayFactor)
    return exact(b, l);
  Value factorable = arith::CmpFOp::create(
      b, l, arith::CmpFPredicate::OLE, largestLogDecay(b, l, cum),
      f32Constant(b, l, kFactorableLogDecay));
  auto choice = scf::IfOp::create(
      b, l, factorable,
      [&](OpBuilder &nb, Location nl) {
        Value negated = buildElementwise(
            nb, nl, cum, nb.getF32Type(),
            [](OpBuilder &eb, Location el, Value x) -> Value {
              return arith::NegFOp::create(eb, el, x);
            });
        Value q = decayRows(nb, nl, numBatch, c.q, cum, scalar);
        Value k = decayRows(nb, nl, numBatch, c.k, negated, scalar);
        scf::YieldOp::create(
            nb, nl, maskedScores(nb, nl, numBatch, q, k, causalVisible));
      },
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(nb, nl, exact(nb, nl));
      });
  return choice.getResult(0);
}

} // namespace

Value mlir::linea::plainChunkRows(OpBuilder &b, Location l, int64_t numBatch,
                                  const Chunk &c, Value s) {
  Value scores = maskedScores(b, l, numBatch, c.q, c.k, causalVisible);
  Value rows = matmulAccumulate(b, l, numBatch, scores, c.v,
                                zerosFor(b, l, numBatch, c.q, c.v));
  return matmulAccumulate(b, l, numBatch, c.q, s, rows);
}

Value mlir::linea::gatedChunkRows(OpBuilder &b, Location l, int64_t numBatch,
                                  bool scalar, const GatedScoresPlan &plan,
                                  const Chunk &c, Value cum, Value s) {
  Value scores = gatedScores(b, l, numBatch, scalar, c, cum, plan);
  Value rows = matmulAccumulate(b, l, numBatch, scores, c.v,
                                zerosFor(b, l, numBatch, c.q, c.v));
  Value queries = decayRows(b, l, numBatch, c.q, cum, scalar);
  return matmulAccumulate(b, l, numBatch, queries, s, rows);
}
