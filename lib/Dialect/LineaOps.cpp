//===- LineaOps.cpp - Linea ops' tiling, forms and builders ---------------===//
//
// What Linea's ops implement besides their syntax, verifiers and
// canonicalizations: the attributes' and interfaces' generated code, the
// tiling (TilingInterface) and result shapes of the tileable ops, their
// legal forms, their builders from a LinearAttentionSpec, and the ops'
// generated definitions (GET_OP_CLASSES, included here and only here). The
// custom syntax is in LineaOpsSyntax.cpp, the verifiers in
// LineaOpsVerify.cpp, the canonicalization patterns in
// LineaOpsCanonicalize.cpp.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "LineaOpsDetail.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::linea;

#include "linea/Dialect/LineaEnums.cpp.inc"
#include "linea/Dialect/LineaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "linea/Dialect/LineaAttrs.cpp.inc"

void LineaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "linea/Dialect/LineaAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Tiling: shared by every tileable op
//===----------------------------------------------------------------------===//

namespace {

/// A tile of an op's iteration domain, as offsets and sizes of the dims of
/// each operand and result: `batch` covers the leading dims, `columns`
/// (when set) the last one; every other dim is taken whole.
struct DomainTile {
  ArrayRef<OpFoldResult> offsets, sizes;
  int64_t numBatch;
  bool hasColumns;
  /// Dims before the batch dims, kept whole: a packed op's states lead
  /// with one entry per segment.
  int64_t lead = 0;

  /// The same tile of a tensor with `count` whole dims before its batch.
  DomainTile withLead(int64_t count) const {
    DomainTile shifted = *this;
    shifted.lead = count;
    return shifted;
  }

  OpFoldResult columnOffset() const { return offsets.back(); }
  OpFoldResult columnSize() const { return sizes.back(); }
};

/// Feature dims are static (the verifier's rule, which the forms' shared
/// buffers rely on), so a value-column tile must have a static size: a tile
/// size that divides Dv, not a partial last tile.
LogicalResult verifyStaticColumnTile(Operation *op, const DomainTile &tile,
                                     Value value) {
  if (getConstantIntValue(tile.columnSize()))
    return success();
  return op->emitOpError()
         << "tiles its value columns only by a size that divides them: the "
            "feature dim must stay static (Dv = "
         << cast<RankedTensorType>(value.getType()).getShape().back() << ")";
}

/// The offsets and sizes of `value`'s tile: the batch dims and, with
/// `tileColumns`, the last dim from the domain tile; the rest whole.
void tileOf(OpBuilder &b, Location loc, Value value, const DomainTile &tile,
            bool tileColumns, SmallVector<OpFoldResult> &offsets,
            SmallVector<OpFoldResult> &sizes) {
  sizes = tensor::getMixedSizes(b, loc, value);
  offsets.assign(sizes.size(), b.getIndexAttr(0));
  for (int64_t i = 0; i < tile.numBatch; ++i) {
    offsets[tile.lead + i] = tile.offsets[i];
    sizes[tile.lead + i] = tile.sizes[i];
  }
  if (tileColumns && tile.hasColumns) {
    offsets.back() = tile.columnOffset();
    sizes.back() = tile.columnSize();
  }
}

/// `value` sliced to its tile; the slice is recorded in `slices`.
Value sliceTile(OpBuilder &b, Location loc, Value value, const DomainTile &tile,
                bool tileColumns, SmallVector<Operation *> &slices) {
  SmallVector<OpFoldResult> offsets, sizes;
  tileOf(b, loc, value, tile, tileColumns, offsets, sizes);
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto slice =
      tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
  slices.push_back(slice);
  return slice;
}

/// `type` with the sizes of its tile (static where the tile size is).
RankedTensorType tiledType(RankedTensorType type, const DomainTile &tile) {
  SmallVector<int64_t> shape(type.getShape());
  auto sizeOf = [](OpFoldResult size) {
    return getConstantIntValue(size).value_or(ShapedType::kDynamic);
  };
  for (int64_t i = 0; i < tile.numBatch; ++i)
    shape[tile.lead + i] = sizeOf(tile.sizes[i]);
  if (tile.hasColumns)
    shape.back() = sizeOf(tile.columnSize());
  return RankedTensorType::get(shape, type.getElementType());
}

/// The iteration domain `[B..., Dv]`: the batch dims of `batchLike`, the
/// last dim of `columnsLike`.
SmallVector<Range> batchAndColumnsDomain(OpBuilder &b, Location loc,
                                         Value batchLike, Value columnsLike) {
  auto type = cast<RankedTensorType>(batchLike.getType());
  SmallVector<Range> domain;
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  for (int64_t i = 0; i < numBatchDims(type); ++i)
    domain.push_back({zero, tensor::getMixedSize(b, loc, batchLike, i), one});
  int64_t last = cast<RankedTensorType>(columnsLike.getType()).getRank() - 1;
  domain.push_back({zero, tensor::getMixedSize(b, loc, columnsLike, last), one});
  return domain;
}

/// Whether `offset`/`size` cover the whole dim `dim` of `value`.
bool coversDim(OpBuilder &b, Location loc, Value value, int64_t dim,
               OpFoldResult offset, OpFoldResult size) {
  if (!isZeroInteger(offset))
    return false;
  OpFoldResult whole = tensor::getMixedSize(b, loc, value, dim);
  return isEqualConstantIntOrValue(size, whole);
}

/// The mixed sizes of each result of `op`: static where its type is, else
/// the size of the operand dim `fromOperand(result, dim)` says.
LogicalResult
reifyFromOperands(OpBuilder &b, Operation *op,
                  function_ref<std::pair<Value, int64_t>(unsigned, int64_t)>
                      fromOperand,
                  ReifiedRankedShapedTypeDims &shapes) {
  for (OpResult result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim)) {
        sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
        continue;
      }
      auto [operand, operandDim] = fromOperand(result.getResultNumber(), dim);
      sizes.push_back(tensor::getMixedSize(b, op->getLoc(), operand, operandDim));
    }
    shapes.push_back(sizes);
  }
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// PresumOp
//===----------------------------------------------------------------------===//

