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
    if (failed(recordTarget()))
      return signalPassFailure();
    if (failed(verifyFormSizeOption(getOperation(), "shared-memory",
                                    sharedMemory)))
      return signalPassFailure();
    FailureOr<TargetDescription> loaded = describeTarget();
    if (failed(loaded))
      return signalPassFailure();
    TargetDescription description = *loaded;
    if (sharedMemory > 0 && description.sharedMemoryPerBlock > 0)
      description.sharedMemoryPerBlock = sharedMemory;
    std::optional<FormKind> forced = forcedForm(form);
    getOperation()->walk([&](FormOpInterface op) {
      // Already decided (linea-optimize runs this pass again for the presums
      // the rewrites create).
      if (op.getFormAttr())
        return;
      std::optional<FormChoice> choice =
          chooseForm(op, description, forced, chunkSize);
      if (!choice)
        return;
      op.setFormAttr(formAttrFor(&getContext(), choice->chosen));
      if (explain)
        op->emitRemark() << describeChoice(*choice);
    });
  }

  /// The built-in description of the target, or the measured one of
  /// `target-description`.
  FailureOr<TargetDescription> describeTarget() {
    if (targetDescription.empty())
      return TargetDescription::get(target);
    llvm::Expected<TargetDescription> loaded =
        TargetDescription::load(target, targetDescription);
    if (!loaded)
      return getOperation()->emitError() << llvm::toString(loaded.takeError());
    return *loaded;
  }

  /// Forms planned for one target are not re-planned for another: by then
  /// the ops they chose are rewritten into that target's loops (as when
  /// `--linea-optimize --linea-lower-to-nvvm` optimized for the CPU first).
  LogicalResult recordTarget() {
    Operation *root = getOperation();
    StringRef name = LineaDialect::kTargetAttrName;
    StringRef wanted = stringifyTargetKind(target);
    if (auto planned = root->getAttrOfType<StringAttr>(name);
        planned && planned.getValue() != wanted)
      return root->emitError()
             << "the forms here were planned for target=" << planned.getValue()
             << " and cannot be re-planned for target=" << wanted
             << ": run one pipeline per target (linea-lower-to-nvvm runs "
                "linea-optimize{target=gpu} itself)";
    root->setAttr(name, StringAttr::get(&getContext(), wanted));
    return success();
  }
};

} // namespace
