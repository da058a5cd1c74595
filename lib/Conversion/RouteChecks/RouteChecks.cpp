//===- RouteChecks.cpp - failed run-time checks call a handler ------------===//
//
// Upstream lowers cf.assert to puts + abort, which ends whatever process runs
// the code: a Python interpreter calling a compiled library, a server. Here
// each check calls a handler the embedder provides instead. A `linea.check`
// formats its message (the sizes it compared) when it fails, and only then.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Path.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAROUTECHECKS
#include "linea/Conversion/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Room for a formatted message: a file name, the op, two names and sizes.
constexpr int64_t kMessageBytes = 1024;

/// The text as a constant NUL-terminated global of the module.
LLVM::GlobalOp stringGlobal(OpBuilder &b, ModuleOp module, Location loc,
                            StringRef text, SymbolTable &symbols) {
  std::string bytes = text.str();
  bytes.push_back('\0');
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
  auto global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                       LLVM::Linkage::Internal,
                                       "linea_check_message",
                                       b.getStringAttr(bytes));
  symbols.insert(global); // made unique
  return global;
}

/// `text` as literal printf text: each `%` doubled.
std::string printfLiteral(StringRef text) {
  std::string literal;
  for (char c : text) {
    literal += c;
    if (c == '%')
      literal += '%';
  }
  return literal;
}

/// A check's message as a printf format: text as is, each value a `%lld`.
std::string printfFormat(const CheckOp::Pieces &pieces) {
  std::string format;
  for (auto [i, text] : llvm::enumerate(pieces.text)) {
    format += printfLiteral(text);
    if (i < pieces.refs.size())
      format += "%lld";
  }
  return format;
}

/// Lowers every check of a module to a branch taken when it fails.
class CheckLowering {
public:
  CheckLowering(ModuleOp module, StringRef handler)
      : module(module), symbols(module), b(module.getContext()),
        handler(handler) {}

  LogicalResult run() {
    SmallVector<Operation *> checks;
    module.walk([&](Operation *op) {
      // A front end's cf.assert is reported like a check (with or without a
      // handler: its message then names where it is and what it compared);
      // in a GPU kernel upstream's lowering stands (NVVM's `__assertfail`:
      // no host handler can be called from the device).
      if (isa<CheckOp>(op) ||
          (isa<cf::AssertOp>(op) && !op->getParentOfType<gpu::GPUModuleOp>()))
        checks.push_back(op);
    });
    if (checks.empty())
      return success();
    if (!handler.empty() && !(callee = handlerDeclaration()))
      return failure();
    if (failed(declareLibc(checks)))
      return failure();
    for (Operation *op : checks) {
      b.setInsertionPoint(op);
      if (auto check = dyn_cast<CheckOp>(op))
        fail(check.getLoc(), check.getCondition(),
             [&] { reportFormatted(check); });
      else if (auto assert = dyn_cast<cf::AssertOp>(op))
        fail(assert.getLoc(), assert.getArg(),
             [&] { reportAssert(assert); });
      op->erase();
    }
    return success();
  }

private:
  /// `if (!condition) { failure() }`, before the check.
  void fail(Location loc, Value condition, function_ref<void()> failure) {
    Value failed = arith::XOrIOp::create(
        b, loc, condition, arith::ConstantIntOp::create(b, loc, 1, 1));
    auto branch = scf::IfOp::create(b, loc, failed);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    failure();
  }

  /// The handler called with `text`, or `puts` and `abort` without one.
  void report(Location loc, Value text) {
    if (callee) {
      func::CallOp::create(b, loc, callee, ValueRange{text});
      return;
    }
    LLVM::CallOp::create(b, loc, puts, ValueRange{text});
    LLVM::CallOp::create(b, loc, abort, ValueRange{});
  }

  /// A front end's `cf.assert` (torch-mlir's "mismatched size for
  /// broadcast") reported with where it is in the model and, where its
  /// condition compares two integers, both of them: the message alone names
  /// neither the op nor the sizes.
  void reportAssert(cf::AssertOp assert) {
    Location loc = assert.getLoc();
    // (A message that names its place already, `f.mlir:2:6: ...` as
    // linea-insert-runtime-checks writes them, is kept as it is.)
    StringRef message = assert.getMsg();
    std::string text =
        (namesItsPlace(message) ? "" : sourceOf(loc)) + message.str();
    arith::CmpIOp compare = comparisonOf(assert);
    if (!compare) {
      report(loc, constantString(loc, text));
      return;
    }
    std::string format = printfLiteral(text) + " (compared %lld and %lld)";
    SmallVector<Value> values = {asLongLong(loc, compare.getLhs()),
                                 asLongLong(loc, compare.getRhs())};
    func::CallOp::create(b, loc, formatter(loc, format, values.size()),
                         values);
  }

  /// The integer comparison an assert checks, whose sides its message
  /// shows, or null.
  static arith::CmpIOp comparisonOf(cf::AssertOp assert) {
    return assert.getArg().getDefiningOp<arith::CmpIOp>();
  }

  /// Whether `message` starts with `name:line`.
  static bool namesItsPlace(StringRef message) {
    StringRef name = message.take_until([](char c) { return c == ':'; });
    if (name.empty() || name.size() == message.size() ||
        name.contains(' '))
      return false;
    StringRef line = message.drop_front(name.size() + 1);
    return !line.empty() && llvm::isDigit(line.front());
  }

