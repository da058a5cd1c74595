//===- AccumulationChains.cpp - what linea-contractions-to-mma runs -------===//

#include "AccumulationChains.h"

#include "linea/Utils/Fills.h"
#include "linea/Utils/LinalgBodies.h"
#include "linea/Utils/MaskedContraction.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::linea;
using mma::AccumulationChain;
using mma::Contraction;
using mma::kTileK;
using mma::kTileM;
using mma::kTileN;

namespace {

bool isZero(Value v) {
  FloatAttr attr;
  return matchPattern(v, m_Constant(&attr)) && attr.getValue().isZero();
}

/// Whether `operand` reads the contraction's batch loops first, which are
/// loops 0, 1, ... in that order (the tiles index their batch by loop),
/// then two dims.
bool batchLeads(linalg::GenericOp op, OpOperand *operand,
                ArrayRef<unsigned> batch) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (map.getNumResults() != batch.size() + 2)
    return false;
  for (unsigned i = 0; i < batch.size(); ++i)
    if (!llvm::is_contained(batch, i) ||
        map.getResult(i) != getAffineDimExpr(i, op.getContext()))
      return false;
  return true;
}

/// Whether `operand`'s sizes are static but for its `numBatch` leading
/// batch dims (a grid has a block tile per batch element it counts at run
/// time: a chunk-parallel form's chunks of a dynamic L) and dim `rows`
/// (none: -1), the output rows a grid can cover with a partial last tile
/// where A stores them outer (a projection over a model's dynamic L).
bool staticButBatchAndRows(OpOperand *operand, int64_t numBatch,
                           int64_t rows) {
  auto type = cast<MemRefType>(operand->get().getType());
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size) && int64_t(dim) != rows &&
        int64_t(dim) >= numBatch)
      return false;
  return true;
}

bool readsOutput(const Contraction &c) {
  Value root = linea::viewRoot(c.out);
  return linea::viewRoot(c.a) == root || linea::viewRoot(c.m) == root;
}

/// Whether every op strictly between `from` and `to` (one block, `from`
/// first) leaves buffer `out` alone and writes none of `protectedRoots`.
bool independentBetween(Operation *from, Operation *to, Value out,
                        const llvm::SmallPtrSetImpl<Value> &protectedRoots) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return false;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode()) {
    llvm::SmallPtrSet<Value, 8> reads, writes;
    if (!linea::bufferEffects(op, reads, writes) || reads.contains(out) ||
        writes.contains(out) || llvm::any_of(writes, [&](Value w) {
          return protectedRoots.contains(w);
        }))
      return false;
  }
  return true;
}

/// What `op` fills `out` with where it is a fill of `out` (either form:
/// linea::filledValue); null otherwise.
Value fillValue(Operation *op, Value out) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps || dps.getNumDpsInits() != 1 || dps.getDpsInits()[0] != out)
    return {};
  return linea::filledValue(op);
}

/// The zero fill of `c`'s output before `first`, with nothing between
/// them touching the output; null if none.
Operation *zeroFillBefore(linalg::GenericOp first, const Contraction &c) {
  Value out = linea::viewRoot(c.out);
  for (Operation *op = first->getPrevNode(); op; op = op->getPrevNode()) {
    if (Value value = fillValue(op, c.out)) {
      if (isZero(value) && !readsOutput(c))
        return op;
      return {};
    }
    llvm::SmallPtrSet<Value, 8> reads, writes;
    if (!linea::bufferEffects(op, reads, writes) || reads.contains(out) ||
        writes.contains(out))
      return {};
  }
  return {};
}

} // namespace

