//===- StoredTypes.cpp - contractions on bf16/f16 buffers as stored -------===//

#include "StoredTypes.h"

#include "linea/Utils/FloatTypes.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"


using namespace mlir;

namespace {

/// Whether `accept` holds for every use of `buffer` and of its views (the
/// views' own uses of their sources aside); the views are appended to
/// `views`, each after the views of it.
bool allUses(Value buffer, function_ref<bool(OpOperand &)> accept,
             SmallVectorImpl<Operation *> &views) {
  for (OpOperand &use : buffer.getUses()) {
    auto view = dyn_cast<ViewLikeOpInterface>(use.getOwner());
    if (view && view.getViewSource() == buffer) {
      if (!allUses(view->getResult(0), accept, views))
        return false;
      views.push_back(view);
      continue;
    }
    if (!accept(use))
      return false;
  }
  return true;
}

/// Whether `buffer` and its views are only read (or freed), but for
/// `writer` and for ops earlier than `before` in its block (or nested in
/// one).
bool onlyRead(Value buffer, Operation *writer, Operation *before = nullptr) {
  SmallVector<Operation *> views;
  return allUses(
      buffer,
      [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (user == writer || isa<memref::LoadOp, memref::DeallocOp>(user))
          return true;
        // A producer earlier in `before`'s block, or nested in an op there
        // (a launch, a sequence block's loop).
        if (before) {
          Operation *ancestor =
              before->getBlock()->findAncestorOpInBlock(*user);
          if (ancestor && ancestor != before &&
              ancestor->isBeforeInBlock(before))
            return true;
        }
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
          return linalgOp.isDpsInput(&use);
        // Its address read (an alignment check), its elements copied out
        // (cp.async) or described for TMA loads: no write to it.
        if (isMemoryEffectFree(user) || isa<nvgpu::TmaCreateDescriptorOp>(user))
          return true;
        auto effects = dyn_cast<MemoryEffectOpInterface>(user);
        return effects && !effects.getEffectOnValue<MemoryEffects::Write>(
                              use.get());
      },
      views);
}

/// An elementwise copy through one conversion `Conversion` (arith.extf or
/// arith.truncf) between an f32 and a 16-bit float buffer of one shape,
/// with identity layouts.
template <typename Conversion>
bool isConvertingCopy(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  // The f32 side is a fresh allocation; the 16-bit side any view.
  auto from = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto to = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!from || !to || from.getShape() != to.getShape())
    return false;
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto convert = yield.getOperand(0).getDefiningOp<Conversion>();
  return convert && convert.getIn() == body.getArgument(0) &&
         body.getOperations().size() == 2;
}

bool isWidening(linalg::GenericOp op) {
  return isConvertingCopy<arith::ExtFOp>(op) &&
         linea::isSixteenBitFloat(
             getElementTypeOrSelf(op.getDpsInputs()[0].getType()));
}

bool isNarrowing(linalg::GenericOp op) {
  return isConvertingCopy<arith::TruncFOp>(op) &&
         linea::isSixteenBitFloat(
             getElementTypeOrSelf(op.getDpsInits()[0].getType()));
}

/// `value`'s views back to their root, outermost first; the root in
/// `root`.
SmallVector<Operation *> viewsOf(Value value, Value &root) {
  SmallVector<Operation *> views;
  root = value;
  while (auto view = root.getDefiningOp<ViewLikeOpInterface>()) {
    views.push_back(view);
    root = view.getViewSource();
  }
  return views;
}

/// `view` taken again on `source` (another element type or layout), its
/// result type inferred; null for a view it cannot retake (another kind of
/// view).
Value retakeView(OpBuilder &b, Operation *view, Value source) {
  Location loc = view->getLoc();
  if (auto subview = dyn_cast<memref::SubViewOp>(view)) {
    // Rank-reducing ones too (a GPU block's slice of its sequence's rows).
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        subview.getType().getShape(), cast<MemRefType>(source.getType()),
        subview.getMixedOffsets(), subview.getMixedSizes(),
        subview.getMixedStrides());
    return memref::SubViewOp::create(b, loc, type, source,
                                     subview.getMixedOffsets(),
                                     subview.getMixedSizes(),
                                     subview.getMixedStrides());
  }
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(view)) {
    FailureOr<MemRefType> type = memref::ExpandShapeOp::computeExpandedType(
        cast<MemRefType>(source.getType()), expand.getType().getShape(),
        expand.getReassociationIndices());
    if (failed(type))
      return {};
    return memref::ExpandShapeOp::create(b, loc, *type, source,
                                         expand.getReassociationIndices(),
                                         expand.getMixedOutputShape());
  }
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view)) {
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            cast<MemRefType>(source.getType()),
            collapse.getReassociationIndices()))
      return {};
    return memref::CollapseShapeOp::create(b, loc, source,
                                           collapse.getReassociationIndices());
  }
  return {};
}

