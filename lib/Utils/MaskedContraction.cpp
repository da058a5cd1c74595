//===- MaskedContraction.cpp - the one contraction matcher ----------------===//

#include "linea/Utils/MaskedContraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::linea;

FailureOr<linalg::ContractionDimensions>
mlir::linea::inferMaskedContractionDims(
    AffineMap lhs, AffineMap rhs, AffineMap out,
    ArrayRef<utils::IteratorType> iterators) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims({lhs, rhs, out});
  if (failed(dims))
    return failure();
  size_t named = dims->batch.size() + dims->m.size() + dims->n.size() +
                 dims->k.size();
  if (named != iterators.size())
    return failure();
  for (unsigned d : dims->k)
    if (iterators[d] != utils::IteratorType::reduction)
      return failure();
  for (ArrayRef<unsigned> parallel : {ArrayRef(dims->batch), ArrayRef(dims->m),
                                      ArrayRef(dims->n)})
    for (unsigned d : parallel)
      if (iterators[d] != utils::IteratorType::parallel)
        return failure();
  return dims;
}

/// The ops computing `visible` if it is a predicate of the loop indices not
/// in `reduced`: `linalg.index`, pure arith ops, constants, values from
/// above. In block order.
static FailureOr<SmallVector<Operation *>>
indexPredicate(Value visible, Block &body, ArrayRef<unsigned> reduced) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{visible};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body)
        return failure(); // an operand's element, not an index
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != &body || slice.contains(def))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      if (llvm::is_contained(reduced, index.getDim()))
        return failure();
    } else if (def->getNumRegions() || !isPure(def) || !def->getDialect() ||
               def->getDialect()->getNamespace() != "arith") {
      return failure();
    }
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  return ordered;
}

FailureOr<MaskedContraction>
mlir::linea::matchMaskedContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op->getNumRegions() || op.getBlock()->getNumArguments() != 3)
    return failure();
  MaskedContraction c;
  c.lhs = op.getDpsInputOperand(0);
  c.rhs = op.getDpsInputOperand(1);
  c.init = op.getDpsInitOperand(0);
  FailureOr<linalg::ContractionDimensions> dims = inferMaskedContractionDims(
      op.getMatchingIndexingMap(c.lhs), op.getMatchingIndexingMap(c.rhs),
      op.getMatchingIndexingMap(c.init), op.getIteratorTypesArray());
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return failure();
  c.dims = *dims;

  // out + [select(visible, ] a * b [, 0)]
  Block &body = *op.getBlock();
  auto yield = body.getTerminator();
  if (yield->getNumOperands() != 1)
    return failure();
  auto add = yield->getOperand(0).getDefiningOp<arith::AddFOp>();
  Value out = body.getArgument(2);
  if (!add || (add.getLhs() != out && add.getRhs() != out))
    return failure();
  Value term = add.getLhs() == out ? add.getRhs() : add.getLhs();
  SmallVector<Operation *> chain{yield, add};
  if (auto select = term.getDefiningOp<arith::SelectOp>()) {
    if (!matchPattern(select.getFalseValue(), m_AnyZeroFloat()))
      return failure();
    c.visible = select.getCondition();
    term = select.getTrueValue();
    chain.push_back(select);
  }
  auto mul = term.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return failure();
  chain.push_back(mul);
  // A factor is an operand's element, maybe widened to the accumulator's
  // type.
  auto element = [&](Value factor) -> Value {
    if (auto widen = factor.getDefiningOp<arith::ExtFOp>();
        widen && widen->getBlock() == &body) {
      chain.push_back(widen);
      c.widens = true;
      return widen.getIn();
    }
    return factor;
  };
  Value x = element(mul.getLhs()), y = element(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  if (!((x == a && y == b) || (x == b && y == a)))
    return failure();
  if (c.visible) {
    FailureOr<SmallVector<Operation *>> predicate =
        indexPredicate(c.visible, body, c.dims.k);
    if (failed(predicate))
      return failure();
    c.predicate = *predicate;
  }
  // Nothing else in the body but constants.
  for (Operation &inner : body)
    if (!llvm::is_contained(chain, &inner) &&
        !llvm::is_contained(c.predicate, &inner) &&
        !isa<arith::ConstantOp>(inner))
      return failure();
  return c;
}

FailureOr<ContractionLayout>
linea::layoutContraction(linalg::LinalgOp op, const MaskedContraction &c) {
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        map.getNumResults() == 0)
      return failure();
  auto innermost = [&](OpOperand *operand) {
    return cast<AffineDimExpr>(
               op.getMatchingIndexingMap(operand).getResults().back())
        .getPosition();
  };
  ContractionLayout layout;
  layout.c = c.init;
  layout.k = c.dims.k[0];
  layout.batch.assign(c.dims.batch.begin(), c.dims.batch.end());
  unsigned cInner = innermost(c.init);
  if (cInner == c.dims.n[0]) {
    layout.a = c.lhs, layout.b = c.rhs;
    layout.m = c.dims.m[0], layout.n = c.dims.n[0];
  } else if (cInner == c.dims.m[0]) {
    layout.a = c.rhs, layout.b = c.lhs;
    layout.m = c.dims.n[0], layout.n = c.dims.m[0];
  } else {
    return failure();
  }
  unsigned aInner = innermost(layout.a), bInner = innermost(layout.b);
  if (bInner != layout.n && bInner != layout.k)
    return failure();
  layout.aDepthInner = aInner == layout.k;
  layout.bDepthInner = bInner == layout.k;
  return layout;
}
