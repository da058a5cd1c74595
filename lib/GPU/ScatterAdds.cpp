//===- ScatterAdds.cpp - host scatter-add loops -> one atomic band --------===//
//
// The gradient of a lookup (an embedding's table, GatherAdjoint.cpp) is a
// loop nest over the lookup's points that adds each point's contribution
// into the table's cotangent at the row the point read. On the host of a
// GPU program that nest would read device memory; sequentially in one
// thread it would be slow. Its iterations are independent but for those
// sums, so it is one parallel band whose adds are atomic: only the order of
// the float additions changes (as in torch's index_add on CUDA).
//
//===----------------------------------------------------------------------===//

#include "GPUMapping.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

/// The accumulation at the heart of a scatter-add body: `store (load acc[i]
/// + c), acc[i]`.
struct Accumulation {
  memref::LoadOp load;
  arith::AddFOp add;
  memref::StoreOp store;
  Value contribution;
};

/// The loops of the perfect nest `outer` heads (no iteration arguments,
/// each body the next loop alone), outermost first.
SmallVector<scf::ForOp> perfectNest(scf::ForOp outer) {
  SmallVector<scf::ForOp> loops;
  for (scf::ForOp loop = outer; loop;) {
    if (loop.getNumRegionIterArgs())
      return {};
    loops.push_back(loop);
    Block *body = loop.getBody();
    loop = body->getOperations().size() == 2
               ? dyn_cast<scf::ForOp>(body->front())
               : scf::ForOp();
  }
  return loops;
}

/// The one store of `body` as an accumulation into a buffer from outside
/// `nest` that nothing else in the body touches; every other op reads
/// (other buffers) or computes, or is a check.
std::optional<Accumulation> accumulationIn(Block *body, scf::ForOp nest) {
  SmallVector<memref::StoreOp> stores(body->getOps<memref::StoreOp>());
  if (stores.size() != 1)
    return std::nullopt;
  memref::StoreOp store = stores.front();
  Value acc = store.getMemRef();
  auto add = store.getValueToStore().getDefiningOp<arith::AddFOp>();
  if (!nest.isDefinedOutsideOfLoop(acc) || !add || !add->hasOneUse() ||
      !cast<MemRefType>(acc.getType()).getElementType().isF32())
    return std::nullopt;
  for (unsigned side : {0u, 1u}) {
    auto load = add->getOperand(side).getDefiningOp<memref::LoadOp>();
    if (!load || load.getMemRef() != acc || !load->hasOneUse() ||
        load.getIndices() != store.getIndices())
      continue;
    Accumulation found{load, add, store, add->getOperand(1 - side)};
    Value root = linea::viewRoot(acc);
    for (Operation &op : body->without_terminator()) {
      if (&op == load || &op == store || isa<cf::AssertOp>(op) || isPure(&op))
        continue;
      auto read = dyn_cast<memref::LoadOp>(op);
      if (!read || linea::viewRoot(read.getMemRef()) == root)
        return std::nullopt;
    }
    return found;
  }
  return std::nullopt;
}

} // namespace

/// The nest `outer` heads as one band of atomic adds, or failure (nothing
/// changed) for any other nest.
static FailureOr<scf::ParallelOp> nestToAtomicBand(RewriterBase &rewriter,
                                                   scf::ForOp outer) {
  SmallVector<scf::ForOp> loops = perfectNest(outer);
  if (loops.empty())
    return failure();
  for (scf::ForOp loop : loops)
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(),
                        loop.getStep()})
      if (!outer.isDefinedOutsideOfLoop(bound))
        return failure(); // (a triangular nest: not one band)
  Block *body = loops.back().getBody();
  std::optional<Accumulation> acc = accumulationIn(body, outer);
  if (!acc)
    return failure();

  SmallVector<Value> lowers, uppers, steps;
  for (scf::ForOp loop : loops) {
    lowers.push_back(loop.getLowerBound());
    uppers.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  rewriter.setInsertionPoint(outer);
  auto band =
      scf::ParallelOp::create(rewriter, outer.getLoc(), lowers, uppers, steps);
  rewriter.setInsertionPointToStart(band.getBody());
  IRMapping mapping;
  for (auto [loop, iv] : llvm::zip(loops, band.getInductionVars()))
    mapping.map(loop.getInductionVar(), iv);
  for (Operation &op : body->without_terminator()) {
    if (&op == acc->load || &op == acc->add)
      continue;
    if (&op == acc->store) {
      SmallVector<Value> indices;
      for (Value index : acc->store.getIndices())
        indices.push_back(mapping.lookupOrDefault(index));
      memref::AtomicRMWOp::create(
          rewriter, op.getLoc(), arith::AtomicRMWKind::addf,
          mapping.lookupOrDefault(acc->contribution),
          acc->store.getMemRef(), indices);
      continue;
    }
    rewriter.clone(op, mapping);
  }
  rewriter.eraseOp(outer);
  return band;
}

SmallVector<scf::ParallelOp>
mlir::linea::scatterAddsToParallel(RewriterBase &rewriter, Operation *root) {
  // The heads of host loop nests: no loop whose parent loop's body is it
  // alone (perfectNest's nests), none in a block that stays or a kernel.
  SmallVector<scf::ForOp> heads;
  root->walk([&](scf::ForOp loop) {
    auto parent = dyn_cast<scf::ForOp>(loop->getParentOp());
    bool innerOfNest = parent && perfectNest(parent).size() > 1;
    if (!innerOfNest && !isInSequenceBlock(loop) &&
        !loop->getParentOfType<gpu::LaunchOp>())
      heads.push_back(loop);
  });
  SmallVector<scf::ParallelOp> bands;
  for (scf::ForOp head : heads) {
    FailureOr<scf::ParallelOp> band = nestToAtomicBand(rewriter, head);
    if (succeeded(band))
      bands.push_back(*band);
  }
  return bands;
}