int64_t PresumOp::getScanDim() {
  if (std::optional<int64_t> dim = getDim())
    return *dim;
  int64_t rank = getInput().getType().getRank();
  return rank >= 2 ? rank - 2 : 0;
}

SmallVector<FormKind> PresumOp::getLegalForms() {
  // The blocked scan's block totals carry no decay.
  if (getDecay())
    return {FormKind::scan};
  return {FormKind::scan, FormKind::blocked_scan};
}

// The iteration domain is every dim but the scanned one.

SmallVector<utils::IteratorType> PresumOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(getInput().getType().getRank() - 1,
                                          utils::IteratorType::parallel);
}

SmallVector<Range> PresumOp::getIterationDomain(OpBuilder &b) {
  SmallVector<Range> domain;
  for (int64_t dim = 0; dim < getInput().getType().getRank(); ++dim)
    if (dim != getScanDim())
      domain.push_back({b.getIndexAttr(0),
                        tensor::getMixedSize(b, getLoc(), getInput(), dim),
                        b.getIndexAttr(1)});
  return domain;
}

LogicalResult PresumOp::getResultTilePosition(
    OpBuilder &b, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  int64_t scan = getScanDim();
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  resultOffsets.insert(resultOffsets.begin() + scan, b.getIndexAttr(0));
  resultSizes.insert(resultSizes.begin() + scan,
                     tensor::getMixedSize(b, getLoc(), getInput(), scan));
  return success();
}

