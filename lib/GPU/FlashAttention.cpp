//===- FlashAttention.cpp - which softmax attention runs as flash attention
//===//
//
// The choice of FlashAttention-2's forward (linea-expand-flash-attention
// builds it) for a softmax attention planned for the GPU, made before the
// forms pass tiles the rest. Until the program is on buffers the kernel is
// a call: the deallocation pass that follows bufferization refuses the
// tensor-core, cp.async and barrier ops (they declare no memory effects),
// and nothing before it needs to see inside.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "FlashAttention.h"

#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAFLASHATTENTION
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {

struct FlashAttentionCall : OpRewritePattern<AttentionOp> {
  FlashAttentionCall(MLIRContext *ctx, Precision precision,
                     SymbolTable &symbols)
      : OpRewritePattern(ctx), precision(precision), symbols(symbols) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Type operandType = flash::operandTypeFor(op, precision);
    if (!operandType)
      return rewriter.notifyMatchFailure(op, "takes the generic route");
    Location loc = kernelStageLoc(op, "flash_fwd");
    SmallVector<Value> buffers{asBuffer(rewriter, loc, op.getQuery()),
                               asBuffer(rewriter, loc, op.getKey()),
                               asBuffer(rewriter, loc, op.getValue())};
    if (Value offsets = op.getOffsets())
      buffers.push_back(asBuffer(rewriter, loc, offsets));
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d + 1 < outType.getRank(); ++d)
      if (outType.isDynamicDim(d))
        dynamicSizes.push_back(
            memref::DimOp::create(rewriter, loc, buffers[0], d));
    buffers.push_back(memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(outType.getShape(), outType.getElementType()),
        dynamicSizes));

    auto call = func::CallOp::create(
        rewriter, loc, declaration(rewriter, TypeRange(ValueRange(buffers))),
        buffers);
    call->setAttr(
        flash::kCallAttr,
        rewriter.getDictionaryAttr({
            rewriter.getNamedAttr(
                "causal", rewriter.getBoolAttr(op.getMask() == Mask::causal)),
            rewriter.getNamedAttr(
                "scale", rewriter.getF32FloatAttr(op.getEffectiveScale())),
            rewriter.getNamedAttr("operand_type", TypeAttr::get(operandType)),
        }));
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, outType, buffers.back(), /*restrict=*/true, /*writable=*/true);
    return success();
  }

  /// `value` as a buffer of identity layout, read only (bufferization
  /// copies a view of another layout into one).
  static Value asBuffer(OpBuilder &b, Location loc, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()), value,
        b.getUnitAttr());
  }

  /// The private declaration calls of these operand types name: one per
  /// signature.
  func::FuncOp declaration(OpBuilder &b, TypeRange operands) const {
    auto type = b.getFunctionType(operands, {});
    for (auto func : symbols.getOp()->getRegion(0).getOps<func::FuncOp>())
      if (func->hasAttr(flash::kCallAttr) && func.getFunctionType() == type)
        return func;
    auto top = OpBuilder::atBlockBegin(&symbols.getOp()->getRegion(0).front());
    auto func = func::FuncOp::create(top, symbols.getOp()->getLoc(),
                                     "linea_flash_attention", type);
    func.setPrivate();
    func->setAttr(flash::kCallAttr, b.getUnitAttr());
    symbols.insert(func); // renamed where the name is taken
    return func;
  }

  Precision precision;
  SymbolTable &symbols;
};

struct LineaFlashAttentionPass
    : linea::impl::LineaFlashAttentionBase<LineaFlashAttentionPass> {
  using LineaFlashAttentionBase::LineaFlashAttentionBase;

  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<FlashAttentionCall>(&getContext(), precision, symbols);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
