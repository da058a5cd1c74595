//===- StagedGrid.cpp - contractions staged through shared memory ---------===//

#include "StagedGrid.h"
#include "StoredTypes.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::linea;
using mma::BlockTiling;
using mma::Contraction;
using mma::FragmentBuilder;
using mma::aDepthMajor;
using mma::kTileK;
using mma::kTileM;
using mma::kTileN;
using mma::mDepthMajor;
using linea::kRowPad;
constexpr int64_t kWarp = mma::kWarpSize;

namespace {

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
    if (tiling.scalar)
      return buildScalar(block, thread, slices);
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
    acc = accumulateMembers(
        rowBase, colBase, thread, slices, positions, acc,
        [&](const Contraction &k, std::pair<Value, Value> slice,
            ValueRange carried) { return steps(k, slice, place, carried); });
    if (!active) {
      store(acc, positions);
      return;
    }
    auto ifActive = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifActive.thenBlock()->getTerminator());
    store(acc, positions);
  }

  /// The scalar tiling's block (BlockTiling::scalar): thread (ty, tx) of
  /// the 16 x 16 grid accumulates outputs (ty + 16 i, tx + 16 j) in
  /// registers, each depth step from the staged slices (a row of A's slice
  /// read by the threads of one ty alike, M's columns by consecutive tx).
  void buildScalar(Value block, Value thread,
                   ArrayRef<std::pair<Value, Value>> slices) {
    Value rowBase, colBase;
    std::tie(rowBase, colBase) =
        blockTileOrigin(block, tiling.rows, tiling.cols);
    Value ty = div(thread, mma::kScalarGridSide);
    Value tx = rem(thread, mma::kScalarGridSide);
    SmallVector<std::pair<Value, Value>> positions;
    for (int64_t i = 0; i < tiling.rows / mma::kScalarGridSide; ++i)
      for (int64_t j = 0; j < tiling.cols / mma::kScalarGridSide; ++j)
        positions.push_back({add(add(rowBase, ty), i * mma::kScalarGridSide),
                             add(add(colBase, tx), j * mma::kScalarGridSide)});
    SmallVector<Value> acc = accumulateMembers(
        rowBase, colBase, thread, slices, positions,
        initialAccumulators(positions, zeroInit),
        [&](const Contraction &k, std::pair<Value, Value> slice,
            ValueRange carried) {
          return scalarSteps(k, slice, ty, tx, SmallVector<Value>(carried));
        });
    store(acc, positions);
  }

private:
  /// Each member in turn on the accumulators `acc` (at `positions` of
  /// the block tile from (rowBase, colBase)): per `depth`-deep step the
  /// block stages A's and M's slices, then `steps` multiplies them
  /// between barriers; a masked member keeps the old accumulators where
  /// its mask does not hold.
  SmallVector<Value> accumulateMembers(
      Value rowBase, Value colBase, Value thread,
      ArrayRef<std::pair<Value, Value>> slices,
      ArrayRef<std::pair<Value, Value>> positions, SmallVector<Value> acc,
      function_ref<SmallVector<Value>(const Contraction &,
                                      std::pair<Value, Value>, ValueRange)>
          steps) {
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
                   tiling.depth, k.rowCount},
                  slice.first, thread, blockSize, aLines, asStored);
            stage({k.m, mDepthMajor(k), colBase, depth, tiling.cols,
                   tiling.depth},
                  slice.second, thread, blockSize, mLines, asStored);
            gpu::BarrierOp::create(b, loc);
            SmallVector<Value> next = steps(k, slice, carried);
            gpu::BarrierOp::create(b, loc);
            scf::YieldOp::create(b, loc, next);
          });
      acc = masked(k, loop.getResults(), acc, positions);
    }
    return acc;
  }

  /// The FMA steps of one staged depth slice on thread (ty, tx)'s
  /// accumulators (row i's outputs at i * columns + j).
  SmallVector<Value> scalarSteps(const Contraction &k,
                                 std::pair<Value, Value> slice, Value ty,
                                 Value tx, SmallVector<Value> acc) {
    int64_t side = mma::kScalarGridSide;
    int64_t rows = tiling.rows / side, cols = tiling.cols / side;
    // A slice element (extent index, depth) as its orientation stores it.
    auto load = [&](Value staged, bool depthMajor, Value at, int64_t kk) {
      SmallVector<Value> indices{at, cst(kk)};
      if (depthMajor)
        std::swap(indices[0], indices[1]);
      return memref::LoadOp::create(b, loc, staged, indices).getResult();
    };
    for (int64_t kk = 0; kk < tiling.depth; ++kk) {
      SmallVector<Value> a, m;
      for (int64_t i = 0; i < rows; ++i)
        a.push_back(load(slice.first, aDepthMajor(k), add(ty, i * side), kk));
      for (int64_t j = 0; j < cols; ++j)
        m.push_back(load(slice.second, mDepthMajor(k), add(tx, j * side), kk));
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          Value &sum = acc[i * cols + j];
          sum = math::FmaOp::create(b, loc, a[i], m[j], sum);
        }
    }
    return acc;
  }

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
  BlockTiling tiling;
  int64_t blockSize;
};

} // namespace