FailureOr<TilingResult>
PresumOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> inputOffsets, inputSizes;
  (void)getResultTilePosition(b, 0, offsets, sizes, inputOffsets, inputSizes);
  SmallVector<OpFoldResult> strides(inputOffsets.size(), b.getIndexAttr(1));
  auto slice = tensor::ExtractSliceOp::create(b, getLoc(), getInput(),
                                              inputOffsets, inputSizes, strides);
  SmallVector<Value> operands{slice};
  SmallVector<Operation *> slices{slice};
  // The decay covers the input's leading dims: the same tile of those.
  if (Value decay = getDecay()) {
    int64_t rank = getDecay().getType().getRank();
    auto decaySlice = tensor::ExtractSliceOp::create(
        b, getLoc(), decay, ArrayRef(inputOffsets).take_front(rank),
        ArrayRef(inputSizes).take_front(rank),
        ArrayRef(strides).take_front(rank));
    operands.push_back(decaySlice);
    slices.push_back(decaySlice);
  }
  // Segments are along the scanned dim, which every tile keeps whole.
  if (Value offsets = getOffsets())
    operands.push_back(offsets);
  Operation *tiled = mlir::clone(b, *this, {slice.getType()}, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()),
                      slices};
}

FailureOr<TilingResult>
PresumOp::generateResultTileValue(OpBuilder &b, unsigned,
                                  ArrayRef<OpFoldResult> offsets,
                                  ArrayRef<OpFoldResult> sizes) {
  int64_t scan = getScanDim();
  if (!coversDim(b, getLoc(), getInput(), scan, offsets[scan], sizes[scan]))
    return failure();
  SmallVector<OpFoldResult> domainOffsets(offsets), domainSizes(sizes);
  domainOffsets.erase(domainOffsets.begin() + scan);
  domainSizes.erase(domainSizes.begin() + scan);
  return getTiledImplementation(b, domainOffsets, domainSizes);
}

LogicalResult
PresumOp::reifyResultShapes(OpBuilder &b,
                            ReifiedRankedShapedTypeDims &shapes) {
  return reifyFromOperands(
      b, *this,
      [&](unsigned, int64_t dim) { return std::make_pair(getInput(), dim); },
      shapes);
}

//===----------------------------------------------------------------------===//
// LinearAttentionOp and GatedLinearAttentionOp
//===----------------------------------------------------------------------===//

