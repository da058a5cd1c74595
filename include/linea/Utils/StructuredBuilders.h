//===- StructuredBuilders.h - small builders for linalg IR -----*- C++ -*-===//
//
// Linea's lowerings express every contraction as a linalg.generic over an
// iteration space of `numBatch` leading parallel dims followed by a few named
// dims. LoopSpace builds the indexing maps and iterator types for that shape
// so each pattern states only the math.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_STRUCTUREDBUILDERS_H
#define LINEA_UTILS_STRUCTUREDBUILDERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::linea {

/// The iterator kinds, short, for the iterator lists of linalg.generic.
constexpr utils::IteratorType kPar = utils::IteratorType::parallel;
constexpr utils::IteratorType kRed = utils::IteratorType::reduction;

/// An iteration space `(b_0, ..., b_{n-1}, extra_0, extra_1, ...)`.
class LoopSpace {
public:
  LoopSpace(MLIRContext *ctx, unsigned numBatch,
            ArrayRef<utils::IteratorType> extra);

  /// The k-th named (non-batch) dim.
  AffineExpr operator[](unsigned k) const;
  /// The batch dims followed by `trailing`.
  AffineMap map(ArrayRef<AffineExpr> trailing) const;
  /// Only `exprs`, no batch dims (for weights shared across the batch).
  AffineMap mapWithoutBatch(ArrayRef<AffineExpr> exprs) const;
  SmallVector<utils::IteratorType> iterators() const;
  unsigned numBatch() const { return batch; }
  /// Position of the k-th named dim among all loops (for linalg.index).
  unsigned position(unsigned k) const { return batch + k; }

private:
  MLIRContext *ctx;
  unsigned batch;
  SmallVector<utils::IteratorType> extraIterators;
};

using GenericBody =
    function_ref<Value(OpBuilder &, Location, ValueRange /*blockArgs*/)>;

/// A linalg.generic with one result; `body` returns the value yielded.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs, Value init,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators, GenericBody body);

/// tensor.empty sized as `like`, of `elementType` (default: `like`'s).
Value buildEmptyLike(OpBuilder &b, Location loc, Value like,
                     Type elementType = {});

/// tensor.empty of `sizes` filled with `value`.
Value buildFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, double value);

/// An elementwise map of one tensor into a fresh tensor of `elementType`.
Value buildElementwise(OpBuilder &b, Location loc, Value input,
                       Type elementType,
                       function_ref<Value(OpBuilder &, Location, Value)> fn);

/// Converts a float tensor to f32 (no-op when it already is).
Value castToF32(OpBuilder &b, Location loc, Value tensor);
/// Converts an f32 tensor to `elementType` (no-op when equal).
Value castFromF32(OpBuilder &b, Location loc, Value tensor, Type elementType);

/// The mixed sizes of `tensor` at `dims`, in order.
SmallVector<OpFoldResult> sizesAt(OpBuilder &b, Location loc, Value tensor,
                                  ArrayRef<int64_t> dims);
/// `x[ivs..., ...]`: the leading dims at `ivs`, each kept with size 1.
Value leadingSlice(OpBuilder &b, Location loc, Value x, ValueRange ivs);

/// The same slice copied into a tensor of its own: inside a sequence block
/// (static sizes past the leading dims), a temporary in shared memory.
Value leadingSliceCopy(OpBuilder &b, Location loc, Value x, ValueRange ivs);

/// `x[offsets...]` of `sizes`, unit strides, the dims in `dropped` (of size
/// 1) dropped.
Value sliceDropping(OpBuilder &b, Location loc, Value x,
                    ArrayRef<OpFoldResult> offsets,
                    ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> dropped);

/// The same slice copied into a tensor of its own (inside a sequence
/// block: a temporary in shared memory).
Value sliceDroppingCopy(OpBuilder &b, Location loc, Value x,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        ArrayRef<int64_t> dropped);

/// The leading `n` sizes of `tensor`.
SmallVector<OpFoldResult> leadingSizes(OpBuilder &b, Location loc,
                                       Value tensor, int64_t n);

} // namespace mlir::linea

#endif // LINEA_UTILS_STRUCTUREDBUILDERS_H
