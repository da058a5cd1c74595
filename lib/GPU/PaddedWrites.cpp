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

/// The write's value at its loop indices `ivs`: its body, each input
/// loaded where it reads it.
Value writtenValue(OpBuilder &b, Location loc, linalg::LinalgOp write,
                   ValueRange ivs) {
  return linea::cloneBodyAt(b, write, ivs, [&](OpOperand &operand) -> Value {
    if (write.isDpsInit(&operand))
      return {}; // (not read: paddedWriteAfter)
    Value value = operand.get();
    if (!isa<BaseMemRefType>(value.getType()))
      return value;
    return linea::loadByMap(b, loc, value,
                            write.getMatchingIndexingMap(&operand), ivs);
  });
}

/// One op over the filled buffer: inside the written part the write's
/// value (its inputs loaded at the element less the part's offsets), the
/// fill's elsewhere.
void fuse(RewriterBase &rewriter, PaddedWrite padded) {
  Location loc = padded.write.getLoc();
  Value fillValue = linea::filledValue(padded.fill);
  auto type = cast<MemRefType>(padded.filled.getType());
  rewriter.setInsertionPoint(padded.write);
  SmallVector<Value> offsets = getValueOrCreateConstantIndexOp(
      rewriter, loc, padded.part.getMixedOffsets());
  SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
      rewriter, loc, padded.part.getMixedSizes());
  auto body = [&](OpBuilder &b, Location, ValueRange) {
    Value inside;
    SmallVector<Value> local;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value index = linalg::IndexOp::create(b, loc, d);
      // (index - offset) < size, unsigned: below the offset wraps around.
      Value shifted = arith::SubIOp::create(b, loc, index, offsets[d]);
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       shifted, sizes[d]);
      inside = inside ? arith::AndIOp::create(b, loc, inside, in) : in;
      local.push_back(shifted);
    }
    auto branch =
        scf::IfOp::create(b, loc, TypeRange{type.getElementType()}, inside,
                          /*withElseRegion=*/true);
    OpBuilder thenBuilder = branch.getThenBodyBuilder();
    scf::YieldOp::create(thenBuilder, loc,
                         writtenValue(thenBuilder, loc, padded.write, local));
    OpBuilder elseBuilder = branch.getElseBodyBuilder();
    scf::YieldOp::create(elseBuilder, loc, fillValue);
    linalg::YieldOp::create(b, loc, branch.getResult(0));
  };
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), rewriter.getContext());
  linalg::GenericOp::create(rewriter, loc, TypeRange{}, ValueRange{},
                            ValueRange{padded.filled},
                            ArrayRef<AffineMap>{identity},
                            SmallVector<utils::IteratorType>(
                                type.getRank(), utils::IteratorType::parallel),
                            body);
  rewriter.eraseOp(padded.write);
  rewriter.eraseOp(padded.fill);
}

struct LineaPaddedWritesPass
    : linea::impl::LineaPaddedWritesBase<LineaPaddedWritesPass> {
  void runOnOperation() override {
    SmallVector<PaddedWrite> found;
    getOperation()->walk([&](Operation *op) {
      if (std::optional<PaddedWrite> padded = paddedWriteAfter(op))
        found.push_back(*padded);
    });
    // (A write that is a fill of part of the buffer may head a match of its
    // own, which the first one takes.)
    IRRewriter rewriter(&getContext());
    DenseSet<Operation *> taken;
    for (PaddedWrite &padded : found)
      if (!taken.contains(padded.fill) && !taken.contains(padded.write)) {
        taken.insert(padded.fill);
        taken.insert(padded.write);
        fuse(rewriter, padded);
      }
  }
};

} // namespace
