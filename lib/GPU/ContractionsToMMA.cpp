//===- ContractionsToMMA.cpp - matmul contractions -> mma.sync warps ------===//
//
// Linea's forms spend their FLOPs in three contraction shapes (see
// Utils/AttentionBuilders): A M (matmulAccumulate), A^T M (the state update
// K^T V, transposedMatmulAccumulate) and A M^T (the scores Q K^T,
// maskedScores), the last one usually masked (the causal `t <= i`). Where
// the sizes are static and tile evenly, warps run them as m16n8k16
// tensor-core steps with an f32 accumulator; a mask is applied to the
// finished accumulator elements (the old value where it does not hold).
//
// Two ways to feed the warps. A grid (the one-shot and chunk-parallel
// forms) is staged: a block per output tile copies the operands' slices
// into shared memory, converted to f16/bf16, and its warps load fragments
// with ldmatrix, so each element leaves global memory once per block.
// Contractions into one output in a row share a grid and its registers,
// and a zero fill before them becomes zero accumulators. A sequence block,
// whose operands are mostly its own shared temporaries, has each lane load
// the fragment elements PTX assigns it.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/MmaShape.h"
#include "linea/GPU/Passes.h"
#include "linea/Utils/MaskedContraction.h"
#include "linea/Utils/SequenceBlocks.h"

#include "Fragments.h"
#include "GPUMapping.h"
#include "StoredTypes.h"
#include "WarpgroupGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACONTRACTIONSTOMMA
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

using linea::mma::kTileK;
using linea::mma::kTileM;
using linea::mma::kTileN;
constexpr int64_t kWarp = linea::mma::kWarpSize;
using linea::kRowPad;
using linea::mma::aDepthMajor;
using linea::mma::Contraction;
using linea::mma::FragmentBuilder;
using linea::mma::mDepthMajor;

bool isZero(Value v) {
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getValue().isZero();
}

/// The batch dims then the three named dims, as Linea's builders lay them
/// out.
AffineMap batchMap(MLIRContext *ctx, int64_t numBatch,
                   ArrayRef<int64_t> trailing) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < numBatch; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  for (int64_t d : trailing)
    exprs.push_back(getAffineDimExpr(numBatch + d, ctx));
  return AffineMap::get(numBatch + 3, 0, exprs, ctx);
}

std::optional<Contraction> matchContraction(linalg::GenericOp op) {
  // The body and its mask: the contraction matcher every user shares.
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  FailureOr<linea::MaskedContraction> masked = linea::matchMaskedContraction(op);
  if (failed(masked))
    return std::nullopt;
  Value mask = masked->visible;
  SmallVector<Value> operands{op.getDpsInputs()[0], op.getDpsInputs()[1],
                              op.getDpsInits()[0]};
  // Lanes load single elements, so any strides will do (a chunk of a
  // sequence, a shared-memory temporary).
  for (Value v : operands) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return std::nullopt;
  }
  int64_t numBatch = int64_t(op.getNumLoops()) - 3;
  if (numBatch < 0)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto shape = [&](int k) {
    return cast<MemRefType>(operands[k].getType()).getShape();
  };
  Contraction c;
  c.a = operands[0];
  c.m = operands[1];
  c.out = operands[2];
  c.batchShape = llvm::to_vector(shape(2).take_front(numBatch));
  c.rows = shape(2)[numBatch];
  c.cols = shape(2)[numBatch + 1];
  // (i, t, e): A(i, t) M(t, e) -> out(i, e).
  if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                     batchMap(ctx, numBatch, {1, 2}),
                                     batchMap(ctx, numBatch, {0, 2})}) {
    c.depth = shape(0)[numBatch + 1];
    c.rowLoop = numBatch, c.colLoop = numBatch + 2;
  } else if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                            batchMap(ctx, numBatch, {0, 2}),
                                            batchMap(ctx, numBatch, {1, 2})}) {
    // (t, d, e): A(t, d) M(t, e) -> out(d, e).
    c.transposedA = true;
    c.depth = shape(0)[numBatch];
    c.rowLoop = numBatch + 1, c.colLoop = numBatch + 2;
  } else if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 2}),
                                            batchMap(ctx, numBatch, {1, 2}),
                                            batchMap(ctx, numBatch, {0, 1})}) {
    // (i, t, d): A(i, d) M(t, d) -> out(i, t).
    c.transposedM = true;
    c.depth = shape(0)[numBatch + 1];
    c.rowLoop = numBatch, c.colLoop = numBatch + 1;
  } else {
    return std::nullopt;
  }
  c.mask = mask;
  if (c.rows % kTileM || c.cols % kTileN || c.depth % kTileK)
    return std::nullopt;
  return c;
}

/// Warps that take output tiles in turn, each lane loading the fragment
/// elements it owns straight from the operands (any strides, any memory).
/// The form for a sequence block, whose operands are often its
/// shared-memory temporaries, and for sizes the staged form does not tile.
/// A warp's work item is a strip of `stripTiles` 16 x 8 tiles down one
/// column, which loads each B fragment once for all of them (a chunk
/// block's state S, read from global memory, once per strip rather than
/// once per tile). Contractions into one output in a row (a chain) run on
/// the same accumulators, which start at zero where the output was just
/// zero-filled: the output is written once.
class LaneLoadBuilder : public FragmentBuilder {
public:
  LaneLoadBuilder(OpBuilder &b, Location loc, ArrayRef<Contraction> members,
                  bool zeroInit, Type operandType, int64_t stripTiles)
      : FragmentBuilder(b, loc, members.front(), operandType),
        members(members), zeroInit(zeroInit), stripTiles(stripTiles) {}

