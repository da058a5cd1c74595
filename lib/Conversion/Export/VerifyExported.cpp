//===- VerifyExported.cpp - nothing of Linea's left in a hand-off ---------===//
//
// linea-export promises a module in upstream dialects only. This pass is that
// promise checked: a Linea op, attribute or type that a conversion missed is
// an error here, named, rather than a parse failure in the next compiler.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaDialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAVERIFYEXPORTED
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The dialects whose ops only Linea's tools know: Linea's own, and
/// torch-mlir's `tm_tensor` (read by the raise, lowered by
/// convert-linea-to-linalg).
bool isLineaOnly(StringRef dialect) {
  return dialect == linea::LineaDialect::getDialectNamespace() ||
         dialect == "tm_tensor";
}

template <typename T>
std::string printed(T value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

/// The first attribute or type of Linea's inside `attr`, if any.
std::optional<std::string> lineaAttributeIn(Attribute attr) {
  std::optional<std::string> found;
  attr.walk([&](Attribute inner) {
    if (!found && isLineaOnly(inner.getDialect().getNamespace()))
      found = "attribute " + printed(inner);
  });
  attr.walk([&](Type inner) {
    if (!found && isLineaOnly(inner.getDialect().getNamespace()))
      found = "type " + printed(inner);
  });
  return found;
}

/// What of Linea's `op` holds: itself, an attribute (by name or by value)
/// or a type of its results or operands.
std::optional<std::string> lineaPartOf(Operation *op) {
  if (isLineaOnly(op->getName().getDialectNamespace()))
    return "'" + op->getName().getStringRef().str() + "'";
  for (NamedAttribute named : op->getAttrs()) {
    if (named.getName().strref().starts_with("linea."))
      return "attribute '" + named.getName().str() + "' of '" +
             op->getName().getStringRef().str() + "'";
    if (std::optional<std::string> found = lineaAttributeIn(named.getValue()))
      return *found + " on '" + op->getName().getStringRef().str() + "'";
  }
  for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                            op->getResultTypes()))
    if (std::optional<std::string> found =
            lineaAttributeIn(TypeAttr::get(type)))
      return *found + " of '" + op->getName().getStringRef().str() + "'";
  return std::nullopt;
}

struct LineaVerifyExportedPass
    : linea::impl::LineaVerifyExportedBase<LineaVerifyExportedPass> {
  void runOnOperation() override {
    // Parents first: an op of Linea's is named, not its terminator.
    WalkResult result =
        getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
      std::optional<std::string> found = lineaPartOf(op);
      if (!found)
        return WalkResult::advance();
      op->emitError() << *found
                      << " is left in the exported module: only upstream "
                         "dialects may be handed off (linea-export lowers "
                         "every Linea op with convert-linea-to-linalg and "
                         "drops #linea.target with linea-forget-target)";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
