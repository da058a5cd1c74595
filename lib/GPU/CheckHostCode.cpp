//===- CheckHostCode.cpp - no device instructions on the host -------------===//
//
// Linea's GPU passes put barriers, ldmatrix, mma.sync and cp.async inside
// thread loops, which convert-parallel-loops-to-gpu turns into kernels by
// their mapping attributes. A loop that lost its mapping on the way stays a
// host loop with device instructions in it; this is where that is caught.
// So is host code that reads or writes an argument's buffer: the caller's
// tensors are device memory (Linea's own allocations are managed, and the
// host may touch those).
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACHECKHOSTCODE
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A GPU instruction, not host code. (Encoding a TMA tensor map is the
/// host's half of TMA: it stays.)
bool isDeviceInstruction(Operation *op) {
  Dialect *dialect = op->getDialect();
  return isa<gpu::BarrierOp>(op) ||
         (dialect && isa<nvgpu::NVGPUDialect, NVVM::NVVMDialect>(dialect) &&
          !isa<nvgpu::TmaCreateDescriptorOp>(op));
}

/// The caller's buffer `op` reads or writes elements of, if any.
Value accessedCallerBuffer(Operation *op, const DenseSet<Value> &device) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return {};
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value value = effect.getValue();
    if (!value || !isa<BaseMemRefType>(value.getType()) ||
        !isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
      continue;
    if (Value root = linea::viewRoot(value); device.contains(root))
      return root;
  }
  return {};
}

struct LineaCheckHostCodePass
    : linea::impl::LineaCheckHostCodeBase<LineaCheckHostCodePass> {
  void runOnOperation() override {
    bool clean = true;
    auto module = dyn_cast<ModuleOp>(getOperation());
    DenseSet<Value> device =
        module ? linea::callerBuffers(module) : DenseSet<Value>();
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isDeviceInstruction(op)) {
        op->emitOpError("is device code left on the host: its thread loop "
                        "did not become a kernel (a loop without a GPU "
                        "mapping)");
        clean = false;
      }
      if (Value argument = accessedCallerBuffer(op, device)) {
        op->emitOpError("accesses argument #")
            << cast<BlockArgument>(argument).getArgNumber()
            << " on the host, where it is the caller's device memory: the "
               "op did not become a kernel";
        clean = false;
      }
      return WalkResult::advance();
    });
    if (!clean)
      signalPassFailure();
  }
};

} // namespace
