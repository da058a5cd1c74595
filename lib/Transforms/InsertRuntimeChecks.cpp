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
      op.generateRuntimeVerification(builder, op.getLoc(), linea::runtimeCheckMessage);
    }
  }
};

} // namespace
