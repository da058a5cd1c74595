//===- StoredTypes.h - contractions on bf16/f16 buffers --------*- C++ -*-===//
//
// A bf16/f16 program computes in f32: its operands reach f32 through
// widening copies (an elementwise `extf` into a fresh buffer) and its
// results leave through narrowing ones (`truncf` out of one). A staged
// tensor-core grid can read the 16-bit operands and write the 16-bit
// result itself; these find the 16-bit buffers, viewed as the f32 ones
// are, and erase copies nothing needs any more.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_STOREDTYPES_H
#define LINEA_LIB_GPU_STOREDTYPES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {

/// The 16-bit buffer an f32 operand was widened from, viewed as the
/// operand is: where `operand` is a view of an allocation that one
/// elementwise `extf` generic (`widening`, returned) fills, and neither
/// that allocation nor the 16-bit buffer is otherwise written (but for the
/// 16-bit buffer's producers, earlier in the copy's block), the views
/// are rebuilt on the 16-bit buffer at `b`'s insertion point. Null where
/// not.
Value readAsStored(OpBuilder &b, Value operand, linalg::GenericOp &widening);

/// The 16-bit float type `operand`'s buffer was widened from: where it is
/// a view of an allocation that an elementwise `extf` copy of a 16-bit
/// buffer fills (a 16-bit program's operand as it computes in f32); null
/// where not.
Type widenedFrom(Value operand);

/// The 16-bit buffer an f32 result is narrowed into, viewed as `result`
/// is: where `result` is an allocation (or a reshape of one) that only
/// `writers` write and only one elementwise `truncf` generic (`narrowing`,
/// returned) reads, and nothing between the last writer and `narrowing`
/// touches memory, returns the narrowed buffer reshaped to `result`'s
/// shape, built at `b`'s insertion point (its allocation moved there if it
/// came later). Null where not.
Value writeAsStored(OpBuilder &b, Value result, ArrayRef<Operation *> writers,
                    linalg::GenericOp &narrowing);

/// Erases a widening or narrowing copy with its f32 buffer where nothing
/// but the copy uses that buffer any more.
void eraseUnusedCopy(RewriterBase &rewriter, linalg::GenericOp copy);

/// Elements of padding after each row of a 16-bit buffer in shared memory:
/// 16 bytes, so that the eight row addresses of an ldmatrix fall in
/// different banks.
constexpr int64_t kRowPad = 8;

/// A sequence block's copy of a widened 16-bit buffer into a temporary of
/// its own (the chunk rows it reads many times) copies the 16-bit values
/// into a 16-bit temporary, rows padded by kRowPad, and widens that into
/// the f32 one: readers that read as stored then take the 16-bit
/// temporary, and the f32 one goes once none reads it. The same values in
/// half the shared memory. Done for every such copy under `root`.
void copyIntoStoredTemporaries(RewriterBase &rewriter, Operation *root);

/// An f32 temporary of a sequence block whose every reader `narrowedRead`
/// accepts (tensor-core contractions, which narrow each element anyway)
/// and whose writers only write it (fills, copies, generics that do not
/// read their output), stored as `type` instead: a fresh 16-bit buffer,
/// rows padded by kRowPad, that the writers write narrowed. Returns its
/// view shaped as `alloc`; the readers are left to the caller (read the
/// view through retargetViews), and `alloc` goes with eraseUnusedBuffer
/// once they are gone. Null where `alloc` does not qualify.
Value narrowTemporary(RewriterBase &rewriter, memref::AllocOp alloc,
                      Type type,
                      function_ref<bool(OpOperand &)> narrowedRead);

/// The views that lead from a buffer to `value`, taken again on `base`
/// (shaped as that buffer) at `b`'s insertion point; null where one cannot
/// be.
Value retargetViews(OpBuilder &b, Value value, Value base);

/// Erases `alloc` with its views and deallocations where nothing else uses
/// them.
void eraseUnusedBuffer(RewriterBase &rewriter, memref::AllocOp alloc);

} // namespace mlir::linea

#endif // LINEA_LIB_GPU_STOREDTYPES_H
