//===- InsertRuntimeChecks.cpp - dynamic shapes checked before each op ----===//
//
// Calls each Linea op's RuntimeVerifiableOpInterface with one-line messages
// (`file:line:col: linea.op: what is wrong`) that linea-run prints as its
// error. Upstream's generate-runtime-verification does the same for every
// op with checks, with messages over several lines.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAINSERTRUNTIMECHECKS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// `file:line:col` of the op's location (the first file position in a fused
/// or named location), or the location as MLIR prints it.
std::string describeLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::string oneLineMessage(Operation *op, StringRef what) {
  return describeLocation(op->getLoc()) + ": " +
         op->getName().getStringRef().str() + ": " + what.str();
}

struct LineaInsertRuntimeChecksPass
    : linea::impl::LineaInsertRuntimeChecksBase<LineaInsertRuntimeChecksPass> {
  void runOnOperation() override {
    SmallVector<RuntimeVerifiableOpInterface> ops;
    getOperation()->walk([&](RuntimeVerifiableOpInterface op) {
      if (isa<LineaDialect>(op->getDialect()))
        ops.push_back(op);
    });
    OpBuilder builder(&getContext());
    for (RuntimeVerifiableOpInterface op : ops) {
      builder.setInsertionPoint(op);
      op.generateRuntimeVerification(builder, op.getLoc(), oneLineMessage);
    }
  }
};

} // namespace
