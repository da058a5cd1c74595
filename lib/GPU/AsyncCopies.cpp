//===- AsyncCopies.cpp - a sequence block's 16-bit copies as cp.async -----===//
//
// A chunk block starts by copying its rows of q, k and v (bf16 as stored)
// into shared memory. Mapped like any linalg op, that is a 2-byte load and
// store per element and thread; cp.async moves 16 bytes per instruction
// from global to shared memory without passing through registers.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAASYNCCOPIES
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A copy of a 16-bit global buffer into a temporary of its sequence block
/// (in shared memory once launched), both in whole lines.
bool isLineCopy(linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics())
    return false;
  auto from = cast<MemRefType>(copy.getInputs()[0].getType());
  auto to = cast<MemRefType>(copy.getOutputs()[0].getType());
  auto alloc =
      linea::viewRoot(copy.getOutputs()[0]).getDefiningOp<memref::AllocOp>();
  auto sourceAlloc =
      linea::viewRoot(copy.getInputs()[0]).getDefiningOp<memref::AllocOp>();
  return alloc && linea::isInSequenceBlock(alloc) &&
         !(sourceAlloc && linea::isInSequenceBlock(sourceAlloc)) &&
         from.getElementType() == to.getElementType() &&
         from.getElementTypeBitWidth() == 16 && from.hasStaticShape() &&
         from.getShape() == to.getShape() && from.getRank() > 0 &&
         linea::inCopyLines(from, /*anyOffset=*/true) &&
         linea::inCopyLines(to, /*anyOffset=*/false);
}

struct LineaAsyncCopiesPass
    : linea::impl::LineaAsyncCopiesBase<LineaAsyncCopiesPass> {
  using LineaAsyncCopiesBase::LineaAsyncCopiesBase;

  void runOnOperation() override {
    FailureOr<linea::BlockLimits> limits =
        linea::blockLimits(getOperation(), getArgument(), blockSize);
    if (failed(limits))
      return signalPassFailure();
    threadCount = limits->threads;
    SmallVector<linalg::CopyOp> copies;
    getOperation()->walk([&](scf::ForallOp forall) {
      if (!linea::runsAsOneBlock(forall, limits->sharedMemory))
        return;
      forall.walk([&](linalg::CopyOp copy) {
        if (isLineCopy(copy))
          copies.push_back(copy);
      });
    });
    IRRewriter rewriter(&getContext());
    for (linalg::CopyOp copy : copies)
      copyAsync(rewriter, copy);
  }

  /// `copy` as cp.async where its source starts on a 16-byte boundary at
  /// run time (a caller's view may not), as it is where it does not.
  void copyAsync(RewriterBase &rewriter, linalg::CopyOp copy) {
    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    Value source = copy.getInputs()[0];
    Value aligned = linea::startsOnCopyLine(rewriter, loc, source);
    auto branch = scf::IfOp::create(rewriter, loc, aligned,
                                    /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    buildAsyncCopy(rewriter, loc, source, copy.getOutputs()[0]);
    rewriter.setInsertionPointToStart(branch.elseBlock());
    rewriter.clone(*copy.getOperation());
    rewriter.eraseOp(copy);
  }

  /// The block's threads take the lines in turn, each committing a group
  /// per line and waiting for all of them after its last (the barrier
  /// after the thread loop then makes every line visible to the block).
  void buildAsyncCopy(OpBuilder &b, Location loc, Value source, Value target) {
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto targetType = cast<MemRefType>(target.getType());
    Value shared = linea::workgroupView(b, loc, target);
    // The target's shape counted in lines along its innermost dim.
    int64_t perLine = linea::elementsPerCopyLine(targetType.getElementType());
    SmallVector<int64_t> lineShape(targetType.getShape());
    lineShape.back() /= perLine;
    int64_t lines = targetType.getNumElements() / perLine;
    auto threads = scf::ParallelOp::create(b, loc, ValueRange{cst(0)},
                                           ValueRange{cst(threadCount)},
                                           ValueRange{cst(1)});
    linea::mapLoopTo(threads, {gpu::Processor::ThreadX});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(threads.getBody());
    Value thread = threads.getInductionVars()[0];
    scf::ForOp::create(
        b, loc, thread, cst(lines), cst(threadCount), ValueRange{},
        [&](OpBuilder &, Location, Value line, ValueRange) {
          // line -> indices (the last dim fastest), the innermost in
          // elements.
          SmallVector<Value> indices(lineShape.size());
          Value rest = line;
          for (int64_t d = lineShape.size() - 1; d >= 0; --d) {
            indices[d] = arith::RemUIOp::create(b, loc, rest, cst(lineShape[d]));
            rest = arith::DivUIOp::create(b, loc, rest, cst(lineShape[d]));
          }
          indices.back() =
              arith::MulIOp::create(b, loc, indices.back(), cst(perLine));
          linea::copyLineAsync(b, loc, shared, indices, source, indices, line,
                               lines, threadCount);
          scf::YieldOp::create(b, loc);
        });
  }

  /// Threads per block (the option, or the planned GPU's).
  int64_t threadCount = 0;
};

} // namespace
