//===- ContractionsToMMA.cpp - matmul contractions -> mma.sync warps ------===//
//
// Linea's forms spend their FLOPs in three contraction shapes (see
// Utils/AttentionBuilders): A M (matmulAccumulate), A^T M (the state update
// K^T V, transposedMatmulAccumulate) and A M^T (the scores Q K^T,
// maskedScores), the last one usually masked (the causal `t <= i`). Where
// the sizes are static and tile evenly, warps run them as m16n8k16
// tensor-core steps: each lane loads the fragment elements PTX assigns it
// (converting f32 to f16/bf16 on the way), the warp multiplies, and the f32
// accumulator goes back where it came from; a mask is applied to the
// finished accumulator elements (the old value where it does not hold).
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/MmaShape.h"
#include "linea/GPU/Passes.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

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

/// A contraction `out[b, i, e] += A[b, i, t] * M[b, t, e]`; `transposedA`
/// when the first operand is stored `[b, t, i]` (the state update K^T V),
/// `transposedM` when the second is stored `[b, e, t]` (the scores Q K^T).
/// A masked one adds only where its mask holds (`op`'s body selects the
/// product by a condition on the output's indices, e.g. the causal
/// `t <= i`): the warps multiply unmasked and keep the old accumulator
/// where the mask does not hold.
struct Contraction {
  Value a, m, out;
  bool transposedA = false, transposedM = false;
  SmallVector<int64_t> batchShape;
  int64_t rows, cols, depth; // M, N, K
  /// The generic's loops that index the output rows and columns.
  int64_t rowLoop, colLoop;
  /// The mask's condition in the generic's body, or null.
  Value mask;

  int64_t numTiles() const {
    int64_t tiles = (rows / kTileM) * (cols / kTileN);
    for (int64_t size : batchShape)
      tiles *= size;
    return tiles;
  }
};

bool isZero(Value v) {
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getValue().isZero();
}

/// Whether `cond` is computed in `body` from loop indices (none of them
/// `reductionLoop`), constants and values from above only: then it can be
/// evaluated per output element.
bool isIndexCondition(Value cond, Block &body, int64_t reductionLoop) {
  Operation *def = cond.getDefiningOp();
  if (!def || def->getBlock() != &body)
    return !isa<BlockArgument>(cond) ||
           cast<BlockArgument>(cond).getOwner() != &body;
  if (auto index = dyn_cast<linalg::IndexOp>(def))
    return int64_t(index.getDim()) != reductionLoop;
  if (def->getNumRegions() || !isPure(def) ||
      def->getDialect()->getNamespace() != "arith")
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isIndexCondition(operand, body, reductionLoop);
  });
}

/// The body `acc + a * m`, or `acc + select(mask, a * m, 0)`: returns
/// whether it is one of them, and sets `mask` for the second.
bool isMultiplyAccumulate(linalg::GenericOp op, Value &mask) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  mask = Value();
  if (auto select = product.getDefiningOp<arith::SelectOp>()) {
    if (!isZero(select.getFalseValue()))
      return false;
    mask = select.getCondition();
    product = select.getTrueValue();
  }
  auto mul = product.getDefiningOp<arith::MulFOp>();
  return mul && ((mul.getLhs() == body.getArgument(0) &&
                  mul.getRhs() == body.getArgument(1)) ||
                 (mul.getLhs() == body.getArgument(1) &&
                  mul.getRhs() == body.getArgument(0)));
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
  Value mask;
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !isMultiplyAccumulate(op, mask))
    return std::nullopt;
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
  int64_t reductionLoop;
  // (i, t, e): A(i, t) M(t, e) -> out(i, e).
  if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                     batchMap(ctx, numBatch, {1, 2}),
                                     batchMap(ctx, numBatch, {0, 2})}) {
    c.depth = shape(0)[numBatch + 1];
    c.rowLoop = numBatch, c.colLoop = numBatch + 2, reductionLoop = numBatch + 1;
  } else if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                            batchMap(ctx, numBatch, {0, 2}),
                                            batchMap(ctx, numBatch, {1, 2})}) {
    // (t, d, e): A(t, d) M(t, e) -> out(d, e).
    c.transposedA = true;
    c.depth = shape(0)[numBatch];
    c.rowLoop = numBatch + 1, c.colLoop = numBatch + 2, reductionLoop = numBatch;
  } else if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 2}),
                                            batchMap(ctx, numBatch, {1, 2}),
                                            batchMap(ctx, numBatch, {0, 1})}) {
    // (i, t, d): A(i, d) M(t, d) -> out(i, t).
    c.transposedM = true;
    c.depth = shape(0)[numBatch + 1];
    c.rowLoop = numBatch, c.colLoop = numBatch + 1, reductionLoop = numBatch + 2;
  } else {
    return std::nullopt;
  }
  if (mask) {
    if (!isIndexCondition(mask, op.getRegion().front(), reductionLoop))
      return std::nullopt;
    c.mask = mask;
  }
  if (c.rows % kTileM || c.cols % kTileN || c.depth % kTileK)
    return std::nullopt;
  return c;
}

