//===- GPUMapping.cpp - what Linea's GPU mapping passes share -------------===//

#include "GPUMapping.h"
#include "linea/Dialect/LineaOps.h"

#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// Whether some op in `forall` writes to `root` or a view of it.
bool writesTo(scf::ForallOp forall, Value root) {
  WalkResult walk = forall.getBody()->walk([&](MemoryEffectOpInterface op) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    op.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue() &&
          linea::viewRoot(effect.getValue()) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// A scalar load of a buffer from outside the block (a packed op's segment
/// offsets) that no thread of the block writes: every thread reads the same
/// element, and no barrier is needed.
bool readsOutsideTheBlock(Operation *op, scf::ForallOp forall) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load)
    return false;
  Value root = linea::viewRoot(load.getMemRef());
  return !forall->isAncestor(root.getParentBlock()->getParentOp()) &&
         !writesTo(forall, root);
}

} // namespace

FailureOr<linea::SharedMemoryPlan>
linea::planSharedMemory(Block &body, Operation *&obstacle) {
  SharedMemoryPlan plan;
  if (failed(planBlock(body, 0, plan, obstacle)))
    return failure();
  return plan;
}

FailureOr<int64_t> linea::sequenceBlockBytes(scf::ForallOp forall,
                                             Operation *&obstacle) {
  WalkResult walk =
      forall.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        // Linalg ops and thread loops (tensor-core tiles) are spread over
        // the block's threads.
        if (isa<memref::AllocOp, memref::DeallocOp, linalg::LinalgOp,
                scf::ParallelOp>(op))
          return WalkResult::skip();
        if (isa<scf::ForOp, scf::WhileOp, scf::ConditionOp, scf::IfOp,
                scf::YieldOp, scf::InParallelOp>(op) ||
            isPure(op) || readsOutsideTheBlock(op, forall))
          return WalkResult::advance();
        obstacle = op;
        return WalkResult::interrupt();
      });
  if (walk.wasInterrupted())
    return failure();
  FailureOr<SharedMemoryPlan> plan =
      planSharedMemory(*forall.getBody(), obstacle);
  if (failed(plan))
    return failure();
  return plan->bytes;
}

SmallVector<Value> linea::parallelLoop(OpBuilder &b, Location loc,
                                       ArrayRef<int64_t> sizes,
                                       ArrayRef<gpu::Processor> processors) {
  return parallelLoop(b, loc, getAsIndexOpFoldResult(b.getContext(), sizes),
                      processors);
}

SmallVector<Value> linea::parallelLoop(OpBuilder &b, Location loc,
                                       ArrayRef<OpFoldResult> sizes,
                                       ArrayRef<gpu::Processor> processors) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lower, upper, steps;
  SmallVector<gpu::Processor> mapped;
  SmallVector<bool> kept;
  for (auto [k, size] : llvm::enumerate(sizes)) {
    bool last = k + 1 == sizes.size();
    kept.push_back(!isOneInteger(size) || (last && mapped.empty()));
    if (!kept.back())
      continue;
    lower.push_back(zero);
    upper.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    steps.push_back(one);
    mapped.push_back(processors[k]);
  }
  auto loop = scf::ParallelOp::create(b, loc, lower, upper, steps);
  mapLoopTo(loop, mapped);
  b.setInsertionPointToStart(loop.getBody());
  // (getInductionVars returns a vector by value: held here, not iterated
  // as a temporary.)
  SmallVector<Value> inductionVars = loop.getInductionVars();
  SmallVector<Value> ids;
  auto next = inductionVars.begin();
  for (bool isKept : kept)
    ids.push_back(isKept ? *next++ : zero);
  return ids;
}

bool linea::runsAsOneBlock(
    scf::ForallOp forall, int64_t sharedMemory,
    function_ref<void(Operation *obstacle, int64_t bytes, int64_t budget)>
        whyNot) {
  Operation *obstacle = nullptr;
  if (!isSequenceBlockLoop(forall))
    return false;
  FailureOr<int64_t> bytes = sequenceBlockBytes(forall, obstacle);
  if (succeeded(bytes) && *bytes <= sharedMemory)
    return true;
  if (whyNot)
    whyNot(obstacle, succeeded(bytes) ? *bytes : 0, sharedMemory);
  return false;
}

FailureOr<linea::BlockLimits>
linea::blockLimits(Operation *root, StringRef pass, int64_t blockSize) {
  if (blockSize < 0 || blockSize > kMaxThreadsPerBlock)
    return root->emitError() << pass << " needs a block-size in [1, "
                             << kMaxThreadsPerBlock
                             << "] (or 0: the target's), got " << blockSize;
  FailureOr<TargetDescription> gpu = targetFor(root, TargetKind::gpu, pass);
  if (failed(gpu))
    return failure();
  return BlockLimits{blockSize > 0 ? blockSize : gpu->threadsPerBlock,
                     gpu->sharedMemoryPerBlock, *gpu};
}

int64_t linea::elementsPerCopyLine(Type type) {
  int64_t bits = type.getIntOrFloatBitWidth();
  if (bits == 0 || bits % 8 || kCopyBytes % (bits / 8))
    return 0;
  return kCopyBytes / (bits / 8);
}

