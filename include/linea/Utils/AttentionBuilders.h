//===- AttentionBuilders.h - pieces shared by Linea's attention forms -*- C++ -*-===//
//
// The reference lowering, the one-shot form and the chunked form are built
// from the same few contractions over `[B..., rows, cols]` tensors; they live
// here once. Every builder works in f32.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_ATTENTIONBUILDERS_H
#define LINEA_UTILS_ATTENTIONBUILDERS_H

#include "linea/Dialect/LineaOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::linea {

Value f32Constant(OpBuilder &b, Location loc, float value);

/// A dynamic prefix length clamped to `[0, length]`: SPEC promises it is in
/// range, and clamping keeps a broken promise from reading out of bounds.
Value clampPrefixLength(OpBuilder &b, Location loc, Value prefix, Value length);

/// reassoc + contract: contractions may be reordered and fused (FMA), which
/// lets LLVM vectorize their reductions. Within SPEC's tolerance.
arith::FastMathFlagsAttr contractionFastMath(OpBuilder &b);

/// phi(x) elementwise: identity, relu, or elu(x) + 1.
Value applyFeatureMap(OpBuilder &b, Location loc, Value x, FeatureMap map);

/// Whether `map` takes a zero row to zeros (identity, relu; elu + 1 gives
/// ones): zero-padded keys then still add nothing to a state.
bool featureMapKeepsZero(FeatureMap map);

/// The body of a contraction's generic, `args[2] + args[0] * args[1]`, with
/// contractionFastMath.
Value multiplyAccumulate(OpBuilder &b, Location loc, ValueRange args);

/// `out[B..., i, e] = init[B..., i, e] + sum_t a[B..., i, t] * m[B..., t, e]`.
Value matmulAccumulate(OpBuilder &b, Location loc, int64_t numBatch, Value a,
                       Value m, Value init);

/// Rows that all read one state: `O = q S` into a fresh `[B..., rows, Dv]`
/// (the one-shot form's output, a rank's prefix rows).
Value queryTimesState(OpBuilder &b, Location loc, int64_t numBatch, Value q,
                      Value state);

/// `out[B..., d, e] = init[B..., d, e] + sum_t a[B..., t, d] * m[B..., t, e]`,
/// the state update `S += K^T V`.
Value transposedMatmulAccumulate(OpBuilder &b, Location loc, int64_t numBatch,
                                 Value a, Value m, Value init);

/// `out[B..., i, t] = init[B..., i, t] + sum_d a[B..., i, d] * m[B..., t, d]`,
/// unmasked scores `Q K^T`.
Value scoresAccumulate(OpBuilder &b, Location loc, int64_t numBatch, Value a,
                       Value m, Value init);

/// `out[B..., i] = sum_t a[B..., i, t]`.
Value rowSums(OpBuilder &b, Location loc, int64_t numBatch, Value a);

/// A zero f32 tensor `[B..., rows, cols]` with the batch sizes of `like`.
Value zerosWithBatchOf(OpBuilder &b, Location loc, Value like, int64_t numBatch,
                       ArrayRef<OpFoldResult> trailing);

/// `x[..., offset : offset + size, ...]` along `dim`.
Value sliceAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                 OpFoldResult offset, OpFoldResult size);

/// Step `index` of `x` along `dim`, that dim dropped.
Value stepAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                OpFoldResult index);

/// A float `x` with one zero step appended along `dim` (L + 1 steps): step
/// L, one past the end, reads zeros. For a recurrence that reads a gate's
/// step j with 0 <= j <= L (a prefix of L, an empty sequence's first).
Value appendZeroStep(OpBuilder &b, Location loc, Value x, int64_t dim);

/// `x` padded with zeros along `dim` to `size` rows (a static size: what a
/// GPU sequence block's temporaries need).
Value padAlong(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t size);

/// Inserts `source` into `dest` at `offset` along `dim`, `size` rows when
/// given (a size known before `source` is computed, which empty-tensor
/// elimination needs to build `source` in `dest`), else `source`'s own.
Value insertAlong(OpBuilder &b, Location loc, Value source, Value dest,
                  int64_t dim, OpFoldResult offset, OpFoldResult size = {});

/// `x` reversed along `seq`: row i of the result is row L - 1 - i.
Value reverseAlong(OpBuilder &b, Location loc, Value x, int64_t seq);

/// `x` moved one step along `dim`, zeros where nothing moves in: toward the
/// end (`out_i = x_(i-1)`, `out_0 = 0`) or toward the start (`out_i =
/// x_(i+1)`, the last 0). Same type as `x`.
Value shiftAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                 bool towardEnd);

/// The sizes of `x` with one more last-dim column (`[..., c + 1]`).
SmallVector<OpFoldResult> sizesWithExtraColumn(OpBuilder &b, Location loc,
                                               Value x);

/// `[..., c]` widened to `[..., c + 1]`, the new last column `value`.
Value appendConstantColumn(OpBuilder &b, Location loc, Value x, double value);

/// `[x, 1]` along the last dim: with it, one contraction yields both the
/// numerator and the normalizer `phi(q) . z` of `normalize`.
Value appendOnesColumn(OpBuilder &b, Location loc, Value x);

