//===- SequenceBlocksToLaunch.cpp - sequence blocks -> gpu.launch ---------===//
//
// convert-parallel-loops-to-gpu handles a block loop whose thread loops are
// its direct children. A sequence block (an scf.forall mapped to GPU blocks)
// has its thread loops inside the sequential chunk loop, needing a barrier
// after each, and its temporaries belong in shared memory: that is this
// conversion.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/Passes.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASEQUENCEBLOCKSTOLAUNCH
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The threads per block: the common constant trip count of the thread
/// loops, which all start at 0 with step 1.
FailureOr<int64_t> threadsPerBlock(ArrayRef<scf::ParallelOp> threadLoops) {
  std::optional<int64_t> threads;
  for (scf::ParallelOp loop : threadLoops) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()[0]);
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound()[0]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[0]);
    if (loop.getNumLoops() != 1 || lower != 0 || step != 1 || !upper ||
        (threads && *threads != *upper))
      return failure();
    threads = upper;
  }
  return threads.value_or(1);
}

/// Whether a block of `bytes` of shared memory leaves no room for a second
/// one on an SM of the planned GPU (a block's maximum is about an SM's
/// whole): then its kernel is built for one block per SM, with the
/// registers of two (linea-launch-bounds), rather than spilling to fit a
/// second block that cannot run beside it.
bool takesTheSharedMemoryOfAnSM(gpu::LaunchOp launch, int64_t bytes) {
  linea::TargetAttr planned = linea::plannedTarget(launch);
  if (!planned || planned.getKind() != linea::TargetKind::gpu)
    return false;
  return 2 * bytes > planned.getDescription().sharedMemoryPerBlock;
}

/// The kernel's allocations become views of one buffer of dynamic shared
/// memory, placed by planSharedMemory and seen through the generic address
/// space, so their users keep their types. Dynamic rather than static
/// shared memory: a block may use more than 48 KiB (up to 227 KiB on
/// sm_90) once the launch opts in, which Linea's CUDA runtime does.
LogicalResult allocsToSharedMemory(RewriterBase &rewriter,
                                   gpu::LaunchOp launch) {
  Operation *obstacle = nullptr;
  FailureOr<linea::SharedMemoryPlan> plan =
      linea::planSharedMemory(launch.getBody().front(), obstacle);
  if (failed(plan))
    return obstacle->emitError()
           << "cannot be placed in a sequence block's shared memory";
  launch.getBody().walk(
      [&](memref::DeallocOp dealloc) { rewriter.eraseOp(dealloc); });
  if (plan->offsets.empty())
    return success();

  MLIRContext *ctx = rewriter.getContext();
  Location loc = launch.getLoc();
  if (takesTheSharedMemoryOfAnSM(launch, plan->bytes))
    launch->setLoc(linea::withBlocksPerSM(loc, 1));
  rewriter.setInsertionPoint(launch);
  Value bytes = arith::ConstantIntOp::create(rewriter, loc, plan->bytes, 32);
  launch.getDynamicSharedMemorySizeMutable().assign(bytes);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value shared = gpu::DynamicSharedMemoryOp::create(
      rewriter, loc,
      MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
  for (auto [op, offset] : plan->offsets) {
    auto alloc = cast<memref::AllocOp>(op);
    MemRefType type = alloc.getType();
    rewriter.setInsertionPoint(alloc);
    Location allocLoc = alloc.getLoc();
    Value start = arith::ConstantIndexOp::create(rewriter, allocLoc, offset);
    auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
    Value view = memref::ViewOp::create(rewriter, allocLoc, sharedType, shared,
                                        start, ValueRange{});
    rewriter.replaceOpWithNewOp<memref::MemorySpaceCastOp>(alloc, type, view);
  }
  return success();
}

/// The number of iterations of each of `forall`'s dims.
SmallVector<Value> tripCounts(OpBuilder &b, scf::ForallOp forall) {
  Location loc = forall.getLoc();
  SmallVector<Value> counts;
  for (auto [lower, upper, step] :
       llvm::zip(forall.getLowerBound(b), forall.getUpperBound(b),
                 forall.getStep(b)))
    counts.push_back(b.createOrFold<arith::CeilDivUIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, upper, lower), step));
  return counts;
}

/// The forall's induction values for linear block `id`: its dims
/// delinearized, the last one fastest.
SmallVector<Value> inductionValues(OpBuilder &b, scf::ForallOp forall,
                                   ArrayRef<Value> counts, Value id) {
  Location loc = forall.getLoc();
  SmallVector<Value> lowers = forall.getLowerBound(b);
  SmallVector<Value> steps = forall.getStep(b);
  SmallVector<Value> ivs(counts.size());
  for (int64_t d = counts.size() - 1; d >= 0; --d) {
    Value index =
        d == 0 ? id : b.createOrFold<arith::RemUIOp>(loc, id, counts[d]);
    ivs[d] = b.createOrFold<arith::AddIOp>(
        loc, lowers[d], b.createOrFold<arith::MulIOp>(loc, index, steps[d]));
    if (d > 0)
      id = b.createOrFold<arith::DivUIOp>(loc, id, counts[d]);
  }
  return ivs;
}

LogicalResult convertSequenceBlock(RewriterBase &rewriter,
                                   scf::ForallOp blocks) {
  SmallVector<scf::ParallelOp> threadLoops;
  blocks.getBody()->walk([&](scf::ParallelOp loop) {
    if (linea::isMappedTo(loop, gpu::Processor::ThreadX))
      threadLoops.push_back(loop);
  });
  FailureOr<int64_t> threads = threadsPerBlock(threadLoops);
  if (blocks.getNumResults() || failed(threads))
    return blocks->emitError()
           << "sequence block needs buffers (no results) and thread loops "
              "over 0 to the same constant bound";

  Location loc = blocks.getLoc();
  rewriter.setInsertionPoint(blocks);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  SmallVector<Value> counts = tripCounts(rewriter, blocks);
  Value grid = counts.front();
  for (Value count : ArrayRef<Value>(counts).drop_front())
    grid = rewriter.createOrFold<arith::MulIOp>(loc, grid, count);
  Value one = cst(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, grid, one, one,
                                      cst(*threads), one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  SmallVector<Value> ivs =
      inductionValues(rewriter, blocks, counts, launch.getBlockIds().x);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  Block *body = blocks.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, terminator, ivs);
  rewriter.eraseOp(blocks);

  Value thread = launch.getThreadIds().x;
  for (scf::ParallelOp loop : threadLoops) {
    rewriter.setInsertionPointAfter(loop);
    auto barrier = gpu::BarrierOp::create(rewriter, loop.getLoc());
    Block *loopBody = loop.getBody();
    rewriter.eraseOp(loopBody->getTerminator());
    rewriter.inlineBlockBefore(loopBody, barrier, {thread});
    rewriter.eraseOp(loop);
  }
  return allocsToSharedMemory(rewriter, launch);
}

struct LineaSequenceBlocksToLaunchPass
    : linea::impl::LineaSequenceBlocksToLaunchBase<
          LineaSequenceBlocksToLaunchPass> {
  void runOnOperation() override {
    SmallVector<scf::ForallOp> blocks;
    getOperation()->walk([&](scf::ForallOp loop) {
      if (linea::isSequenceBlockLoop(loop))
        blocks.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp loop : blocks)
      if (failed(convertSequenceBlock(rewriter, loop)))
        return signalPassFailure();
  }
};

} // namespace