  int64_t numItems() const { return c.numTiles() / stripTiles; }

  void build(Value warp, Value numWarps, Value lane) {
    scf::ForOp::create(
        b, loc, warp, cst(numItems()), numWarps, ValueRange{},
        // (The body builder is handed `b` itself, placed in the body.)
        [&](OpBuilder &, Location, Value item, ValueRange) {
          buildStrip(item, lane);
          scf::YieldOp::create(b, loc);
        });
  }

private:
  void buildStrip(Value item, Value lane) {
    // item -> (batch..., row strip, column tile), the column tile fastest.
    int64_t colTiles = c.cols / kTileN;
    int64_t strips = c.rows / (kTileM * stripTiles);
    Value colTile = rem(item, colTiles);
    Value rest = div(item, colTiles);
    Value strip = rem(rest, strips);
    splitBatch(div(rest, strips));
    Value group = div(lane, 4);
    Value pair = mul(rem(lane, 4), 2);
    Value colBase = mul(colTile, kTileN);
    Value stripBase = mul(strip, kTileM * stripTiles);
    SmallVector<Value> tileRows;
    SmallVector<std::pair<Value, Value>> positions;
    for (int64_t r = 0; r < stripTiles; ++r) {
      tileRows.push_back(add(stripBase, r * kTileM));
      llvm::append_range(positions,
                         accumulatorPositions(add(tileRows.back(), group),
                                              add(colBase, pair)));
    }
    SmallVector<Value> acc = initialAccumulators(positions, zeroInit);
    for (const Contraction &k : members) {
      auto loop = scf::ForOp::create(
          b, loc, cst(0), cst(k.depth), cst(kTileK), acc,
          [&](OpBuilder &, Location, Value depth, ValueRange carried) {
            SmallVector<Value> bRegs = bFragment(k, depth, colBase, lane);
            SmallVector<Value> next;
            for (auto [r, row] : llvm::enumerate(tileRows))
              llvm::append_range(
                  next, mma(aFragment(k, row, depth, lane), bRegs,
                            carried.slice(4 * r, 4)));
            scf::YieldOp::create(b, loc, next);
          });
      acc = masked(k, loop.getResults(), acc, positions);
    }
    store(acc, positions);
  }

  /// Two consecutive elements as one operand register.
  Value pack(Value first, Value second) {
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, operandType),
        ValueRange{toOperandType(first), toOperandType(second)});
    return operandRegister(pair);
  }

  Value loadA(const Contraction &k, Value i, Value t) {
    return memref::LoadOp::create(b, loc, k.a,
                                  k.transposedA ? at(t, i) : at(i, t));
  }

  Value loadM(const Contraction &k, Value t, Value e) {
    return memref::LoadOp::create(b, loc, k.m,
                                  k.transposedM ? at(e, t) : at(t, e));
  }

  /// The A fragment of the 16 x 16 tile at (`row`, `depth`): by ldmatrix
  /// from shared 16-bit rows, else the lane's rows g, g + 8 and columns
  /// 2q, 2q + 1, 2q + 8, 2q + 9 one element at a time.
  SmallVector<Value> aFragment(const Contraction &k, Value row, Value depth,
                               Value lane) {
    if (k.aShared)
      return ldmatrixA(k.aShared, aDepthMajor(k), row, depth, lane);
    Value i = add(row, div(lane, 4));
    Value kk = add(depth, mul(rem(lane, 4), 2));
    SmallVector<Value> regs;
    for (int64_t colOffset : {0, 8})
      for (int64_t rowOffset : {0, 8}) {
        Value r = add(i, rowOffset), t = add(kk, colOffset);
        regs.push_back(pack(loadA(k, r, t), loadA(k, r, add(t, 1))));
      }
    return regs;
  }

  /// The B fragment of the 16 x 8 tile at (`depth`, `col`): by ldmatrix
  /// from shared 16-bit rows, else the lane's rows 2q, 2q + 1, 2q + 8,
  /// 2q + 9 of column g one element at a time.
  SmallVector<Value> bFragment(const Contraction &k, Value depth, Value col,
                               Value lane) {
    if (k.mShared)
      return ldmatrixB(k.mShared, mDepthMajor(k), col, depth, lane);
    Value e = add(col, div(lane, 4));
    Value kk = add(depth, mul(rem(lane, 4), 2));
    SmallVector<Value> regs;
    for (int64_t rowOffset : {0, 8}) {
      Value t = add(kk, rowOffset);
      regs.push_back(pack(loadM(k, t, e), loadM(k, add(t, 1), e)));
    }
    return regs;
  }

  ArrayRef<Contraction> members;
  bool zeroInit;
  int64_t stripTiles;
};

/// How a block of the staged form splits its work: a `rows` x `cols`
/// output tile per block, the depth stepped `depth` at a time through
/// shared memory, each of `activeWarps` warps owning 16 x (8 *
/// `tilesPerWarp`) outputs (the A fragment reused across them).
struct BlockTiling {
  int64_t rows, cols, depth;
  int64_t tilesPerWarp, activeWarps;

  /// The blocks of a grid over `c`'s output.
  int64_t numBlocks(const Contraction &c) const {
    return c.numTiles() / ((rows / kTileM) * (cols / kTileN));
  }
};

