//===- Fills.h - recognizing a fill in either of its forms -----*- C++ -*-===//
//
// A model's fills reach Linea's passes as `linalg.fill`, as the generic a
// fill generalizes to (the raise's normalization generalizes every named
// op of the model it looks at), or as a `linalg.map` without inputs (a
// chunked form's padding): one recognizer for all.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_FILLS_H
#define LINEA_UTILS_FILLS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace mlir::linea {

/// The value `op` fills its one output with: a `linalg.fill`'s input, or
/// the value the body of a generic fill or a `linalg.map` without inputs
/// yields (for a generic: no inputs, one output iterated as is, every loop
/// parallel; the value defined above the body); null for any other op.
Value filledValue(Operation *op);

} // namespace mlir::linea

#endif // LINEA_UTILS_FILLS_H
