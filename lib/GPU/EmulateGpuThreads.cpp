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

#include "linea/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEMULATEGPUTHREADS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `op` only works with its warp's or block's threads running
/// alongside it.
bool needsTeam(Operation *op) {
  return isa<gpu::BarrierOp, gpu::ShuffleOp, nvgpu::LdMatrixOp, NVVM::MmaOp,
             NVVM::WgmmaMmaAsyncOp, nvgpu::MBarrierCreateOp,
             nvgpu::MBarrierInitOp, nvgpu::MBarrierArriveExpectTxOp,
             nvgpu::MBarrierTryWaitParityOp, nvgpu::TmaAsyncLoadOp>(op);
}

/// The i64 handle of the emulation library's object (a tensor map, an
/// mbarrier group) that `value` stands for: values of those types are
/// replaced by handles, cast back to the type until their users are
/// rewritten too.
Value handleOf(Value value) {
  auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
  return cast && cast.getInputs().size() == 1 &&
                 cast.getInputs()[0].getType().isInteger(64)
             ? cast.getInputs()[0]
             : Value();
}

/// Replaces `op`'s one result by `handle`, cast to the result's type.
void replaceByHandle(OpBuilder &b, Operation *op, Value handle) {
  auto cast = UnrealizedConversionCastOp::create(
      b, op->getLoc(), op->getResult(0).getType(), handle);
  op->getResult(0).replaceAllUsesWith(cast.getResult(0));
  op->erase();
}

/// The ordering instructions around wgmma and TMA (register and proxy
/// fences, wgmma's groups, a tensor map's fence): the emulation runs each
/// wgmma and TMA load at once, so they order nothing.
bool ordersAsyncOps(Operation *op) {
  return isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
             NVVM::WgmmaWaitGroupSyncOp, NVVM::FenceProxyOp,
             nvgpu::TmaFenceOp>(op);
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
  Value accumulators;          // wgmma: up to 128 x f32
  Value coordinates;           // TMA loads: up to 5 x i64
};

/// Coordinates of a TMA load at most.
constexpr int64_t kMaxTmaRank = 5;

/// Accumulators of one thread in the largest wgmma (m64n256).
constexpr int64_t kMaxWarpgroupAccumulators = 128;

/// Rewrites the warp instructions and barriers of a team's body (thread
/// `thread`, an i64) into calls of the emulation library.
class TeamBody {
public:
  /// `sites` numbers the mbarrier groups the module creates.
  TeamBody(Block &body, Value thread, int64_t &sites)
      : body(body), thread(thread), sites(sites) {}

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
              .Case([&](gpu::ShuffleOp shuffle) {
                return shuffleXor(b, shuffle);
              })
              .Case([&](nvgpu::LdMatrixOp load) { return ldmatrix(b, load); })
              .Case([&](NVVM::MmaOp mma) { return mmaSync(b, mma); })
              .Case([&](NVVM::WgmmaMmaAsyncOp mma) {
                return warpgroupMma(b, mma);
              })
              .Case([&](nvgpu::MBarrierCreateOp create) {
                auto type = create.getBarriers().getType();
                Value group = callRuntime(
                    b, create.getLoc(), "linea_gpu_emu_mbarrier_group",
                    {constantI64(b, create.getLoc(), sites++),
                     constantI64(b, create.getLoc(), type.getNumBarriers())},
                    b.getI64Type())[0];
                replaceByHandle(b, create, group);
                return success();
              })
              .Case([&](nvgpu::MBarrierInitOp init) {
                return onBarrier(b, init, init.getBarriers(), init.getMbarId(),
                                 init.getPredicate(),
                                 "linea_gpu_emu_mbarrier_init",
                                 toI64(b, init.getLoc(), init.getCount()));
              })
              .Case([&](nvgpu::MBarrierArriveExpectTxOp arrive) {
                return onBarrier(b, arrive, arrive.getBarriers(),
                                 arrive.getMbarId(), arrive.getPredicate(),
                                 "linea_gpu_emu_mbarrier_arrive_expect_tx",
                                 toI64(b, arrive.getLoc(), arrive.getTxcount()));
              })
              .Case([&](nvgpu::MBarrierTryWaitParityOp wait) {
                return onBarrier(
                    b, wait, wait.getBarriers(), wait.getMbarId(), Value(),
                    "linea_gpu_emu_mbarrier_wait_parity",
                    arith::ExtUIOp::create(b, wait.getLoc(), b.getI64Type(),
                                           wait.getPhaseParity()));
              })
              .Case(
                  [&](nvgpu::TmaAsyncLoadOp load) { return tmaLoad(b, load); });
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