/// The warps' share of a `rows` x `cols` block tile: the fewest 16 x 8
/// tiles per warp (a divisor of the tile's columns) that `numWarps` cover.
std::optional<BlockTiling> tileBlock(int64_t rows, int64_t cols,
                                     int64_t depth, int64_t numWarps) {
  int64_t colTiles = cols / kTileN;
  int64_t tiles = (rows / kTileM) * colTiles;
  for (int64_t perWarp = 1; perWarp <= colTiles; ++perWarp)
    if (colTiles % perWarp == 0 && tiles / perWarp <= numWarps)
      return BlockTiling{rows, cols, depth, perWarp, tiles / perWarp};
  return std::nullopt;
}

/// The largest block tile side: 128 x 128 outputs are 64 f32 accumulators
/// per lane of 8 warps, and their two staged slices 20 KiB of shared memory.
constexpr int64_t kMaxBlockSide = 128;

/// The row counts of a block tile of `area` outputs, the squarest tile
/// first (of equal areas, it loads the fewest operand elements).
SmallVector<int64_t, 4> squarestFirst(int64_t area) {
  SmallVector<int64_t, 4> rows = {128, 64, 32, 16};
  auto skew = [&](int64_t r) {
    return std::max(r * r, area) / std::min(r * r, area);
  };
  llvm::stable_sort(rows,
                    [&](int64_t x, int64_t y) { return skew(x) < skew(y); });
  return rows;
}

/// The block tile of contractions into one output: the largest of
/// 128 x 128 down to 16 x 8 that divides it and still gives `minBlocks`
/// blocks (the GPU's SMs), or the one with the most blocks where none
/// does. Larger tiles read each operand element fewer times; a grid
/// smaller than the GPU idles SMs. Tiles that keep every warp busy come
/// first; smaller ones only where none divides. The depth steps 32 at a
/// time (16 where 32 does not divide every contraction's depth).
std::optional<BlockTiling> chooseBlockTiling(ArrayRef<Contraction> members,
                                             int64_t numWarps,
                                             int64_t minBlocks) {
  const Contraction &c = members.front();
  bool by32 = llvm::all_of(
      members, [](const Contraction &k) { return k.depth % 32 == 0; });
  int64_t depth = by32 ? 32 : 16;
  int64_t outputs = c.numTiles() * kTileM * kTileN;
  for (bool everyWarp : {true, false}) {
    std::optional<BlockTiling> best;
    for (int64_t area = kMaxBlockSide * kMaxBlockSide; area >= kTileM * kTileN;
         area /= 2)
      for (int64_t rows : squarestFirst(area)) {
        int64_t cols = area / rows;
        if (cols < kTileN || cols > kMaxBlockSide || c.rows % rows ||
            c.cols % cols)
          continue;
        std::optional<BlockTiling> tiling =
            tileBlock(rows, cols, depth, numWarps);
        if (!tiling || (everyWarp && tiling->activeWarps < numWarps) ||
            (best && best->rows * best->cols == area))
          continue;
        best = tiling;
        if (outputs / area >= minBlocks)
          return best;
      }
    if (best)
      return best;
  }
  return std::nullopt;
}

/// The shared-memory slice of one operand: `[extent][depth + pad]`, or for
/// an operand stored depth-major `[depth][extent + pad]`.
MemRefType stagedType(Type operandType, const BlockTiling &tiling,
                      bool depthMajor, int64_t extent) {
  auto workgroup = gpu::AddressSpaceAttr::get(operandType.getContext(),
                                              gpu::AddressSpace::Workgroup);
  SmallVector<int64_t> shape =
      depthMajor ? SmallVector<int64_t>{tiling.depth, extent + kRowPad}
                 : SmallVector<int64_t>{extent, tiling.depth + kRowPad};
  return MemRefType::get(shape, operandType, MemRefLayoutAttrInterface(),
                         workgroup);
}

/// The staged slices of each contraction of a chain, A's then M's; a
/// contraction whose slice has the type of an earlier one's reuses it.
struct StagedSlices {
  SmallVector<MemRefType> aTypes, mTypes;

  StagedSlices(ArrayRef<Contraction> members, Type operandType,
               const BlockTiling &tiling) {
    for (const Contraction &k : members) {
      aTypes.push_back(
          stagedType(operandType, tiling, aDepthMajor(k), tiling.rows));
      mTypes.push_back(
          stagedType(operandType, tiling, mDepthMajor(k), tiling.cols));
    }
  }

  /// The distinct slice types of one operand position, in first-use order.
  static SmallVector<MemRefType> distinct(ArrayRef<MemRefType> types) {
    SmallVector<MemRefType> result;
    for (MemRefType type : types)
      if (!llvm::is_contained(result, type))
        result.push_back(type);
    return result;
  }

  int64_t bytes() const {
    int64_t total = 0;
    for (ArrayRef<MemRefType> types : {ArrayRef(aTypes), ArrayRef(mTypes)})
      for (MemRefType type : distinct(types))
        total += type.getNumElements() *
                 type.getElementTypeBitWidth() / 8;
    return total;
  }
};

/// A block per output tile of the staged form, running one or more
/// contractions into the same output in turn: for each, its threads copy
/// the operands' next `depth`-deep slices into shared memory together (f32
/// loads from global memory, each element once per block, converted to
/// the tensor-core type on the way), then each warp loads its fragments
/// with ldmatrix and runs its mma.sync steps. The accumulators stay in
/// registers from one contraction to the next (a mask selects in them);
/// they start at zero when the output was just zero-filled, else from the
/// output. The slices keep the operands' own orientation; the transposed
/// operands are read with ldmatrix's `.trans`.
class StagedBlockBuilder : public FragmentBuilder {
public:
  StagedBlockBuilder(OpBuilder &b, Location loc,
                     ArrayRef<Contraction> members, bool zeroInit,
                     Type operandType, const BlockTiling &tiling,
                     int64_t blockSize)
      : FragmentBuilder(b, loc, members.front(), operandType),
        members(members), zeroInit(zeroInit), tiling(tiling),
        blockSize(blockSize) {}

