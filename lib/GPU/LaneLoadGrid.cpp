//===- LaneLoadGrid.cpp - contractions whose lanes load their fragments ---===//

#include "LaneLoadGrid.h"

using namespace mlir;
using namespace mlir::linea;
using mma::Contraction;
using mma::FragmentBuilder;
using mma::kTileK;
using mma::kTileM;
using mma::kTileN;

namespace {

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
    int64_t colTiles = c.colTiles();
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

  /// M's element (t, e); zero for a column past ragged columns (loaded
  /// from the last column, then replaced).
  Value loadM(const Contraction &k, Value t, Value e) {
    Value inside = colExists(e);
    if (inside)
      e = clampBelow(e, cst(k.cols));
    return orZero(inside, memref::LoadOp::create(
                              b, loc, k.m, k.transposedM ? at(e, t) : at(t, e)));
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

} // namespace

int64_t mma::laneLoadItems(ArrayRef<Contraction> members, int64_t stripTiles) {
  return members.front().numTiles() / stripTiles;
}

void mma::buildLaneLoads(OpBuilder &b, Location loc,
                         ArrayRef<Contraction> members, bool zeroInit,
                         Type operandType, int64_t stripTiles, Value warp,
                         Value numWarps, Value lane) {
  LaneLoadBuilder(b, loc, members, zeroInit, operandType, stripTiles)
      .build(warp, numWarps, lane);
}
