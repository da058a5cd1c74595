//===- EmulateGpuThreads.cpp - GPU-mapped loops on CPU threads ------------===//
//
// linea-gpu-mapped-to-cpu checks the GPU kernels on the CPU. Running a
// launch's threads one after the other is exact for a kernel whose threads
// never meet; a sequence block's threads meet at the barriers between its
// ops, a staged grid's in the middle of its loop, and the lanes of a warp
// trade registers inside ldmatrix and mma.sync. Such a launch's block runs
// here as an OpenMP team of one thread per GPU thread, the warp
// instructions calling Linea's emulation library
// (runtime/LineaGpuEmulation.cpp), which knows PTX's fragment layouts;
// everything else stays the code the GPU would run.
//
//===----------------------------------------------------------------------===//

#include "linea/CPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEMULATEGPUTHREADS
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `op` only works with its warp's or block's threads running
/// alongside it.
bool needsTeam(Operation *op) {
  return isa<gpu::BarrierOp, nvgpu::LdMatrixOp, NVVM::MmaOp>(op);
}

/// Declares (once) and calls `name(args) -> results` of the emulation
/// library or the OpenMP runtime.
ValueRange callRuntime(OpBuilder &b, Location loc, StringRef name,
                       ValueRange args, TypeRange results = {}) {
  auto module = b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto decl = func::FuncOp::create(
        top, loc, name, top.getFunctionType(args.getTypes(), results));
    decl.setPrivate();
  }
  return func::CallOp::create(b, loc, name, results, args).getResults();
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// The address of `memref[indices]` as an i64.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value bytes = arith::MulIOp::create(
      b, loc, linear,
      arith::ConstantIndexOp::create(b, loc,
                                     type.getElementTypeBitWidth() / 8));
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return toI64(b, loc, arith::AddIOp::create(b, loc, base, bytes));
}

