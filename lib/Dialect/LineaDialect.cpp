//===- LineaDialect.cpp - the Linea dialect -------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::linea;

#include "linea/Dialect/LineaDialect.cpp.inc"

void LineaDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "linea/Dialect/LineaOps.cpp.inc"
      >();
  attachLinearAttentionModels();
}

/// `linea.sharded_dim = d`: an i64 naming a dim of the ranked tensor it is on.
static LogicalResult verifyShardedDim(Operation *op, Type type,
                                      NamedAttribute attribute,
                                      StringRef where) {
  if (attribute.getName() != LineaDialect::kShardedDimAttrName)
    return op->emitError() << "unknown Linea attribute '"
                           << attribute.getName().getValue() << "' on "
                           << where;
  auto dim = dyn_cast<IntegerAttr>(attribute.getValue());
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!dim || !tensor || dim.getInt() < 0 || dim.getInt() >= tensor.getRank())
    return op->emitError() << "'" << LineaDialect::kShardedDimAttrName
                           << "' on " << where
                           << " must name a dim of a ranked tensor, got "
                           << attribute.getValue() << " on " << type;
  return success();
}

LogicalResult LineaDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned region,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  // A declaration has no block: its function type has the argument.
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op))
    type = function.getArgumentTypes()[argIndex];
  else
    type = op->getRegion(region).getArgument(argIndex).getType();
  return verifyShardedDim(op, type, attribute,
                          ("argument #" + Twine(argIndex)).str());
}

LogicalResult LineaDialect::verifyRegionResultAttribute(
    Operation *op, unsigned region, unsigned resultIndex,
    NamedAttribute attribute) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << attribute.getName().getValue()
                           << "' belongs on a function's results";
  return verifyShardedDim(op, function.getResultTypes()[resultIndex], attribute,
                          ("result #" + Twine(resultIndex)).str());
}

/// `linea.flash_attention`: a unit attribute on a function declaration,
/// or on a call `{causal = bool, scale = f32, operand_type = bf16|f16}`.
static LogicalResult verifyFlashAttention(Operation *op, Attribute value) {
  if (isa<FunctionOpInterface>(op) && isa<UnitAttr>(value))
    return success();
  auto dict = dyn_cast<DictionaryAttr>(value);
  auto causal = dict ? dict.getAs<BoolAttr>("causal") : BoolAttr();
  auto scale = dict ? dict.getAs<FloatAttr>("scale") : FloatAttr();
  auto type = dict ? dict.getAs<TypeAttr>("operand_type") : TypeAttr();
  if (!isa<CallOpInterface>(op) ||
      (op->getNumOperands() != 4 && op->getNumOperands() != 5) || !causal ||
      !scale || !type || !(type.getValue().isBF16() || type.getValue().isF16()))
    return op->emitError()
           << "'" << LineaDialect::kFlashAttentionAttrName
           << "' is a unit attribute on a declaration, or on a call of "
              "(q, k, v, out) or (q, k, v, offsets, out) {causal = bool, "
              "scale = f32, operand_type = "
              "bf16 or f16}";
  return success();
}

LogicalResult LineaDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  if (attribute.getName() == kFlashAttentionAttrName)
    return verifyFlashAttention(op, attribute.getValue());
  if (attribute.getName() == kGradientOfAttrName) {
    if (!isa<FunctionOpInterface>(op) ||
        !isa<FlatSymbolRefAttr>(attribute.getValue()))
      return op->emitError() << "'" << kGradientOfAttrName
                             << "' belongs on a function and names one";
    return success();
  }
  if (attribute.getName() == kAsWrittenAttrName) {
    if (op->getNumRegions() != 2 || !isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << kAsWrittenAttrName
                             << "' is a unit attribute on an op with a "
                                "raised and an as-written region";
    return success();
  }
  if (attribute.getName() != kTargetAttrName)
    return op->emitError() << "unknown Linea attribute '"
                           << attribute.getName().getValue() << "'";
  if (!isa<TargetAttr>(attribute.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #linea.target<...>, not "
                           << attribute.getValue();
  return success();
}
