//===- ContractionsToWMMA.cpp - batched matmuls -> tensor-core kernels ----===//
//
// Linea's forms spend their FLOPs in two contraction shapes (see
// Utils/AttentionBuilders: matmulAccumulate and transposedMatmulAccumulate).
// Where the sizes are static multiples of 16, each becomes a kernel with one
// warp per 16 x 16 output tile doing WMMA m16n16k16 steps: f16 operands,
// f32 accumulation.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACONTRACTIONSTOWMMA
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

constexpr int64_t kTile = 16;

/// A contraction `out[b, i, e] += A[b, i, t] * M[b, t, e]`; `transposedA`
/// when the first operand is stored `[b, t, i]` (the state update K^T V).
struct Contraction {
  Value a, m, out;
  bool transposedA;
  int64_t numBatch, rows, cols, depth; // M, N, K
};

bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc)
    return false;
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

/// The stride between rows of a memref whose last dim is contiguous.
std::optional<int64_t> rowStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(strides[strides.size() - 2]))
    return std::nullopt;
  return strides[strides.size() - 2];
}

std::optional<Contraction> matchContraction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<Value> operands{op.getDpsInputs()[0], op.getDpsInputs()[1],
                              op.getDpsInits()[0]};
  // Operands may be strided views (a chunk of a sequence): the f16 copies
  // of the inputs are dense, and the accumulator is addressed through its
  // row stride.
  for (Value v : operands) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
        !rowStride(type))
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
  Contraction c{operands[0], operands[1], operands[2], false, numBatch, 0, 0, 0};
  // (i, t, e): A(i, t) M(t, e) -> out(i, e).
  if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                     batchMap(ctx, numBatch, {1, 2}),
                                     batchMap(ctx, numBatch, {0, 2})}) {
    c.rows = shape(0)[numBatch];
    c.depth = shape(0)[numBatch + 1];
  } else if (maps == SmallVector<AffineMap>{batchMap(ctx, numBatch, {0, 1}),
                                            batchMap(ctx, numBatch, {0, 2}),
                                            batchMap(ctx, numBatch, {1, 2})}) {
    // (t, d, e): A(t, d) M(t, e) -> out(d, e).
    c.transposedA = true;
    c.depth = shape(0)[numBatch];
    c.rows = shape(0)[numBatch + 1];
  } else {
    return std::nullopt;
  }
  c.cols = shape(1)[numBatch + 1];
  if (c.rows % kTile || c.cols % kTile || c.depth % kTile)
    return std::nullopt;
  return c;
}

/// An f16 copy of `source`, the last two dims swapped when `transpose`.
Value halfCopy(OpBuilder &b, Location loc, Value source, int64_t numBatch,
               bool transpose) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t rank = type.getRank();
  if (transpose)
    std::swap(shape[rank - 2], shape[rank - 1]);
  auto halfType = MemRefType::get(shape, b.getF16Type());
  Value half = memref::AllocOp::create(b, loc, halfType);
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap out = identity;
  if (transpose) {
    SmallVector<AffineExpr> exprs(identity.getResults());
    std::swap(exprs[rank - 2], exprs[rank - 1]);
    out = AffineMap::get(rank, 0, exprs, ctx);
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, ValueRange{source}, ValueRange{half},
      ArrayRef<AffineMap>{identity, out}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value narrow = arith::TruncFOp::create(nb, l, nb.getF16Type(), args[0]);
        linalg::YieldOp::create(nb, l, narrow);
      });
  return half;
}

void buildWMMAKernel(OpBuilder &b, Location loc, const Contraction &c,
                     Value aHalf, Value mHalf) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto outType = cast<MemRefType>(c.out.getType());
  int64_t batch = 1;
  for (int64_t i = 0; i < c.numBatch; ++i)
    batch *= outType.getDimSize(i);
  auto launch = gpu::LaunchOp::create(b, loc, cst(c.cols / kTile),
                                      cst(c.rows / kTile), cst(batch), cst(32),
                                      cst(1), cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::KernelDim3 block = launch.getBlockIds();

  // Batch indices from the flat z block index, last batch dim fastest.
  SmallVector<Value> batchIndices(c.numBatch);
  Value flat = block.z;
  for (int64_t i = c.numBatch - 1; i >= 0; --i) {
    Value size = cst(outType.getDimSize(i));
    batchIndices[i] = arith::RemUIOp::create(b, loc, flat, size);
    flat = arith::DivUIOp::create(b, loc, flat, size);
  }
  Value tile = cst(kTile);
  Value row = arith::MulIOp::create(b, loc, block.y, tile);
  Value col = arith::MulIOp::create(b, loc, block.x, tile);
  auto at = [&](Value i, Value j) {
    SmallVector<Value> indices(batchIndices);
    indices.push_back(i);
    indices.push_back(j);
    return indices;
  };
  auto lead = [&](int64_t n) { return b.getIndexAttr(n); };
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  auto aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
  auto bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
  auto cType = gpu::MMAMatrixType::get({kTile, kTile}, f32, "COp");

  int64_t outLead = *rowStride(outType);
  Value acc = gpu::SubgroupMmaLoadMatrixOp::create(
      b, loc, cType, c.out, at(row, col), lead(outLead), UnitAttr());
  auto loop = scf::ForOp::create(
      b, loc, cst(0), cst(c.depth), tile, ValueRange{acc},
      [&](OpBuilder &nb, Location l, Value k, ValueRange carried) {
        Value aTile = gpu::SubgroupMmaLoadMatrixOp::create(
            nb, l, aType, aHalf, at(row, k), lead(c.depth), UnitAttr());
        Value bTile = gpu::SubgroupMmaLoadMatrixOp::create(
            nb, l, bType, mHalf, at(k, col), lead(c.cols), UnitAttr());
        Value next = gpu::SubgroupMmaComputeOp::create(
            nb, l, cType, aTile, bTile, carried[0], UnitAttr(), UnitAttr());
        scf::YieldOp::create(nb, l, next);
      });
  gpu::SubgroupMmaStoreMatrixOp::create(b, loc, loop.getResult(0), c.out,
                                        at(row, col), lead(outLead), UnitAttr());
  gpu::TerminatorOp::create(b, loc);
}

struct LineaContractionsToWMMAPass
    : linea::impl::LineaContractionsToWMMABase<LineaContractionsToWMMAPass> {
  void runOnOperation() override {
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
      Location loc = op.getLoc();
      Value aHalf = halfCopy(rewriter, loc, c.a, c.numBatch, c.transposedA);
      Value mHalf = halfCopy(rewriter, loc, c.m, c.numBatch, false);
      buildWMMAKernel(rewriter, loc, c, aHalf, mHalf);
      memref::DeallocOp::create(rewriter, loc, aHalf);
      memref::DeallocOp::create(rewriter, loc, mHalf);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
