//===- SegmentIds.cpp - a mask that keeps to packed documents -------------===//

#include "SegmentIds.h"

#include "linea/Dialect/LineaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/ControlFlowSinkUtils.h"

using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

static constexpr StringLiteral kAsWritten = LineaDialect::kAsWrittenAttrName;

//===----------------------------------------------------------------------===//
// The mask
//===----------------------------------------------------------------------===//

/// Whether `view` reads `loop` at one dim and unit dims elsewhere.
static bool readsOnly(const LoopView &view, unsigned loop) {
  return llvm::count(view.loops, loop) == 1 &&
         llvm::all_of(view.loops, [&](unsigned l) {
           return l == loop || l == LoopView::kUnitDim;
         });
}

/// `ids[i] == ids[t]` (or `!=`, or the sides swapped) for one tensor `ids`
/// of integers, possibly widened: the ids at the row, and whether the
/// comparison is `==`.
static std::optional<std::pair<LoopView, bool>>
matchIdComparison(const ElementExpr *e, unsigned row, unsigned col) {
  auto cmp = e->getOp<arith::CmpIOp>();
  if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::eq &&
               cmp.getPredicate() != arith::CmpIPredicate::ne))
    return std::nullopt;
  auto idView = [](const ElementExpr *x) -> FailureOr<LoopView> {
    // A widened id compares as the id (both sides widen alike).
    while (x->getOp<arith::ExtSIOp>() || x->getOp<arith::ExtUIOp>())
      x = x->operands[0];
    return getLoopView(x);
  };
  FailureOr<LoopView> lhs = idView(e->operands[0]);
  FailureOr<LoopView> rhs = idView(e->operands[1]);
  if (failed(lhs) || failed(rhs) || lhs->tensor != rhs->tensor)
    return std::nullopt;
  bool rowFirst = readsOnly(*lhs, row) && readsOnly(*rhs, col);
  bool colFirst = readsOnly(*lhs, col) && readsOnly(*rhs, row);
  if (!rowFirst && !colFirst)
    return std::nullopt;
  const LoopView &atRow = rowFirst ? *lhs : *rhs;
  const LoopView &atCol = rowFirst ? *rhs : *lhs;
  // The same dim of the ids, read at i and at t.
  if (atRow.position(row) != atCol.position(col))
    return std::nullopt;
  return std::make_pair(atRow, cmp.getPredicate() == arith::CmpIPredicate::eq);
}

static void collectIdComparisons(const ElementExpr *e, unsigned row,
                                 unsigned col,
                                 SmallVectorImpl<const ElementExpr *> &found) {
  if (e->isa(ElementExpr::Kind::Read))
    return;
  if (matchIdComparison(e, row, col)) {
    found.push_back(e);
    return;
  }
  for (const ElementExpr *operand : e->operands)
    collectIdComparisons(operand, row, col, found);
}

std::optional<SegmentIds> raise::findSegmentIds(const Product &product,
                                                unsigned row, unsigned col) {
  SmallVector<const ElementExpr *> found;
  for (auto [mask, negated] : product.masks)
    collectIdComparisons(mask, row, col, found);
  if (found.empty())
    return std::nullopt;
  SegmentIds segments;
  for (const ElementExpr *comparison : found) {
    auto [atRow, isEquality] = *matchIdComparison(comparison, row, col);
    if (segments.comparisons.empty())
      segments.atRow = atRow;
    else if (atRow.tensor != segments.atRow.tensor)
      return std::nullopt; // two kinds of ids: segments of neither
    segments.comparisons.push_back({comparison, isEquality});
  }
  return segments;
}