  /// `gpu.shuffle xor` of a 32 or 64-bit scalar across the whole warp
  /// (offset and width constants): every lane gets its partner's bits, and
  /// the partner is always inside the warp, so the shuffle is always valid.
  LogicalResult shuffleXor(OpBuilder &b, gpu::ShuffleOp shuffle) {
    Location loc = shuffle.getLoc();
    std::optional<int64_t> offset = getConstantIntValue(shuffle.getOffset());
    std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
    Type type = shuffle.getValue().getType();
    unsigned bitWidth = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
    if (shuffle.getMode() != gpu::ShuffleMode::XOR ||
        (bitWidth != 32 && bitWidth != 64) || !offset || *offset <= 0 ||
        *offset >= 32 || width != 32)
      return shuffle.emitOpError(
          "cannot be emulated: only a 32 or 64-bit xor shuffle over the "
          "whole warp by a constant offset is");
    Type bitsType = b.getIntegerType(bitWidth), i64 = b.getI64Type();
    Value bits = shuffle.getValue();
    if (bits.getType() != bitsType)
      bits = arith::BitcastOp::create(b, loc, bitsType, bits);
    if (bitWidth != 64)
      bits = arith::ExtUIOp::create(b, loc, i64, bits);
    Value received =
        callRuntime(b, loc, "linea_gpu_emu_shuffle_xor",
                    {thread, bits, constantI64(b, loc, *offset)}, i64)[0];
    if (bitWidth != 64)
      received = arith::TruncIOp::create(b, loc, bitsType, received);
    if (type != bitsType)
      received = arith::BitcastOp::create(b, loc, type, received);
    shuffle.getShuffleResult().replaceAllUsesWith(received);
    shuffle.getValid().replaceAllUsesWith(
        arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1).getResult());
    shuffle.erase();
    return success();
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

  /// wgmma m64nNk16 with f16/bf16 operands from shared memory and f32
  /// accumulators: the thread's accumulators go to the library in a
  /// scratch buffer with both descriptors, which it reads as the hardware
  /// would (runtime/LineaGpuEmulation.cpp).
  LogicalResult warpgroupMma(OpBuilder &b, NVVM::WgmmaMmaAsyncOp mma) {
    Location loc = mma.getLoc();
    auto result = cast<LLVM::LLVMStructType>(mma.getResults().getType());
    NVVM::MMAShapeAttr shape = mma.getShape();
    NVVM::WGMMATypes type = mma.getTypeA();
    bool f32Accumulator = llvm::all_of(
        result.getBody(), [](Type t) { return t.isF32(); });
    int64_t count = result.getBody().size();
    if (shape.getM() != 64 || shape.getK() != 16 ||
        count * 2 != shape.getN() || count > kMaxWarpgroupAccumulators ||
        type != mma.getTypeB() ||
        (type != NVVM::WGMMATypes::f16 && type != NVVM::WGMMATypes::bf16) ||
        mma.getTypeD() != NVVM::WGMMATypes::f32 || !f32Accumulator ||
        mma.getScaleD() != NVVM::WGMMAScaleOut::one ||
        mma.getScaleA() != NVVM::WGMMAScaleIn::one ||
        mma.getScaleB() != NVVM::WGMMAScaleIn::one)
      return mma.emitOpError(
          "cannot be emulated: only m64nNk16 with f16/bf16 operands, f32 "
          "accumulators and unit scales is");
    if (!lanes.accumulators)
      lanes.accumulators = scratch(
          MemRefType::get({kMaxWarpgroupAccumulators}, b.getF32Type()));
    SmallVector<Value> values;
    for (int64_t k = 0; k < count; ++k)
      values.push_back(
          LLVM::ExtractValueOp::create(b, loc, mma.getInouts(), k));
    storeRegisters(b, loc, values, lanes.accumulators, b.getF32Type());
    // A `col` A and a `row` B are the transposed (MN-major) reads.
    bool transposeA = mma.getLayoutA() == NVVM::MMALayout::col;
    bool transposeB = mma.getLayoutB() == NVVM::MMALayout::row;
    callRuntime(b, loc, "linea_gpu_emu_wgmma",
                {thread, constantI64(b, loc, shape.getN()),
                 constantI64(b, loc, type == NVVM::WGMMATypes::bf16),
                 constantI64(b, loc, transposeA),
                 constantI64(b, loc, transposeB), mma.getDescriptorA(),
                 mma.getDescriptorB(),
                 bufferAddress(b, loc, lanes.accumulators)});
    Value d = LLVM::UndefOp::create(b, loc, result);
    for (int64_t k = 0; k < count; ++k) {
      Value element = memref::LoadOp::create(
          b, loc, lanes.accumulators,
          arith::ConstantIndexOp::create(b, loc, k).getResult());
      d = LLVM::InsertValueOp::create(b, loc, d, element, k);
    }
    mma.replaceAllUsesWith(d);
    mma.erase();
    return success();
  }

