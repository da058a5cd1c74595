//===- SinkConstantGlobals.cpp - constant weights read on the device ------===//
//
// A model's constant weights are memref.globals the host fetches with
// memref.get_global; a gpu.launch that reads such a value would take the
// host's address as a kernel argument. Fetched inside the launch, the
// global is copied into the kernel's module by outlining and lives in
// device memory.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASINKCONSTANTGLOBALS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `value` is a host fetch of a constant global.
memref::GetGlobalOp constantFetch(Value value, SymbolTableCollection &symbols) {
  auto fetch = value.getDefiningOp<memref::GetGlobalOp>();
  if (!fetch)
    return nullptr;
  auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
      fetch, fetch.getNameAttr());
  return global && global.getConstant() ? fetch : nullptr;
}

/// Clones into `launch` each constant fetch its body reads from outside.
void sinkInto(gpu::LaunchOp launch, SymbolTableCollection &symbols) {
  Region &body = launch.getBody();
  OpBuilder b(launch.getContext());
  b.setInsertionPointToStart(&body.front());
  llvm::DenseMap<Value, Value> inside;
  body.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (body.isAncestor(value.getParentRegion()))
        continue;
      memref::GetGlobalOp fetch = constantFetch(value, symbols);
      if (!fetch)
        continue;
      Value &local = inside[value];
      if (!local)
        local = b.clone(*fetch)->getResult(0);
      operand.set(local);
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
