//===- SelectForms.cpp - record the cost model's choices on each op -------===//

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

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
    std::optional<TargetModel> model = TargetModel::byName(target);
    if (!model) {
      getOperation()->emitError()
          << "unknown target '" << target << "'; expected cpu or gpu";
      return signalPassFailure();
    }
    std::optional<Form> forced;
    if (form != "auto") {
      forced = symbolizeForm(form);
      if (!forced) {
        getOperation()->emitError()
            << "unknown form '" << form
            << "'; expected auto, oneshot, chunked, quadratic, scan or "
               "blocked_scan";
        return signalPassFailure();
      }
    }
    if (chunkSize < 0) {
      getOperation()->emitError()
          << "chunk-size must be >= 0, got " << static_cast<int64_t>(chunkSize);
      return signalPassFailure();
    }

    Builder builder(&getContext());
    getOperation()->walk([&](Operation *op) {
      // Already decided (linea-optimize runs this pass again for the presums
      // the rewrites create).
      if (op->hasAttr(kFormAttrName))
        return;
      std::optional<FormChoice> choice =
          chooseForm(op, *model, forced, chunkSize);
      if (!choice)
        return;
      op->setAttr(kFormAttrName,
                  builder.getStringAttr(stringifyForm(choice->chosen.form)));
      if (choice->chosen.form == Form::Chunked)
        op->setAttr(kChunkSizeAttrName,
                    builder.getI64IntegerAttr(choice->chosen.chunkSize));
      if (explain)
        op->emitRemark() << describeChoice(*choice);
    });
  }
};

} // namespace
