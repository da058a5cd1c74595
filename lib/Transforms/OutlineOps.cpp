//===- OutlineOps.cpp - each top-level Linea op in a function of its own --===//
//
// A model of many layers is one function; after lowering, one function with
// a loop nest per op. Bufferization's analyses and LLVM's -O3 grow faster
// than linearly with a function's size, so compiling a whole model took
// minutes. With each op in its own function every stage stays linear.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaDialect.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAOUTLINEOPS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

/// Puts top-level Linea ops into private functions of their own, one
/// function per distinct op: the layers of a model that repeat an op with
/// the same types and attributes share one function, compiled once.
class Outliner {
public:
  explicit Outliner(ModuleOp module) : module(module), symbols(module) {}

  /// Replaces `op` by a call. Constant operands are cloned into the
  /// function rather than passed, so that what folds on constants still
  /// folds. So are the slices it reads (`tensor.extract_slice`): the callee
  /// gets the whole tensor and the slice's offsets, because a view passed
  /// as an argument would be copied into a buffer of its own (function
  /// boundaries bufferize to identity layouts).
  void outline(Operation *op, func::FuncOp parent, unsigned index) {
    SmallVector<Value> arguments;
    SmallVector<Operation *> cloned; // constants first, then slices
    SmallVector<Operation *> slices;
    auto take = [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      if (producer && matchPattern(producer, m_Constant())) {
        if (!llvm::is_contained(cloned, producer))
          cloned.push_back(producer);
      } else if (!llvm::is_contained(arguments, operand)) {
        arguments.push_back(operand);
      }
    };
    for (Value operand : op->getOperands()) {
      auto slice = operand.getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice) {
        take(operand);
        continue;
      }
      if (!llvm::is_contained(slices, slice.getOperation()))
        slices.push_back(slice);
      for (Value sliceOperand : slice->getOperands())
        take(sliceOperand);
    }
    // What a region reads from above (a fold body's weights) is passed too.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      take(value);
    llvm::append_range(cloned, slices);
    func::FuncOp callee = createFunction(op, arguments, cloned);
    std::string key = bodyKey(callee);
    // A run-time check inserted later names its op's location: ops with
    // dynamic sizes (the ones that get checks) keep functions of their own.
    if (hasDynamicSizes(op))
      key += locationText(op->getLoc());
    auto [existing, isNew] = functions.try_emplace(key, callee);
    if (isNew) {
      callee.setName((parent.getName() + "__linea_" + Twine(index)).str());
      symbols.insert(callee); // renamed if the name is taken
    } else {
      callee.erase();
      callee = existing->second;
    }
    OpBuilder b(op);
    auto call = func::CallOp::create(b, op->getLoc(), callee, arguments);
    op->replaceAllUsesWith(call.getResults());
    op->erase();
  }

private:
  func::FuncOp createFunction(Operation *op, ArrayRef<Value> arguments,
                              ArrayRef<Operation *> producers) {
    OpBuilder b(op->getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto type = b.getFunctionType(ValueRange(arguments).getTypes(),
                                  op->getResultTypes());
    auto callee = func::FuncOp::create(b, op->getLoc(), "", type);
    callee.setPrivate();
    Block *body = callee.addEntryBlock();
    b.setInsertionPointToStart(body);
    IRMapping mapping;
    mapping.map(arguments, body->getArguments());
    for (Operation *producer : producers)
      b.clone(*producer, mapping);
    Operation *moved = b.clone(*op, mapping);
    func::ReturnOp::create(b, op->getLoc(), moved->getResults());
    return callee;
  }

  static bool hasDynamicSizes(Operation *op) {
    auto dynamic = [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && !shaped.hasStaticShape();
    };
    return llvm::any_of(op->getOperandTypes(), dynamic) ||
           llvm::any_of(op->getResultTypes(), dynamic) ||
           llvm::any_of(op->getOperandTypes(),
                        [](Type type) { return type.isIndex(); });
  }

  static std::string locationText(Location loc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << loc;
    return text;
  }

  /// The function as text without its name or locations: equal keys,
  /// interchangeable functions.
  static std::string bodyKey(func::FuncOp callee) {
    std::string text;
    llvm::raw_string_ostream os(text);
    callee->print(os, OpPrintingFlags().printGenericOpForm());
    return text;
  }

  ModuleOp module;
  SymbolTable symbols;
  llvm::StringMap<func::FuncOp> functions;
};

/// Linea ops, and the tensor computations between them (a residual add,
/// a projection): in one function, those grow the caller's bufferization
/// faster than linearly too.
bool isOutlined(Operation *op) {
  // A run-time check stays with the op it guards' caller: it is a compare.
  if (isa<CheckOp>(op))
    return false;
  if (isa_and_nonnull<LineaDialect>(op->getDialect()))
    return true;
  bool tensorResult = llvm::any_of(op->getResultTypes(), [](Type type) {
    return isa<RankedTensorType>(type);
  });
  return tensorResult && op->getNumRegions() == 0 &&
         (op->hasTrait<OpTrait::Elementwise>() || isa<linalg::LinalgOp>(op)) &&
         !matchPattern(op, m_Constant());
}

struct OutlineOpsPass
    : public linea::impl::LineaOutlineOpsBase<OutlineOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Outliner outliner(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      SmallVector<Operation *> ops;
      for (Block &block : function.getBody())
        for (Operation &op : block)
          if (isOutlined(&op))
            ops.push_back(&op);
      for (auto [index, op] : llvm::enumerate(ops))
        outliner.outline(op, function, index);
    }
  }
};

} // namespace
