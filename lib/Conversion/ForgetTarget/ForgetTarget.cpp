//===- ForgetTarget.cpp - the planned target leaves with the Linea IR ------===//
//
// `#linea.target` is Linea's: upstream tools that read the LLVM dialect the
// lowering pipelines end with (mlir-translate, mlir-runner) do not know it.
// Once the last pass that reads it has run, it goes.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFORGETTARGET
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

struct LineaForgetTargetPass
    : linea::impl::LineaForgetTargetBase<LineaForgetTargetPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      op->removeAttr(linea::LineaDialect::kTargetAttrName);
    });
  }
};

} // namespace
