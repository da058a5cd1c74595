//===- CheckAllocations.cpp - a null heap buffer is a run-time error -----===//
//
// A model's temporaries at long sequence lengths are GiB each; past the
// memory a process may have, malloc returns null, and the code upstream's
// lowering emits would write through it. Each heap allocation is checked
// with the run-time check every other boundary uses.
//
//===----------------------------------------------------------------------===//

#include "linea/Bufferization/Passes.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACHECKALLOCATIONS
#include "linea/Bufferization/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The bytes `alloc` asks for: its static sizes, its dynamic ones and the
/// element's width, multiplied.
Value allocatedBytes(OpBuilder &b, memref::AllocOp alloc) {
  Location loc = alloc.getLoc();
  MemRefType type = alloc.getType();
  Type element = type.getElementType();
  int64_t bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  int64_t staticPart = llvm::divideCeil(bits, 8);
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size))
      staticPart *= size;
  Value bytes = arith::ConstantIndexOp::create(b, loc, staticPart);
  for (Value size : alloc.getDynamicSizes())
    bytes = arith::MulIOp::create(b, loc, bytes, size);
  return bytes;
}

void checkAllocation(memref::AllocOp alloc) {
  OpBuilder b(alloc->getContext());
  b.setInsertionPointAfter(alloc);
  Location loc = alloc.getLoc();
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, alloc.getResult());
  Value allocated = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, address,
      arith::ConstantIndexOp::create(b, loc, 0));
  linea::CheckOp::create(
      b, loc, allocated,
      linea::checkMessageAt(
          loc, "out of memory: a buffer of {0} bytes could not be allocated"),
      ValueRange{allocatedBytes(b, alloc)});
}

struct LineaCheckAllocationsPass
    : linea::impl::LineaCheckAllocationsBase<LineaCheckAllocationsPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocations;
    getOperation()->walk([&](memref::AllocOp alloc) {
      // Only element types with a byte width: the message counts bytes.
      // Not in parallel loops: their temporaries are a block's or a
      // tile's, and a check's branch would split the body that OpenMP's
      // lowering keeps in one `memref.alloca_scope` block.
      if (alloc.getType().getElementType().isIntOrIndexOrFloat() &&
          !alloc->getParentOfType<scf::ParallelOp>() &&
          !alloc->getParentOfType<scf::ForallOp>())
        allocations.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocations)
      checkAllocation(alloc);
  }
};

} // namespace
