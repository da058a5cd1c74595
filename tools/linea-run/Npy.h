//===- Npy.h - reading and writing NumPy .npy files ------------*- C++ -*-===//
//
// Only what linea-run needs: C-contiguous little-endian float16, float32
// and float64 arrays in, float16 and float32 arrays out. Every failure is
// one line of text.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_NPY_H
#define LINEA_TOOLS_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::linea::npy {

struct Array {
  llvm::SmallVector<int64_t> shape;
  /// The elements of a float32 or float64 file (float64 narrowed).
  std::vector<float> data;
  /// The elements of a float16 file, as their IEEE binary16 bits.
  std::vector<uint16_t> halves;
  bool isHalf = false;
  /// True when the file held float64 that was narrowed to float32.
  bool convertedFromF64 = false;
  /// The elements of an int32 or int64 file (token ids), widened to int64.
  std::vector<int64_t> integers;
  bool isInteger = false;
};

/// Reads a C-contiguous float16, float32, float64, int32 or int64 array.
llvm::Expected<Array> read(llvm::StringRef path);

/// Writes `data` with `shape` as a float32 .npy (format version 1.0).
llvm::Error write(llvm::StringRef path, llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<float> data);
/// Writes IEEE binary16 `bits` with `shape` as a float16 .npy.
llvm::Error writeHalf(llvm::StringRef path, llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<uint16_t> bits);

/// "(2, 3, 4)", as numpy prints a shape.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::linea::npy

#endif // LINEA_TOOLS_NPY_H
