//===- LinalgBodies.h - a linalg op's body at given loop indices -*- C++
//-*-===//
//
// Fusing a linalg op into another kernel (a contraction's epilogue, a
// normalization's row kernel, a padded write) means computing its body at
// that kernel's indices: each operand read where the op's map says, or
// taken from what the kernel holds. One way to do it, for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_LINALGBODIES_H
#define LINEA_UTILS_LINALGBODIES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir::linea {

/// Whether `op`'s body computes from its operands alone: no op in it has
/// a region or a memory effect, so it can be cloned anywhere.
bool hasPlainBody(linalg::LinalgOp op);

/// Whether each result of `map` is a loop dim or a constant, so that
/// loadByMap can read by it.
bool readsByLoopDims(AffineMap map);

/// The indices `map` (readsByLoopDims) reads at loop indices `ivs`.
SmallVector<Value> indicesByMap(OpBuilder &b, Location loc, AffineMap map,
                                ValueRange ivs);

/// The element of `buffer` that `map` (readsByLoopDims) reads at loop
/// indices `ivs`.
Value loadByMap(OpBuilder &b, Location loc, Value buffer, AffineMap map,
                ValueRange ivs);

/// `op`'s body cloned at `b` for loop indices `ivs`: each block argument
/// in use replaced by `valueOf` of its operand, each `linalg.index` by its
/// index, `skip` (if any) left out. Returns the clone of `result`
/// (default: the value the body yields first).
Value cloneBodyAt(OpBuilder &b, linalg::LinalgOp op, ValueRange ivs,
                  function_ref<Value(OpOperand &)> valueOf, Value result = {},
                  Operation *skip = nullptr);

} // namespace mlir::linea

#endif // LINEA_UTILS_LINALGBODIES_H