/// `views` (root-side last) taken again on `base` at `b`'s insertion
/// point; null where one cannot be.
Value rebuildViews(OpBuilder &b, ArrayRef<Operation *> views, Value base) {
  Value last = base;
  for (Operation *view : llvm::reverse(views))
    if (!(last = retakeView(b, view, last)))
      return {};
  return last;
}

bool isReshape(Operation *op) {
  return isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(op);
}

/// `value` (shaped as the result of the reshapes `views`, root-side last)
/// taken back to the root's shape, each reshape undone, innermost first;
/// null where one cannot be.
Value undoReshapes(OpBuilder &b, ArrayRef<Operation *> views, Value value) {
  for (Operation *view : views) {
    Location loc = view->getLoc();
    auto type = cast<MemRefType>(value.getType());
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view)) {
      FailureOr<MemRefType> expanded =
          memref::ExpandShapeOp::computeExpandedType(
              type, collapse.getSrcType().getShape(),
              collapse.getReassociationIndices());
      if (failed(expanded))
        return {};
      value = memref::ExpandShapeOp::create(
          b, loc, *expanded, value, collapse.getReassociationIndices());
      continue;
    }
    auto expand = cast<memref::ExpandShapeOp>(view);
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
            type, expand.getReassociationIndices()))
      return {};
    value = memref::CollapseShapeOp::create(b, loc, value,
                                            expand.getReassociationIndices());
  }
  return value;
}

/// Whether every op strictly between `first` and `last` (one block) leaves
/// memory alone (views, allocations and pure ops).
bool nothingTouchesMemoryBetween(Operation *first, Operation *last) {
  if (first->getBlock() != last->getBlock() || !first->isBeforeInBlock(last))
    return false;
  for (Operation *op = first->getNextNode(); op != last;
       op = op->getNextNode())
    if (!isa<ViewLikeOpInterface, memref::AllocOp>(op) &&
        !isMemoryEffectFree(op))
      return false;
  return true;
}

/// The widening copy that fills the allocation `root` (the last one where
/// there are several), or null.
linalg::GenericOp wideningInto(Value root) {
  linalg::GenericOp widening;
  if (!root.getDefiningOp<memref::AllocOp>())
    return widening;
  for (Operation *user : root.getUsers())
    if (auto generic = dyn_cast<linalg::GenericOp>(user))
      if (generic.getDpsInits()[0] == root && isWidening(generic))
        widening = generic;
  return widening;
}

} // namespace

Value linea::readAsStored(OpBuilder &b, Value operand,
                          linalg::GenericOp &widening) {
  Value root;
  SmallVector<Operation *> views = viewsOf(operand, root);
  widening = wideningInto(root);
  if (!widening || !onlyRead(root, widening))
    return {};
  // Read later than the copy did, the 16-bit buffer must hold the same
  // values: nothing may write it, nor any other view of its memory, after
  // the copy (its producer, earlier in the copy's block, may).
  Value source = widening.getDpsInputs()[0], sourceRoot;
  viewsOf(source, sourceRoot);
  if (!onlyRead(sourceRoot, /*writer=*/nullptr, /*before=*/widening))
    return {};
  return rebuildViews(b, views, source);
}

Type linea::widenedFrom(Value operand) {
  Value root;
  viewsOf(operand, root);
  linalg::GenericOp widening = wideningInto(root);
  return widening ? getElementTypeOrSelf(widening.getDpsInputs()[0].getType())
                  : Type();
}

namespace {

/// Whether nothing after `writer` touches memory until `last` (later in
/// an enclosing block): ops that only view, allocate or free memory, or
/// have no effects on it, in `writer`'s block and each enclosing one up to
/// `last`'s.
bool nothingTouchesMemoryAfter(Operation *writer, Operation *last) {
  Operation *op = writer;
  while (op->getBlock() != last->getBlock()) {
    for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
      if (!isa<ViewLikeOpInterface, memref::AllocOp, memref::DeallocOp>(next) &&
          !isMemoryEffectFree(next))
        return false;
    op = op->getParentOp();
    if (!op)
      return false;
  }
  return nothingTouchesMemoryBetween(op, last);
}

bool isSliceOrReshape(Operation *op) {
  return isReshape(op) || isa<memref::SubViewOp>(op);
}

} // namespace

