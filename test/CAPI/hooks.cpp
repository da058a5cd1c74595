//===- hooks.cpp - the dialect handle's hooks do what MLIR's C API needs --===//
//
// mlirDialectHandleRegisterDialect / InsertDialect / GetNamespace call these
// hooks; here they are called directly (MLIR's C API library itself is not
// in Debian's libMLIR.so): insert into a registry, load, parse Linea IR.
//
//===----------------------------------------------------------------------===//

#include "linea-c/Dialects.h"

#include "mlir/CAPI/Registration.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

int main() {
  MlirDialectHandle handle = mlirGetDialectHandle__linea__();
  auto *hooks = static_cast<const MlirDialectRegistrationHooks *>(handle.ptr);
  MlirStringRef name = hooks->getNamespaceHook();
  llvm::outs() << "namespace: " << llvm::StringRef(name.data, name.length)
               << "\n";

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  hooks->insertHook(wrap(&registry));
  mlir::MLIRContext context(registry);
  MlirDialect loaded = hooks->loadHook(wrap(&context));
  if (mlirDialectIsNull(loaded))
    return 1;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
      "  %y = linea.presum %x exclusive : tensor<4x8xf32>\n"
      "  return %y : tensor<4x8xf32>\n}\n",
      &context);
  if (!module)
    return 1;
  module->print(llvm::outs());
  return 0;
}
