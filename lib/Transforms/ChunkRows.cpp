//===- ChunkRows.cpp - a chunk's output rows, for both chunked forms ------===//

#include "linea/Transforms/ChunkRows.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

Value causalVisible(OpBuilder &b, Location loc, Value row, Value col) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, col, row);
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

/// The decayed causal scores `q_i . k_t exp(b_i - b_t)`. Where every |b| is
/// at most kFactorableLogDecay, the decay folds into the operands (fla's
/// form): one masked contraction of decayed queries and keys, which the CPU
/// register-tiles (C x Dk exponentials, not C x C x Dk). Steeper gates (down
/// to -20 a step) take the exact form, whose exponents are each a difference
/// within the chunk, `<= 0` where visible.
Value gatedScores(OpBuilder &b, Location l, int64_t numBatch, bool scalar,
                  const Chunk &c, Value cum, bool mayFactor) {
  auto exact = [&](OpBuilder &nb, Location nl) {
    return decayedScores(nb, nl, numBatch, c.q, c.k, cum, cum, scalar,
                         causalVisible);
  };
  if (!mayFactor)
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
                                  bool scalar, bool mayFactor, const Chunk &c,
                                  Value cum, Value s) {
  Value scores = gatedScores(b, l, numBatch, scalar, c, cum, mayFactor);
  Value rows = matmulAccumulate(b, l, numBatch, scores, c.v,
                                zerosFor(b, l, numBatch, c.q, c.v));
  return decayedQueryTimesState(b, l, numBatch, c.q, cum, s, scalar, rows);
}

bool mlir::linea::plannedForGPU(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto target = p->getAttrOfType<StringAttr>(LineaDialect::kTargetAttrName))
      return target.getValue() == "gpu";
  return false;
}