bool linea::inCopyLines(MemRefType type, bool anyOffset) {
  int64_t perLine = elementsPerCopyLine(type.getElementType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!perLine || failed(type.getStridesAndOffset(strides, offset)) ||
      strides.empty() || strides.back() != 1 ||
      ShapedType::isDynamic(type.getShape().back()) ||
      type.getShape().back() % perLine)
    return false;
  if (!anyOffset && (ShapedType::isDynamic(offset) || offset % perLine))
    return false;
  return llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t stride) {
    return !ShapedType::isDynamic(stride) && stride % perLine == 0;
  });
}

Value linea::startsOnCopyLine(OpBuilder &b, Location loc, Value memref) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  int64_t elementBytes =
      cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
  Value start = arith::AddIOp::create(
      b, loc, pointer,
      arith::MulIOp::create(b, loc, metadata.getOffset(), cst(elementBytes)));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, start, cst(kCopyBytes)), cst(0));
}

Value linea::rowsOnCopyLines(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t perLine = elementsPerCopyLine(type.getElementType());
  Value aligned = startsOnCopyLine(b, loc, memref);
  if (!perLine)
    return arith::ConstantIntOp::create(b, loc, 0, 1);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value line = arith::ConstantIndexOp::create(b, loc, perLine);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  aligned = arith::AndIOp::create(
      b, loc, aligned,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            metadata.getStrides().back(),
                            arith::ConstantIndexOp::create(b, loc, 1)));
  for (Value stride : metadata.getStrides().drop_back())
    aligned = arith::AndIOp::create(
        b, loc, aligned,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, stride, line),
                              zero));
  return aligned;
}

Value linea::workgroupView(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return memref::MemorySpaceCastOp::create(
      b, loc,
      MemRefType::get(type.getShape(), type.getElementType(), type.getLayout(),
                      workgroup),
      memref);
}

void linea::copyLineAsync(OpBuilder &b, Location loc, Value shared,
                          ValueRange sharedIndices, Value source,
                          ValueRange sourceIndices, Value line, int64_t lines,
                          int64_t threads, Value sourceElements) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t perLine =
      elementsPerCopyLine(cast<MemRefType>(shared.getType()).getElementType());
  Value token = nvgpu::DeviceAsyncCopyOp::create(
      b, loc, shared, sharedIndices, source, sourceIndices,
      b.getIndexAttr(perLine), sourceElements, b.getUnitAttr());
  Value group =
      nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, ValueRange{token});
  Value last = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge,
      arith::AddIOp::create(b, loc, line, cst(threads)), cst(lines));
  auto wait = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(wait.thenBlock()->getTerminator());
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group, b.getI32IntegerAttr(0));
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

bool linea::bufferEffects(Operation *op, llvm::SmallPtrSetImpl<Value> &reads,
                          llvm::SmallPtrSetImpl<Value> &writes) {
  WalkResult walk = op->walk([&](Operation *nested) {
    // (A linalg op reports its operands' effects and has its body's too.)
    auto interface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!interface)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || !isa<BaseMemRefType>(value.getType()))
        return WalkResult::interrupt();
      (isa<MemoryEffects::Read>(effect.getEffect()) ? reads : writes)
          .insert(linea::viewRoot(value));
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

void linea::forEachHostAccess(
    Operation *root, function_ref<void(Operation *, Value)> access) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (isa<nvgpu::TmaCreateDescriptorOp>(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          access(op, viewRoot(operand));
      return WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances)
      if (Value value = effect.getValue();
          value && isa<BaseMemRefType>(value.getType()) &&
          isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
        access(op, viewRoot(value));
    return WalkResult::advance();
  });
}

/// The function arguments that hold the caller's tensors: every buffer
/// argument of a public function, and the arguments of private ones (the
/// ops linea-outline-ops made functions) that some call passes one of those
/// to, or a view of one. Other arguments are Linea's own allocations
/// (managed memory) or host bookkeeping (the deallocation helper's tables).
DenseSet<Value> linea::callerBuffers(ModuleOp module) {
  DenseSet<Value> device;
  SmallVector<Value> worklist;
  auto mark = [&](Value v) {
    if (isa<BaseMemRefType>(v.getType()) && device.insert(v).second)
      worklist.push_back(v);
  };
  module.walk([&](FunctionOpInterface f) {
    if (f.isPublic() && !f.isExternal())
      for (BlockArgument arg : f.getArguments())
        mark(arg);
  });
  SymbolTableCollection symbols;
  SmallVector<CallOpInterface> calls;
  module.walk([&](CallOpInterface call) { calls.push_back(call); });
  while (!worklist.empty()) {
    worklist.clear();
    for (CallOpInterface call : calls) {
      auto callee = dyn_cast_or_null<FunctionOpInterface>(
          call.resolveCallableInTable(&symbols));
      if (!callee || callee.isExternal())
        continue;
      for (auto [k, operand] : llvm::enumerate(call.getArgOperands()))
        if (k < callee.getNumArguments() &&
            device.contains(linea::viewRoot(operand)))
          mark(callee.getArgument(k));
    }
  }
  return device;
}
