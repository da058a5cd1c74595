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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
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
    SmallVector<Value> buffers{readBuffer(rewriter, loc, op.getQuery()),
                               readBuffer(rewriter, loc, op.getKey()),
                               readBuffer(rewriter, loc, op.getValue())};
    if (Value offsets = op.getOffsets())
      buffers.push_back(asBuffer(rewriter, loc, offsets));
    // Heads merged back (the only use a transpose keeping the heads
    // innermost): the kernel writes the merged rows through a view.
    std::optional<Transpose> merge;
    if (op.getOutput().hasOneUse())
      merge = innerTranspose(*op.getOutput().getUsers().begin());
    auto outType = cast<RankedTensorType>(op.getOutput().getType());
    SmallVector<Value> outSizes;
    for (int64_t d = 0; d < outType.getRank(); ++d)
      outSizes.push_back(
          outType.isDynamicDim(d)
              ? memref::DimOp::create(rewriter, loc, buffers[0], d).getResult()
              : Value());
    Value out;
    if (!merge) {
      out = allocate(rewriter, loc, outType, outSizes);
      buffers.push_back(out);
    } else {
      auto mergedType = cast<RankedTensorType>(merge->result.getType());
      SmallVector<Value> mergedSizes;
      for (int64_t from : merge->permutation)
        mergedSizes.push_back(outSizes[from]);
      out = allocate(rewriter, loc, mergedType, mergedSizes);
      buffers.push_back(memref::TransposeOp::create(
          rewriter, loc, out,
          AffineMapAttr::get(AffineMap::getPermutationMap(
              invertPermutationVector(merge->permutation),
              rewriter.getContext()))));
    }

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
    if (!merge) {
      rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
          op, outType, out, /*restrict=*/true, /*writable=*/true);
      return success();
    }
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        merge->op, merge->result.getType(), out, /*restrict=*/true,
        /*writable=*/true);
    rewriter.eraseOp(op);
    return success();
  }

  /// A transpose (linalg.transpose, or a generic that is one) whose
  /// innermost dim stays innermost: heads split from or merged into a
  /// model's rows. `permutation` as linalg.transpose's: result dim i is
  /// source dim permutation[i].
  struct Transpose {
    Operation *op;
    Value source, result;
    SmallVector<int64_t> permutation;
  };
  static std::optional<Transpose> innerTranspose(Operation *op) {
    std::optional<Transpose> found;
    if (auto transpose = dyn_cast_if_present<linalg::TransposeOp>(op))
      found = Transpose{op, transpose.getInput(), transpose.getResult()[0],
                        SmallVector<int64_t>(transpose.getPermutation())};
    if (auto generic = dyn_cast_if_present<linalg::GenericOp>(op))
      if (generic->getNumResults() == 1)
        if (std::optional<SmallVector<int64_t>> permutation =
                linalg::isaTransposeOpInterface(generic))
          found = Transpose{op, generic.getDpsInputOperand(0)->get(),
                            generic->getResult(0), *permutation};
    if (!found ||
        found->permutation.back() != int64_t(found->permutation.size()) - 1)
      return std::nullopt;
    return found;
  }

  /// `value` as a buffer the kernel reads without a copy before it: a
  /// head split (an inner transpose) as a transposed view of the split's
  /// source, anything else as the buffer it has (a slice a fold's step
  /// keeps, rows a projection wrote into a slice of a window), of any
  /// strides. The kernel stages rows of whole lines where a run-time check
  /// finds them so, else element by element; where the buffer's layout is
  /// known, canonicalization folds the cast back into the kernel's loads.
  static Value readBuffer(OpBuilder &b, Location loc, Value value) {
    if (std::optional<Transpose> split = innerTranspose(value.getDefiningOp()))
      return memref::TransposeOp::create(
          b, loc, anyStrides(b, loc, split->source),
          AffineMapAttr::get(AffineMap::getPermutationMap(split->permutation,
                                                          b.getContext())));
    return anyStrides(b, loc, value);
  }

  /// `value` as a read-only buffer of any strides: bufferization casts
  /// the buffer it has to this type whatever its layout (a static
  /// innermost stride of 1 would need a copy where a slice's is 2, which
  /// bufferization cannot allocate in that layout).
  static Value anyStrides(OpBuilder &b, Location loc, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto layout =
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides);
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType(), layout),
        value, b.getUnitAttr());
  }

  /// A buffer of identity layout of `type`, `sizes` its dynamic sizes
  /// (null where static).
  static Value allocate(OpBuilder &b, Location loc, RankedTensorType type,
                        ArrayRef<Value> sizes) {
    SmallVector<Value> dynamic;
    for (Value size : sizes)
      if (size)
        dynamic.push_back(size);
    return memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()),
        dynamic);
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