  /// An mbarrier op (on barrier `index` of `group`) as a library call with
  /// one operand besides the barrier.
  LogicalResult onBarrier(OpBuilder &b, Operation *op, Value group,
                          Value index, Value predicate, StringRef function,
                          Value operand) {
    Value handle = handleOf(group);
    if (!handle || predicate)
      return op->emitOpError("cannot be emulated: only on a group of "
                             "nvgpu.mbarrier.create, without a predicate, is");
    Location loc = op->getLoc();
    callRuntime(b, loc, function, {handle, toI64(b, loc, index), operand});
    op->erase();
    return success();
  }

  /// A TMA load: done at once by the library, its coordinates in a
  /// per-thread scratch.
  LogicalResult tmaLoad(OpBuilder &b, nvgpu::TmaAsyncLoadOp load) {
    Location loc = load.getLoc();
    Value map = handleOf(load.getTensorMapDescriptor());
    Value group = handleOf(load.getBarriers());
    if (!map || !group || load.getMulticastMask() || load.getPredicate())
      return load.emitOpError(
          "cannot be emulated: only a load through a tensor map of "
          "nvgpu.tma.create.descriptor, completing on a group of "
          "nvgpu.mbarrier.create, without multicast or predicate, is");
    if (!lanes.coordinates)
      lanes.coordinates =
          scratch(MemRefType::get({kMaxTmaRank}, b.getI64Type()));
    SmallVector<Value> indices(load.getDst().getType().getRank(),
                               arith::ConstantIndexOp::create(b, loc, 0));
    storeRegisters(b, loc,
                   llvm::map_to_vector(load.getCoordinates(),
                                       [&](Value c) { return toI64(b, loc, c); }),
                   lanes.coordinates, b.getI64Type());
    callRuntime(b, loc, "linea_gpu_emu_tma_load",
                {map, elementAddress(b, loc, load.getDst(), indices), group,
                 toI64(b, loc, load.getMbarId()),
                 bufferAddress(b, loc, lanes.coordinates)});
    load.erase();
    return success();
  }

  Block &body;
  Value thread;
  int64_t &sites;
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

/// The shared memory of a launch whose body has wgmma, which names its
/// operands by shared-memory address: each workgroup global the body uses,
/// and `dynamic`, its dynamic shared memory (if any). Registered with the
/// library per block, so that it finds the buffer an address is in.
void registerSharedWindows(OpBuilder &b, Location loc, Block &body,
                           Value dynamic) {
  bool addressed = false;
  body.walk([&](NVVM::WgmmaMmaAsyncOp) { addressed = true; });
  if (!addressed)
    return;
  SmallVector<Value> buffers;
  if (dynamic)
    buffers.push_back(dynamic);
  llvm::SmallDenseSet<Attribute> globals;
  body.walk([&](memref::GetGlobalOp get) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        get.getType().getMemorySpace());
    if (space && space.getValue() == gpu::AddressSpace::Workgroup &&
        globals.insert(get.getNameAttr()).second)
      buffers.push_back(memref::GetGlobalOp::create(b, loc, get.getType(),
                                                    get.getNameAttr()));
  });
  for (Value buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    // Static globals, or the dynamic shared memory's i8 buffer.
    Value bytes =
        type.hasStaticShape()
            ? constantI64(b, loc, type.getNumElements() * elementBytes)
            : arith::MulIOp::create(
                  b, loc,
                  toI64(b, loc, memref::DimOp::create(b, loc, buffer, 0)),
                  constantI64(b, loc, elementBytes));
    callRuntime(b, loc, "linea_gpu_emu_shared_window",
                {bufferAddress(b, loc, buffer), bytes});
  }
}

