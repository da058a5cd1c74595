//===- GPUMapping.cpp - what Linea's GPU mapping passes share -------------===//

#include "GPUMapping.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

/// Every placement is aligned for 16-byte vector accesses.
constexpr int64_t kAlignment = 16;

bool carriesMemref(Operation *op) {
  if (!op->hasTrait<OpTrait::IsTerminator>() && op->getNumRegions() == 0)
    return false;
  auto isMemref = [](Type t) { return isa<BaseMemRefType>(t); };
  return llvm::any_of(op->getOperandTypes(), isMemref) &&
         (op->hasTrait<OpTrait::IsTerminator>() ||
          llvm::any_of(op->getResultTypes(), isMemref));
}

LogicalResult planBlock(Block &block, int64_t base, linea::SharedMemoryPlan &plan,
                        Operation *&obstacle) {
  int64_t top = base;
  for (Operation &op : block) {
    if (carriesMemref(&op)) {
      obstacle = &op;
      return failure();
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat()) {
        obstacle = &op;
        return failure();
      }
      int64_t start = llvm::alignTo(top, kAlignment);
      plan.offsets[&op] = start;
      top = start + type.getNumElements() *
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      plan.bytes = std::max(plan.bytes, top);
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        if (failed(planBlock(nested, top, plan, obstacle)))
          return failure();
  }
  return success();
}

} // namespace

FailureOr<linea::SharedMemoryPlan>
linea::planSharedMemory(Block &body, Operation *&obstacle) {
  SharedMemoryPlan plan;
  if (failed(planBlock(body, 0, plan, obstacle)))
    return failure();
  return plan;
}

void linea::mapLoopTo(scf::ParallelOp loop,
                      ArrayRef<gpu::Processor> processors) {
  MLIRContext *ctx = loop.getContext();
  SmallVector<gpu::ParallelLoopDimMappingAttr> dims;
  for (unsigned i = 0; i < loop.getNumLoops(); ++i)
    dims.push_back(gpu::ParallelLoopDimMappingAttr::get(
        ctx, i < processors.size() ? processors[i] : gpu::Processor::Sequential,
        AffineMap::getMultiDimIdentityMap(1, ctx),
        AffineMap::getMultiDimIdentityMap(1, ctx)));
  (void)gpu::setMappingAttr(loop, dims);
}

bool linea::isMappedTo(scf::ParallelOp loop, gpu::Processor processor) {
  auto mapping = loop->getAttrOfType<ArrayAttr>(gpu::getMappingAttrName());
  if (!mapping || mapping.empty())
    return false;
  auto dim = dyn_cast<gpu::ParallelLoopDimMappingAttr>(mapping[0]);
  return dim && dim.getProcessor() == processor;
}

Value linea::viewRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}