Value bufferAddress(OpBuilder &b, Location loc, Value buffer) {
  return toI64(b, loc,
               memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
}

/// The per-thread buffers the warp instructions pass their registers in,
/// allocated once at the top of the team's body.
struct LaneScratch {
  Value a, b, c;        // mma.sync: 4 x i32, 2 x i32, 4 x f32
  DenseMap<Type, Value> tiles; // ldmatrix: 8 x the 16-bit type
};

/// Rewrites the warp instructions and barriers of a team's body (thread
/// `thread`, an i64) into calls of the emulation library.
class TeamBody {
public:
  TeamBody(Block &body, Value thread) : body(body), thread(thread) {}

  LogicalResult rewrite() {
    SmallVector<Operation *> ops;
    body.walk([&](Operation *op) {
      if (needsTeam(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      LogicalResult done =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](gpu::BarrierOp barrier) {
                callRuntime(b, barrier.getLoc(), "linea_gpu_emu_barrier",
                            thread);
                barrier.erase();
                return success();
              })
              .Case([&](nvgpu::LdMatrixOp load) { return ldmatrix(b, load); })
              .Case([&](NVVM::MmaOp mma) { return mmaSync(b, mma); });
      if (failed(done))
        return failure();
    }
    return success();
  }

private:
  Value scratch(MemRefType type) {
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    return memref::AllocaOp::create(b, body.getParentOp()->getLoc(), type);
  }

  LogicalResult ldmatrix(OpBuilder &b, nvgpu::LdMatrixOp load) {
    Location loc = load.getLoc();
    auto result = cast<VectorType>(load.getRes().getType());
    Type element = result.getElementType();
    Value &tiles = lanes.tiles[element];
    if (!tiles)
      tiles = scratch(MemRefType::get({8}, element));
    Value row = elementAddress(b, loc, load.getSrcMemref(), load.getIndices());
    callRuntime(b, loc, "linea_gpu_emu_ldmatrix",
                {thread, constantI64(b, loc, load.getNumTiles()),
                 constantI64(b, loc, load.getTranspose()), row,
                 bufferAddress(b, loc, tiles)});
    auto flat = VectorType::get({result.getNumElements()}, element);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value values = vector::LoadOp::create(b, loc, flat, tiles, zero);
    load.replaceAllUsesWith(
        vector::ShapeCastOp::create(b, loc, result, values).getResult());
    load.erase();
    return success();
  }

  /// Stores `values` (each 32 bits) into `buffer` as `element`s.
  void storeRegisters(OpBuilder &b, Location loc, ValueRange values,
                      Value buffer, Type element) {
    for (auto [k, value] : llvm::enumerate(values)) {
      if (value.getType() != element)
        value = LLVM::BitcastOp::create(b, loc, element, value);
      memref::StoreOp::create(b, loc, value, buffer,
                              arith::ConstantIndexOp::create(b, loc, k)
                                  .getResult());
    }
  }

  LogicalResult mmaSync(OpBuilder &b, NVVM::MmaOp mma) {
    Location loc = mma.getLoc();
    std::optional<NVVM::MMATypes> operandType = mma.getMultiplicandAPtxType();
    if (!operandType) {
      auto pair = dyn_cast<VectorType>(mma.getOperandA()[0].getType());
      if (pair && pair.getElementType().isF16())
        operandType = NVVM::MMATypes::f16;
    }
    NVVM::MMAShapeAttr shape = mma.getShape();
    auto result = dyn_cast<LLVM::LLVMStructType>(mma.getRes().getType());
    bool f32Accumulator =
        result && result.getBody().size() == 4 &&
        llvm::all_of(result.getBody(), [](Type t) { return t.isF32(); });
    if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != 16 ||
        mma.getLayoutA() != NVVM::MMALayout::row ||
        mma.getLayoutB() != NVVM::MMALayout::col || !f32Accumulator ||
        !operandType ||
        (*operandType != NVVM::MMATypes::f16 &&
         *operandType != NVVM::MMATypes::bf16) ||
        mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
        mma.getOperandC().size() != 4)
      return mma.emitOpError(
          "cannot be emulated: only m16n8k16 row.col with f16/bf16 "
          "operands and f32 accumulators is");
    if (!lanes.a) {
      lanes.a = scratch(MemRefType::get({4}, b.getI32Type()));
      lanes.b = scratch(MemRefType::get({2}, b.getI32Type()));
      lanes.c = scratch(MemRefType::get({4}, b.getF32Type()));
    }
    storeRegisters(b, loc, mma.getOperandA(), lanes.a, b.getI32Type());
    storeRegisters(b, loc, mma.getOperandB(), lanes.b, b.getI32Type());
    storeRegisters(b, loc, mma.getOperandC(), lanes.c, b.getF32Type());
    bool bf16 = *operandType == NVVM::MMATypes::bf16;
    callRuntime(b, loc, "linea_gpu_emu_mma_m16n8k16",
                {thread, constantI64(b, loc, bf16),
                 bufferAddress(b, loc, lanes.a), bufferAddress(b, loc, lanes.b),
                 bufferAddress(b, loc, lanes.c)});
    Value d = LLVM::UndefOp::create(b, loc, result);
    for (int64_t k = 0; k < 4; ++k) {
      Value element = memref::LoadOp::create(
          b, loc, lanes.c, arith::ConstantIndexOp::create(b, loc, k).getResult());
      d = LLVM::InsertValueOp::create(b, loc, d, element, k);
    }
    mma.replaceAllUsesWith(d);
    mma.erase();
    return success();
  }

  Block &body;
  Value thread;
  LaneScratch lanes;
};

/// The thread ids of a block of `sizes` (x fastest, as the GPU numbers its
/// threads) from the linear index `linear`.
SmallVector<Value, 3> delinearize(OpBuilder &b, Location loc, Value linear,
                                  const gpu::KernelDim3 &sizes) {
  Value x = arith::RemUIOp::create(b, loc, linear, sizes.x);
  Value rest = arith::DivUIOp::create(b, loc, linear, sizes.x);
  Value y = arith::RemUIOp::create(b, loc, rest, sizes.y);
  Value z = arith::DivUIOp::create(b, loc, rest, sizes.y);
  return {x, y, z};
}

/// Loops over z, y, x of `sizes` (x innermost), the builder in the body;
/// returns the x, y, z indices.
SmallVector<Value, 3> loopNest(OpBuilder &b, Location loc,
                               const gpu::KernelDim3 &sizes) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value, 3> ids(3);
  Value bounds[] = {sizes.z, sizes.y, sizes.x};
  for (int64_t d = 0; d < 3; ++d) {
    auto loop = scf::ForOp::create(b, loc, zero, bounds[d], one);
    b.setInsertionPointToStart(loop.getBody());
    ids[2 - d] = loop.getInductionVar();
  }
  return ids;
}

