//===- TargetAttr.cpp - #linea.target, the machine a module is for --------===//
//
// The one place a pass learns the machine's numbers: the attribute
// linea-plan-target (or the first pass of a pipeline that needs the
// machine) records on the module. A pass that finds none stops.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

#include "mlir/IR/DialectImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::linea;

FailureOr<TargetKind> mlir::linea::parseTargetKind(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  for (TargetKind kind : {TargetKind::cpu, TargetKind::gpu})
    if (keyword == stringifyTargetKind(kind))
      return kind;
  return parser.emitError(loc) << "expected target kind 'cpu' or 'gpu', got '"
                               << keyword << "'";
}

FailureOr<llvm::APFloat> mlir::linea::parseTargetNumber(AsmParser &parser) {
  double value = 0;
  if (parser.parseFloat(value))
    return failure();
  return llvm::APFloat(value);
}

FailureOr<bool> mlir::linea::parseTargetFlag(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword == "true" || keyword == "false")
    return keyword == "true";
  return parser.emitError(loc) << "expected 'true' or 'false', got '"
                               << keyword << "'";
}

TargetAttr TargetAttr::get(MLIRContext *context,
                           const TargetDescription &description) {
  return get(context, description.kind, description.chip,
             description.parallelUnits, description.threadsPerBlock,
             description.sharedMemoryPerBlock, description.valueTile,
             llvm::APFloat(description.matrixFlopsPerSecond),
             llvm::APFloat(description.scalarFlopsPerSecond),
             llvm::APFloat(description.bytesPerSecond),
             llvm::APFloat(description.secondsPerIteration),
             llvm::APFloat(description.contractionTile),
             description.calibrated);
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   TargetKind kind, StringRef chip, int64_t units,
                   int64_t threads, int64_t sharedMemory, int64_t valueTile,
                   llvm::APFloat matrixFlops, llvm::APFloat scalarFlops,
                   llvm::APFloat bytes, llvm::APFloat stepSeconds,
                   llvm::APFloat contractionTile, bool) {
  if (kind == TargetKind::gpu && !parseChip(chip))
    return emitError() << "a GPU target names its chip (sm_XX), got '" << chip
                       << "'";
  if (kind == TargetKind::cpu && !chip.empty())
    return emitError() << "a CPU target has no chip, got '" << chip << "'";
  std::pair<StringRef, int64_t> counts[] = {
      {"units", units}, {"threads", threads}};
  for (auto [name, value] : counts)
    if (value < 1)
      return emitError() << "target " << name << " must be >= 1, got "
                         << value;
  if (threads > kMaxThreadsPerBlock)
    return emitError() << "target threads must be <= " << kMaxThreadsPerBlock
                       << ", got " << threads;
  if (sharedMemory < 0 || valueTile < 0)
    return emitError() << "target shared_memory and value_tile must be >= 0, "
                          "got "
                       << sharedMemory << " and " << valueTile;
  std::pair<StringRef, const llvm::APFloat &> rates[] = {
      {"matrix_flops", matrixFlops},
                                          {"scalar_flops", scalarFlops},
                                          {"bytes", bytes},
                                          {"step_seconds", stepSeconds},
                                          {"contraction_tile", contractionTile}};
  for (auto [name, rate] : rates) {
    double value = rate.convertToDouble();
    if (!(value > 0) || !std::isfinite(value))
      return emitError() << "target " << name
                         << " must be a positive number, got " << value;
  }
  return success();
}

TargetDescription TargetAttr::getDescription() const {
  TargetDescription description = TargetDescription::get(getKind());
  description.chip = getChip();
  description.parallelUnits = getUnits();
  description.threadsPerBlock = getThreads();
  description.sharedMemoryPerBlock = getSharedMemory();
  description.valueTile = getValueTile();
  description.matrixFlopsPerSecond = getMatrixFlops().convertToDouble();
  description.scalarFlopsPerSecond = getScalarFlops().convertToDouble();
  description.bytesPerSecond = getBytes().convertToDouble();
  description.secondsPerIteration = getStepSeconds().convertToDouble();
  description.contractionTile = getContractionTile().convertToDouble();
  description.calibrated = getCalibrated();
  return description;
}

TargetAttr mlir::linea::plannedTarget(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto target =
            p->getAttrOfType<TargetAttr>(LineaDialect::kTargetAttrName))
      return target;
  return {};
}

bool mlir::linea::plannedForGPU(Operation *op) {
  TargetAttr target = plannedTarget(op);
  return target && target.getKind() == TargetKind::gpu;
}

FailureOr<TargetDescription>
mlir::linea::planTarget(Operation *root, TargetKind kind, StringRef chip,
                        StringRef descriptionPath) {
  llvm::Expected<TargetDescription> named =
      TargetDescription::named(kind, chip, descriptionPath);
  if (!named)
    return root->emitError() << llvm::toString(named.takeError());
  TargetAttr wanted = TargetAttr::get(root->getContext(), *named);
  TargetAttr planned = plannedTarget(root);
  if (!planned) {
    root->setAttr(LineaDialect::kTargetAttrName, wanted);
    return *named;
  }
  bool namesMachine = !chip.empty() || !descriptionPath.empty();
  if (planned.getKind() == kind && (!namesMachine || planned == wanted))
    return planned.getDescription();
  return root->emitError()
         << "the forms here were planned for " << planned
         << " and cannot be re-planned for " << wanted
         << ": run one pipeline per target (linea-lower-to-nvvm runs "
            "linea-optimize{target=gpu} itself)";
}

FailureOr<TargetDescription>
mlir::linea::targetFor(Operation *op, TargetKind kind, StringRef pass) {
  TargetAttr target = plannedTarget(op);
  if (target && target.getKind() == kind)
    return target.getDescription();
  InFlightDiagnostic error = op->emitError()
                             << pass << " needs the " << stringifyTargetKind(kind)
                             << " the module is for, and ";
  if (target)
    return error << "it was planned for " << target
                 << "; run one pipeline per target";
  return error << "none is recorded: run linea-plan-target{target="
               << stringifyTargetKind(kind) << "} first";
}