namespace {

/// Whether two unit-stride slices of one buffer, of static offsets and
/// sizes, share no element: along some dim their ranges do not meet.
bool disjointSlices(memref::SubViewOp a, memref::SubViewOp b) {
  if (a.getSource() != b.getSource() || !a.hasUnitStride() ||
      !b.hasUnitStride() || !a.getOffsets().empty() ||
      !b.getOffsets().empty() || !a.getSizes().empty() || !b.getSizes().empty())
    return false;
  for (auto [aOffset, aSize, bOffset, bSize] :
       llvm::zip(a.getStaticOffsets(), a.getStaticSizes(), b.getStaticOffsets(),
                 b.getStaticSizes()))
    if (aOffset + aSize <= bOffset || bOffset + bSize <= aOffset)
      return true;
  return false;
}

} // namespace

Value linea::writeAsStored(OpBuilder &b, Value result,
                           ArrayRef<Operation *> writers,
                           linalg::GenericOp &narrowing) {
  Value root;
  SmallVector<Operation *> views = viewsOf(result, root);
  if (!root.getDefiningOp<memref::AllocOp>() ||
      !llvm::all_of(views, isSliceOrReshape))
    return {};
  // The root's users: the writers, one narrowing copy reading a reshape of
  // it, deallocations and reshapes.
  narrowing = {};
  SmallVector<Operation *> reshapes;
  bool known = allUses(
      root,
      [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (llvm::is_contained(writers, user) || isa<memref::DeallocOp>(user))
          return true;
        auto generic = dyn_cast<linalg::GenericOp>(user);
        if (!generic || narrowing || !isNarrowing(generic) ||
            !generic.isDpsInput(&use))
          return false;
        narrowing = generic;
        return true;
      },
      reshapes);
  // Slices of the result are the writers' own (each GPU block of a
  // sequence block writing its part); the narrowing reads reshapes of it.
  if (!known || !narrowing || !llvm::all_of(reshapes, isSliceOrReshape) ||
      !nothingTouchesMemoryAfter(writers.back(), narrowing))
    return {};
  Value narrowedRoot;
  SmallVector<Operation *> narrowedViews =
      viewsOf(narrowing.getDpsInputs()[0], narrowedRoot);
  if (!llvm::all_of(narrowedViews, isReshape))
    return {};
  // The narrowed buffer (or the slice of one the narrowing writes: a
  // PrefixLM layer's rows in their half of the output) is allocated before
  // the writers (before the loop around them, where they are in one).
  Value narrowRoot;
  SmallVector<Operation *> narrowViews =
      viewsOf(narrowing.getDpsInits()[0], narrowRoot);
  if (!llvm::all_of(narrowViews, isSliceOrReshape))
    return {};
  Operation *insertion =
      narrowing->getBlock()->findAncestorOpInBlock(*b.getInsertionPoint());
  if (!insertion)
    return {};
  // The views are taken again before the writers: their sizes and offsets
  // must be known there.
  DominanceInfo dominance(insertion->getParentOp());
  for (Operation *view : narrowViews)
    for (Value operand : llvm::drop_begin(view->getOperands()))
      if (!dominance.properlyDominates(operand, insertion))
        return {};
  // Written earlier now, the buffer must not be used by anything before the
  // narrowing (which would see the new values), but for the views the
  // narrowing writes through.
  auto ownSlice = narrowViews.empty()
                      ? memref::SubViewOp()
                      : dyn_cast<memref::SubViewOp>(narrowViews.back());
  auto usedBefore = [&](Value buffer) {
    return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
      if (llvm::is_contained(narrowViews, user))
        return false;
      // Another part of the buffer (a PrefixLM layer's other half).
      auto slice = dyn_cast<memref::SubViewOp>(user);
      if (slice && ownSlice && disjointSlices(slice, ownSlice))
        return false;
      Operation *placed = narrowing->getBlock()->findAncestorOpInBlock(*user);
      return !placed || placed->isBeforeInBlock(narrowing);
    });
  };
  if (auto alloc = narrowRoot.getDefiningOp<memref::AllocOp>()) {
    if (alloc->getNumOperands() != 0 ||
        alloc->getBlock() != insertion->getBlock() ||
        (!narrowViews.empty() && usedBefore(narrowRoot)))
      return {};
    if (insertion->isBeforeInBlock(alloc))
      alloc->moveBefore(insertion);
  } else if (isa<BlockArgument>(narrowRoot)) {
    if (usedBefore(narrowRoot))
      return {};
  } else {
    return {};
  }
  Value narrow = rebuildViews(b, narrowViews, narrowRoot);
  Value atRoot = narrow ? undoReshapes(b, narrowedViews, narrow) : Value();
  return atRoot ? rebuildViews(b, views, atRoot) : Value();
}