/// Builds one warp's share of the output tiles. Fragment ownership follows
/// the PTX ISA for m16n8k16 with f16/bf16 operands: lane l is in group
/// g = l / 4 at position q = l % 4; it holds A rows g and g + 8, columns
/// 2q, 2q + 1 (and + 8); B rows 2q, 2q + 1 (and + 8) of column g; and
/// accumulator rows g and g + 8, columns 2q and 2q + 1.
class WarpTileBuilder {
public:
  WarpTileBuilder(OpBuilder &b, Location loc, const Contraction &c,
                  Type operandType)
      : b(b), loc(loc), c(c), operandType(operandType) {}

  void build(Value warp, Value numWarps, Value lane) {
    Value group = arith::DivUIOp::create(b, loc, lane, cst(4));
    Value quad = arith::RemUIOp::create(b, loc, lane, cst(4));
    scf::ForOp::create(
        b, loc, warp, cst(c.numTiles()), numWarps, ValueRange{},
        // (The body builder is handed `b` itself, placed in the body.)
        [&](OpBuilder &, Location, Value tile, ValueRange) {
          buildTile(tile, group, quad);
          scf::YieldOp::create(b, loc);
        });
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, int64_t v) {
    return v ? arith::AddIOp::create(b, loc, x, cst(v)).getResult() : x;
  }

  void buildTile(Value tile, Value group, Value quad) {
    // tile -> (batch..., row tile, column tile), the column tile fastest.
    int64_t colTiles = c.cols / kTileN, rowTiles = c.rows / kTileM;
    Value colTile = arith::RemUIOp::create(b, loc, tile, cst(colTiles));
    Value rest = arith::DivUIOp::create(b, loc, tile, cst(colTiles));
    Value rowTile = arith::RemUIOp::create(b, loc, rest, cst(rowTiles));
    rest = arith::DivUIOp::create(b, loc, rest, cst(rowTiles));
    batch.assign(c.batchShape.size(), Value());
    for (int64_t i = c.batchShape.size() - 1; i >= 0; --i) {
      batch[i] = arith::RemUIOp::create(b, loc, rest, cst(c.batchShape[i]));
      rest = arith::DivUIOp::create(b, loc, rest, cst(c.batchShape[i]));
    }
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, rowTile, cst(kTileM)), group);
    Value pair = arith::MulIOp::create(b, loc, quad, cst(2));
    Value colBase = arith::MulIOp::create(b, loc, colTile, cst(kTileN));
    Value col = arith::AddIOp::create(b, loc, colBase, pair);
    Value bCol = arith::AddIOp::create(b, loc, colBase, group);

    // The accumulator elements (row, col), (row, col+1), (row+8, col),
    // (row+8, col+1).
    SmallVector<std::pair<Value, Value>> accAt = {
        {row, col}, {row, add(col, 1)}, {add(row, 8), col},
        {add(row, 8), add(col, 1)}};
    SmallVector<Value> acc;
    for (auto [i, j] : accAt)
      acc.push_back(memref::LoadOp::create(b, loc, c.out, at(i, j)));

    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(c.depth), cst(kTileK), acc,
        [&](OpBuilder &, Location, Value k, ValueRange carried) {
          Value kk = arith::AddIOp::create(b, loc, k, pair);
          SmallVector<Value> next =
              mma(aFragment(row, kk), bFragment(kk, bCol), carried);
          scf::YieldOp::create(b, loc, next);
        });
    for (auto [value, old, index] : llvm::zip(loop.getResults(), acc, accAt)) {
      Value result = value;
      if (c.mask)
        result = arith::SelectOp::create(
            b, loc, maskAt(index.first, index.second), value, old);
      memref::StoreOp::create(b, loc, result, c.out,
                              at(index.first, index.second));
    }
  }

  /// The mask's condition at output element (i, j): its computation cloned
  /// from the generic's body with each loop index replaced (the batch
  /// loops by this tile's batch indices).
  Value maskAt(Value i, Value j) {
    IRMapping mapping;
    return cloneCondition(c.mask, mapping, i, j);
  }

  Block *maskBlock() const { return Value(c.mask).getParentBlock(); }

  Value cloneCondition(Value v, IRMapping &mapping, Value i, Value j) {
    if (Value known = mapping.lookupOrNull(v))
      return known;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != maskBlock())
      return v; // defined above the generic
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      int64_t loop = index.getDim();
      Value replacement = loop == c.rowLoop   ? i
                          : loop == c.colLoop ? j
                                              : batch[loop];
      mapping.map(v, replacement);
      return replacement;
    }
    for (Value operand : def->getOperands())
      cloneCondition(operand, mapping, i, j);
    Operation *clone = b.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(v).getResultNumber());
  }

  SmallVector<Value> at(Value i, Value j) {
    SmallVector<Value> indices(batch);
    indices.push_back(i);
    indices.push_back(j);
    return indices;
  }

  /// Two consecutive elements as one operand register: vector<2xf16>, or
  /// for bf16 the i32 the NVVM op takes.
  Value pack(Value first, Value second) {
    auto narrow = [&](Value x) {
      return arith::TruncFOp::create(b, loc, operandType, x);
    };
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, operandType),
        ValueRange{narrow(first), narrow(second)});
    if (operandType.isF16())
      return pair;
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair);
  }

  Value loadA(Value i, Value t) {
    return memref::LoadOp::create(b, loc, c.a,
                                  c.transposedA ? at(t, i) : at(i, t));
  }

  Value loadM(Value t, Value e) {
    return memref::LoadOp::create(b, loc, c.m,
                                  c.transposedM ? at(e, t) : at(t, e));
  }

  /// A rows `row`, `row + 8`, columns `kk`, `kk + 1`, `kk + 8`, `kk + 9`.
  SmallVector<Value> aFragment(Value row, Value kk) {
    SmallVector<Value> regs;
    for (int64_t colOffset : {0, 8})
      for (int64_t rowOffset : {0, 8}) {
        Value i = add(row, rowOffset), t = add(kk, colOffset);
        regs.push_back(pack(loadA(i, t), loadA(i, add(t, 1))));
      }
    return regs;
  }

  /// B rows `kk`, `kk + 1` and `kk + 8`, `kk + 9` of column `col`.
  SmallVector<Value> bFragment(Value kk, Value col) {
    SmallVector<Value> regs;
    for (int64_t rowOffset : {0, 8}) {
      Value t = add(kk, rowOffset);
      regs.push_back(pack(loadM(t, col), loadM(add(t, 1), col)));
    }
    return regs;
  }

  SmallVector<Value> mma(ValueRange aRegs, ValueRange bRegs, ValueRange acc) {
    Type f32 = b.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes type =
        operandType.isF16() ? NVVM::MMATypes::f16 : NVVM::MMATypes::bf16;
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, aRegs, bRegs, acc, {kTileM, kTileN, kTileK},
        std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 4; ++i)
      parts.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return parts;
  }

  OpBuilder &b;
  Location loc;
  const Contraction &c;
  Type operandType;
  SmallVector<Value> batch;
};

