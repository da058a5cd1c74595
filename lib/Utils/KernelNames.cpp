//===- KernelNames.cpp - what each GPU kernel is called -------------------===//

#include "linea/Utils/KernelNames.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/FloatTypes.h"
#include "linea/Utils/LocationMarks.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::linea;

Location mlir::linea::withKernelName(Location loc, const Twine &name) {
  if (kernelNameOf(loc))
    return loc;
  return withMark(loc, kKernelNameKey, StringAttr::get(loc.getContext(), name));
}

std::optional<StringRef> mlir::linea::kernelNameOf(Location loc) {
  std::optional<FusedLoc> marked = markedWith(loc, kKernelNameKey);
  if (!marked)
    return std::nullopt;
  return cast<StringAttr>(markOf(*marked, kKernelNameKey)).getValue();
}

std::string mlir::linea::kernelFamily(Operation *op) {
  if (auto attention = dyn_cast<LinearAttentionOpInterface>(op)) {
    if (!attention.getGate())
      return "linear_attention";
    return attention.hasScalarGate() ? "simple_gla" : "gla";
  }
  return op->getName().stripDialect().str();
}

/// The element type of `op`'s first tensor operand where it is a 16-bit
/// float (the op's tensors are bf16 or f16), else null.
static Type sixteenBitElementType(Operation *op) {
  for (Value operand : op->getOperands())
    if (auto tensor = dyn_cast<RankedTensorType>(operand.getType())) {
      Type element = tensor.getElementType();
      return isSixteenBitFloat(element) ? element : Type();
    }
  return {};
}

Location mlir::linea::kernelStageLoc(Operation *op, StringRef stage) {
  Location loc =
      withKernelName(op->getLoc(), Twine(kernelFamily(op)) + "_" + stage);
  Type element = sixteenBitElementType(op);
  if (!element || computeTypeOf(loc))
    return loc;
  return withMark(loc, kComputeTypeKey, TypeAttr::get(element));
}

Type mlir::linea::computeTypeOf(Location loc) {
  std::optional<FusedLoc> marked = markedWith(loc, kComputeTypeKey);
  return marked ? cast<TypeAttr>(markOf(*marked, kComputeTypeKey)).getValue()
                : Type();
}

Location mlir::linea::withBlocksPerSM(Location loc, int64_t blocks) {
  return withMark(
      loc, kBlocksPerSMKey,
      IntegerAttr::get(IntegerType::get(loc.getContext(), 64), blocks));
}

std::optional<int64_t> mlir::linea::blocksPerSMOf(Location loc) {
  std::optional<FusedLoc> marked = markedWith(loc, kBlocksPerSMKey);
  if (!marked)
    return std::nullopt;
  return cast<IntegerAttr>(markOf(*marked, kBlocksPerSMKey)).getInt();
}