namespace {

SmallVector<FormKind> legalLinearAttentionForms(LinearAttentionOpInterface op) {
  // Each segment of a packed op may take its own form (segments differ in
  // length, hence in cost): chosen after linea-split-segments writes them.
  if (op.isPacked())
    return {};
  if (op.isBidirectional())
    return {FormKind::oneshot, FormKind::quadratic};
  if (op.getEffectiveMask() != Mask::causal)
    return {};
  if (op.isDecodeStep())
    return {FormKind::oneshot, FormKind::chunked, FormKind::chunk_parallel,
            FormKind::quadratic};
  return {FormKind::chunked, FormKind::chunk_parallel, FormKind::quadratic};
}

/// Operands and results of a linear-attention op: q, k and the gate are
/// tiled over the batch only; `columnOperands` (v and the initial state) and
/// the results also over the value columns (the last dim).
FailureOr<TilingResult> tileLinearAttention(
    OpBuilder &b, LinearAttentionOpInterface op, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, ArrayRef<OpOperand *> columnOperands) {
  Location loc = op.getLoc();
  DomainTile tile{offsets, sizes, numBatchDims(op.getQuery().getType()), true};
  if (failed(verifyStaticColumnTile(op, tile, op.getValue())))
    return failure();
  // A packed op's states lead with one entry per segment, kept whole.
  DomainTile stateTile = tile.withLead(op.isPacked() ? 1 : 0);
  SmallVector<Operation *> slices;
  SmallVector<Value> operands;
  // Operands are told apart by position: q, k and v may be one value.
  for (OpOperand &operand : op->getOpOperands()) {
    Value x = operand.get();
    // The prefix length(s) and the offsets: along the sequence, whole.
    if (x == op.getPrefixIndex() || x == op.getOffsets()) {
      operands.push_back(x);
      continue;
    }
    bool columns = llvm::is_contained(columnOperands, &operand);
    const DomainTile &of = x == op.getInitialState() ? stateTile : tile;
    operands.push_back(sliceTile(b, loc, x, of, columns, slices));
  }
  SmallVector<Type> types{tiledType(op.getOutput().getType(), tile)};
  if (Value state = op.getFinalState())
    types.push_back(
        tiledType(cast<RankedTensorType>(state.getType()), stateTile));
  Operation *tiled = mlir::clone(b, op, types, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

/// v and the initial state: the operands tiled over the value columns.
template <typename OpTy>
SmallVector<OpOperand *> columnOperandsOf(OpTy op) {
  SmallVector<OpOperand *> operands{&op.getValueMutable()};
  for (OpOperand &init : op.getInitialStateMutable())
    operands.push_back(&init);
  return operands;
}

/// Where result `number` of a linear-attention op puts a domain tile: the
/// output `[B..., L, Dv]` and the final state `[B..., Dk, Dv]` are tiled
/// over their batch dims and last dim.
void linearAttentionResultTile(OpBuilder &b, LinearAttentionOpInterface op,
                               unsigned number, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes,
                               SmallVector<OpFoldResult> &resultOffsets,
                               SmallVector<OpFoldResult> &resultSizes) {
  DomainTile tile{offsets, sizes, numBatchDims(op.getQuery().getType()), true};
  Location loc = op.getLoc();
  int64_t rank = op.getQuery().getType().getRank();
  // The middle dim: L (from q) for the output, Dk (from k) for the state.
  OpFoldResult middle =
      number == 0 ? tensor::getMixedSize(b, loc, op.getQuery(), rank - 2)
                  : tensor::getMixedSize(b, loc, op.getKey(), rank - 1);
  resultOffsets.clear();
  resultSizes.clear();
  // A packed op's final states: every segment's entry (N, from the
  // offsets: the result itself is what the tile replaces).
  if (number == 1 && op.isPacked()) {
    resultOffsets.push_back(b.getIndexAttr(0));
    resultSizes.push_back(segmentCount(b, loc, op.getOffsets()));
  }
  resultOffsets.append(offsets.begin(), offsets.begin() + tile.numBatch);
  resultSizes.append(sizes.begin(), sizes.begin() + tile.numBatch);
  resultOffsets.push_back(b.getIndexAttr(0));
  resultSizes.push_back(middle);
  resultOffsets.push_back(tile.columnOffset());
  resultSizes.push_back(tile.columnSize());
}

/// The domain tile that yields a given result tile, when the result tile
/// takes its middle dim (L of the output, Dk of the state) whole; null
/// offsets when it does not.
std::optional<std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>>
linearAttentionDomainTile(OpBuilder &b, LinearAttentionOpInterface op,
                          unsigned number, ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) {
  int64_t rank = op.getQuery().getType().getRank();
  // A packed op's final states: not fused through (a tile of them would
  // have to take every segment's entry, which is not known statically).
  if (number == 1 && op.isPacked())
    return std::nullopt;
  bool whole = number == 0 ? coversDim(b, op.getLoc(), op.getQuery(), rank - 2,
                                       offsets[rank - 2], sizes[rank - 2])
                           : coversDim(b, op.getLoc(), op.getKey(), rank - 1,
                                       offsets[rank - 2], sizes[rank - 2]);
  if (!whole)
    return std::nullopt;
  SmallVector<OpFoldResult> domainOffsets(offsets.take_front(rank - 2));
  SmallVector<OpFoldResult> domainSizes(sizes.take_front(rank - 2));
  domainOffsets.push_back(offsets.back());
  domainSizes.push_back(sizes.back());
  return std::make_pair(domainOffsets, domainSizes);
}

LogicalResult reifyLinearAttention(OpBuilder &b, LinearAttentionOpInterface op,
                                   ReifiedRankedShapedTypeDims &shapes) {
  int64_t rank = op.getQuery().getType().getRank();
  bool packed = op.isPacked();
  if (failed(reifyFromOperands(
          b, op,
          [&](unsigned result, int64_t dim) -> std::pair<Value, int64_t> {
            // A packed op's final states lead with one per segment (N:
            // set below).
            if (result == 1 && packed && dim-- == 0)
              return {op.getOffsets(), 0};
            if (dim == rank - 1)
              return {op.getValue(), dim};
            if (dim == rank - 2 && result == 1)
              return {op.getKey(), rank - 1};
            return {op.getQuery(), dim};
          },
          shapes)))
    return failure();
  // N segments have N + 1 offsets.
  if (!packed || !op.getFinalState() ||
      !cast<RankedTensorType>(op.getFinalState().getType()).isDynamicDim(0))
    return success();
  shapes[1][0] = segmentCount(b, op.getLoc(), op.getOffsets());
  return success();
}

/// The tiling of both linear-attention ops, one model for the two: the
/// iteration domain is the batch dims and the value columns (the sequence
/// is a scan, and each value column's state is its own), operands and
/// results tiled as tileLinearAttention and linearAttentionResultTile say.
template <typename OpT>
struct LinearAttentionTiling
    : TilingInterface::ExternalModel<LinearAttentionTiling<OpT>, OpT> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto la = cast<OpT>(op);
    return SmallVector<utils::IteratorType>(
        numBatchDims(la.getQuery().getType()) + 1,
        utils::IteratorType::parallel);
  }

  SmallVector<Range> getIterationDomain(Operation *op, OpBuilder &b) const {
    auto la = cast<OpT>(op);
    return batchAndColumnsDomain(b, la.getLoc(), la.getQuery(), la.getValue());
  }

  FailureOr<TilingResult>
  getTiledImplementation(Operation *op, OpBuilder &b,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) const {
    auto la = cast<OpT>(op);
    return tileLinearAttention(b, la, offsets, sizes, columnOperandsOf(la));
  }

  LogicalResult
  getResultTilePosition(Operation *op, OpBuilder &b, unsigned number,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVector<OpFoldResult> &resultOffsets,
                        SmallVector<OpFoldResult> &resultSizes) const {
    linearAttentionResultTile(b, cast<OpT>(op), number, offsets, sizes,
                              resultOffsets, resultSizes);
    return success();
  }

  FailureOr<TilingResult>
  generateResultTileValue(Operation *op, OpBuilder &b, unsigned number,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) const {
    auto domain =
        linearAttentionDomainTile(b, cast<OpT>(op), number, offsets, sizes);
    if (!domain)
      return failure();
    return getTiledImplementation(op, b, domain->first, domain->second);
  }
};

/// The result shapes of both linear-attention ops, for the destinations of
/// tiled loops.
template <typename OpT>
struct LinearAttentionShapes
    : ReifyRankedShapedTypeOpInterface::ExternalModel<
          LinearAttentionShapes<OpT>, OpT> {
  LogicalResult reifyResultShapes(Operation *op, OpBuilder &b,
                                  ReifiedRankedShapedTypeDims &shapes) const {
    return reifyLinearAttention(b, cast<OpT>(op), shapes);
  }
};

} // namespace

