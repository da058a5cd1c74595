//===- FreeAfterLastUse.cpp - temporaries freed when they die ------------===//
//
// Ownership-based deallocation frees at the end of the allocating block. A
// model's function body is one block, so without this pass the peak memory
// of a model is the sum of all its temporaries rather than the largest set
// alive at once.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFREEAFTERLASTUSE
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Whether `user` may hand the buffer on beyond what the view-flow analysis
/// follows: a call, a raw address, or a memref result that is no alias the
/// analysis knows.
bool mayEscape(Operation *user, const BufferViewFlowAnalysis::ValueSetT &aliases) {
  if (isa<CallOpInterface, memref::ExtractAlignedPointerAsIndexOp,
          UnrealizedConversionCastOp, memref::DeallocOp>(user))
    return true;
  return llvm::any_of(user->getResults(), [&](Value result) {
    return isa<BaseMemRefType>(result.getType()) && !aliases.contains(result);
  });
}

/// The last op of `block` that uses `buffer` or one of its views, directly
/// or from a nested region; nullptr where a use escapes (see mayEscape) or
/// lies outside `block`.
Operation *lastUseInBlock(Value buffer, memref::DeallocOp dealloc, Block *block,
                          const BufferViewFlowAnalysis &viewFlow) {
  BufferViewFlowAnalysis::ValueSetT aliases = viewFlow.resolve(buffer);
  Operation *last = buffer.getDefiningOp();
  for (Value alias : aliases) {
    for (Operation *user : alias.getUsers()) {
      if (user == dealloc)
        continue;
      if (mayEscape(user, aliases))
        return nullptr;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return nullptr;
      if (last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  }
  return last;
}

struct LineaFreeAfterLastUsePass
    : linea::impl::LineaFreeAfterLastUseBase<LineaFreeAfterLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk([&](memref::DeallocOp dealloc) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (alloc && alloc->getBlock() == dealloc->getBlock())
        deallocs.push_back(dealloc);
    });
    if (deallocs.empty())
      return;
    BufferViewFlowAnalysis viewFlow(getOperation());
    for (memref::DeallocOp dealloc : deallocs) {
      Operation *last = lastUseInBlock(dealloc.getMemref(), dealloc,
                                       dealloc->getBlock(), viewFlow);
      if (last && last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
