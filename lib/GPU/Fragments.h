//===- Fragments.h - what Linea's tensor-core builders share ---*- C++ -*-===//
//
// The contractions linea-contractions-to-mma puts on tensor cores and the
// pieces every way of building their warps shares: index arithmetic, the
// accumulator elements a lane owns (mma.sync's and wgmma's layouts agree
// on them), masks on finished accumulators, stores, ldmatrix, and the
// staging of operand slices into shared memory by a block's threads.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_FRAGMENTS_H
#define LINEA_LIB_GPU_FRAGMENTS_H

#include "linea/Analysis/CostModel.h"
#include "linea/GPU/MmaShape.h"
#include "linea/Utils/LinalgBodies.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

namespace mlir::linea::mma {

/// A contraction `out[b, i, e] += A[b, i, t] * M[b, t, e]`; `transposedA`
/// when the first operand is stored `[b, t, i]` (the state update K^T V),
/// `transposedM` when the second is stored `[b, e, t]` (the scores Q K^T).
/// A masked one adds only where its mask holds (`op`'s body selects the
/// product by a condition on the output's indices, e.g. the causal
/// `t <= i`): the warps multiply unmasked and keep the old accumulator
/// where the mask does not hold.
///
/// The rows may be dynamic (a model's projection over its L tokens, A
/// stored [rows, depth]): `rows` is then ShapedType::kDynamic, and the
/// grid reads A's rows past the run-time count as zeros and stores none of
/// them (the last block tile partly past the end). So may the batch dims (a
/// chunk-parallel form's chunks of a dynamic L): the grid then has a block
/// tile per batch element the run-time sizes count, each one whole. The columns
/// may be ragged, not a multiple of 8 (a normalized op's values and their ones
/// column, 64 + 1): the last 16 x 8 tile reads M's columns past them as
/// zeros and stores none of them; only lanes that load their own fragment
/// elements take such a contraction.
struct Contraction {
  Value a, m, out;
  bool transposedA = false, transposedM = false;
  SmallVector<int64_t, 4> batchShape;
  int64_t rows, cols, depth; // M, N, K
  /// The row count on the host where `rows` is dynamic (the output's dim,
  /// taken where the grid is built); null until then, and where static.
  Value rowCount;
  /// The same of each dynamic batch dim (null for the static ones).
  SmallVector<Value, 0> batchSizes;
  /// The generic's loops that index the output rows and columns.
  int64_t rowLoop, colLoop;
  /// The mask's condition in the generic's body, or null.
  Value mask;
  /// A and M as 16-bit rows in shared memory (workgroup address space),
  /// which warps load with ldmatrix; null where lanes load their elements.
  Value aShared, mShared;
  /// The elementwise op (a `linalg.generic` reading `out` at the element
  /// it computes: a bias, an activation, a residual add) whose value the
  /// grid stores instead of the accumulator, into that op's own output
  /// (AccumulationChains.h, epilogueOf); null for none.
  Operation *epilogue = nullptr;

  bool dynamicRows() const { return ShapedType::isDynamic(rows); }
  bool dynamicBatch() const {
    return llvm::any_of(batchShape, ShapedType::isDynamic);
  }
  /// Sizes only known at run time: a grid's block count is computed on the
  /// host, and only staged grids take such a contraction.
  bool dynamicSizes() const { return dynamicRows() || dynamicBatch(); }

  /// The rows a tiling plans for: a dynamic count is a sequence's tokens,
  /// as many as the cost model assumes.
  int64_t plannedRows() const {
    return dynamicRows() ? kAssumedDynamicLength : rows;
  }

  bool raggedCols() const { return cols % kTileN != 0; }
  /// The 8-column tiles that cover the columns (the last one partial where
  /// they are ragged).
  int64_t colTiles() const { return llvm::divideCeil(cols, kTileN); }

