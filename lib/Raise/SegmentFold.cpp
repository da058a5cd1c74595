//===- SegmentFold.cpp - a loop over segments, as torch unrolls it -------===//
//
// Seed 002's folded layer in PyTorch is a Python loop over segments of
// length l: each step runs a layer over [memory; segment] and keeps the
// second half as the next memory. torch.export unrolls the loop at the
// example's length, so the model IR holds L / l copies of the layer. This
// raise recognizes the chain and replaces it by one `linea.fold` whose body
// is the first step: O(l) live memory and one step's code, however long L.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"


using namespace mlir;
using namespace mlir::linea;
using namespace mlir::linea::raise;

namespace {

/// The unrolled loop, for segments s = 0 .. n-1 along the sequence dim d:
///   W_s = concat(M_s, x[s l : (s+1) l])     (the window, 2 l rows)
///   R_s = step(W_s)
///   y_s = R_s[l : 2l],   M_{s+1} = y_s
///   out = concat(y_0, ..., y_{n-1})
struct SegmentChain {
  Value input;   // x
  Value memory;  // M_0
  int64_t length = 0;
  SmallVector<tensor::ConcatOp> windows;
  SmallVector<Value> results;
};

/// Whether `slice` takes, along `dim` of a static tensor, rows
/// [offset, offset + size) and everything along the other dims.
bool isRowsSlice(tensor::ExtractSliceOp slice, unsigned dim, int64_t offset,
                 int64_t size) {
  auto source = dyn_cast<RankedTensorType>(slice.getSourceType());
  RankedTensorType result = slice.getResultType();
  if (!source || !source.hasStaticShape() || !result.hasStaticShape() ||
      source.getRank() != result.getRank() || !slice.hasUnitStride())
    return false;
  for (auto [k, extent] : llvm::enumerate(source.getShape())) {
    int64_t want = k == dim ? offset : 0;
    int64_t wantSize = k == dim ? size : extent;
    if (slice.getStaticOffsets()[k] != want ||
        slice.getStaticSizes()[k] != wantSize)
      return false;
  }
  return true;
}

/// The window `concat(memory, segment)` along `dim` that reads `segment`
/// second, if there is one.
tensor::ConcatOp windowOf(Value segment, unsigned dim) {
  for (Operation *user : segment.getUsers()) {
    auto concat = dyn_cast<tensor::ConcatOp>(user);
    if (concat && concat.getDim() == dim && concat.getInputs().size() == 2 &&
        concat.getInputs()[1] == segment)
      return concat;
  }
  return nullptr;
}

/// Matches `out` as the end of a chain of segments; says why not in `why`.
LogicalResult matchChain(tensor::ConcatOp out, SegmentChain &chain,
                         Rejection &why) {
  auto type = dyn_cast<RankedTensorType>(out.getType());
  unsigned n = out.getInputs().size();
  if (!type || !type.hasStaticShape() || type.getRank() < 2 || n < 2 ||
      out.getDim() != type.getRank() - 2)
    return failure();
  unsigned dim = out.getDim();
  Type piece = out.getInputs()[0].getType();
  auto pieceType = cast<RankedTensorType>(piece);
  int64_t l = pieceType.getDimSize(dim);
  if (llvm::any_of(out.getInputs(), [&](Value y) { return y.getType() != piece; }))
    return failure();

  // y_s = R_s[l : 2l]: every piece the second half of a step's result.
  for (Value y : out.getInputs()) {
    auto half = y.getDefiningOp<tensor::ExtractSliceOp>();
    if (!half || !isRowsSlice(half, dim, l, l) ||
        half.getSourceType().getDimSize(dim) != 2 * l)
      return failure();
    chain.results.push_back(half.getSource());
  }
  why.candidate = true;

  // W_s = concat(y_{s-1}, x[s l : (s+1) l]) for s >= 1, one x for all.
  SmallVector<tensor::ConcatOp> windows(n);
  for (unsigned s = 1; s < n; ++s) {
    Value previous = out.getInputs()[s - 1];
    for (Operation *user : previous.getUsers()) {
      auto concat = dyn_cast<tensor::ConcatOp>(user);
      if (concat && concat != out && concat.getDim() == dim &&
          concat.getInputs().size() == 2 && concat.getInputs()[0] == previous)
        windows[s] = concat;
    }
    if (!windows[s]) {
      why.reason = "segment " + std::to_string(s) +
                   "'s window is not [the previous segment's result; its rows]";
      return failure();
    }
    auto rows = windows[s].getInputs()[1].getDefiningOp<tensor::ExtractSliceOp>();
    if (!rows || !isRowsSlice(rows, dim, s * l, l) ||
        (chain.input && rows.getSource() != chain.input)) {
      why.reason = "segment " + std::to_string(s) +
                   "'s rows are not rows [s l, (s+1) l) of one input";
      return failure();
    }
    chain.input = rows.getSource();
  }
  if (chain.input.getType() != type) {
    why.reason = "the segments do not cover the input exactly";
    return failure();
  }
  // W_0 = concat(M_0, x[0 : l]) with M_0 of a segment's type.
  for (Operation *user : chain.input.getUsers()) {
    auto rows = dyn_cast<tensor::ExtractSliceOp>(user);
    if (rows && isRowsSlice(rows, dim, 0, l))
      if (tensor::ConcatOp window = windowOf(rows.getResult(), dim))
        windows[0] = window;
  }
  if (!windows[0] || windows[0].getInputs()[0].getType() != piece) {
    why.reason = "the first segment's window is not [a memory; rows [0, l)]";
    return failure();
  }
  chain.memory = windows[0].getInputs()[0];
  chain.length = l;
  chain.windows = std::move(windows);
  return success();
}

/// The ops of one step: those computed from `window` (directly or not) that
/// `result` depends on, in block order; failure if one has side effects or
/// lies outside the window's block. The forward walk stops at the next
/// windows (`allWindows`): what follows them is later steps', so each step
/// costs its own ops, not the rest of the chain.
FailureOr<SmallVector<Operation *>>
stepOps(tensor::ConcatOp window, Value result,
        ArrayRef<tensor::ConcatOp> allWindows) {
  Block *block = window->getBlock();
  llvm::SmallPtrSet<Operation *, 8> stops;
  for (tensor::ConcatOp other : allWindows)
    stops.insert(other);
  // Forward: everything computed from the window, up to the next ones.
  llvm::SmallPtrSet<Operation *, 32> fromWindow;
  SmallVector<Operation *> worklist = {window};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return failure();
      if (!stops.contains(ancestor) && fromWindow.insert(ancestor).second)
        worklist.push_back(ancestor);
    }
  }
  // Backward from the result, within that set.
  llvm::SmallPtrSet<Operation *, 32> step;
  Operation *last = result.getDefiningOp();
  if (!last || !fromWindow.contains(last))
    return failure();
  worklist = {last};
  step.insert(last);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    auto visit = [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      if (!producer)
        return;
      Operation *ancestor = block->findAncestorOpInBlock(*producer);
      if (ancestor && fromWindow.contains(ancestor) && step.insert(ancestor).second)
        worklist.push_back(ancestor);
    };
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        visit(operand);
    });
  }
  SmallVector<Operation *> ordered(step.begin(), step.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (llvm::any_of(ordered, [](Operation *op) { return !isMemoryEffectFree(op); }))
    return failure();
  return ordered;
}

