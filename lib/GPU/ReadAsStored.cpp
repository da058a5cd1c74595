//===- ReadAsStored.cpp - linalg ops read bf16/f16 operands as stored -----===//
//
// The staged tensor-core grids read 16-bit operands as stored already; the
// rest of a bf16 program's ops (the decays, the in-chunk presums, a chunk
// block's copies) would otherwise read the f32 copies, whose writing and
// reading cost three times the 16-bit buffer's bytes.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "GPUMapping.h"
#include "StoredTypes.h"

#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAREADASSTORED
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// Makes `op`'s input `index` read `stored` (16-bit) and widen it at the
/// top of the body.
void widenInBody(linalg::GenericOp op, unsigned index, Value stored) {
  op->setOperand(index, stored);
  BlockArgument arg = op.getBody()->getArgument(index);
  Type wide = arg.getType();
  arg.setType(cast<MemRefType>(stored.getType()).getElementType());
  OpBuilder b = OpBuilder::atBlockBegin(op.getBody());
  Value widened = arith::ExtFOp::create(b, op.getLoc(), wide, arg);
  arg.replaceAllUsesExcept(widened, widened.getDefiningOp());
}

/// Whether `stored` is a view of a sequence block's temporary.
bool isBlockTemporary(Value stored) {
  auto alloc = linea::viewRoot(stored).getDefiningOp<memref::AllocOp>();
  return alloc && linea::isInSequenceBlock(alloc);
}

struct LineaReadAsStoredPass
    : linea::impl::LineaReadAsStoredBase<LineaReadAsStoredPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    linea::copyIntoStoredTemporaries(rewriter, getOperation());
    SmallVector<linalg::LinalgOp> readers;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::CopyOp>(op) && op.hasPureBufferSemantics())
        readers.push_back(op);
    });
    llvm::SetVector<linalg::GenericOp> widenings;
    for (linalg::LinalgOp reader : readers)
      readInputsAsStored(rewriter, reader, widenings);
    for (linalg::GenericOp widening : widenings)
      linea::eraseUnusedCopy(rewriter, widening);
  }

  /// Every input of `reader` that a widening copy filled reads the 16-bit
  /// buffer instead (a copy becomes a generic first).
  void readInputsAsStored(IRRewriter &rewriter, linalg::LinalgOp reader,
                          llvm::SetVector<linalg::GenericOp> &widenings) {
    SmallVector<unsigned> inputs;
    for (OpOperand *input : reader.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()))
        inputs.push_back(input->getOperandNumber());
    for (unsigned index : inputs) {
      rewriter.setInsertionPoint(reader);
      linalg::GenericOp widening;
      Value stored = linea::readAsStored(
          rewriter, reader->getOperand(index), widening);
      // A copy inside a sequence block is that block's own copy in shared
      // memory, made to be read many times: it stays, read as its 16-bit
      // temporary where it has one.
      if (!stored || widening == reader.getOperation() ||
          (linea::isInSequenceBlock(widening) &&
           !isBlockTemporary(stored)))
        continue;
      auto generic = dyn_cast<linalg::GenericOp>(reader.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> general =
            linalg::generalizeNamedOp(rewriter, reader);
        if (failed(general))
          continue;
        generic = *general;
        reader = cast<linalg::LinalgOp>(generic.getOperation());
      }
      widenInBody(generic, index, stored);
      widenings.insert(widening);
    }
  }
};

} // namespace
