//===- SequenceBlocksToLaunch.cpp - sequence blocks -> gpu.launch ---------===//
//
// convert-parallel-loops-to-gpu handles a block loop whose thread loops are
// its direct children. A sequence block's thread loops sit inside the
// sequential chunk loop and need a barrier after each, and its temporaries
// belong in shared memory: that is this conversion.
//
//===----------------------------------------------------------------------===//

#include "linea/Conversion/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASEQUENCEBLOCKSTOLAUNCH
#include "linea/Conversion/Passes.h.inc"
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

/// The kernel's allocations become views of one workgroup (shared) buffer,
/// placed by planSharedMemory and seen through the generic address space,
/// so their users keep their types.
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
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType =
      MemRefType::get({plan->bytes}, rewriter.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup);
  BlockArgument shared =
      launch.addWorkgroupAttribution(bytesType, launch.getLoc());
  for (auto [op, offset] : plan->offsets) {
    auto alloc = cast<memref::AllocOp>(op);
    MemRefType type = alloc.getType();
    rewriter.setInsertionPoint(alloc);
    Location loc = alloc.getLoc();
    Value start = arith::ConstantIndexOp::create(rewriter, loc, offset);
    auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
    Value view = memref::ViewOp::create(rewriter, loc, sharedType, shared,
                                        start, ValueRange{});
    rewriter.replaceOpWithNewOp<memref::MemorySpaceCastOp>(alloc, type, view);
  }
  return success();
}

LogicalResult convertSequenceBlock(RewriterBase &rewriter,
                                   scf::ParallelOp blocks) {
  SmallVector<scf::ParallelOp> threadLoops;
  blocks.getBody()->walk([&](scf::ParallelOp loop) {
    if (linea::isMappedTo(loop, gpu::Processor::ThreadX))
      threadLoops.push_back(loop);
  });
  FailureOr<int64_t> threads = threadsPerBlock(threadLoops);
  if (blocks.getNumLoops() != 1 || failed(threads))
    return blocks->emitError()
           << "sequence block needs one block dim and thread loops over 0 to "
              "the same constant bound";

  Location loc = blocks.getLoc();
  rewriter.setInsertionPoint(blocks);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value lower = blocks.getLowerBound()[0], step = blocks.getStep()[0];
  Value tripCount = arith::CeilDivUIOp::create(
      rewriter, loc,
      arith::SubIOp::create(rewriter, loc, blocks.getUpperBound()[0], lower),
      step);
  Value one = cst(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, tripCount, one, one,
                                      cst(*threads), one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value index = arith::AddIOp::create(
      rewriter, loc, lower,
      arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x, step));
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  Block *body = blocks.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, terminator, {index});
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
    SmallVector<scf::ParallelOp> blocks;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(linea::kSequenceBlockAttrName))
        blocks.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : blocks)
      if (failed(convertSequenceBlock(rewriter, loop)))
        return signalPassFailure();
  }
};

} // namespace
