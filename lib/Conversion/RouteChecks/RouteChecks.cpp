//===- RouteChecks.cpp - failed run-time checks call a handler ------------===//
//
// Upstream lowers cf.assert to puts + abort, which ends whatever process runs
// the code: a Python interpreter calling a compiled library, a server. Here
// each assert calls a handler the embedder provides instead.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAROUTECHECKS
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The message as a constant NUL-terminated global of the module.
LLVM::GlobalOp messageGlobal(OpBuilder &b, ModuleOp module, Location loc,
                             StringRef message, SymbolTable &symbols) {
  std::string text = message.str();
  text.push_back('\0');
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
  auto global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                       LLVM::Linkage::Internal,
                                       "linea_check_message",
                                       b.getStringAttr(text));
  symbols.insert(global); // made unique
  return global;
}

struct RouteChecksPass
    : public linea::impl::LineaRouteChecksBase<RouteChecksPass> {
  using LineaRouteChecksBase::LineaRouteChecksBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    SymbolTable symbols(module);
    OpBuilder b(module.getContext());
    func::FuncOp callee = handlerDeclaration(b, module, symbols);
    if (!callee)
      return signalPassFailure();
    for (cf::AssertOp op : asserts) {
      LLVM::GlobalOp global =
          messageGlobal(b, module, op.getLoc(), op.getMsg(), symbols);
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value failed = arith::XOrIOp::create(
          b, loc, op.getArg(), arith::ConstantIntOp::create(b, loc, 1, 1));
      auto branch = scf::IfOp::create(b, loc, failed);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      Value message = LLVM::AddressOfOp::create(b, loc, global);
      func::CallOp::create(b, loc, callee, ValueRange{message});
      op.erase();
    }
  }

  /// `func.func private @HANDLER(!llvm.ptr)`, declared unless it exists with
  /// that type.
  func::FuncOp handlerDeclaration(OpBuilder &b, ModuleOp module,
                                  SymbolTable &symbols) {
    auto type = b.getFunctionType({LLVM::LLVMPointerType::get(b.getContext())},
                                  {});
    if (Operation *existing = symbols.lookup(handler)) {
      auto function = dyn_cast<func::FuncOp>(existing);
      if (!function || function.getFunctionType() != type) {
        existing->emitError() << "'" << handler
                              << "' is taken; the check handler must be a "
                                 "function of type "
                              << type;
        return nullptr;
      }
      return function;
    }
    b.setInsertionPointToStart(module.getBody());
    auto function =
        func::FuncOp::create(b, module.getLoc(), handler, type);
    function.setPrivate();
    symbols.insert(function);
    return function;
  }
};

} // namespace
