//===- SelectForms.cpp - record the cost model's choices on each op -------===//

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/FormUtils.h"
#include "linea/Transforms/Passes.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASELECTFORMS
#include "linea/Transforms/Passes.h.inc"
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
    FailureOr<TargetDescription> description = planTarget();
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

  /// The target the forms are planned for: the one the module was already
  /// planned for, or the one the options name, recorded on the op this
  /// pass runs on for every later pass to read.
  FailureOr<TargetDescription> planTarget() {
    Operation *root = getOperation();
    llvm::Expected<TargetDescription> named =
        TargetDescription::named(target, chip, targetDescription);
    if (!named)
      return root->emitError() << llvm::toString(named.takeError());
    TargetAttr wanted = TargetAttr::get(&getContext(), *named);
    TargetAttr planned = plannedTarget(root);
    if (!planned) {
      root->setAttr(LineaDialect::kTargetAttrName, wanted);
      return *named;
    }
    bool namesMachine = !chip.empty() || !targetDescription.empty();
    if (planned.getKind() == target && (!namesMachine || planned == wanted))
      return planned.getDescription();
    return root->emitError()
           << "the forms here were planned for " << planned
           << " and cannot be re-planned for " << wanted
           << ": run one pipeline per target (linea-lower-to-nvvm runs "
              "linea-optimize{target=gpu} itself)";
  }
};

} // namespace