  /// The 16 x 8 output tiles (as planned, for dynamic sizes: a dynamic
  /// batch dim as the cost model assumes one).
  int64_t numTiles() const {
    int64_t tiles = (plannedRows() / kTileM) * colTiles();
    for (int64_t size : batchShape)
      tiles *= ShapedType::isDynamic(size) ? kAssumedDynamicBatch : size;
    return tiles;
  }
};

/// Whether an operand is stored with the depth as its outer index (K in
/// K^T V, the values in P V): a staged slice keeps that order, and its
/// fragments are read with ldmatrix's `.trans`.
inline bool aDepthMajor(const Contraction &k) { return k.transposedA; }
inline bool mDepthMajor(const Contraction &k) { return !k.transposedM; }

/// The `rows`-row tiles that cover `c`'s output rows: a constant, or for
/// dynamic rows enough to cover `c.rowCount` (the last one partial).
inline OpFoldResult rowTiles(OpBuilder &b, Location loc, const Contraction &c,
                             int64_t rows) {
  if (!c.dynamicRows())
    return b.getIndexAttr(c.rows / rows);
  return arith::CeilDivUIOp::create(
             b, loc, c.rowCount, arith::ConstantIndexOp::create(b, loc, rows))
      .getResult();
}

/// The size of `c`'s batch dim `i`: a constant, or its run-time size.
inline OpFoldResult batchSize(OpBuilder &b, const Contraction &c, int64_t i) {
  if (ShapedType::isDynamic(c.batchShape[i]))
    return c.batchSizes[i];
  return b.getIndexAttr(c.batchShape[i]);
}

/// The blocks of a grid of `rows` x `cols` block tiles over `c`'s output,
/// at `b` on the host.
inline OpFoldResult gridBlocks(OpBuilder &b, Location loc,
                               const Contraction &c, int64_t rows,
                               int64_t cols) {
  SmallVector<OpFoldResult> factors{b.getIndexAttr(c.cols / cols),
                                    rowTiles(b, loc, c, rows)};
  for (int64_t i = 0; i < int64_t(c.batchShape.size()); ++i)
    factors.push_back(batchSize(b, c, i));
  int64_t constant = 1;
  Value product;
  for (OpFoldResult factor : factors) {
    if (std::optional<int64_t> size = getConstantIntValue(factor)) {
      constant *= *size;
      continue;
    }
    product = product
                  ? arith::MulIOp::create(b, loc, product, cast<Value>(factor))
                        .getResult()
                  : cast<Value>(factor);
  }
  if (!product)
    return b.getIndexAttr(constant);
  return arith::MulIOp::create(b, loc, product,
                               arith::ConstantIndexOp::create(b, loc, constant))
      .getResult();
}

/// One operand's slice for a block to stage in shared memory: `extent`
/// rows (or columns) from `base` and `depth` deep from `k` of `source`;
/// `depthMajor` when the depth is the operand's outer index (K in K^T V,
/// V in P V). Where `rowLimit` is set (a row-major slice of A whose rows
/// are dynamic) the operand's rows from it on read as zeros.
struct Slice {
  Value source;
  bool depthMajor;
  Value base, k;
  int64_t extent, depth;
  Value rowLimit = Value();