/// Opens an OpenMP team of `count` threads (the block) at `b`, placed
/// before its terminator; returns the member's index (i64, as the
/// emulation library takes it).
Value openTeam(OpBuilder &b, Location loc, Value count) {
  callRuntime(b, loc, "linea_gpu_emu_begin_block", toI64(b, loc, count));
  omp::ParallelOperands clauses;
  clauses.numThreads =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), count);
  auto team = omp::ParallelOp::create(b, loc, clauses);
  Block *body = b.createBlock(&team.getRegion());
  b.setInsertionPointToStart(body);
  auto terminator = omp::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);
  Value member = callRuntime(b, loc, "omp_get_thread_num", {},
                             b.getI32Type())[0];
  Value members = callRuntime(b, loc, "omp_get_num_threads", {},
                              b.getI32Type())[0];
  Value thread = arith::ExtSIOp::create(b, loc, b.getI64Type(), member);
  callRuntime(b, loc, "linea_gpu_emu_join",
              {thread, arith::ExtSIOp::create(b, loc, b.getI64Type(), members)});
  return thread;
}

/// `launch` on the CPU: its blocks in order; its threads a team where its
/// body has barriers or warp instructions, loops otherwise; its dynamic
/// shared memory one buffer for the launch (one block runs at a time).
LogicalResult emulateLaunch(gpu::LaunchOp launch) {
  if (!launch.getBody().hasOneBlock() || launch.getAsyncToken() ||
      !launch.getAsyncDependencies().empty() || launch.hasClusterSize() ||
      launch.getNumWorkgroupAttributions() ||
      launch.getNumPrivateAttributions())
    return launch.emitOpError(
        "cannot be emulated: only a synchronous launch of one block of code, "
        "without clusters or attributions, is");
  Location loc = launch.getLoc();
  OpBuilder b(launch);
  Value shared;
  if (Value bytes = launch.getDynamicSharedMemorySize()) {
    auto type = MemRefType::get(
        {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
    shared = memref::AllocOp::create(
        b, loc, type,
        ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), bytes)},
        b.getI64IntegerAttr(16));
    OpBuilder after(launch->getContext());
    after.setInsertionPointAfter(launch);
    memref::DeallocOp::create(after, loc, shared);
  }
  gpu::KernelDim3 threads = launch.getBlockSizeOperandValues();
  SmallVector<Value, 3> blockIds =
      loopNest(b, loc, launch.getGridSizeOperandValues());

  Block &body = launch.getBody().front();
  bool team = false;
  body.walk([&](Operation *op) { team |= needsTeam(op); });
  SmallVector<Value, 3> threadIds;
  Value thread;
  if (team) {
    Value count = arith::MulIOp::create(
        b, loc, threads.x, arith::MulIOp::create(b, loc, threads.y, threads.z));
    thread = openTeam(b, loc, count);
    threadIds = delinearize(
        b, loc, arith::IndexCastOp::create(b, loc, b.getIndexType(), thread),
        threads);
  } else {
    threadIds = loopNest(b, loc, threads);
  }

  // The body where the builder is, its ids and sizes replaced.
  gpu::KernelDim3 sizes[] = {launch.getGridSize(), launch.getBlockSize()};
  gpu::KernelDim3 operands[] = {launch.getGridSizeOperandValues(), threads};
  for (auto [args, values] : llvm::zip(sizes, operands)) {
    args.x.replaceAllUsesWith(values.x);
    args.y.replaceAllUsesWith(values.y);
    args.z.replaceAllUsesWith(values.z);
  }
  gpu::KernelDim3 ids[] = {launch.getBlockIds(), launch.getThreadIds()};
  ArrayRef<Value> idValues[] = {blockIds, threadIds};
  for (auto [args, values] : llvm::zip(ids, idValues)) {
    args.x.replaceAllUsesWith(values[0]);
    args.y.replaceAllUsesWith(values[1]);
    args.z.replaceAllUsesWith(values[2]);
  }
  body.getTerminator()->erase();
  Block *into = b.getInsertionBlock();
  into->getOperations().splice(b.getInsertionPoint(), body.getOperations());
  launch.erase();

  WalkResult unknown = into->walk([&](gpu::DynamicSharedMemoryOp op) {
    if (!shared || op.getType() != shared.getType()) {
      op.emitOpError("has no dynamic shared memory of its type to stand for");
      return WalkResult::interrupt();
    }
    op.replaceAllUsesWith(shared);
    op.erase();
    return WalkResult::advance();
  });
  if (unknown.wasInterrupted())
    return failure();
  if (!team)
    return success();
  return TeamBody(*into, thread).rewrite();
}