/// Whether `a` and `b` hold the same values: the same SSA value, or the
/// results (same number) of equivalent side-effect-free ops whose operands
/// are, recursively, the same. Each step builds its own destinations
/// (`tensor.empty`, fills, their reshapes) outside what it computes from
/// its window.
bool sameValue(Value a, Value b, unsigned depth = 0) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || cast<OpResult>(a).getResultNumber() !=
                                   cast<OpResult>(b).getResultNumber() ||
      !isMemoryEffectFree(x) || !isMemoryEffectFree(y))
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y,
      [&](Value p, Value q) { return success(sameValue(p, q, depth + 1)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Whether step `other` computes what `first` does: op for op equivalent,
/// each operand the corresponding one of the step, or the same value
/// outside it (a weight, a destination built alike), and the first's result
/// mapped to the other's.
bool sameStep(ArrayRef<Operation *> first, Value firstWindow, Value firstResult,
              ArrayRef<Operation *> other, Value otherWindow, Value otherResult) {
  if (first.size() != other.size())
    return false;
  IRMapping corresponding;
  corresponding.map(firstWindow, otherWindow);
  auto check = [&](Value a, Value b) {
    if (Value mapped = corresponding.lookupOrNull(a))
      return success(mapped == b);
    return success(sameValue(a, b));
  };
  auto mark = [&](Value a, Value b) { corresponding.map(a, b); };
  for (auto [a, b] : llvm::zip(first, other))
    if (!OperationEquivalence::isEquivalentTo(
            a, b, check, mark, OperationEquivalence::IgnoreLocations))
      return false;
  return corresponding.lookupOrNull(firstResult) == otherResult;
}

} // namespace

LogicalResult raise::raiseSegmentFold(RewriterBase &rewriter, Operation *root,
                                      RaiseLog &log, Rejection &why) {
  auto out = dyn_cast<tensor::ConcatOp>(root);
  SegmentChain chain;
  if (!out || failed(matchChain(out, chain, why)))
    return failure();
  SmallVector<SmallVector<Operation *>> steps;
  for (auto [window, result] : llvm::zip(chain.windows, chain.results)) {
    FailureOr<SmallVector<Operation *>> ops =
        stepOps(window, result, chain.windows);
    if (failed(ops)) {
      why.reason = "a segment's step has side effects or reads its window "
                   "outside the function body";
      return failure();
    }
    steps.push_back(std::move(*ops));
  }
  for (unsigned s = 1; s < steps.size(); ++s)
    if (!sameStep(steps[0], chain.windows[0], chain.results[0], steps[s],
                  chain.windows[s], chain.results[s])) {
      why.reason = "segment " + std::to_string(s) +
                   "'s step does not compute what the first one does";
      return failure();
    }

  Location loc = out.getLoc();
  rewriter.setInsertionPoint(out);
  auto fold = FoldOp::create(rewriter, loc, out.getType(),
                             chain.memory.getType(), chain.input, chain.memory,
                             rewriter.getI64IntegerAttr(chain.length));
  Block *body = rewriter.createBlock(&fold.getBody(), {},
                                     {chain.windows[0].getType()}, {loc});
  IRMapping mapping;
  mapping.map(chain.windows[0].getResult(), body->getArgument(0));
  for (Operation *op : steps[0])
    rewriter.clone(*op, mapping);
  YieldOp::create(rewriter, loc, mapping.lookup(chain.results[0]));
  // The last segment's result is the final memory wherever else it is read.
  Value last = out.getInputs().back();
  rewriter.replaceUsesWithIf(last, fold.getFinalMemory(), [&](OpOperand &use) {
    return use.getOwner() != out;
  });
  rewriter.replaceOp(out, fold.getOutput());
  log.raised(fold, "linea.fold segment_length = " +
                       Twine(chain.length) + " (" + Twine(chain.windows.size()) +
                       " segments of a " + Twine(steps[0].size()) + "-op step)");
  return success();
}
