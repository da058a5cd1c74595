//===- SiblingKernels.cpp - independent elementwise ops, one launch -------===//
//
// What may share a launch, and the shared band (SiblingKernels.h).
//
//===----------------------------------------------------------------------===//

#include "SiblingKernels.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace {

/// The buffers (view roots) an op reads and writes, its body's loads and
/// stores included.
struct Accesses {
  llvm::SmallPtrSet<Value, 4> reads, writes;
};

/// Whether two ops' accesses do not overlap: neither reads nor writes what
/// the other writes.
bool independent(const Accesses &a, const Accesses &b) {
  auto touches = [](const Accesses &x, Value root) {
    return x.reads.contains(root) || x.writes.contains(root);
  };
  return llvm::none_of(a.writes, [&](Value w) { return touches(b, w); }) &&
         llvm::none_of(b.writes, [&](Value w) { return touches(a, w); });
}

/// Whether `root` is a buffer whose aliases all show as its views: an
/// allocation, a global, or an argument of the function.
bool isNamedBuffer(Value root) {
  if (auto argument = dyn_cast<BlockArgument>(root))
    return isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>() ||
         root.getDefiningOp<memref::GetGlobalOp>();
}

/// `op`'s accesses where it may join a group: elementwise (no reduction
/// loops), every access on a named buffer, every write to an allocation
/// (a caller's buffers may alias each other; its own may not).
std::optional<Accesses> siblingAccesses(linalg::LinalgOp op) {
  Accesses accesses;
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0 ||
      !linea::bufferEffects(op, accesses.reads, accesses.writes) ||
      !llvm::all_of(accesses.reads, isNamedBuffer) ||
      !llvm::all_of(accesses.writes, [](Value root) {
        return bool(root.getDefiningOp<memref::AllocOp>());
      }))
    return std::nullopt;
  return accesses;
}

/// Whether an op may stand between two ops of a group, which then run
/// where the last one was: it reads and writes no buffer.
bool mayStandBetween(Operation *op) {
  return isMemoryEffectFree(op) || isa<ViewLikeOpInterface>(op) ||
         isa<memref::AllocOp>(op);
}

} // namespace

SmallVector<SmallVector<linalg::LinalgOp>>
linea::siblingGroups(ArrayRef<linalg::LinalgOp> candidates) {
  llvm::DenseMap<Operation *, Accesses> eligible;
  for (linalg::LinalgOp op : candidates)
    if (std::optional<Accesses> accesses = siblingAccesses(op))
      eligible[op] = std::move(*accesses);

  SmallVector<SmallVector<linalg::LinalgOp>> groups;
  DenseSet<Operation *> grouped;
  for (linalg::LinalgOp first : candidates) {
    if (grouped.contains(first) || !eligible.contains(first))
      continue;
    SmallVector<linalg::LinalgOp> group{first};
    Operation *next = first->getNextNode();
    while (next) {
      if (mayStandBetween(next)) {
        next = next->getNextNode();
        continue;
      }
      auto found = eligible.find(next);
      if (found == eligible.end() || grouped.contains(next) ||
          !llvm::all_of(group, [&](linalg::LinalgOp member) {
            return independent(eligible.find(member)->second, found->second);
          }))
        break;
      group.push_back(cast<linalg::LinalgOp>(next));
      next = next->getNextNode();
    }
    if (group.size() < 2)
      continue;
    for (linalg::LinalgOp member : group)
      grouped.insert(member);
    groups.push_back(std::move(group));
  }
  return groups;
}

scf::ParallelOp linea::mergeBands(RewriterBase &rewriter,
                                  ArrayRef<scf::ParallelOp> bands) {
  SmallVector<scf::ParallelOp> loops(bands);
  Location loc = loops.front().getLoc();
  rewriter.setInsertionPoint(loops.back());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  // Each band's first iteration in the merged range, and its trip count
  // (folded to constants where the bands' bounds are).
  SmallVector<Value> starts, trips;
  Value total = zero;
  for (scf::ParallelOp band : loops) {
    Value lower = band.getLowerBound()[0], step = band.getStep()[0];
    Value span = rewriter.createOrFold<arith::SubIOp>(
        loc, band.getUpperBound()[0], lower);
    Value count =
        matchPattern(step, m_One())
            ? span
            : rewriter.createOrFold<arith::CeilDivUIOp>(loc, span, step);
    starts.push_back(total);
    trips.push_back(count);
    total = rewriter.createOrFold<arith::AddIOp>(loc, total, count);
  }
  auto merged = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                        ValueRange{total}, ValueRange{one});
  Value t = merged.getInductionVars()[0];
  for (auto [band, start, count] : llvm::zip(loops, starts, trips)) {
    rewriter.setInsertionPoint(merged.getBody()->getTerminator());
    // t - start < count, unsigned: below start wraps around.
    Value local = rewriter.createOrFold<arith::SubIOp>(loc, t, start);
    Value mine = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                       local, count);
    auto branch = scf::IfOp::create(rewriter, loc, mine,
                                    /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    Value iv = rewriter.createOrFold<arith::AddIOp>(
        loc, band.getLowerBound()[0],
        rewriter.createOrFold<arith::MulIOp>(loc, local, band.getStep()[0]));
    Block *body = band.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, branch.thenBlock()->getTerminator(), {iv});
    rewriter.eraseOp(band);
  }
  return merged;
}
