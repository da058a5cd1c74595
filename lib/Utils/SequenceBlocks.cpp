//===- SequenceBlocks.cpp - loops whose iterations are GPU blocks ---------===//

#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

SmallVector<Attribute> linea::sequenceBlockMapping(MLIRContext *ctx,
                                                   unsigned numLoops) {
  SmallVector<Attribute> mapping;
  for (unsigned i = 0; i < numLoops; ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<unsigned>(gpu::MappingId::LinearDim0) + i)));
  return mapping;
}

bool linea::isSequenceBlockLoop(Operation *op) {
  auto forall = dyn_cast_or_null<scf::ForallOp>(op);
  if (!forall)
    return false;
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() &&
         llvm::all_of(*mapping, llvm::IsaPred<gpu::GPUBlockMappingAttr>);
}

Operation *linea::enclosingSequenceBlock(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isSequenceBlockLoop(parent))
      return parent;
  return nullptr;
}

bool linea::isInSequenceBlock(Operation *op) {
  return enclosingSequenceBlock(op) != nullptr;
}

int64_t linea::sequenceBlockColumns(int64_t columns, int64_t valueTile) {
  if (valueTile <= 0 || ShapedType::isDynamic(columns) ||
      columns <= valueTile || columns % valueTile != 0)
    return columns;
  return valueTile;
}
