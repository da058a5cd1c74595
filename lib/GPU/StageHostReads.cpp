//===- StageHostReads.cpp - the host's reads of device tensors, staged ----===//
//
// The caller's tensors are device memory, which host code cannot read. A
// packed op's run-time checks must: its offsets start at 0, never decrease
// and end at L, and each prefix length fits its segment, whatever kernels
// then do with them. So each argument the host reads element by element is
// copied once, at the function's start, into a buffer of Linea's own: the
// copy becomes a kernel (linea-map-to-gpu), the buffer managed memory
// (linea-host-shared-allocs), and the host waits for the copy before its
// first read (linea-async-launches). The offsets are N + 1 integers: the
// cost is one small launch and one wait per call.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASTAGEHOSTREADS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Host code: not in a linalg op (a kernel of its own), a thread loop or a
/// sequence block that runs as one GPU block. A sequence block whose
/// temporaries exceed the planned GPU's shared memory stays a host loop
/// around kernels (linea-map-to-gpu, the same runsAsOneBlock), and its
/// own reads are the host's; without a planned GPU every sequence block
/// counts as one block.
bool isOnTheHost(Operation *op) {
  if (op->getParentOfType<linalg::LinalgOp>() ||
      op->getParentOfType<scf::ParallelOp>())
    return false;
  linea::TargetAttr target = linea::plannedTarget(op);
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>())
    if (!target || target.getKind() != linea::TargetKind::gpu ||
        linea::runsAsOneBlock(forall,
                              target.getDescription().sharedMemoryPerBlock))
      return false;
  return true;
}

/// A buffer of Linea's own holding `argument`'s elements, copied at the
/// start of `function` and freed before each of its returns.
Value stageArgument(OpBuilder &b, func::FuncOp function, Value argument) {
  Location loc = argument.getLoc();
  auto type = cast<MemRefType>(argument.getType());
  b.setInsertionPointToStart(&function.getBody().front());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, argument, d));
  auto stagedType = MemRefType::get(type.getShape(), type.getElementType());
  Value staged = memref::AllocOp::create(b, loc, stagedType, sizes);
  linalg::CopyOp::create(b, loc, argument, staged);
  function.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    memref::DeallocOp::create(b, loc, staged);
  });
  return staged;
}

struct LineaStageHostReadsPass
    : linea::impl::LineaStageHostReadsBase<LineaStageHostReadsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseSet<Value> device = linea::callerBuffers(module);
    llvm::MapVector<Value, SmallVector<memref::LoadOp>> reads;
    module.walk([&](memref::LoadOp load) {
      Value memref = load.getMemref();
      if (device.contains(memref) && isOnTheHost(load) &&
          isa<func::FuncOp>(memref.getParentBlock()->getParentOp()))
        reads[memref].push_back(load);
    });
    OpBuilder b(&getContext());
    for (auto &[argument, loads] : reads) {
      auto function =
          cast<func::FuncOp>(argument.getParentBlock()->getParentOp());
      Value staged = stageArgument(b, function, argument);
      for (memref::LoadOp load : loads)
        load.getMemrefMutable().assign(staged);
    }
  }
};

} // namespace
