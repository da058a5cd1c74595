//===- FloatTypes.h - the 16-bit floats tensor cores multiply --*- C++ -*-===//
//
// Several decisions turn on whether a tensor holds 16-bit floats (bf16 or
// f16): the compute type a Linea op's kernels take, whether precision=auto
// finds anything to put on tensor cores, which buffers are read as stored,
// which type a form keeps a tensor in. One test for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_UTILS_FLOATTYPES_H
#define LINEA_UTILS_FLOATTYPES_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::linea {

/// Whether `type` is a 16-bit float (bf16, f16).
inline bool isSixteenBitFloat(Type type) {
  return isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16;
}

/// Whether `type` is a shaped type of 16-bit floats.
inline bool holdsSixteenBitFloats(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && isSixteenBitFloat(shaped.getElementType());
}

/// `type` where it is a 16-bit float, else f32: the type a form keeps a
/// temporary in that only tensor cores read, which multiply in the op's
/// own 16-bit type anyway.
inline Type sixteenBitOrF32(Type type) {
  return isSixteenBitFloat(type) ? type : Float32Type::get(type.getContext());
}

} // namespace mlir::linea

#endif // LINEA_UTILS_FLOATTYPES_H