  int64_t numBlocks() const { return tiling.numBlocks(c); }

  /// `slices[i]`: contraction i's staged A and M slices.
  void build(Value block, Value thread,
             ArrayRef<std::pair<Value, Value>> slices) {
    // (Named values, not a structured binding: the loop bodies capture them.)
    Value rowBase, colBase;
    std::tie(rowBase, colBase) =
        blockTileOrigin(block, tiling.rows, tiling.cols);

    // Warps past the active ones (a block tile with fewer 16 x 8 tiles than
    // warps) take part in the copies and barriers only; their indices are
    // clamped so that what they address stays in bounds.
    Value warp = div(thread, kWarp);
    Value active;
    if (tiling.activeWarps * kWarp < blockSize) {
      active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                                     cst(tiling.activeWarps));
      warp = arith::MinUIOp::create(b, loc, warp, cst(tiling.activeWarps - 1));
    }
    Value lane = rem(thread, kWarp);
    int64_t rowTiles = tiling.rows / kTileM;
    Value warpRow = mul(rem(warp, rowTiles), kTileM);
    Value warpCol = mul(div(warp, rowTiles), kTileN * tiling.tilesPerWarp);

    // Accumulators: tile j's four elements at 4j .. 4j + 3.
    Value group = div(lane, 4);
    Value pair = mul(rem(lane, 4), 2);
    Value row = add(add(rowBase, warpRow), group);
    Value col = add(add(colBase, warpCol), pair);
    SmallVector<std::pair<Value, Value>> positions;
    for (int64_t j = 0; j < tiling.tilesPerWarp; ++j)
      llvm::append_range(positions,
                         accumulatorPositions(row, add(col, j * kTileN)));
    SmallVector<Value> acc = initialAccumulators(positions, zeroInit);

    WarpPlace place{warpRow, warpCol, lane, active};
    for (auto [k, slice] : llvm::zip(members, slices)) {
      Value aLines = copyLines(k.a, tiling.depth);
      Value mLines = copyLines(k.m, tiling.depth);
      // A slice keeps its operand's orientation in shared memory.
      auto asStored = [](Value outer, Value inner) {
        return SmallVector<Value>{outer, inner};
      };
      auto loop = scf::ForOp::create(
          b, loc, cst(0), cst(k.depth), cst(tiling.depth), acc,
          [&](OpBuilder &, Location, Value depth, ValueRange carried) {
            stage({k.a, aDepthMajor(k), rowBase, depth, tiling.rows,
                   tiling.depth},
                  slice.first, thread, blockSize, aLines, asStored);
            stage({k.m, mDepthMajor(k), colBase, depth, tiling.cols,
                   tiling.depth},
                  slice.second, thread, blockSize, mLines, asStored);
            gpu::BarrierOp::create(b, loc);
            SmallVector<Value> next = steps(k, slice, place, carried);
            gpu::BarrierOp::create(b, loc);
            scf::YieldOp::create(b, loc, next);
          });
      acc = masked(k, loop.getResults(), acc, positions);
    }
    if (!active) {
      store(acc, positions);
      return;
    }
    auto ifActive = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifActive.thenBlock()->getTerminator());
    store(acc, positions);
  }

private:
  /// Where a warp's fragments are: its first output row and column in the
  /// block tile, its lane, and (null when all warps compute) whether it
  /// computes.
  struct WarpPlace {
    Value row, col, lane, active;
  };

  /// The k16 steps of `k`'s staged slices on the warp's accumulators; only
  /// where the warp is active.
  SmallVector<Value> steps(const Contraction &k, std::pair<Value, Value> slice,
                           const WarpPlace &place, ValueRange carried) {
    auto run = [&]() {
      SmallVector<Value> acc(carried);
      for (int64_t kk = 0; kk < tiling.depth; kk += kTileK)
        step(k, slice, place, kk, acc);
      return acc;
    };
    if (!place.active)
      return run();
    auto ifActive = scf::IfOp::create(b, loc, carried.getTypes(), place.active,
                                      /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifActive.thenBlock());
    scf::YieldOp::create(b, loc, run());
    b.setInsertionPointToStart(ifActive.elseBlock());
    scf::YieldOp::create(b, loc, carried);
    return ifActive.getResults();
  }

  /// One k16 step of the warp's tiles at slice depth `kk`.
  void step(const Contraction &k, std::pair<Value, Value> slice,
            const WarpPlace &place, int64_t kk, SmallVector<Value> &acc) {
    SmallVector<Value> aRegs = ldmatrixA(slice.first, aDepthMajor(k),
                                         place.row, cst(kk), place.lane);
    for (int64_t j = 0; j < tiling.tilesPerWarp; ++j) {
      SmallVector<Value> bRegs =
          ldmatrixB(slice.second, mDepthMajor(k), add(place.col, j * kTileN),
                    cst(kk), place.lane);
      SmallVector<Value> tileAcc(acc.begin() + 4 * j, acc.begin() + 4 * j + 4);
      SmallVector<Value> next = mma(aRegs, bRegs, tileAcc);
      std::copy(next.begin(), next.end(), acc.begin() + 4 * j);
    }
  }

  ArrayRef<Contraction> members;
  bool zeroInit;
  const BlockTiling &tiling;
  int64_t blockSize;
};