/// `nvgpu.device_async_copy` as an element-by-element copy now (zero past
/// its source elements); its groups and waits have nothing left to do.
LogicalResult copyAtOnce(nvgpu::DeviceAsyncCopyOp copy) {
  for (Operation *group : llvm::make_early_inc_range(copy->getUsers())) {
    if (!isa<nvgpu::DeviceAsyncCreateGroupOp>(group))
      return copy.emitOpError("has a token used by ")
             << group->getName() << "; the emulation knows groups only";
    for (Operation *wait : llvm::make_early_inc_range(group->getUsers())) {
      if (!isa<nvgpu::DeviceAsyncWaitOp>(wait))
        return group->emitOpError("has a token used by ")
               << wait->getName() << "; the emulation knows waits only";
      wait->erase();
    }
    group->erase();
  }
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value elements = arith::ConstantIndexOp::create(
      b, loc, copy.getDstElementsAttr().getInt());
  auto loop = scf::ForOp::create(b, loc, zero, elements, one);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  auto shifted = [&](ValueRange indices) {
    SmallVector<Value> at(indices.begin(), indices.end());
    at.back() = arith::AddIOp::create(b, loc, at.back(), k);
    return at;
  };
  auto load = [&](OpBuilder &at) -> Value {
    return memref::LoadOp::create(at, loc, copy.getSrc(),
                                  shifted(copy.getSrcIndices()));
  };
  Value value;
  if (Value available = copy.getSrcElements()) {
    Type element = copy.getDst().getType().getElementType();
    Value inSource = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, k, available);
    value = scf::IfOp::create(
                b, loc, inSource,
                [&](OpBuilder &then, Location at) {
                  scf::YieldOp::create(then, at, load(then));
                },
                [&](OpBuilder &otherwise, Location at) {
                  scf::YieldOp::create(
                      otherwise, at,
                      arith::ConstantOp::create(
                          otherwise, at, otherwise.getZeroAttr(element))
                          .getResult());
                })
                .getResult(0);
  } else {
    value = load(b);
  }
  memref::StoreOp::create(b, loc, value, copy.getDst(),
                          shifted(copy.getDstIndices()));
  copy.erase();
  return success();
}

MemRefType inPlainMemory(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

bool inGpuMemorySpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && isa_and_nonnull<gpu::AddressSpaceAttr>(memref.getMemorySpace());
}

/// Workgroup (and any GPU) memory as plain memory: types rewritten in
/// place, casts into such memory dropped.
void dropGpuMemorySpaces(ModuleOp module) {
  module.walk([](Operation *op) {
    if (auto global = dyn_cast<memref::GlobalOp>(op))
      if (inGpuMemorySpace(global.getType()))
        global.setType(inPlainMemory(global.getType()));
    for (Value result : op->getResults())
      if (inGpuMemorySpace(result.getType()))
        result.setType(inPlainMemory(cast<MemRefType>(result.getType())));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (inGpuMemorySpace(arg.getType()))
            arg.setType(inPlainMemory(cast<MemRefType>(arg.getType())));
  });
  module.walk([](memref::MemorySpaceCastOp cast) {
    if (cast.getSource().getType() == cast.getResult().getType()) {
      cast.getResult().replaceAllUsesWith(cast.getSource());
      cast.erase();
    }
  });
}

struct LineaEmulateGpuThreadsPass
    : linea::impl::LineaEmulateGpuThreadsBase<LineaEmulateGpuThreadsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
    module.walk([&](nvgpu::DeviceAsyncCopyOp copy) { copies.push_back(copy); });
    for (nvgpu::DeviceAsyncCopyOp copy : copies)
      if (failed(copyAtOnce(copy)))
        return signalPassFailure();

    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch)))
        return signalPassFailure();

    WalkResult outside = module.walk([](Operation *op) {
      if (!needsTeam(op) && !isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("is outside a launch or not one the emulation knows");
      return WalkResult::interrupt();
    });
    if (outside.wasInterrupted())
      return signalPassFailure();
    dropGpuMemorySpaces(module);
  }
};

} // namespace
