//===- RankCollectives.cpp - MPI collectives on tensors -------------------===//

#include "linea/Distributed/RankCollectives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

Value indexCast(OpBuilder &b, Location loc, Value i32) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i32);
}

/// `tensor` copied into a fresh buffer of its shape (identity layout, as
/// MPI wants contiguous memory). The buffer deallocation pipeline frees it
/// (and the receive buffers) after their last use.
Value stageInBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, tensor, d));
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::AllocOp::create(b, loc, memrefType, dynamicSizes);
  bufferization::MaterializeInDestinationOp::create(
      b, loc, /*result=*/Type(), tensor, buffer, /*restrict=*/false,
      /*writable=*/true);
  return buffer;
}

/// A received buffer as a tensor; nothing else writes it.
Value receivedTensor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto tensorType = RankedTensorType::get(type.getShape(), type.getElementType());
  return bufferization::ToTensorOp::create(b, loc, tensorType, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

/// `@linea_mpi_allgather_<type>(memref<?xT>, memref<?x?xT>)`, declared once.
func::FuncOp allGatherDeclaration(OpBuilder &b, ModuleOp module,
                                  Type elementType) {
  std::string name = elementType.isF32() ? "linea_mpi_allgather_f32"
                                         : "linea_mpi_allgather_i64";
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  int64_t dyn = ShapedType::kDynamic;
  auto type = b.getFunctionType({MemRefType::get({dyn}, elementType),
                                 MemRefType::get({dyn, dyn}, elementType)},
                                {});
  auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
  decl.setPrivate();
  // Memref descriptors by pointer: the runtime's C entry point.
  decl->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return decl;
}

/// `mpi.allreduce(send, recv)`: reads `send`, writes `recv`.
struct AllReduceEffects
    : MemoryEffectOpInterface::ExternalModel<AllReduceEffects,
                                             mpi::AllReduceOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                      &effects) const {
    auto allReduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allReduce.getSendbufMutable());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allReduce.getRecvbufMutable());
  }
};

} // namespace

void mlir::linea::registerMPIMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceEffects>(*ctx);
  });
}

Ranks mlir::linea::buildRanks(OpBuilder &b, Location loc) {
  Value world = mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  Type i32 = b.getI32Type();
  Value rank = mpi::CommRankOp::create(b, loc, TypeRange{i32}, world).getRank();
  Value size = mpi::CommSizeOp::create(b, loc, TypeRange{i32}, world).getSize();
  return {indexCast(b, loc, rank), indexCast(b, loc, size)};
}

Value mlir::linea::allGather(OpBuilder &b, Location loc, ModuleOp module,
                             Value record, Value numRanks) {
  auto type = cast<RankedTensorType>(record.getType());
  Type elementType = type.getElementType();
  Value send = stageInBuffer(b, loc, record);
  Value length = tensor::DimOp::create(b, loc, record, 0);
  auto gatheredType = MemRefType::get({ShapedType::kDynamic, type.getDimSize(0)},
                                      elementType);
  SmallVector<Value> sizes{numRanks};
  if (type.isDynamicDim(0))
    sizes.push_back(length);
  Value recv = memref::AllocOp::create(b, loc, gatheredType, sizes);
  // The callee takes fully dynamic descriptors.
  int64_t dyn = ShapedType::kDynamic;
  Value sendArg = memref::CastOp::create(
      b, loc, MemRefType::get({dyn}, elementType), send);
  Value recvArg = memref::CastOp::create(
      b, loc, MemRefType::get({dyn, dyn}, elementType), recv);
  func::CallOp::create(b, loc, allGatherDeclaration(b, module, elementType),
                       ValueRange{sendArg, recvArg});
  return receivedTensor(b, loc, recv);
}

Value mlir::linea::allReduceSum(OpBuilder &b, Location loc, Value tensor) {
  // 1-D: the mpi dialect's lowering counts the elements of dim 0 only.
  Value send = stageInBuffer(b, loc, flatten(b, loc, tensor));
  auto sendType = cast<MemRefType>(send.getType());
  SmallVector<Value> dynamicSizes;
  if (sendType.isDynamicDim(0))
    dynamicSizes.push_back(memref::DimOp::create(b, loc, send, 0));
  Value recv = memref::AllocOp::create(b, loc, sendType, dynamicSizes);
  Value world = mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  mpi::AllReduceOp::create(b, loc, /*retval=*/Type(), send, recv,
                           mpi::MPI_ReductionOpEnum::MPI_SUM, world);
  return unflattenLike(b, loc, receivedTensor(b, loc, recv), tensor);
}

Value mlir::linea::flatten(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 1)
    return x;
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), x,
        ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, x,
                                         ArrayRef<ReassociationIndices>{all});
}

Value mlir::linea::unflattenLike(OpBuilder &b, Location loc, Value flat,
                                 Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  auto flatType = cast<RankedTensorType>(flat.getType());
  if (type.getRank() == 1)
    return flatType == type ? flat
                            : tensor::CastOp::create(b, loc, type, flat).getResult();
  if (type.getRank() == 0) {
    if (flatType.isDynamicDim(0))
      flat = tensor::CastOp::create(
          b, loc, RankedTensorType::get({1}, type.getElementType()), flat);
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  }
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all},
                                       tensor::getMixedSizes(b, loc, like));
}