FailureOr<IndexPredicate> raise::maskWithinSegments(const Product &product,
                                                    const SegmentIds &segments,
                                                    unsigned row, unsigned col,
                                                    MLIRContext *ctx,
                                                    std::string &why) {
  // The mask is a function of the indices and of `same = ids[i] == ids[t]`:
  // mask = same ? within : across.
  auto comparisonsWhere = [&](bool same) {
    return [&segments, same](const ElementExpr *e) -> std::optional<bool> {
      for (auto [comparison, isEquality] : segments.comparisons)
        if (comparison == e)
          return same == isEquality;
      return std::nullopt;
    };
  };
  auto whereSame = comparisonsWhere(true);
  auto whereDifferent = comparisonsWhere(false);
  FailureOr<IndexPredicate> within =
      getMask(product, row, col, ctx, why, whereSame);
  if (failed(within))
    return failure();
  FailureOr<IndexPredicate> across =
      getMask(product, row, col, ctx, why, whereDifferent);
  if (failed(across))
    return failure();
  // On the diagonal the ids are equal whatever they are: `across` matters
  // off it only, and there it must keep nothing.
  IndexPredicate diagonal =
      IndexPredicate::causal() && IndexPredicate::after(/*inclusive=*/true);
  std::pair<int64_t, int64_t> point;
  if (!(*across && !diagonal)
           .equals(!IndexPredicate::always(), std::nullopt, &point)) {
    why = "the mask keeps (i, t) = (" + std::to_string(point.first) + ", " +
          std::to_string(point.second) +
          ") where the segment ids differ: not a mask of segments";
    return failure();
  }
  return *within;
}

//===----------------------------------------------------------------------===//
// The version
//===----------------------------------------------------------------------===//

namespace {

/// Runs a loop over tokens `1 .. length - 1` of `ids` with `inits`; `step`
/// gets the token, the ids before it and at it, and the carried values.
using TokenStep = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value token, Value previousId, Value id,
    ValueRange carried)>;

ValueRange forEachNextToken(OpBuilder &b, Location loc, Value ids, Value length,
                            ValueRange inits, TokenStep step) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, one, length, one, inits,
      [&](OpBuilder &nested, Location l, Value token, ValueRange carried) {
        Value before = arith::SubIOp::create(nested, l, token, one);
        Value previousId = tensor::ExtractOp::create(nested, l, ids, before);
        Value id = tensor::ExtractOp::create(nested, l, ids, token);
        scf::YieldOp::create(nested, l,
                             step(nested, l, token, previousId, id, carried));
      });
  return loop.getResults();
}

/// Whether `ids` never decrease or never increase (each id then one run
/// of tokens), and the number of runs.
std::pair<Value, Value> runsInOrder(OpBuilder &b, Location loc, Value ids,
                                    Value length) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
  // No tokens, no runs.
  Value firstRun = arith::MinUIOp::create(b, loc, length, one);
  ValueRange results = forEachNextToken(
      b, loc, ids, length, {firstRun, yes, yes},
      [&](OpBuilder &n, Location l, Value, Value previousId, Value id,
          ValueRange carried) -> SmallVector<Value> {
        Value changed = arith::CmpIOp::create(n, l, arith::CmpIPredicate::ne,
                                              previousId, id);
        Value runs = arith::AddIOp::create(
            n, l, carried[0],
            arith::SelectOp::create(n, l, changed, one, zero));
        Value rising = arith::CmpIOp::create(n, l, arith::CmpIPredicate::sle,
                                             previousId, id);
        Value falling = arith::CmpIOp::create(n, l, arith::CmpIPredicate::sge,
                                              previousId, id);
        return {runs, arith::AndIOp::create(n, l, carried[1], rising),
                arith::AndIOp::create(n, l, carried[2], falling)};
      });
  Value inOrder = arith::OrIOp::create(b, loc, results[1], results[2]);
  return {inOrder, results[0]};
}