void linea::eraseUnusedCopy(RewriterBase &rewriter, linalg::GenericOp copy) {
  Value root;
  viewsOf(isWidening(copy) ? copy.getDpsInits()[0] : copy.getDpsInputs()[0],
          root);
  if (!root.getDefiningOp<memref::AllocOp>())
    return;
  // Only the copy and deallocations use it, through views or not.
  SmallVector<Operation *> users, views;
  bool unused = allUses(
      root,
      [&](OpOperand &use) {
        Operation *user = use.getOwner();
        if (user != copy.getOperation() && !isa<memref::DeallocOp>(user))
          return false;
        if (!llvm::is_contained(users, user))
          users.push_back(user);
        return true;
      },
      views);
  if (!unused)
    return;
  for (Operation *op : llvm::concat<Operation *>(users, views))
    rewriter.eraseOp(op);
  rewriter.eraseOp(root.getDefiningOp());
}

namespace {

/// A static f32 buffer with the identity layout, allocated in a sequence
/// block: a temporary in the block's shared memory.
bool isSequenceBlockTemporary(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  return type.getElementType().isF32() && type.hasStaticShape() &&
         type.getLayout().isIdentity() && type.getRank() > 0 &&
         linea::isInSequenceBlock(alloc);
}

/// A `type` buffer shaped as `alloc` but for kRowPad more elements per
/// row where its rows are whole 16-byte lines (ldmatrix reads no others),
/// allocated just before it and freed where it is; returns its view
/// shaped as `alloc`. Never larger than `alloc`.
Value paddedTwin(RewriterBase &rewriter, memref::AllocOp alloc, Type type) {
  Location loc = alloc.getLoc();
  MemRefType shape = alloc.getType();
  SmallVector<int64_t> padded(shape.getShape());
  if (padded.back() % linea::kRowPad == 0)
    padded.back() += linea::kRowPad;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(alloc);
  auto twin = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(padded, type), alloc.getAlignmentAttr());
  int64_t rank = shape.getRank();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : shape.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  Value view = memref::SubViewOp::create(rewriter, loc, twin, offsets, sizes,
                                         strides);
  for (Operation *user : alloc->getUsers())
    if (isa<memref::DeallocOp>(user)) {
      rewriter.setInsertionPoint(user);
      memref::DeallocOp::create(rewriter, user->getLoc(), twin);
    }
  return view;
}

/// An elementwise generic from `from` into `to` (one shape), its body
/// `convert(element)` yielded.
void elementwise(OpBuilder &b, Location loc, Value from, Value to,
                 function_ref<Value(OpBuilder &, Location, Value)> convert) {
  int64_t rank = cast<MemRefType>(to.getType()).getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  linalg::GenericOp::create(
      b, loc, ValueRange{from}, ValueRange{to}, {identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                convert(nested, nestedLoc, args[0]));
      });
}

Value widened(OpBuilder &b, Location loc, Value v) {
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

/// `copy` into a sequence-block temporary of its own, made of 16-bit values.
void copyIntoStoredTemporary(RewriterBase &rewriter, linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics())
    return;
  auto alloc = copy.getOutputs()[0].getDefiningOp<memref::AllocOp>();
  if (!alloc || !isSequenceBlockTemporary(alloc) || !onlyRead(alloc, copy))
    return;
  // Its readers must be able to read the padded twin instead (else both
  // stay, more shared memory than before): slices only, no reshapes.
  SmallVector<Operation *> views;
  allUses(alloc, [](OpOperand &) { return true; }, views);
  if (!llvm::all_of(views, llvm::IsaPred<memref::SubViewOp>))
    return;
  rewriter.setInsertionPoint(copy);
  linalg::GenericOp widening;
  Value stored = linea::readAsStored(rewriter, copy.getInputs()[0], widening);
  if (!stored)
    return;
  Value twin = paddedTwin(rewriter, alloc,
                          cast<MemRefType>(stored.getType()).getElementType());
  Location loc = copy.getLoc();
  linalg::CopyOp::create(rewriter, loc, stored, twin);
  elementwise(rewriter, loc, twin, alloc, widened);
  rewriter.eraseOp(copy);
  linea::eraseUnusedCopy(rewriter, widening);
}