  /// `file:line: ` of the first file location in `loc`, or nothing.
  static std::string sourceOf(Location loc) {
    std::string where;
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        where = (llvm::sys::path::filename(file.getFilename().getValue()) +
                 ":" + Twine(file.getLine()) + ": ")
                    .str();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return where;
  }

  Value constantString(Location loc, StringRef text) {
    return LLVM::AddressOfOp::create(
        b, loc, stringGlobal(b, module, loc, text, symbols));
  }

  /// The check's message reported with its values in it. The formatting is
  /// a function of its own, called with the values: its buffer is on that
  /// function's stack, not in the checked code's (which may be a parallel
  /// loop's body, where an alloca would pin a `memref.alloca_scope`).
  void reportFormatted(CheckOp check) {
    Location loc = check.getLoc();
    if (check.getValues().empty()) {
      report(loc, constantString(loc, check.getMessage()));
      return;
    }
    CheckOp::Pieces pieces = check.splitMessage();
    SmallVector<Value> values;
    for (unsigned ref : pieces.refs)
      values.push_back(asLongLong(loc, check.getValues()[ref]));
    func::FuncOp format =
        formatter(loc, printfFormat(pieces), values.size());
    func::CallOp::create(b, loc, format, values);
  }

  /// `func.func private @linea_check_failure(i64...)`: the check's message
  /// formatted with its arguments into a buffer, then reported.
  func::FuncOp formatter(Location loc, StringRef format, unsigned numValues) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    SmallVector<Type> types(numValues, b.getI64Type());
    auto function = func::FuncOp::create(b, loc, "linea_check_failure",
                                         b.getFunctionType(types, {}));
    function.setPrivate();
    symbols.insert(function); // made unique
    b.setInsertionPointToStart(function.addEntryBlock());
    Value bytes = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                           b.getI64IntegerAttr(kMessageBytes));
    Value buffer = LLVM::AllocaOp::create(b, loc, ptr(), b.getI8Type(), bytes);
    SmallVector<Value> arguments = {buffer, bytes,
                                    constantString(loc, format)};
    llvm::append_range(arguments, function.getArguments());
    LLVM::CallOp::create(b, loc, snprintf, arguments);
    report(loc, buffer);
    func::ReturnOp::create(b, loc);
    return function;
  }

  /// An index or integer value as the `long long` of `%lld` (signed).
  Value asLongLong(Location loc, Value value) {
    Type i64 = b.getI64Type();
    if (value.getType().isIndex())
      return arith::IndexCastOp::create(b, loc, i64, value);
    unsigned width = value.getType().getIntOrFloatBitWidth();
    if (width < 64)
      return arith::ExtSIOp::create(b, loc, i64, value);
    if (width > 64)
      return arith::TruncIOp::create(b, loc, i64, value);
    return value;
  }

  /// The C library's functions the checks call: `snprintf` where one shows
  /// values, `puts` and `abort` without a handler.
  LogicalResult declareLibc(ArrayRef<Operation *> checks) {
    auto declare = [&](LLVM::LLVMFuncOp &function, StringRef name, Type result,
                       ArrayRef<Type> arguments, bool isVarArg = false) {
      FailureOr<LLVM::LLVMFuncOp> found = LLVM::lookupOrCreateFn(
          b, module, name, arguments, result, isVarArg);
      if (succeeded(found))
        function = *found;
      return found;
    };
    bool showsValues = llvm::any_of(checks, [](Operation *op) {
      if (auto assert = dyn_cast<cf::AssertOp>(op))
        return bool(comparisonOf(assert));
      auto check = dyn_cast<CheckOp>(op);
      return check && !check.getValues().empty();
    });
    if (showsValues && failed(declare(snprintf, "snprintf", b.getI32Type(),
                                      {ptr(), b.getI64Type(), ptr()},
                                      /*isVarArg=*/true)))
      return failure();
    if (callee)
      return success();
    // As upstream's cf.assert lowering declares them, so that both can call
    // the same declarations.
    FailureOr<LLVM::LLVMFuncOp> printString =
        LLVM::lookupOrCreatePrintStringFn(b, module, StringRef("puts"));
    if (failed(printString))
      return failure();
    puts = *printString;
    if (failed(declare(abort, "abort", voidType(), {})))
      return failure();
    return success();
  }

  /// `func.func private @HANDLER(!llvm.ptr)`, declared unless it exists with
  /// that type.
  func::FuncOp handlerDeclaration() {
    auto type = b.getFunctionType({ptr()}, {});
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
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto function = func::FuncOp::create(b, module.getLoc(), handler, type);
    function.setPrivate();
    symbols.insert(function);
    return function;
  }

  Type ptr() { return LLVM::LLVMPointerType::get(b.getContext()); }
  Type voidType() { return LLVM::LLVMVoidType::get(b.getContext()); }

  ModuleOp module;
  SymbolTable symbols;
  OpBuilder b;
  StringRef handler;
  func::FuncOp callee;
  LLVM::LLVMFuncOp snprintf, puts, abort;
};

struct RouteChecksPass
    : public linea::impl::LineaRouteChecksBase<RouteChecksPass> {
  using LineaRouteChecksBase::LineaRouteChecksBase;

  void runOnOperation() override {
    if (failed(CheckLowering(getOperation(), handler).run()))
      signalPassFailure();
  }
};

} // namespace