/// Opens an OpenMP team of `count` threads (the block) at `b`, placed
/// before its terminator; returns the member's index (i64, as the
/// emulation library takes it). `launchBody` is the launch's, whose
/// shared memory `dynamic` is.
Value openTeam(OpBuilder &b, Location loc, Value count, Block &launchBody,
               Value dynamic) {
  callRuntime(b, loc, "linea_gpu_emu_begin_block", toI64(b, loc, count));
  registerSharedWindows(b, loc, launchBody, dynamic);
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
LogicalResult emulateLaunch(gpu::LaunchOp launch, int64_t &sites) {
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
    thread = openTeam(b, loc, count, body, shared);
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
  return TeamBody(*into, thread, sites).rewrite();
}

/// `nvgpu.tma.create.descriptor` on the host as a call of the emulation
/// library, which describes the tensor as the CUDA runtime would (the
/// same code) and copies its boxes in the emulated loads: the tensor's
/// first element, its sizes, strides and the box in a scratch.
LogicalResult emulateTensorMap(nvgpu::TmaCreateDescriptorOp create) {
  auto cast = create.getTensor().getDefiningOp<memref::CastOp>();
  auto ranked = cast ? dyn_cast<MemRefType>(cast.getSource().getType())
                     : MemRefType();
  if (!ranked)
    return create.emitOpError(
        "cannot be emulated: only a tensor cast from a ranked memref is");
  OpBuilder b(create);
  Location loc = create.getLoc();
  Value tensor = cast.getSource();
  int64_t rank = ranked.getRank();
  int64_t elementBytes = ranked.getElementTypeBitWidth() / 8;
  auto function = create->getParentOfType<func::FuncOp>();
  OpBuilder entry = OpBuilder::atBlockBegin(&function.getBody().front());
  Value fields = memref::AllocaOp::create(
      entry, loc, MemRefType::get({3 * rank}, b.getI64Type()));
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, tensor);
  SmallVector<Value> values;
  for (ValueRange group : {ValueRange(metadata.getSizes()),
                           ValueRange(metadata.getStrides()),
                           ValueRange(create.getBoxDimensions())})
    for (Value v : group)
      values.push_back(toI64(b, loc, v));
  for (auto [k, value] : llvm::enumerate(values))
    memref::StoreOp::create(b, loc, value, fields,
                            arith::ConstantIndexOp::create(b, loc, k)
                                .getResult());
  SmallVector<Value> origin(rank, arith::ConstantIndexOp::create(b, loc, 0));
  Value map = callRuntime(
      b, loc, "linea_gpu_emu_tensor_map",
      {constantI64(b, loc, rank), elementAddress(b, loc, tensor, origin),
       constantI64(b, loc, elementBytes),
       constantI64(b, loc,
                   static_cast<int64_t>(
                       create.getTensorMap().getType().getSwizzle())),
       bufferAddress(b, loc, fields)},
      b.getI64Type())[0];
  replaceByHandle(b, create, map);
  return success();
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

    SmallVector<nvgpu::TmaCreateDescriptorOp> maps;
    module.walk([&](nvgpu::TmaCreateDescriptorOp map) { maps.push_back(map); });
    for (nvgpu::TmaCreateDescriptorOp map : maps)
      if (failed(emulateTensorMap(map)))
        return signalPassFailure();
    module.walk([](Operation *op) {
      if (ordersAsyncOps(op))
        op->erase();
    });
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    int64_t sites = 0;
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch, sites)))
        return signalPassFailure();
    // The handles' casts back go, now that their users call the library.
    WalkResult unknownUse = module.walk([](UnrealizedConversionCastOp cast) {
      if (!handleOf(cast.getResult(0)) ||
          !isa<nvgpu::TensorMapDescriptorType, nvgpu::MBarrierGroupType>(
              cast.getResult(0).getType()))
        return WalkResult::advance();
      if (!cast.use_empty()) {
        (*cast->getUsers().begin())
            ->emitOpError("uses a tensor map or mbarrier group in a way the "
                          "emulation does not know");
        return WalkResult::interrupt();
      }
      cast.erase();
      return WalkResult::advance();
    });
    if (unknownUse.wasInterrupted())
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