/// An `scf.parallel` over [0, sizes...) mapped to `processors`, the builder
/// placed in its body; returns its indices. (Blocks and threads are one
/// loop: nested loops with constant bounds would be merged by the
/// canonicalizer, which drops their mapping. For the same reason a dim of
/// one iteration, a grid of one block, is left out, its index 0: the
/// canonicalizer would fold it, mapping and all, and the grid would stay
/// on the host.)
SmallVector<Value> parallelLoop(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<gpu::Processor> processors) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lower, upper, steps;
  SmallVector<gpu::Processor> mapped;
  SmallVector<bool> kept;
  for (auto [k, size] : llvm::enumerate(sizes)) {
    bool last = k + 1 == sizes.size();
    kept.push_back(size != 1 || (last && mapped.empty()));
    if (!kept.back())
      continue;
    lower.push_back(zero);
    upper.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(one);
    mapped.push_back(processors[k]);
  }
  auto loop = scf::ParallelOp::create(b, loc, lower, upper, steps);
  linea::mapLoopTo(loop, mapped);
  b.setInsertionPointToStart(loop.getBody());
  // (getInductionVars returns a vector by value: held here, not iterated
  // as a temporary.)
  SmallVector<Value> inductionVars = loop.getInductionVars();
  SmallVector<Value> ids;
  auto next = inductionVars.begin();
  for (bool isKept : kept)
    ids.push_back(isKept ? *next++ : zero);
  return ids;
}

bool readsOutput(const Contraction &c) {
  Value root = linea::viewRoot(c.out);
  return linea::viewRoot(c.a) == root || linea::viewRoot(c.m) == root;
}

/// Contractions that accumulate into one output one after the other in
/// their block (the chunk-parallel output `O = P V` then `O += Q S`), and
/// the fill of zeros before the first, if any. None of them reads the
/// output, so one grid can run them all with the accumulators kept in
/// registers, starting from zero instead of the fill. Ops between them may
/// do other work (decay the queries of `Q S`): the chain runs where its
/// last member was, so those ops must leave the output alone and write
/// nothing an earlier member reads.
struct AccumulationChain {
  SmallVector<linalg::GenericOp> ops;
  SmallVector<Contraction> members;
  linalg::FillOp zeroFill;
};

/// The buffers (view roots) `op` and the ops nested in it read and write
/// (a deallocation counts as a write); false where an effect is on no
/// known buffer.
bool bufferEffects(Operation *op, llvm::SmallPtrSetImpl<Value> &reads,
                   llvm::SmallPtrSetImpl<Value> &writes) {
  WalkResult walk = op->walk([&](Operation *nested) {
    // (A linalg op reports its operands' effects and has its body's too.)
    auto interface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!interface)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || !isa<BaseMemRefType>(value.getType()))
        return WalkResult::interrupt();
      (isa<MemoryEffects::Read>(effect.getEffect()) ? reads : writes)
          .insert(linea::viewRoot(value));
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Whether every op strictly between `from` and `to` (one block, `from`
/// first) leaves buffer `out` alone and writes none of `protectedRoots`.
bool independentBetween(Operation *from, Operation *to, Value out,
                        const llvm::SmallPtrSetImpl<Value> &protectedRoots) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    llvm::SmallPtrSet<Value, 8> reads, writes;
    if (!bufferEffects(op, reads, writes) || reads.contains(out) ||
        writes.contains(out) ||
        llvm::any_of(writes,
                     [&](Value w) { return protectedRoots.contains(w); }))
      return false;
  }
  return true;
}

/// The zero fill of `c`'s output before `first`, with nothing between
/// them touching the output; null if none.
linalg::FillOp zeroFillBefore(linalg::GenericOp first, const Contraction &c) {
  Value out = linea::viewRoot(c.out);
  for (Operation *op = first->getPrevNode(); op; op = op->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (fill && fill.getOutputs()[0] == c.out) {
      if (isZero(fill.getInputs()[0]) && !readsOutput(c))
        return fill;
      return {};
    }
    llvm::SmallPtrSet<Value, 8> reads, writes;
    if (!bufferEffects(op, reads, writes) || reads.contains(out) ||
        writes.contains(out))
      return {};
  }
  return {};
}

/// `matches`, in program order, grouped into chains.
SmallVector<AccumulationChain>
collectChains(ArrayRef<std::pair<linalg::GenericOp, Contraction>> matches) {
  SmallVector<AccumulationChain> chains;
  for (const auto &[op, c] : matches) {
    if (!chains.empty()) {
      AccumulationChain &last = chains.back();
      llvm::SmallPtrSet<Value, 8> memberReads;
      for (const Contraction &k : last.members) {
        memberReads.insert(linea::viewRoot(k.a));
        memberReads.insert(linea::viewRoot(k.m));
      }
      if (last.members.front().out == c.out && !readsOutput(c) &&
          !readsOutput(last.members.front()) &&
          independentBetween(last.ops.back(), op, linea::viewRoot(c.out),
                             memberReads)) {
        last.ops.push_back(op);
        last.members.push_back(c);
        continue;
      }
    }
    chains.push_back(AccumulationChain{{op}, {c}, zeroFillBefore(op, c)});
  }
  return chains;
}

