//===- PaddedWrites.cpp - a fill and a write into part of it, one kernel --===//
//
// A chunked form pads each sequence to whole chunks: its buffer is filled
// (zeros, or the ones column of a normalized op's values) and the rows are
// then written into the front of it. As kernels of their own the fill
// writes every element and the write then half of them again; here they
// are one op over the buffer that writes each element once, the write's
// value inside the written part and the fill's outside.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"
#include "linea/Utils/Fills.h"
#include "linea/Utils/LinalgBodies.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"
#include "StoredTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAPADDEDWRITES
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A fill of a whole buffer, then an op writing every element of a part
/// of it (a unit-stride subview) from other buffers.
struct PaddedWrite {
  Operation *fill;
  Value filled;
  linalg::LinalgOp write;
  memref::SubViewOp part;
};

/// The write into part of `fill`'s buffer right after it (only ops without
/// memory effects between), if that is one.
std::optional<PaddedWrite> paddedWriteAfter(Operation *fill) {
  auto fillOp = dyn_cast<linalg::LinalgOp>(fill);
  Value value = fillOp ? linea::filledValue(fill) : Value();
  if (!value || !fillOp.hasPureBufferSemantics() ||
      linea::isInSequenceBlock(fill))
    return std::nullopt;
  Value filled = fillOp.getDpsInits()[0];
  if (value.getType() != cast<MemRefType>(filled.getType()).getElementType())
    return std::nullopt;
  Operation *next = fill->getNextNode();
  while (next && !isa<linalg::LinalgOp>(next) && isMemoryEffectFree(next))
    next = next->getNextNode();
  auto write = dyn_cast_or_null<linalg::LinalgOp>(next);
  if (!write || !write.hasPureBufferSemantics() ||
      write.getNumDpsInits() != 1 || write.getNumReductionLoops() != 0 ||
      !linea::hasPlainBody(write))
    return std::nullopt;
  OpOperand *out = write.getDpsInitOperand(0);
  auto part = out->get().getDefiningOp<memref::SubViewOp>();
  if (!part || part.getSource() != filled ||
      part.getSourceType().getRank() != part.getType().getRank() ||
      !llvm::all_of(part.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }) ||
      !write.getMatchingIndexingMap(out).isIdentity() ||
      write.payloadUsesValueFromOperand(out))
    return std::nullopt;
  // The write reads nothing of the filled buffer, and everything by loop
  // dims or constants.
  Value root = linea::viewRoot(filled);
  for (OpOperand *input : write.getDpsInputOperands()) {
    if (!isa<BaseMemRefType>(input->get().getType()))
      continue;
    if (linea::viewRoot(input->get()) == root ||
        !linea::readsByLoopDims(write.getMatchingIndexingMap(input)))
      return std::nullopt;
  }
  return PaddedWrite{fill, filled, write, part};
}

/// Whether `op` (or an op in it) may write a buffer whose view root is in
/// `roots`, or one it cannot name.
bool mayWriteAny(Operation *op, const DenseSet<Value> &roots) {
  llvm::SmallPtrSet<Value, 4> reads, writes;
  return !linea::bufferEffects(op, reads, writes) ||
         llvm::any_of(writes, [&](Value root) { return roots.contains(root); });
}

/// The padded writes of a function, each of which may take the one before
/// whose buffer it copies from (a pad of a pad: values beside their ones
/// column, then padded to whole chunks), computing that one's elements
/// itself instead of reading them.
struct PaddedChains {
  SmallVector<PaddedWrite> writes;
  /// For a write (by index), the earlier write whose buffer it reads.
  DenseMap<size_t, size_t> inner;
  /// The writes another one took (as its inner write, or as a match of
  /// its own that overlaps it).
  DenseSet<size_t> taken;

  /// The buffers the writes of the chain ending in `index` read.
  DenseSet<Value> readRoots(size_t index) {
    DenseSet<Value> roots;
    for (std::optional<size_t> at = index; at; at = innerOf(*at))
      for (Value input : linalg::LinalgOp(writes[*at].write).getDpsInputs())
        if (isa<BaseMemRefType>(input.getType()))
          roots.insert(linea::viewRoot(input));
    return roots;
  }

  std::optional<size_t> innerOf(size_t index) const {
    auto found = inner.find(index);
    if (found == inner.end())
      return std::nullopt;
    return found->second;
  }

  /// Takes the earlier write whose buffer `outer` reads, where that
  /// buffer has no other reader and nothing between the two writes
  /// changes what the earlier one (and its own inner ones) read.
  void chain(size_t outer) {
    PaddedWrite consumer = writes[outer];
    for (size_t at = 0; at < outer; ++at) {
      PaddedWrite producer = writes[at];
      if (taken.contains(at) ||
          producer.fill->getBlock() != consumer.write->getBlock() ||
          !llvm::is_contained(consumer.write.getDpsInputs(), producer.filled))
        continue;
      if (!readOnlyBy(producer, consumer))
        return;
      DenseSet<Value> roots = readRoots(at);
      for (Operation *op = producer.write->getNextNode();
           op != consumer.write.getOperation(); op = op->getNextNode())
        if (mayWriteAny(op, roots))
          return;
      inner[outer] = at;
      taken.insert(at);
      return;
    }
  }

