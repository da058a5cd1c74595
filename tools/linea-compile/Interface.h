//===- Interface.h - what linea-compile writes beside the library -*- C++ -*-===//
//
// A compiled library's interface: the entry functions' signatures, read off
// the module before it is lowered, and the three files made from them: the
// JSON manifest, the C header and the checked shim (`linea_checked_F`) that
// validates each call's arguments before the library runs.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_LINEA_COMPILE_INTERFACE_H
#define LINEA_TOOLS_LINEA_COMPILE_INTERFACE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::linea::compile {

/// One argument or result in the manifest and the header.
struct ValueSpec {
  std::string kind; // "tensor" or "scalar"
  std::string dtype;
  SmallVector<int64_t> shape; // ShapedType::kDynamic for `?`
  /// linea-sequence-parallel: the dim split across ranks, if any.
  std::optional<int64_t> shardedDim;
};

/// One entry function's arguments and results.
struct Signature {
  std::string name;
  std::vector<ValueSpec> args, results;
};

/// The entry functions: those named, or every public function with a body.
/// Ends linea-compile with a one-line error where there is none.
SmallVector<func::FuncOp> findEntries(ModuleOp module,
                                      ArrayRef<std::string> names);

/// `func`'s signature as the manifest and the header show it.
Signature signatureOf(func::FuncOp func);

/// NAME.json: the library's target, chip (GPU only) and signatures.
void writeManifest(StringRef path, ArrayRef<Signature> signatures,
                   StringRef target, std::optional<StringRef> chip);

/// NAME.h: the C declarations of `library`'s functions.
void writeHeader(StringRef path, StringRef guard, StringRef library,
                 ArrayRef<Signature> signatures);

/// The C source of the checked shim around each function; with `cuda`, a
/// driver failure during the call is an error return too.
std::string shimSource(ArrayRef<Signature> signatures, StringRef header,
                       bool cuda);

} // namespace mlir::linea::compile

#endif // LINEA_TOOLS_LINEA_COMPILE_INTERFACE_H