/// An `scf.parallel` over [0, sizes...) mapped to `processors`, the builder
/// placed in its body; returns its indices. (Blocks and threads are one
/// loop: nested loops with constant bounds would be merged by the
/// canonicalizer, which drops their mapping.)
SmallVector<Value> parallelLoop(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<gpu::Processor> processors) {
  SmallVector<Value> zeros, bounds, ones;
  for (int64_t size : sizes) {
    zeros.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    bounds.push_back(arith::ConstantIndexOp::create(b, loc, size));
    ones.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  auto loop = scf::ParallelOp::create(b, loc, zeros, bounds, ones);
  linea::mapLoopTo(loop, processors);
  b.setInsertionPointToStart(loop.getBody());
  return llvm::to_vector(loop.getInductionVars());
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
    if (!operandType || blockSize <= 0 || blockSize % kWarp) {
      getOperation()->emitError()
          << "linea-contractions-to-mma needs precision f16 or bf16 and a "
             "block-size that is a positive multiple of 32, got precision '"
          << linea::stringifyPrecision(precision) << "' and block-size "
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, Contraction>> matches;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<Contraction> c = matchContraction(op))
        matches.push_back({op, *c});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, c] : matches) {
      rewriter.setInsertionPoint(op);
      buildWarps(rewriter, op.getLoc(), c, operandType,
                 /*oneBlock=*/linea::isInSequenceBlock(op));
      rewriter.eraseOp(op);
    }
  }

  /// The warps of one block (inside a sequence block, which runs it) or of
  /// as many blocks as the tiles need.
  void buildWarps(OpBuilder &b, Location loc, const Contraction &c,
                  Type operandType, bool oneBlock) {
    OpBuilder::InsertionGuard guard(b);
    int64_t warpsPerBlock = blockSize / kWarp;
    int64_t numBlocks =
        oneBlock ? 1 : llvm::divideCeil(c.numTiles(), warpsPerBlock);
    Value block, thread;
    if (oneBlock) {
      thread = parallelLoop(b, loc, {static_cast<int64_t>(blockSize)},
                            {gpu::Processor::ThreadX})[0];
    } else {
      SmallVector<Value> ids =
          parallelLoop(b, loc, {numBlocks, static_cast<int64_t>(blockSize)},
                       {gpu::Processor::BlockX, gpu::Processor::ThreadX});
      block = ids[0];
      thread = ids[1];
    }
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value warp = arith::DivUIOp::create(b, loc, thread, cst(kWarp));
    if (block)
      warp = arith::AddIOp::create(
          b, loc, warp,
          arith::MulIOp::create(b, loc, block, cst(warpsPerBlock)));
    Value lane = arith::RemUIOp::create(b, loc, thread, cst(kWarp));
    WarpTileBuilder(b, loc, c, operandType)
        .build(warp, cst(numBlocks * warpsPerBlock), lane);
  }
};

} // namespace