  /// Whether the producer's buffer is used only by its fill, its write
  /// (through the written part), the consumer and deallocations.
  static bool readOnlyBy(PaddedWrite producer, PaddedWrite consumer) {
    return llvm::all_of(producer.filled.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      if (user == producer.fill || user == consumer.write ||
          isa<memref::DeallocOp>(user))
        return true;
      return user == producer.part && producer.part->hasOneUse();
    });
  }

  /// The element the write `index` (with its fill) leaves at `indices` of
  /// its buffer: inside the written part the write's value (its inputs
  /// loaded at the element less the part's offsets, or computed where an
  /// inner write made them), the fill's outside.
  Value valueAt(OpBuilder &b, Location loc, size_t index,
                ValueRange indices) const {
    PaddedWrite padded = writes[index];
    SmallVector<Value> offsets =
        getValueOrCreateConstantIndexOp(b, loc, padded.part.getMixedOffsets());
    SmallVector<Value> sizes =
        getValueOrCreateConstantIndexOp(b, loc, padded.part.getMixedSizes());
    Value inside;
    SmallVector<Value> local;
    for (auto [at, offset, size] : llvm::zip(indices, offsets, sizes)) {
      // (index - offset) < size, unsigned: below the offset wraps around.
      Value shifted = arith::SubIOp::create(b, loc, at, offset);
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       shifted, size);
      inside = inside ? arith::AndIOp::create(b, loc, inside, in) : in;
      local.push_back(shifted);
    }
    Type element = cast<MemRefType>(padded.filled.getType()).getElementType();
    auto branch = scf::IfOp::create(b, loc, TypeRange{element}, inside,
                                    /*withElseRegion=*/true);
    OpBuilder thenBuilder = branch.getThenBodyBuilder();
    scf::YieldOp::create(thenBuilder, loc,
                         writtenValue(thenBuilder, loc, index, local));
    OpBuilder elseBuilder = branch.getElseBodyBuilder();
    scf::YieldOp::create(elseBuilder, loc, linea::filledValue(padded.fill));
    return branch.getResult(0);
  }

  /// The write `index`'s value at its loop indices `ivs`: its body, each
  /// input loaded where it reads it (or made by the inner write).
  Value writtenValue(OpBuilder &b, Location loc, size_t index,
                     ValueRange ivs) const {
    linalg::LinalgOp write = writes[index].write;
    std::optional<size_t> inner = innerOf(index);
    return linea::cloneBodyAt(b, write, ivs, [&](OpOperand &operand) -> Value {
      if (write.isDpsInit(&operand))
        return {}; // (not read: paddedWriteAfter)
      Value value = operand.get();
      if (!isa<BaseMemRefType>(value.getType()))
        return value;
      AffineMap map = write.getMatchingIndexingMap(&operand);
      if (inner && value == writes[*inner].filled)
        return valueAt(b, loc, *inner, linea::indicesByMap(b, loc, map, ivs));
      return linea::loadByMap(b, loc, value, map, ivs);
    });
  }

  /// The write `index` (and the inner ones it took) as one op over its
  /// buffer; the inner writes' buffers go.
  void fuse(RewriterBase &rewriter, size_t index) {
    PaddedWrite padded = writes[index];
    Location loc = padded.write.getLoc();
    auto type = cast<MemRefType>(padded.filled.getType());
    rewriter.setInsertionPoint(padded.write);
    auto body = [&](OpBuilder &b, Location, ValueRange) {
      SmallVector<Value> indices;
      for (int64_t d = 0; d < type.getRank(); ++d)
        indices.push_back(linalg::IndexOp::create(b, loc, d));
      linalg::YieldOp::create(b, loc, valueAt(b, loc, index, indices));
    };
    AffineMap identity = AffineMap::getMultiDimIdentityMap(
        type.getRank(), rewriter.getContext());
    linalg::GenericOp::create(
        rewriter, loc, TypeRange{}, ValueRange{}, ValueRange{padded.filled},
        ArrayRef<AffineMap>{identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        body);
    for (std::optional<size_t> at = index; at; at = innerOf(*at)) {
      PaddedWrite erased = writes[*at];
      rewriter.eraseOp(erased.write);
      rewriter.eraseOp(erased.fill);
      if (*at != index) {
        if (erased.part->use_empty())
          rewriter.eraseOp(erased.part);
        if (auto alloc = erased.filled.getDefiningOp<memref::AllocOp>())
          linea::eraseUnusedBuffer(rewriter, alloc);
      }
    }
  }
};

struct LineaPaddedWritesPass
    : linea::impl::LineaPaddedWritesBase<LineaPaddedWritesPass> {
  void runOnOperation() override {
    PaddedChains chains;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<PaddedWrite> padded = paddedWriteAfter(op))
        chains.writes.push_back(*padded);
    });
    // (A write that is a fill of part of the buffer may head a match of its
    // own, which the first one takes: that match is taken, by no chain.)
    DenseSet<Operation *> matched;
    SmallVector<size_t> kept;
    for (auto [index, padded] : llvm::enumerate(chains.writes)) {
      if (matched.contains(padded.fill) || matched.contains(padded.write)) {
        chains.taken.insert(index);
        continue;
      }
      matched.insert(padded.fill);
      matched.insert(padded.write);
      kept.push_back(index);
    }
    for (size_t index : kept)
      chains.chain(index);
    IRRewriter rewriter(&getContext());
    for (size_t index : kept)
      if (!chains.taken.contains(index))
        chains.fuse(rewriter, index);
  }
};

} // namespace