/// `scale * x[..., :n] / (x[..., n] + 1e-6)` for an `x` built with
/// appendOnesColumn, truncated to `elementType`.
Value divideByLastColumn(OpBuilder &b, Location loc, Value x, float scale,
                         Type elementType);

/// `scale * x`, truncated to `elementType`.
Value scaleAndCast(OpBuilder &b, Location loc, Value x, float scale,
                   Type elementType);

} // namespace mlir::linea


namespace mlir::linea {

/// Whether key `key` is visible from a query whose last visible key is
/// `lastKey`: `key <= lastKey` (signed indices). Every causal mask is this
/// predicate, `lastKey` being the query's row (causal), the row shifted by an
/// offset (queries aligned with the end of longer keys, a tile's start) or
/// `max(row, j - 1)` under a prefix of `j` rows (`t < j or t <= i`).
Value causallyVisible(OpBuilder &b, Location loc, Value key, Value lastKey);

/// Inside a linalg.generic body: is key column `col` visible from query `row`?
using VisibleFn =
    function_ref<Value(OpBuilder &, Location, Value row, Value col)>;

/// `a[B..., i, t] = [visible(i, t)] * sum_d q[i, d] * k[t, d]`.
Value maskedScores(OpBuilder &b, Location loc, int64_t numBatch, Value q,
                   Value k, VisibleFn visible);

/// `a[B..., i, t] = [visible] * sum_d q[i, d] k[t, d] exp(rowLog[i, d] -
/// colLog[t, d])` (no `d` in the logs for a scalar gate). The exponent is
/// only taken where visible, where the caller guarantees it is `<= 0`.
Value decayedScores(OpBuilder &b, Location loc, int64_t numBatch, Value q,
                    Value k, Value rowLog, Value colLog, bool scalarGate,
                    VisibleFn visible);

/// `keep ? x * exp(exponent) : 0`, the exponent taken only where kept
/// (elsewhere it may be positive and overflow).
Value decayedWhere(OpBuilder &b, Location loc, Value keep, Value x,
                   Value exponent);

/// decayedScores for a scalar gate as two ops: the plain scores `q k^T`,
/// then each scaled by `[visible] exp(rowLog[i] - colLog[t])`. The decay
/// does not depend on `d`, so it leaves the contraction: C x C exponentials
/// instead of C x C x Dk, and a plain contraction with an elementwise
/// epilogue, which any compiler tiles as a matmul.
Value scalarDecayedScores(OpBuilder &b, Location loc, int64_t numBatch,
                          Value q, Value k, Value rowLog, Value colLog,
                          VisibleFn visible);

/// `init[i, e] + sum_d q[i, d] exp(rowLog[i, d]) s[d, e]`.
Value decayedQueryTimesState(OpBuilder &b, Location loc, int64_t numBatch,
                             Value q, Value rowLog, Value state,
                             bool scalarGate, Value init);

/// `x[B..., t, d] * exp(log[B..., t, d])` (or `log[B..., t]`).
Value decayRows(OpBuilder &b, Location loc, int64_t numBatch, Value x,
                Value log, bool scalarGate);

/// `s[B..., d, e] * exp(log[B..., d])` (or `log[B...]`), written into `s`.
Value decayState(OpBuilder &b, Location loc, int64_t numBatch, Value s,
                 Value log, bool scalarGate);

/// The gated state after rows `k`, `v` with log-decays `g`, from `state`:
/// `diag(exp(sum_t g_t)) state + sum_t diag(exp(sum_{s > t} g_s)) k_t^T v_t`,
/// written into `state`. Every exponent is a sum over its own interval, so
/// `<= 0`. With `stateIsZero` the decay of `state` is skipped.
Value gatedStateUpdate(OpBuilder &b, Location loc, int64_t numBatch, Value k,
                       Value v, Value g, Value state, bool scalarGate,
                       bool stateIsZero);

/// `sum_t g[B..., t, (d)]`: `[B..., Dk]`, or `[B...]` for a scalar gate.
Value sumOverSequence(OpBuilder &b, Location loc, int64_t numBatch, Value g,
                      bool scalarGate);

/// `linea.presum` of a gate along the sequence dim `seq`: inclusive
/// (b = presum(g)), or with `suffix` exclusive and reversed
/// (sum_{s > t} g_s = b_last - b_t, every value <= 0).
Value gatePresum(OpBuilder &b, Location loc, Value g, int64_t seq, bool suffix);

/// A sequential scan of `x` (f32) along `dim`: presum's definition. `seed`
/// (shaped like one slice of `x`, size 1 along `dim`) starts the running
/// sum; null means zero. With `decay` (f32, the leading dims of `x`) the
/// running sum is multiplied by `exp(decay)` at each step before the step's
/// slice is added.
Value buildSequentialScan(OpBuilder &b, Location loc, Value x, int64_t dim,
                          bool exclusive, bool reverse, Value seed,
                          Value decay = Value());

} // namespace mlir::linea

#endif // LINEA_UTILS_ATTENTIONBUILDERS_H