std::optional<Contraction> mma::matchContraction(linalg::GenericOp op) {
  // The body and its mask: the contraction matcher every user shares.
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  FailureOr<linea::MaskedContraction> masked = linea::matchMaskedContraction(op);
  if (failed(masked) || masked->widens)
    return std::nullopt;
  Value mask = masked->visible;
  SmallVector<Value> operands{op.getDpsInputs()[0], op.getDpsInputs()[1],
                              op.getDpsInits()[0]};
  // Lanes load single elements, so any strides will do (a chunk of a
  // sequence, a shared-memory temporary).
  for (Value v : operands) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  FailureOr<linea::ContractionLayout> layout =
      linea::layoutContraction(op, *masked);
  if (failed(layout))
    return std::nullopt;
  int64_t numBatch = layout->batch.size();
  // C stored [batch.., m, n]; A [batch.., m, k] or [batch.., k, m]; B
  // [batch.., k, n] or [batch.., n, k], not both transposed.
  for (OpOperand *operand : {layout->a, layout->b, layout->c})
    if (!batchLeads(op, operand, layout->batch))
      return std::nullopt;
  if (!layout->aDepthInner && layout->bDepthInner)
    return std::nullopt;
  if (!staticButBatchAndRows(layout->c, numBatch, numBatch) ||
      !staticButBatchAndRows(layout->a, numBatch,
                             layout->aDepthInner ? numBatch : -1) ||
      !staticButBatchAndRows(layout->b, numBatch, -1))
    return std::nullopt;
  auto shape = [](OpOperand *operand) {
    return cast<MemRefType>(operand->get().getType()).getShape();
  };
  Contraction c;
  c.a = layout->a->get();
  c.m = layout->b->get();
  c.out = layout->c->get();
  c.batchShape = llvm::to_vector(shape(layout->c).take_front(numBatch));
  c.rows = shape(layout->c)[numBatch];
  c.cols = shape(layout->c)[numBatch + 1];
  c.depth = shape(layout->a)[numBatch + (layout->aDepthInner ? 1 : 0)];
  // A [k, m]: the state update K^T V; B [n, k]: the scores Q K^T.
  c.transposedA = !layout->aDepthInner;
  c.transposedM = layout->bDepthInner;
  c.rowLoop = layout->m;
  c.colLoop = layout->n;
  c.mask = mask;
  if ((!c.dynamicRows() && c.rows % kTileM) || c.depth % kTileK)
    return std::nullopt;
  // A grid's blocks would read rows that others write.
  if (c.dynamicRows() && readsOutput(c))
    return std::nullopt;
  return c;
}

/// `matches`, in program order, grouped into chains.
SmallVector<AccumulationChain, 0> mma::collectChains(
    ArrayRef<std::pair<linalg::GenericOp, Contraction>> matches) {
  SmallVector<AccumulationChain, 0> chains;
  for (const auto &[op, c] : matches) {
    if (!chains.empty()) {
      AccumulationChain &last = chains.back();
      llvm::SmallPtrSet<Value, 8> memberReads;
      for (const Contraction &k : last.members) {
        memberReads.insert(linea::viewRoot(k.a));
        memberReads.insert(linea::viewRoot(k.m));
      }
      if (last.members.front().out == c.out && !readsOutput(c) &&
          !readsOutput(last.members.front()) &&
          independentBetween(last.ops.back(), op, linea::viewRoot(c.out),
                             memberReads)) {
        last.ops.push_back(op);
        last.members.push_back(c);
        continue;
      }
    }
    chains.push_back(AccumulationChain{{op}, {c}, zeroFillBefore(op, c)});
  }
  return chains;
}

namespace {

/// Whether anything but `op`, views and deallocations uses the allocation
/// under `buffer` after `op`, in `op`'s block.
bool isUsedAfter(Value buffer, Operation *op) {
  SmallVector<Value> worklist{linea::viewRoot(buffer)};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(view->getResult(0));
        continue;
      }
      if (user == op || isa<memref::DeallocOp, memref::DimOp>(user))
        continue;
      Operation *inBlock = op->getBlock()->findAncestorOpInBlock(*user);
      if (!inBlock || op->isBeforeInBlock(inBlock))
        return true;
    }
  }
  return false;
}

/// Whether `op`'s body is plain arithmetic, each operand read by loop
/// dims or constants.
bool isPlainElementwise(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return false;
  return linea::hasPlainBody(op) &&
         llvm::all_of(op.getIndexingMapsArray(), linea::readsByLoopDims);
}

/// The values `op` uses from outside its body: its operands and what its
/// body captures.
SmallVector<Value> valuesUsed(linalg::GenericOp op) {
  SmallVector<Value> used(op->getOperands());
  op.getBody()->walk([&](Operation *inner) {
    for (Value value : inner->getOperands())
      if (!op->isAncestor(value.getParentBlock()->getParentOp()))
        used.push_back(value);
  });
  return used;
}

/// The op defining `value` after `point` in its block, if any.
Operation *definedAfter(Value value, Operation *point) {
  Operation *def = value.getDefiningOp();
  return def && def->getBlock() == point->getBlock() &&
                 point->isBeforeInBlock(def)
             ? def
             : nullptr;
}

} // namespace