SmallVector<FormKind> LinearAttentionOp::getLegalForms() {
  return legalLinearAttentionForms(*this);
}

/// `spec`'s prefix length as the ops' optional attribute.
static IntegerAttr prefixLengthAttr(OpBuilder &b,
                                    const LinearAttentionSpec &spec) {
  return spec.prefixLength ? b.getI64IntegerAttr(*spec.prefixLength)
                           : IntegerAttr();
}

Operation *LinearAttentionOp::createLike(OpBuilder &b, Location loc,
                                         const LinearAttentionSpec &spec) {
  MLIRContext *ctx = b.getContext();
  return LinearAttentionOp::create(
      b, loc, spec.outputType, spec.finalStateType, spec.query, spec.key,
      spec.value, spec.initialState, spec.offsets, spec.prefixIndex,
      MaskAttr::get(ctx, spec.mask), prefixLengthAttr(b, spec),
      FeatureMapAttr::get(ctx, spec.featureMap), b.getF32FloatAttr(spec.scale),
      spec.normalize ? b.getUnitAttr() : UnitAttr(), spec.form);
}

SmallVector<FormKind> GatedLinearAttentionOp::getLegalForms() {
  return legalLinearAttentionForms(*this);
}

Operation *GatedLinearAttentionOp::createLike(OpBuilder &b, Location loc,
                                              const LinearAttentionSpec &spec) {
  return GatedLinearAttentionOp::create(
      b, loc, spec.outputType, spec.finalStateType, spec.query, spec.key,
      spec.value, spec.gate, spec.initialState, spec.offsets, spec.prefixIndex,
      MaskAttr::get(b.getContext(), spec.mask), prefixLengthAttr(b, spec),
      b.getF32FloatAttr(spec.scale), spec.form);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

float AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToFloat();
  RankedTensorType q = getQuery().getType();
  return 1.0f / std::sqrt(static_cast<float>(q.getDimSize(featureDim(q))));
}

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(
      numBatchDims(getQuery().getType()) + 1, utils::IteratorType::parallel);
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  return batchAndColumnsDomain(b, getLoc(), getQuery(), getValue());
}

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  DomainTile tile{offsets, sizes, numBatchDims(getQuery().getType()), true};
  if (failed(verifyStaticColumnTile(*this, tile, getValue())))
    return failure();
  SmallVector<Operation *> slices;
  Location loc = getLoc();
  Value q = sliceTile(b, loc, getQuery(), tile, false, slices);
  Value k = sliceTile(b, loc, getKey(), tile, false, slices);
  Value v = sliceTile(b, loc, getValue(), tile, true, slices);
  SmallVector<Value> operands{q, k, v};
  // Segments are along the sequences, which every tile keeps whole.
  if (Value offsets = getOffsets())
    operands.push_back(offsets);
  Operation *tiled =
      mlir::clone(b, *this, {tiledType(getOutput().getType(), tile)}, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  int64_t numBatch = numBatchDims(getQuery().getType());
  resultOffsets.assign(offsets.begin(), offsets.begin() + numBatch);
  resultSizes.assign(sizes.begin(), sizes.begin() + numBatch);
  resultOffsets.push_back(b.getIndexAttr(0));
  resultSizes.push_back(
      tensor::getMixedSize(b, getLoc(), getQuery(), numBatch));
  resultOffsets.push_back(offsets.back());
  resultSizes.push_back(sizes.back());
  return success();
}

