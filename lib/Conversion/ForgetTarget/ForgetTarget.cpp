//===- ForgetTarget.cpp - the planned target leaves with the Linea IR ------===//
//
// `#linea.target` is Linea's: upstream tools that read the LLVM dialect the
// lowering pipelines end with (mlir-translate, mlir-runner), and the
// compilers linea-export hands off to, do not know it. Once the last pass
// that reads it has run, it goes, with Linea's other annotations.
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
    // The other annotations of Linea's go with it: nothing after the last
    // reader of the target reads them either (the raise, linea-differentiate).
    getOperation()->walk([](Operation *op) {
      for (StringRef name : {linea::LineaDialect::kTargetAttrName,
                             linea::LineaDialect::kAsWrittenAttrName,
                             linea::LineaDialect::kGradientOfAttrName})
        op->removeAttr(name);
    });
  }
};

} // namespace
