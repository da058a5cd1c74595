//===- PlanTarget.cpp - record the machine a module is compiled for ------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Forms/Passes.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPLANTARGET
#include "linea/Forms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

struct LineaPlanTargetPass
    : linea::impl::LineaPlanTargetBase<LineaPlanTargetPass> {
  using LineaPlanTargetBase::LineaPlanTargetBase;

  void runOnOperation() override {
    if (failed(planTarget(getOperation(), target, chip, targetDescription)))
      signalPassFailure();
  }
};

} // namespace