  /// Elements along the operand's inner index.
  int64_t innerSize() const { return depthMajor ? extent : depth; }
};

/// Where a staged slice's element (outer, inner), as its operand stores it,
/// goes in the shared buffer (its indices there). Eight 16-bit elements in
/// a row of the operand, one cp.async line, must stay consecutive.
using SlicePlacement = std::function<SmallVector<Value>(Value, Value)>;

/// What every builder of tensor-core warps shares (the contractions' and
/// the flash-attention kernel's): index arithmetic, the m16n8k16 mma.sync
/// on 16-bit operands with f32 accumulators, the operand registers, and
/// ldmatrix.
class WarpOps {
protected:
  WarpOps(OpBuilder &b, Location loc, Type operandType)
      : b(b), loc(loc), operandType(operandType) {}

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, int64_t v) {
    return v ? arith::AddIOp::create(b, loc, x, cst(v)).getResult() : x;
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, cst(v));
  }
  Value div(Value x, int64_t v) {
    return arith::DivUIOp::create(b, loc, x, cst(v));
  }
  Value rem(Value x, int64_t v) {
    return arith::RemUIOp::create(b, loc, x, cst(v));
  }

  SmallVector<Value> mma(ValueRange aRegs, ValueRange bRegs, ValueRange acc) {
    Type f32 = b.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes type =
        operandType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, aRegs, bRegs, acc, {kTileM, kTileN, kTileK},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 4; ++i)
      parts.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return parts;
  }

  /// `value` in the tensor-core type: narrowed from f32, kept, or (another
  /// 16-bit type, a bf16/f16 operand read as stored) converted through f32.
  Value toOperandType(Value value) {
    if (value.getType() == operandType)
      return value;
    if (value.getType().getIntOrFloatBitWidth() < 32)
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    if (value.getType() == operandType)
      return value;
    return arith::TruncFOp::create(b, loc, operandType, value);
  }

  /// The register the mma.sync takes for two operand elements: the
  /// vector<2xf16> itself, or for bf16 the i32 the NVVM op wants.
  Value operandRegister(Value pair) {
    if (operandType.isF16())
      return pair;
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
  }

  /// `numTiles` 8 x 8 matrices of `shared` by one ldmatrix, the lane
  /// addressing the row at `indices`: one operand register per matrix.
  SmallVector<Value> ldmatrixAt(Value shared, ValueRange indices,
                                int64_t numTiles, bool transpose) {
    auto type = VectorType::get({numTiles, 2}, operandType);
    Value tiles = nvgpu::LdMatrixOp::create(b, loc, type, shared, indices,
                                            transpose, numTiles);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < numTiles; ++i)
      regs.push_back(operandRegister(
          vector::ExtractOp::create(b, loc, tiles, ArrayRef<int64_t>{i})));
    return regs;
  }

public:
  OpBuilder &b;
  Location loc;
  Type operandType;
};

/// What both ways of building a contraction's warps share: index
/// arithmetic, the output element indices of a tile's batch, the mask
/// cloned per accumulator element and the mma.sync step. Fragment
/// ownership follows the PTX ISA for m16n8k16 with f16/bf16 operands: lane
/// l is in group g = l / 4 at position q = l % 4; it holds A rows g and
/// g + 8, columns 2q, 2q + 1 (and + 8); B rows 2q, 2q + 1 (and + 8) of
/// column g; and accumulator rows g and g + 8, columns 2q and 2q + 1.
class FragmentBuilder : public WarpOps {
protected:
  FragmentBuilder(OpBuilder &b, Location loc, const Contraction &c,
                  Type operandType)
      : WarpOps(b, loc, operandType), c(c) {}

  /// Splits `index` into the batch indices (the last batch dim fastest),
  /// kept in `batch`; returns what is left above them.
  Value splitBatch(Value index) {
    batch.assign(c.batchShape.size(), Value());
    for (int64_t i = c.batchShape.size() - 1; i >= 0; --i) {
      Value size = getValueOrCreateConstantIndexOp(b, loc, batchSize(b, c, i));
      batch[i] = arith::RemUIOp::create(b, loc, index, size);
      index = arith::DivUIOp::create(b, loc, index, size);
    }
    return index;
  }

  /// The first output row and column of `block`'s `rows` x `cols` tile in
  /// a grid over the output, the column tiles fastest, then the row tiles,
  /// then the batch (whose indices are kept in `batch`).
  std::pair<Value, Value> blockTileOrigin(Value block, int64_t rows,
                                          int64_t cols) {
    int64_t colBlocks = c.cols / cols;
    Value colBase = mul(rem(block, colBlocks), cols);
    Value rowTile = div(block, colBlocks);
    if (c.batchShape.empty())
      return {mul(rowTile, rows), colBase};
    Value rowBlocks =
        getValueOrCreateConstantIndexOp(b, loc, rowTiles(b, loc, c, rows));
    splitBatch(arith::DivUIOp::create(b, loc, rowTile, rowBlocks));
    return {mul(arith::RemUIOp::create(b, loc, rowTile, rowBlocks), rows),
            colBase};
  }