/// Collects into `defs` the ops after `last` (in its block) that define
/// `value` and what those use in turn; false where one of them is neither
/// free of memory effects nor an allocation, so that it cannot move before
/// `last`.
static bool collectHoistable(Value value, Operation *last,
                             llvm::SetVector<Operation *> &defs) {
  Operation *def = definedAfter(value, last);
  if (!def || defs.contains(def))
    return true;
  if (def->getNumRegions() ||
      !(isMemoryEffectFree(def) || isa<memref::AllocOp>(def)))
    return false;
  for (Value operand : def->getOperands())
    if (!collectHoistable(operand, last, defs))
      return false;
  defs.insert(def);
  return true;
}

/// Whether `op` (after `last`) is a run-time check the grid may have made
/// before it: a `cf.assert` whose condition can be computed there. (A
/// failed check stops the program either way; where it holds, the grid's
/// epilogue reads what it was about.)
static bool isMovableCheck(Operation *op, Operation *last) {
  auto check = dyn_cast<cf::AssertOp>(op);
  llvm::SetVector<Operation *> defs;
  return check && collectHoistable(check.getArg(), last, defs);
}

SmallVector<Operation *>
mma::epilogueDefinitions(const AccumulationChain &chain) {
  Operation *last = chain.ops.back();
  llvm::SetVector<Operation *> defs;
  for (Value value : valuesUsed(chain.epilogue))
    (void)collectHoistable(value, last, defs);
  // The checks between (a broadcast's), with their conditions.
  for (Operation *op = last->getNextNode(); op != chain.epilogue;
       op = op->getNextNode())
    if (auto check = dyn_cast<cf::AssertOp>(op)) {
      (void)collectHoistable(check.getArg(), last, defs);
      defs.insert(check);
    }
  SmallVector<Operation *> ordered = defs.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Whether what `epilogue` uses is there before `last`, or can be made
/// there (collectHoistable): the grid, built where `last` is, needs it.
static bool isAvailableBefore(linalg::GenericOp epilogue, Operation *last) {
  llvm::SetVector<Operation *> defs;
  return llvm::all_of(valuesUsed(epilogue), [&](Value value) {
    return collectHoistable(value, last, defs);
  });
}

linalg::GenericOp mma::epilogueOf(const AccumulationChain &chain) {
  linalg::GenericOp last = chain.ops.back();
  if (linea::isInSequenceBlock(last))
    return {};
  Operation *next = last->getNextNode();
  while (next && !isa<linalg::LinalgOp>(next) &&
         (isMemoryEffectFree(next) || isa<memref::AllocOp>(next) ||
          isMovableCheck(next, last)))
    next = next->getNextNode();
  auto op = dyn_cast_or_null<linalg::GenericOp>(next);
  Value out = chain.members.front().out;
  auto outType = cast<MemRefType>(out.getType());
  if (!op || !isPlainElementwise(op) || op.getNumLoops() != outType.getRank())
    return {};
  AffineMap element =
      AffineMap::getMultiDimIdentityMap(outType.getRank(), op.getContext());
  OpOperand *written = op.getDpsInitOperand(0);
  Value result = written->get();
  Value outRoot = linea::viewRoot(out), resultRoot = linea::viewRoot(result);
  if (op.getMatchingIndexingMap(written) != element)
    return {};
  bool readsOut = false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value buffer = operand.get();
    if (!isa<BaseMemRefType>(buffer.getType()) ||
        (&operand == written && !op.payloadUsesValueFromOperand(&operand)))
      continue;
    bool atElement = op.getMatchingIndexingMap(&operand) == element;
    if (buffer == out && atElement) {
      readsOut = true;
      continue;
    }
    // Another view of the output, or of the result read at other elements:
    // those may be stored already, or not yet.
    Value root = linea::viewRoot(buffer);
    if (root == outRoot ||
        (root == resultRoot && !(buffer == result && atElement)))
      return {};
  }
  if (!readsOut)
    return {};
  // The chain reads nothing the epilogue writes (other blocks would read
  // it after this one stored), and the output stays unwritten only where
  // nothing reads it.
  for (linalg::GenericOp member : chain.ops)
    for (Value input : member.getDpsInputs())
      if (linea::viewRoot(input) == resultRoot)
        return {};
  // (A caller's buffer is read after the function, whatever the IR says.)
  if (result != out &&
      (!outRoot.getDefiningOp<memref::AllocOp>() || isUsedAfter(out, op)))
    return {};
  if (!isAvailableBefore(op, last))
    return {};
  return op;
}