std::optional<mma::BlockTiling>
mma::chooseBlockTiling(ArrayRef<Contraction> members, int64_t numWarps,
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
        if (cols < kTileN || cols > kMaxBlockSide ||
            (!c.dynamicRows() && c.rows % rows) || c.cols % cols)
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

std::optional<mma::BlockTiling>
mma::chooseScalarTiling(ArrayRef<Contraction> members, int64_t threads,
                        int64_t minBlocks) {
  const Contraction &c = members.front();
  if (threads != kScalarGridSide * kScalarGridSide || c.cols % kScalarGridSide)
    return std::nullopt;
  bool by32 = llvm::all_of(
      members, [](const Contraction &k) { return k.depth % 32 == 0; });
  int64_t outputs = c.numTiles() * kTileM * kTileN;
  std::optional<BlockTiling> best;
  for (int64_t area = kMaxBlockSide * kMaxBlockSide;
       area >= kScalarGridSide * kScalarGridSide; area /= 2)
    for (int64_t rows : squarestFirst(area)) {
      int64_t cols = area / rows;
      if (cols < kScalarGridSide || cols > kMaxBlockSide ||
          cols % kScalarGridSide || (!c.dynamicRows() && c.rows % rows) ||
          c.cols % cols || (best && best->rows * best->cols == area))
        continue;
      best = BlockTiling{rows, cols, by32 ? 32 : 16, 0, 0, /*scalar=*/true};
      if (outputs / area >= minBlocks)
        return best;
    }
  return best;
}

mma::StagedSlices::StagedSlices(ArrayRef<Contraction> members,
                                Type operandType, const BlockTiling &tiling) {
  for (const Contraction &k : members) {
    aTypes.push_back(
        stagedType(operandType, tiling, aDepthMajor(k), tiling.rows));
    mTypes.push_back(
        stagedType(operandType, tiling, mDepthMajor(k), tiling.cols));
  }
}

SmallVector<MemRefType>
mma::StagedSlices::distinct(ArrayRef<MemRefType> types) {
  SmallVector<MemRefType> result;
  for (MemRefType type : types)
    if (!llvm::is_contained(result, type))
      result.push_back(type);
  return result;
}

int64_t mma::StagedSlices::bytes() const {
  int64_t total = 0;
  for (ArrayRef<MemRefType> types : {ArrayRef(aTypes), ArrayRef(mTypes)})
    for (MemRefType type : distinct(types))
      total += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  return total;
}

void mma::buildStagedBlock(OpBuilder &b, Location loc,
                           ArrayRef<Contraction> members, bool zeroInit,
                           Type operandType, const BlockTiling &tiling,
                           int64_t threads, Value block, Value thread,
                           ArrayRef<std::pair<Value, Value>> slices) {
  StagedBlockBuilder(b, loc, members, zeroInit, operandType, tiling, threads)
      .build(block, thread, slices);
}