  /// Whether output row `row` exists: true (null) where the rows are
  /// static, else `row < c.rowCount`.
  Value rowExists(Value row) {
    if (!c.dynamicRows())
      return {};
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                 c.rowCount);
  }

  /// Whether output column `col` exists: true (null) where the columns are
  /// whole tiles, else `col < c.cols`.
  Value colExists(Value col) {
    if (!c.raggedCols())
      return {};
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                 cst(c.cols));
  }

  /// Whether output element (i, j) exists (null: always).
  Value exists(Value i, Value j) {
    Value row = rowExists(i), col = colExists(j);
    if (row && col)
      return arith::AndIOp::create(b, loc, row, col);
    return row ? row : col;
  }

  /// A row or column index kept below `limit` (the last one where it is
  /// past it), for loads whose value orZero then replaces.
  Value clampBelow(Value index, Value limit) {
    return arith::MinUIOp::create(
        b, loc, index, arith::SubIOp::create(b, loc, limit, cst(1)));
  }

  /// `value` where `inside` holds, else zero (`value` itself where
  /// `inside` is null: always inside).
  Value orZero(Value inside, Value value) {
    if (!inside)
      return value;
    return arith::SelectOp::create(
        b, loc, inside, value,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType())));
  }

  SmallVector<Value> at(Value i, Value j) {
    SmallVector<Value> indices(batch);
    indices.push_back(i);
    indices.push_back(j);
    return indices;
  }

  /// The accumulator elements of the 16 x 8 tile whose group row is `row`
  /// and whose lane column is `col`: (row, col), (row, col+1), (row+8, col),
  /// (row+8, col+1).
  SmallVector<std::pair<Value, Value>> accumulatorPositions(Value row,
                                                            Value col) {
    return {{row, col}, {row, add(col, 1)}, {add(row, 8), col},
            {add(row, 8), add(col, 1)}};
  }

  /// `values` where `k`'s mask holds at each output position, `old` where
  /// it does not (all of `values` for an unmasked contraction).
  SmallVector<Value> masked(const Contraction &k, ValueRange values,
                            ValueRange old,
                            ArrayRef<std::pair<Value, Value>> positions) {
    if (!k.mask)
      return llvm::to_vector(values);
    SmallVector<Value> result;
    for (auto [value, previous, index] : llvm::zip(values, old, positions))
      result.push_back(arith::SelectOp::create(
          b, loc, maskAt(k, index.first, index.second), value, previous));
    return result;
  }

  /// The accumulators at `positions` before the first contraction: zeros
  /// where the output was just zero-filled (its fill gone), else the
  /// output's elements.
  SmallVector<Value>
  initialAccumulators(ArrayRef<std::pair<Value, Value>> positions,
                      bool zeroInit) {
    if (zeroInit)
      return SmallVector<Value>(
          positions.size(),
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    SmallVector<Value> acc;
    for (auto [i, j] : positions) {
      Value row = c.dynamicRows() ? clampBelow(i, c.rowCount) : i;
      Value col = c.raggedCols() ? clampBelow(j, cst(c.cols)) : j;
      acc.push_back(orZero(exists(i, j), memref::LoadOp::create(
                                             b, loc, c.out, at(row, col))));
    }
    return acc;
  }

  /// Stores accumulators to the output, narrowed to its element type (a
  /// bf16/f16 result written as stored); of dynamic rows or ragged
  /// columns, those that exist. With an epilogue, each element's value
  /// through it, into its output.
  void store(ValueRange values, ArrayRef<std::pair<Value, Value>> positions) {
    Type element = cast<MemRefType>(c.out.getType()).getElementType();
    for (auto [value, index] : llvm::zip(values, positions)) {
      Value stored = value;
      if (element != value.getType())
        stored = arith::TruncFOp::create(b, loc, element, value);
      OpBuilder::InsertionGuard guard(b);
      if (Value inside = exists(index.first, index.second)) {
        auto ifExists = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
        b.setInsertionPoint(ifExists.thenBlock()->getTerminator());
      }
      SmallVector<Value> indices = at(index.first, index.second);
      Value target = c.out;
      if (auto epilogue = dyn_cast_or_null<linalg::GenericOp>(c.epilogue)) {
        stored = throughEpilogue(epilogue, stored, indices);
        target = epilogue.getDpsInits()[0];
      }
      memref::StoreOp::create(b, loc, stored, target, indices);
    }
  }

  /// `epilogue`'s value at output element `indices` (its loops' indices),
  /// where the output holds `stored`: its body with every other operand
  /// loaded where it reads it.
  Value throughEpilogue(linalg::GenericOp epilogue, Value stored,
                        ValueRange indices) {
    return linea::cloneBodyAt(b, epilogue, indices, [&](OpOperand &operand) {
      Value value = operand.get();
      if (value == c.out)
        return stored;
      if (!isa<BaseMemRefType>(value.getType()))
        return value;
      return linea::loadByMap(
          b, loc, value, epilogue.getMatchingIndexingMap(&operand), indices);
    });
  }

  /// The 16 x 16 A fragment at (row, depth) of 16-bit rows in shared
  /// memory by one ldmatrix.x4: lane l addresses a row of matrix l / 8, the
  /// matrices in register order (rows +0/+8, then depth +0/+8).
  SmallVector<Value> ldmatrixA(Value shared, bool depthMajor, Value row,
                               Value depth, Value lane) {
    Value matrix = div(lane, 8), line = rem(lane, 8);
    Value rowOffset = mul(rem(matrix, 2), 8);
    Value depthOffset = mul(div(matrix, 2), 8);
    if (!depthMajor) {
      // Row-major [row][depth]: each lane's row is a fragment row.
      return ldmatrix(shared, add(row, add(rowOffset, line)),
                      add(depthOffset, depth), 4, /*transpose=*/false);
    }
    // Depth-major [depth][row]: each lane addresses a depth line; .trans.
    return ldmatrix(shared, add(add(depthOffset, line), depth),
                    add(row, rowOffset), 4, /*transpose=*/true);
  }

  /// The 16 x 8 B fragment at (depth, col) by one ldmatrix.x2 (lanes 0-15
  /// address; the others repeat them).
  SmallVector<Value> ldmatrixB(Value shared, bool depthMajor, Value col,
                               Value depth, Value lane) {
    Value half = rem(lane, 16);
    if (!depthMajor) {
      // Column-major [col][depth] (the keys of Q K^T): each lane's line is
      // a fragment column.
      return ldmatrix(shared, add(col, rem(half, 8)),
                      add(mul(div(half, 8), 8), depth), 2,
                      /*transpose=*/false);
    }
    // Depth-major [depth][col]: lanes address depth lines depth .. + 15.
    return ldmatrix(shared, add(half, depth), col, 2, /*transpose=*/true);
  }

  /// Whether `source`'s `depth`-deep slices can be staged as cp.async
  /// lines, at run time: null where not even statically (another element
  /// type, strides that are not whole lines).
  Value copyLines(Value source, int64_t depth) {
    auto type = cast<MemRefType>(source.getType());
    if (type.getElementType() != operandType ||
        !linea::inCopyLines(type, /*anyOffset=*/true) ||
        depth % linea::elementsPerCopyLine(operandType))
      return {};
    return linea::startsOnCopyLine(b, loc, source);
  }

  /// Copies `slice` into `staged` by a block's `threads` threads (this one
  /// `thread`), element (outer, inner) of the slice as its operand stores
  /// it to `place(outer, inner)`: by cp.async lines where `lines` holds
  /// (see copyLines), else element by element, converted on the way.
  void stage(const Slice &slice, Value staged, Value thread, int64_t threads,
             Value lines, const SlicePlacement &place) {
    if (!lines)
      return stageElements(slice, staged, thread, threads, place);
    auto branch = scf::IfOp::create(b, loc, lines, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    stageLines(slice, staged, thread, threads, place);
    b.setInsertionPointToStart(branch.elseBlock());
    stageElements(slice, staged, thread, threads, place);
  }

  const Contraction &c;
  SmallVector<Value> batch;

private:
  /// The operand's indices of the slice's element (outer, inner).
  SmallVector<Value> sourceIndices(const Slice &slice, Value outer,
                                   Value inner) {
    return slice.depthMajor ? at(add(slice.k, outer), add(slice.base, inner))
                            : at(add(slice.base, outer), add(slice.k, inner));
  }

  /// Where `slice` has a row limit: whether its row `outer` is inside it,
  /// and that row clamped inside (what a load may address). Else null and
  /// `outer` itself.
  std::pair<Value, Value> limitedRow(const Slice &slice, Value outer) {
    if (!slice.rowLimit)
      return {Value(), outer};
    assert(!slice.depthMajor && "a row limit on a slice of rows");
    Value row = add(slice.base, outer);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         row, slice.rowLimit);
    Value clamped = arith::SubIOp::create(
        b, loc, clampBelow(row, slice.rowLimit), slice.base);
    return {inside, clamped};
  }

  /// The slice's elements loaded, converted and stored one at a time
  /// (zeros for rows past its limit).
  void stageElements(const Slice &slice, Value staged, Value thread,
                     int64_t threads, const SlicePlacement &place) {
    int64_t inner = slice.innerSize();
    scf::ForOp::create(
        b, loc, thread, cst(slice.extent * slice.depth), cst(threads),
        ValueRange{}, [&](OpBuilder &, Location, Value element, ValueRange) {
          Value outer = div(element, inner), in = rem(element, inner);
          auto [inside, row] = limitedRow(slice, outer);
          Value value = orZero(
              inside, memref::LoadOp::create(b, loc, slice.source,
                                             sourceIndices(slice, row, in)));
          memref::StoreOp::create(b, loc, toOperandType(value), staged,
                                  place(outer, in));
          scf::YieldOp::create(b, loc);
        });
  }

  /// The slice's 16-byte lines by cp.async, a group per line (zeros for
  /// rows past its limit); each thread
  /// waits for all of its groups after its last (a barrier after the
  /// staging then publishes them to the block).
  void stageLines(const Slice &slice, Value staged, Value thread,
                  int64_t threads, const SlicePlacement &place) {
    int64_t perLine = linea::elementsPerCopyLine(operandType);
    int64_t inner = slice.innerSize() / perLine;
    int64_t count = slice.extent * slice.depth / perLine;
    scf::ForOp::create(
        b, loc, thread, cst(count), cst(threads), ValueRange{},
        [&](OpBuilder &, Location, Value line, ValueRange) {
          Value outer = div(line, inner), in = mul(rem(line, inner), perLine);
          // A line of a row past the limit reads nothing: all zeros.
          auto [inside, row] = limitedRow(slice, outer);
          Value elements =
              inside ? arith::SelectOp::create(b, loc, inside, cst(perLine),
                                               cst(0))
                           .getResult()
                     : Value();
          linea::copyLineAsync(b, loc, staged, place(outer, in), slice.source,
                               sourceIndices(slice, row, in), line, count,
                               threads, elements);
          scf::YieldOp::create(b, loc);
        });
  }

  /// `numTiles` 8 x 8 matrices of `shared` by one ldmatrix, the lane
  /// addressing (row, col) of the innermost two dims (a batched operand's
  /// batch indices are the tile's).
  SmallVector<Value> ldmatrix(Value shared, Value row, Value col,
                              int64_t numTiles, bool transpose) {
    SmallVector<Value> indices{row, col};
    if (cast<MemRefType>(shared.getType()).getRank() > 2)
      indices = at(row, col);
    return ldmatrixAt(shared, indices, numTiles, transpose);
  }

  /// `k`'s mask condition at output element (i, j): its computation cloned
  /// from the generic's body with each loop index replaced (the batch
  /// loops by this tile's batch indices).
  Value maskAt(const Contraction &k, Value i, Value j) {
    IRMapping mapping;
    return cloneCondition(k, k.mask, mapping, i, j);
  }

  Value cloneCondition(const Contraction &k, Value v, IRMapping &mapping,
                       Value i, Value j) {
    if (Value known = mapping.lookupOrNull(v))
      return known;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != Value(k.mask).getParentBlock())
      return v; // defined above the generic
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      int64_t loop = index.getDim();
      Value replacement = loop == k.rowLoop   ? i
                          : loop == k.colLoop ? j
                                              : batch[loop];
      mapping.map(v, replacement);
      return replacement;
    }
    for (Value operand : def->getOperands())
      cloneCondition(k, operand, mapping, i, j);
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }
};

} // namespace mlir::linea::mma

#endif // LINEA_LIB_GPU_FRAGMENTS_H