/// Whether `use` only writes its buffer: the output of a fill, a copy, or
/// an elementwise generic whose body does not read it.
bool onlyWrites(OpOperand &use) {
  Operation *user = use.getOwner();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      !linalgOp.isDpsInit(&use) || linalgOp.getNumDpsInits() != 1)
    return false;
  if (isa<linalg::FillOp, linalg::CopyOp>(user))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(user);
  return generic && generic.getNumReductionLoops() == 0 &&
         !generic.payloadUsesValueFromOperand(&use);
}

/// `writer` again, writing `target` (16-bit) what it wrote narrowed.
void narrowWriter(RewriterBase &rewriter, Operation *writer, Value target) {
  Location loc = writer->getLoc();
  Type type = cast<MemRefType>(target.getType()).getElementType();
  auto narrowed = [&](OpBuilder &b, Location at, Value v) -> Value {
    return v.getType() == type ? v : arith::TruncFOp::create(b, at, type, v);
  };
  rewriter.setInsertionPoint(writer);
  if (auto fill = dyn_cast<linalg::FillOp>(writer)) {
    linalg::FillOp::create(rewriter, loc,
                           narrowed(rewriter, loc, fill.getInputs()[0]),
                           target);
  } else if (auto copy = dyn_cast<linalg::CopyOp>(writer)) {
    elementwise(rewriter, loc, copy.getInputs()[0], target, narrowed);
  } else {
    auto generic = cast<linalg::GenericOp>(writer);
    Block &body = generic.getRegion().front();
    linalg::GenericOp::create(
        rewriter, loc, generic.getDpsInputs(), ValueRange{target},
        generic.getIndexingMapsArray(), generic.getIteratorTypesArray(),
        [&](OpBuilder &b, Location at, ValueRange args) {
          IRMapping mapping;
          mapping.map(body.getArguments(), args);
          for (Operation &op : body.without_terminator())
            b.clone(op, mapping);
          Value yielded = mapping.lookupOrDefault(
              body.getTerminator()->getOperand(0));
          linalg::YieldOp::create(b, at, narrowed(b, at, yielded));
        });
  }
  rewriter.eraseOp(writer);
}

} // namespace

void linea::copyIntoStoredTemporaries(RewriterBase &rewriter,
                                      Operation *root) {
  SmallVector<linalg::CopyOp> copies;
  root->walk([&](linalg::CopyOp copy) {
    if (isInSequenceBlock(copy))
      copies.push_back(copy);
  });
  for (linalg::CopyOp copy : copies)
    copyIntoStoredTemporary(rewriter, copy);
}

Value linea::narrowTemporary(RewriterBase &rewriter, memref::AllocOp alloc,
                             Type type,
                             function_ref<bool(OpOperand &)> narrowedRead) {
  if (!isSequenceBlockTemporary(alloc))
    return {};
  SmallVector<OpOperand *> writes;
  SmallVector<Operation *> views;
  bool known = allUses(
      alloc,
      [&](OpOperand &use) {
        if (isa<memref::DeallocOp>(use.getOwner()) || narrowedRead(use))
          return true;
        // A widened temporary is read as stored (readAsStored) instead.
        auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
        if (!onlyWrites(use) || (generic && isWidening(generic)))
          return false;
        writes.push_back(&use);
        return true;
      },
      views);
  // Slices only: a reshape of the padded rows may not be expressible.
  if (!known || writes.empty() ||
      !llvm::all_of(views, llvm::IsaPred<memref::SubViewOp>))
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  Value twin = paddedTwin(rewriter, alloc, type);
  for (OpOperand *write : writes) {
    Operation *writer = write->getOwner();
    rewriter.setInsertionPoint(writer);
    narrowWriter(rewriter, writer, retargetViews(rewriter, write->get(), twin));
  }
  return twin;
}

Value linea::retargetViews(OpBuilder &b, Value value, Value base) {
  Value root;
  SmallVector<Operation *> views = viewsOf(value, root);
  return rebuildViews(b, views, base);
}

void linea::eraseUnusedBuffer(RewriterBase &rewriter, memref::AllocOp alloc) {
  SmallVector<Operation *> deallocs, views;
  if (!allUses(
          alloc,
          [&](OpOperand &use) {
            if (!isa<memref::DeallocOp>(use.getOwner()))
              return false;
            deallocs.push_back(use.getOwner());
            return true;
          },
          views))
    return;
  for (Operation *op : llvm::concat<Operation *>(deallocs, views))
    rewriter.eraseOp(op);
  rewriter.eraseOp(alloc);
}
