//===- SinkConstantGlobals.cpp - constant weights read on the device ------===//
//
// A model's constant weights are memref.globals the host fetches with
// memref.get_global (and may view: a bias split into heads); a gpu.launch
// that reads such a value would take the host's address as a kernel
// argument. Fetched (and viewed) inside the launch, the global is copied
// into the kernel's module by outlining and lives in device memory.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASINKCONSTANTGLOBALS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The ops that make `value` from a constant global, the fetch first: a
/// `memref.get_global` of a constant, then any views of it (a bias split
/// into heads by `memref.expand_shape`, a slice); empty where `value` is
/// not such a view.
SmallVector<Operation *> viewOfConstant(Value value,
                                        SymbolTableCollection &symbols) {
  SmallVector<Operation *> chain;
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    chain.push_back(view);
    value = view.getViewSource();
  }
  auto fetch = value.getDefiningOp<memref::GetGlobalOp>();
  if (!fetch)
    return {};
  auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
      fetch, fetch.getNameAttr());
  if (!global || !global.getConstant())
    return {};
  chain.push_back(fetch);
  return SmallVector<Operation *>(llvm::reverse(chain));
}

/// Clones into `launch` each constant (or view of one) its body reads from
/// outside; the views' other operands (sizes, offsets) stay the host's
/// values, which outlining passes as arguments.
void sinkInto(gpu::LaunchOp launch, SymbolTableCollection &symbols) {
  Region &body = launch.getBody();
  OpBuilder b(launch.getContext());
  b.setInsertionPointToStart(&body.front());
  IRMapping inside;
  body.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (body.isAncestor(value.getParentRegion()))
        continue;
      if (!inside.contains(value)) {
        SmallVector<Operation *> chain = viewOfConstant(value, symbols);
        if (chain.empty())
          continue;
        for (Operation *step : chain)
          if (!inside.contains(step->getResult(0)))
            b.clone(*step, inside);
      }
      operand.set(inside.lookup(value));
    }
  });
}

struct LineaSinkConstantGlobalsPass
    : linea::impl::LineaSinkConstantGlobalsBase<LineaSinkConstantGlobalsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    getOperation()->walk(
        [&](gpu::LaunchOp launch) { sinkInto(launch, symbols); });
  }
};

} // namespace
