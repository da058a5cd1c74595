//===- SelectForms.cpp - record the cost model's choices on each op -------===//

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/FormUtils.h"
#include "linea/Forms/Passes.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASELECTFORMS
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

struct LineaSelectFormsPass
    : linea::impl::LineaSelectFormsBase<LineaSelectFormsPass> {
  using LineaSelectFormsBase::LineaSelectFormsBase;

  void runOnOperation() override {
    if (failed(verifyFormSizeOption(getOperation(), "chunk-size", chunkSize)))
      return signalPassFailure();
    FailureOr<TargetDescription> description =
        planTarget(getOperation(), target, chip, targetDescription);
    if (failed(description))
      return signalPassFailure();
    std::optional<FormKind> forced = forcedForm(form);
    getOperation()->walk([&](FormOpInterface op) {
      // Already decided (linea-optimize runs this pass again for the presums
      // the rewrites create).
      if (op.getFormAttr())
        return;
      std::optional<FormChoice> choice =
          chooseForm(op, *description, forced, chunkSize);
      if (!choice)
        return;
      op.setFormAttr(formAttrFor(&getContext(), choice->chosen));
      if (explain)
        op->emitRemark() << describeChoice(*choice);
    });
  }
};

} // namespace