/// `[0, s_1, .., s_{runs-1}, length]` as i64: where each run of `ids`
/// starts, then the length. Written for any compiler the result may be
/// handed to: i64, not `index`, elements (IREE refuses those across its
/// dispatches), and a loop whose body has no branch and whose tensor keeps
/// its size (IREE cannot size one a branch yields): a token that starts no
/// run writes its slot past the end, `runs + 1`, which is cut off.
Value runOffsets(OpBuilder &b, Location loc, Value ids, Value length,
                 Value runs) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto asOffset = [](OpBuilder &nb, Location l, Value position) -> Value {
    return arith::IndexCastOp::create(nb, l, nb.getI64Type(), position);
  };
  Value count = arith::AddIOp::create(b, loc, runs, one);
  Value scratch = count;
  Value slots = arith::AddIOp::create(b, loc, count, one);
  Value offsets = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{slots},
                                          b.getI64Type());
  offsets =
      tensor::InsertOp::create(b, loc, asOffset(b, loc, zero), offsets, zero);
  ValueRange filled = forEachNextToken(
      b, loc, ids, length, {offsets, one},
      [&](OpBuilder &n, Location l, Value token, Value previousId, Value id,
          ValueRange carried) -> SmallVector<Value> {
        Value starts = arith::CmpIOp::create(n, l, arith::CmpIPredicate::ne,
                                             previousId, id);
        Value slot =
            arith::SelectOp::create(n, l, starts, carried[1], scratch);
        Value next = tensor::InsertOp::create(n, l, asOffset(n, l, token),
                                              carried[0], slot);
        Value after = arith::SelectOp::create(
            n, l, starts, arith::AddIOp::create(n, l, carried[1], one),
            carried[1]);
        return {next, after};
      });
  Value ended = tensor::InsertOp::create(b, loc, asOffset(b, loc, length),
                                         filled[0], runs);
  return tensor::ExtractSliceOp::create(b, loc, ended,
                                        ArrayRef<OpFoldResult>{zero},
                                        ArrayRef<OpFoldResult>{count},
                                        ArrayRef<OpFoldResult>{one});
}

/// Moves into the branches of `branch` what only they read (the root as
/// written takes its scores and mask along), so that the packed branch
/// does not compute them.
void sinkIntoBranches(scf::IfOp branch) {
  SmallVector<Region *> regions;
  getSinglyExecutedRegionsToSink(
      cast<RegionBranchOpInterface>(branch.getOperation()), regions);
  DominanceInfo dominance(
      branch->getParentOfType<FunctionOpInterface>().getOperation());
  controlFlowSink(
      regions, dominance,
      [](Operation *op, Region *) { return isMemoryEffectFree(op); },
      [](Operation *op, Region *region) {
        op->moveBefore(&region->front(), region->front().begin());
      });
}

} // namespace

void raise::replaceRootBySegments(RewriterBase &rewriter, Operation *root,
                                  const std::optional<SegmentIds> &segments,
                                  PackedBuilder build) {
  rewriter.setInsertionPoint(root);
  if (!segments) {
    rewriter.replaceOp(root, build(rewriter, Value()));
    return;
  }
  Location loc = root->getLoc();
  SmallVector<unsigned> rowOnly{
      *llvm::find_if(segments->atRow.loops,
                     [](unsigned l) { return l != LoopView::kUnitDim; })};
  Value ids = permuteTo(rewriter, loc, segments->atRow, rowOnly);
  Value length = tensor::DimOp::create(rewriter, loc, ids, 0);
  auto [inOrder, runs] = runsInOrder(rewriter, loc, ids, length);
  auto branch = scf::IfOp::create(
      rewriter, loc, inOrder,
      [&](OpBuilder &b, Location l) {
        Value offsets = runOffsets(b, l, ids, length, runs);
        scf::YieldOp::create(b, l, build(b, offsets));
      },
      [&](OpBuilder &b, Location l) {
        scf::YieldOp::create(b, l, b.clone(*root)->getResults());
      });
  branch->setAttr(kAsWritten, rewriter.getUnitAttr());
  rewriter.replaceOp(root, branch.getResults());
  sinkIntoBranches(branch);
}

bool raise::isInAsWrittenBranch(Operation *op) {
  for (auto branch = op->getParentOfType<scf::IfOp>(); branch;
       branch = branch->getParentOfType<scf::IfOp>())
    if (branch->hasAttr(kAsWritten) &&
        branch.getElseRegion().isAncestor(op->getParentRegion()))
      return true;
  return false;
}