struct LineaContractionsToMMAPass
    : linea::impl::LineaContractionsToMMABase<LineaContractionsToMMAPass> {
  using LineaContractionsToMMABase::LineaContractionsToMMABase;

  void runOnOperation() override {
    Builder builder(&getContext());
    Type operandType;
    if (precision == linea::Precision::f16)
      operandType = builder.getF16Type();
    else if (precision == linea::Precision::bf16)
      operandType = builder.getBF16Type();
    FailureOr<int64_t> blockThreads =
        linea::threadsPerBlock(getOperation(), getArgument(), blockSize);
    if (failed(blockThreads))
      return signalPassFailure();
    threads = *blockThreads;
    if (!operandType || threads % kWarp) {
      getOperation()->emitError()
          << "linea-contractions-to-mma needs precision f16 or bf16 and a "
             "block-size that is a positive multiple of 32, got precision '"
          << linea::stringifyPrecision(precision) << "' and block-size "
          << threads;
      return signalPassFailure();
    }
    minimumBlocks = linea::targetFor(getOperation(), linea::TargetKind::gpu)
                        .parallelUnits;
    copies.clear();
    narrowed.clear();
    fittingBlocks.clear();
    // Decided on the temporaries as they come: narrowing only shrinks them.
    getOperation()->walk([&](scf::ForallOp forall) {
      if (linea::runsAsOneBlock(forall))
        fittingBlocks.insert(forall);
    });
    IRRewriter rewriter(&getContext());
    // A sequence block's copies of 16-bit operands stay 16-bit, for its
    // contractions to read as stored.
    linea::copyIntoStoredTemporaries(rewriter, getOperation());
    SmallVector<std::pair<linalg::GenericOp, Contraction>> matches;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<Contraction> c = matchContraction(op))
        matches.push_back({op, *c});
    });
    narrowTemporaries(rewriter, matches, operandType);
    SymbolTableCollection symbols;
    for (const AccumulationChain &chain : collectChains(matches))
      buildChain(rewriter, chain, operandType, symbols);
    for (linalg::GenericOp copy : copies)
      linea::eraseUnusedCopy(rewriter, copy);
    for (auto [alloc, twin] : narrowed)
      linea::eraseUnusedBuffer(rewriter, alloc);
  }

  /// The widening and narrowing copies whose 16-bit buffers staged grids
  /// read or write instead.
  llvm::SetVector<linalg::GenericOp> copies;
  /// Sequence-block temporaries only tensor cores read, and their 16-bit
  /// twins (views shaped as they are).
  llvm::MapVector<memref::AllocOp, Value> narrowed;
  /// Sequence blocks whose temporaries fit in shared memory, which
  /// linea-map-to-gpu keeps one block each.
  DenseSet<Operation *> fittingBlocks;
  /// Threads per block, and the blocks a grid should have to keep every SM
  /// of the planned GPU busy.
  int64_t threads = 0;
  int64_t minimumBlocks = 0;

  /// A sequence block's temporaries that only its tensor-core contractions
  /// read hold the tensor-core type (which the warps would narrow each
  /// element to anyway), in rows that ldmatrix loads.
  void narrowTemporaries(
      IRRewriter &rewriter,
      ArrayRef<std::pair<linalg::GenericOp, Contraction>> matches,
      Type operandType) {
    DenseSet<Operation *> onTensorCores;
    for (const auto &match : matches)
      if (linea::isInSequenceBlock(match.first))
        onTensorCores.insert(match.first);
    auto tensorCoreRead = [&](OpOperand &use) {
      auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
      return generic && onTensorCores.contains(generic) &&
             generic.isDpsInput(&use);
    };
    for (const auto &[op, c] : matches)
      for (Value operand : {c.a, c.m}) {
        auto alloc = linea::viewRoot(operand).getDefiningOp<memref::AllocOp>();
        if (!onTensorCores.contains(op) || !alloc || narrowed.count(alloc))
          continue;
        if (Value twin = linea::narrowTemporary(rewriter, alloc, operandType,
                                                tensorCoreRead))
          narrowed[alloc] = twin;
      }
  }

  /// `operand`'s 16-bit rows in shared memory, cast to the workgroup
  /// address space for ldmatrix: where it is a view of a 16-bit temporary
  /// of a sequence block that fits in shared memory, its rows starting
  /// 16-byte aligned.
  Value sharedRows(OpBuilder &b, Location loc, Value operand,
                   Type operandType) {
    auto alloc = linea::viewRoot(operand).getDefiningOp<memref::AllocOp>();
    auto type = cast<MemRefType>(operand.getType());
    // ldmatrix reads 16-byte rows: whole cp.async lines.
    if (!alloc || type.getElementType() != operandType ||
        !fittingBlocks.contains(linea::enclosingSequenceBlock(alloc)) ||
        !linea::inCopyLines(type, /*anyOffset=*/false))
      return {};
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto shared = MemRefType::get(type.getShape(), type.getElementType(),
                                  type.getLayout(), workgroup);
    return memref::MemorySpaceCastOp::create(b, loc, shared, operand);
  }

  /// A chain as one staged grid where its sizes tile by a block; else, in
  /// a sequence block (which runs it as one block), as lanes loading their
  /// own fragments on shared accumulators; else each contraction on its
  /// own: staged alone, or with lane loads where the sizes do not tile,
  /// the fill of zeros kept.
  void buildChain(IRRewriter &b, const AccumulationChain &chain,
                  Type operandType, SymbolTableCollection &symbols) {
    linalg::GenericOp first = chain.ops.front();
    bool oneBlock = linea::isInSequenceBlock(first);
    std::optional<linea::mma::WarpgroupTiling> warpgroupTiling;
    std::optional<BlockTiling> tiling;
    if (!oneBlock) {
      tiling = stagedTiling(chain.members, operandType);
      if (warpgroupMma)
        warpgroupTiling = preferredWarpgroupTiling(chain.members, tiling);
    }
    if (warpgroupTiling || tiling || oneBlock) {
      // Where the last member was: what the ops between members compute
      // (the decayed queries of `O += Q S`) is ready there.
      b.setInsertionPoint(chain.ops.back());
      if (warpgroupTiling)
        buildWarpgroupGrid(b, first.getLoc(), chain, operandType,
                           *warpgroupTiling, symbols);
      else if (tiling)
        buildStagedGrid(b, first.getLoc(), chain, operandType, *tiling,
                        symbols);
      else
        buildLaneLoads(b, first.getLoc(), chain, operandType, oneBlock);
      for (linalg::GenericOp op : chain.ops)
        b.eraseOp(op);
      if (chain.zeroFill)
        b.eraseOp(chain.zeroFill);
      return;
    }
    if (chain.ops.size() > 1) {
      for (auto [i, op] : llvm::enumerate(chain.ops))
        buildChain(b,
                   AccumulationChain{{op},
                                     {chain.members[i]},
                                     i == 0 ? chain.zeroFill
                                            : linalg::FillOp()},
                   operandType, symbols);
      return;
    }
    b.setInsertionPoint(first);
    buildLaneLoads(b, first.getLoc(),
                   AccumulationChain{{first}, chain.members, {}}, operandType,
                   oneBlock);
    b.eraseOp(first);
  }

  /// The wgmma tiling of a staged grid for `members`, where one divides
  /// them and gives the GPU's SMs as much work as the mma.sync grid
  /// (`warpTiling`) would: wgmma's tiles are at least 64 x 64, and where
  /// the output is too small to fill the SMs even so, the smaller mma.sync
  /// tiles keep more of them busy.
  std::optional<linea::mma::WarpgroupTiling>
  preferredWarpgroupTiling(ArrayRef<Contraction> members,
                           const std::optional<BlockTiling> &warpTiling) {
    std::optional<linea::mma::WarpgroupTiling> tiling =
        linea::mma::chooseWarpgroupTiling(members, threads, minimumBlocks);
    if (!tiling || !warpTiling)
      return tiling;
    int64_t blocks = tiling->numBlocks(members.front());
    if (blocks < minimumBlocks &&
        blocks < warpTiling->numBlocks(members.front()))
      return std::nullopt;
    return tiling;
  }


  /// The block tiling of a staged grid for `members`, if one divides
  /// their output and their slices fit in static shared memory.
  std::optional<BlockTiling> stagedTiling(ArrayRef<Contraction> members,
                                          Type operandType) {
    std::optional<BlockTiling> tiling =
        chooseBlockTiling(members, threads / kWarp, minimumBlocks);
    if (!tiling ||
        StagedSlices(members, operandType, *tiling).bytes() >
            linea::kStaticSharedMemoryBytes)
      return std::nullopt;
    return tiling;
  }

  /// Warps that take strips of 16 x 8 tiles in turn, each lane loading its
  /// fragment elements: one block's (inside a sequence block, which runs
  /// it) or a grid's. A strip is as many of a column's tiles (up to 8) as
  /// still leave every warp of a block an item.
  void buildLaneLoads(OpBuilder &b, Location loc, AccumulationChain chain,
                      Type operandType, bool oneBlock) {
    OpBuilder::InsertionGuard guard(b);
    for (Contraction &k : chain.members) {
      readOperandsAsStored(b, k);
      k.aShared = sharedRows(b, loc, k.a, operandType);
      k.mShared = sharedRows(b, loc, k.m, operandType);
    }
    writeChainAsStored(b, chain, chain.members);
    const Contraction &c = chain.members.front();
    int64_t warpsPerBlock = threads / kWarp;
    int64_t stripTiles = 1;
    for (int64_t r = std::min<int64_t>(8, c.rows / kTileM); oneBlock && r > 1;
         --r)
      if ((c.rows / kTileM) % r == 0 && c.numTiles() / r >= warpsPerBlock) {
        stripTiles = r;
        break;
      }
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    LaneLoadBuilder builder(b, loc, chain.members, bool(chain.zeroFill),
                            operandType, stripTiles);
    int64_t numBlocks =
        oneBlock ? 1 : llvm::divideCeil(builder.numItems(), warpsPerBlock);
    // One block (inside a sequence block, or a grid that small) is a loop
    // over its threads alone (parallelLoop leaves the unit dim out).
    SmallVector<Value> ids =
        parallelLoop(b, loc, {numBlocks, threads},
                     {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    Value thread = ids[1];
    Value warp = arith::DivUIOp::create(b, loc, thread, cst(kWarp));
    if (numBlocks > 1)
      warp = arith::AddIOp::create(
          b, loc, warp,
          arith::MulIOp::create(b, loc, ids[0], cst(warpsPerBlock)));
    Value lane = arith::RemUIOp::create(b, loc, thread, cst(kWarp));
    builder.build(warp, cst(numBlocks * warpsPerBlock), lane);
  }

  /// A chain that writes its whole output (a zero fill before it) read only
  /// by a narrowing copy stores into the narrowed 16-bit buffer itself:
  /// `members`' outputs are retargeted, the copy left to erase.
  void writeChainAsStored(OpBuilder &b, const AccumulationChain &chain,
                          MutableArrayRef<Contraction> members) {
    if (!chain.zeroFill)
      return;
    SmallVector<Operation *> writers{chain.zeroFill};
    llvm::append_range(writers, chain.ops);
    linalg::GenericOp narrowing;
    if (Value narrow = linea::writeAsStored(b, members.front().out, writers,
                                            narrowing)) {
      for (Contraction &k : members)
        k.out = narrow;
      copies.insert(narrowing);
    }
  }

  /// A grid of blocks, one per block tile, with the staged slices as
  /// private workgroup globals (kernel outlining carries them into the GPU
  /// module, where they become static shared memory).
  void buildStagedGrid(OpBuilder &b, Location loc,
                       const AccumulationChain &chain, Type operandType,
                       const BlockTiling &tiling,
                       SymbolTableCollection &symbols) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Contraction> members = membersAsStored(b, chain);
    StagedSlices types(members, operandType, tiling);
    auto globals = [&](ArrayRef<MemRefType> slotTypes, StringRef operand) {
      DenseMap<MemRefType, memref::GlobalOp> byType;
      for (MemRefType type : StagedSlices::distinct(slotTypes))
        byType[type] = stagedSlice(b, loc, type, operand, symbols);
      return byType;
    };
    DenseMap<MemRefType, memref::GlobalOp> aGlobals =
        globals(types.aTypes, "a");
    DenseMap<MemRefType, memref::GlobalOp> mGlobals =
        globals(types.mTypes, "m");
    StagedBlockBuilder builder(b, loc, members, bool(chain.zeroFill),
                               operandType, tiling, threads);
    SmallVector<Value> ids =
        parallelLoop(b, loc, {builder.numBlocks(), threads},
                     {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    auto get = [&](memref::GlobalOp global) -> Value {
      return memref::GetGlobalOp::create(b, loc, global.getType(),
                                         global.getSymName());
    };
    SmallVector<std::pair<Value, Value>> slices;
    for (auto [aType, mType] : llvm::zip(types.aTypes, types.mTypes))
      slices.push_back({get(aGlobals[aType]), get(mGlobals[mType])});
    builder.build(ids[0], ids[1], slices);
  }

  /// A grid of blocks on warpgroup MMA, one per block tile, staging both
  /// slices in one private workgroup global aligned for the swizzle (by
  /// TMA where `tma` and the operands allow).
  void buildWarpgroupGrid(OpBuilder &b, Location loc,
                          const AccumulationChain &chain, Type operandType,
                          const linea::mma::WarpgroupTiling &tiling,
                          SymbolTableCollection &symbols) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Contraction> members = membersAsStored(b, chain);
    memref::GlobalOp global = stagedSlice(
        b, loc, linea::mma::warpgroupStagedType(operandType, tiling), "ab",
        symbols, linea::mma::kSwizzleAlignment);
    // On the host, before the grid.
    SmallVector<linea::mma::TensorMaps> maps;
    if (tma)
      maps = linea::mma::createTensorMaps(b, loc, members, operandType, tiling);
    SmallVector<Value> ids =
        parallelLoop(b, loc, {tiling.numBlocks(members.front()), tiling.threads()},
                     {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    Value staged = memref::GetGlobalOp::create(b, loc, global.getType(),
                                               global.getSymName());
    linea::mma::buildWarpgroupBlock(b, loc, members, bool(chain.zeroFill),
                                    operandType, tiling, ids[0], ids[1],
                                    staged, maps);
  }

  /// `chain`'s members for a staged grid: widened bf16/f16 operands read,
  /// and a zero-filled result that is narrowed afterwards written, as
  /// stored.
  SmallVector<Contraction> membersAsStored(OpBuilder &b,
                                           const AccumulationChain &chain) {
    SmallVector<Contraction> members(chain.members);
    for (Contraction &k : members)
      readOperandsAsStored(b, k);
    writeChainAsStored(b, chain, members);
    return members;
  }

  /// Points `k`'s widened operands at their bf16/f16 buffers (views built
  /// at `b`'s insertion point), keeping the widening copies for erasure.
  void readOperandsAsStored(OpBuilder &b, Contraction &k) {
    for (Value *operand : {&k.a, &k.m}) {
      auto alloc = linea::viewRoot(*operand).getDefiningOp<memref::AllocOp>();
      if (Value twin = alloc ? narrowed.lookup(alloc) : Value()) {
        *operand = linea::retargetViews(b, *operand, twin);
        continue;
      }
      linalg::GenericOp widening;
      if (Value stored = linea::readAsStored(b, *operand, widening)) {
        *operand = stored;
        copies.insert(widening);
      }
    }
  }

  /// A fresh private global of `type` in the symbol table around the
  /// builder's insertion point, named after the operand it stages.
  static memref::GlobalOp stagedSlice(OpBuilder &b, Location loc,
                                      MemRefType type, StringRef operand,
                                      SymbolTableCollection &symbols,
                                      int64_t alignment = 16) {
    Operation *tableOp = SymbolTable::getNearestSymbolTable(
        b.getInsertionBlock()->getParentOp());
    OpBuilder detached(b.getContext());
    auto global = memref::GlobalOp::create(
        detached, loc, ("linea_staged_" + operand).str(),
        detached.getStringAttr("private"), type, Attribute(),
        /*constant=*/false, detached.getI64IntegerAttr(alignment));
    // At the top, renamed if the name is taken.
    symbols.getSymbolTable(tableOp).insert(
        global, tableOp->getRegion(0).front().begin());
    return global;
  }
};

} // namespace