FailureOr<TilingResult>
AttentionOp::generateResultTileValue(OpBuilder &b, unsigned,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  int64_t numBatch = numBatchDims(getQuery().getType());
  if (!coversDim(b, getLoc(), getQuery(), numBatch, offsets[numBatch],
                 sizes[numBatch]))
    return failure();
  SmallVector<OpFoldResult> domainOffsets(offsets.take_front(numBatch));
  SmallVector<OpFoldResult> domainSizes(sizes.take_front(numBatch));
  domainOffsets.push_back(offsets.back());
  domainSizes.push_back(sizes.back());
  return getTiledImplementation(b, domainOffsets, domainSizes);
}

LogicalResult
AttentionOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  int64_t rank = getQuery().getType().getRank();
  return reifyFromOperands(
      b, *this,
      [&](unsigned, int64_t dim) -> std::pair<Value, int64_t> {
        return {dim == rank - 1 ? getValue() : getQuery(), dim};
      },
      shapes);
}

#define GET_OP_CLASSES
#include "linea/Dialect/LineaOps.cpp.inc"

void LineaDialect::attachLinearAttentionModels() {
  MLIRContext *ctx = getContext();
  LinearAttentionOp::attachInterface<LinearAttentionTiling<LinearAttentionOp>,
                                     LinearAttentionShapes<LinearAttentionOp>>(
      *ctx);
  GatedLinearAttentionOp::attachInterface<
      LinearAttentionTiling<GatedLinearAttentionOp>,
      LinearAttentionShapes<GatedLinearAttentionOp>>(*ctx);
}
