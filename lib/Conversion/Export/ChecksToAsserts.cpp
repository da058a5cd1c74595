//===- ChecksToAsserts.cpp - run-time checks as upstream cf.assert --------===//
//
// A hand-off (linea-export) goes to a compiler that does not know
// `linea.check`; upstream's `cf.assert` says the same with a constant
// message, which every MLIR compiler lowers (IREE to an error status).
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACHECKSTOASSERTS
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The check's message with each value it would print shown as `?`, MLIR's
/// own mark for a size known only at run time.
std::string constantMessage(CheckOp check) {
  CheckOp::Pieces pieces = check.splitMessage();
  std::string message = pieces.text.front();
  for (size_t k = 1; k < pieces.text.size(); ++k)
    message += "?" + pieces.text[k];
  return message;
}

struct LineaChecksToAssertsPass
    : linea::impl::LineaChecksToAssertsBase<LineaChecksToAssertsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](CheckOp check) {
      rewriter.setInsertionPoint(check);
      rewriter.replaceOpWithNewOp<cf::AssertOp>(check, check.getCondition(),
                                                constantMessage(check));
    });
  }
};

} // namespace
