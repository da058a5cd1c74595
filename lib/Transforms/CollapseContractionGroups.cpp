//===- CollapseContractionGroups.cpp - grouped dims of a product, merged --===//
//
// A model that projects with `x @ W` and then views the result as heads
// reaches the kernels as a contraction `(m, k) x (k, h, d) -> (m, h, d)`:
// the raise's reshape propagation folds the head split into the product's
// iteration space. Its n is then two dims, which no register-tiled kernel
// takes, and it ran as scalar loops (45x the time of the same matmul). Where
// a group of same-role dims is contiguous, in the same order, in every
// operand that reads it, merging the group is a view of each operand: the
// product becomes the plain contraction it was.
//
//===----------------------------------------------------------------------===//

#include "linea/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACOLLAPSECONTRACTIONGROUPS
#include "linea/Transforms/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The dims of `role` in the order `map` reads them (a map that reads
/// every dim of the role gives the order the group must keep everywhere).
SmallVector<int64_t> inMapOrder(AffineMap map, ArrayRef<unsigned> role) {
  SmallVector<int64_t> dims;
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (dim && llvm::is_contained(role, dim.getPosition()))
      dims.push_back(dim.getPosition());
  }
  return dims;
}

/// The group of one role (m, n or k) that merges into one loop, or an
/// empty group: two dims or more, read by some operand in full, in one
/// order, and kept contiguous in that order by every operand.
ReassociationIndices mergeableGroup(linalg::GenericOp op,
                                    ArrayRef<unsigned> role) {
  if (role.size() < 2)
    return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps) {
    SmallVector<int64_t> order = inMapOrder(map, role);
    if (order.size() != role.size())
      continue;
    ReassociationIndices group(order.begin(), order.end());
    if (linalg::areDimSequencesPreserved(maps, {group}))
      return group;
    return {};
  }
  return {};
}

/// The groups of dims `op` merges, each in the order its operands read it,
/// or none where `op` is no plain multiply-add contraction over projected
/// permutations.
SmallVector<ReassociationIndices> mergeableGroups(linalg::GenericOp op) {
  if (!linalg::isaContractionOpInterface(op) ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return {};
  SmallVector<ReassociationIndices> groups;
  for (ArrayRef<unsigned> role : {ArrayRef<unsigned>(dims->m),
                                  ArrayRef<unsigned>(dims->n),
                                  ArrayRef<unsigned>(dims->k)}) {
    ReassociationIndices group = mergeableGroup(op, role);
    if (!group.empty())
      groups.push_back(std::move(group));
  }
  return groups;
}

/// Whether `group` is consecutive loops in ascending order.
bool isRunOfLoops(const ReassociationIndices &group) {
  for (size_t i = 1; i < group.size(); ++i)
    if (group[i] != group[i - 1] + 1)
      return false;
  return true;
}

/// The loop order (old loop of each new position) in which every group is
/// a run of consecutive loops in its operands' order, the other loops
/// keeping theirs: the iteration space can merge a group only so
/// (linalg::collapseOpIterationDims).
SmallVector<unsigned> consecutiveOrder(unsigned numLoops,
                                       ArrayRef<ReassociationIndices> groups) {
  SmallVector<unsigned> order;
  llvm::SmallDenseSet<int64_t> placed;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (placed.contains(loop))
      continue;
    const ReassociationIndices *group =
        llvm::find_if(groups, [&](const ReassociationIndices &g) {
          return llvm::is_contained(g, loop);
        });
    if (group == groups.end()) {
      order.push_back(loop);
      continue;
    }
    for (int64_t dim : *group) {
      order.push_back(dim);
      placed.insert(dim);
    }
  }
  return order;
}

/// Merges the groups of `op`; false where there are none to merge or
/// upstream refuses (the op then keeps the form it came in: slower, never
/// wrong).
bool collapseGroups(RewriterBase &rewriter, linalg::GenericOp op) {
  SmallVector<ReassociationIndices> groups = mergeableGroups(op);
  if (groups.empty())
    return false;
  SmallVector<unsigned> order = consecutiveOrder(op.getNumLoops(), groups);
  if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
    FailureOr<linalg::GenericOp> interchanged =
        linalg::interchangeGenericOp(rewriter, op, order);
    if (failed(interchanged))
      return false;
    op = *interchanged;
    groups = mergeableGroups(op);
  }
  // (collapseOpIterationDims requires each group to be a run of loops.)
  if (!llvm::all_of(groups, isRunOfLoops))
    return false;
  llvm::sort(groups, [](const ReassociationIndices &a,
                        const ReassociationIndices &b) {
    return a.front() < b.front();
  });
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, groups, rewriter);
  if (failed(collapsed))
    return false;
  rewriter.replaceOp(op, collapsed->results);
  return true;
}

struct LineaCollapseContractionGroupsPass
    : linea::impl::LineaCollapseContractionGroupsBase<
          LineaCollapseContractionGroupsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates)
      (void)collapseGroups(rewriter, op);
  }
};

} // namespace
