//===- FunctionDistributor.cpp - one function for this rank ---------------===//
//
// The walk of linea-sequence-parallel over one function: which values hold
// only this rank's rows (the sequence operands of the Linea ops, traced
// back through row-local ops to the arguments), then each op in order,
// dispatched by its kind to its rule (FunctionDistributor::distribute):
// the Linea ops that exchange across ranks to their files' rules,
// projections and elementwise maps resized to this rank's rows.
//
//===----------------------------------------------------------------------===//

#include "DistributedUtils.h"

#include "linea/Distributed/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::linea::distributed {
namespace {

/// The values of a function that hold only this rank's rows, and the dim
/// those rows run along. Everything else is the same on every rank.
using ShardedDims = llvm::DenseMap<Value, int64_t>;

/// An elementwise op on tensors (arith on tensors, math): row `i` of its
/// result reads row `i` of each operand.
bool isElementwiseOnTensors(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
}

/// The loop of `op` that position `pos` of `operand` is indexed by, when
/// that is one parallel loop: then each step of it reads and writes only
/// its own row (a projection's rows, an elementwise map's).
std::optional<unsigned> parallelLoopAt(linalg::LinalgOp op, OpOperand *operand,
                                       int64_t pos) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  auto loop = dyn_cast<AffineDimExpr>(map.getResult(pos));
  if (!loop || op.getIteratorTypesArray()[loop.getPosition()] !=
                   utils::IteratorType::parallel)
    return std::nullopt;
  return loop.getPosition();
}

/// Where `operand` is indexed by loop `loop` alone, if it is; failure if
/// the loop appears inside a compound index (not one row per step).
FailureOr<std::optional<int64_t>> positionOfLoop(linalg::LinalgOp op,
                                                 OpOperand *operand,
                                                 unsigned loop) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  if (!map.isFunctionOfDim(loop))
    return std::optional<int64_t>();
  for (auto [position, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && dim.getPosition() == loop)
      return std::optional<int64_t>(position);
  return failure();
}

RankedTensorType withDynamicDim(Type type, int64_t dim) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[dim] = ShapedType::kDynamic;
  return tensor.clone(shape);
}

/// Rewrites one function for this rank's rows.
class FunctionDistributor {
public:
  FunctionDistributor(func::FuncOp func, ModuleOp module)
      : func(func), module(module), builder(func.getContext()) {}

  /// False when no argument is a sequence (the function stays as it is).
  FailureOr<bool> run();

private:
  LogicalResult shardArguments();
  LogicalResult demand(Value value, int64_t dim);
  LogicalResult distribute(Operation *op);
  LogicalResult distributeAttentionOp(AttentionOp attention);
  LogicalResult
  distributeLinearAttentionOp(LinearAttentionOpInterface attention);
  LogicalResult distributePresumOp(PresumOp presum);
  LogicalResult distributeRowLocal(linalg::LinalgOp op);
  LogicalResult distributeOtherOp(Operation *op);
  LogicalResult distributeElementwise(Operation *op);
  FailureOr<Value> localInit(Operation *op, Value init, int64_t pos,
                             Value rows, int64_t rowsPos);
  LogicalResult requireSharded(Operation *op, Value operand, int64_t dim);
  void updateSignature();

  func::FuncOp func;
  ModuleOp module;
  OpBuilder builder;
  ShardedDims sharded;
  /// What the Linea ops need split, traced back through row-local ops.
  ShardedDims wanted;
  std::optional<Ranks> ranks;
};

} // namespace

/// `value` must hold only this rank's rows along `dim`: so must the values
/// a row-local op computes it from (a projection's input rows, an
/// elementwise map's operands), back to the function's arguments.
LogicalResult FunctionDistributor::demand(Value value, int64_t dim) {
  if (auto it = wanted.find(value); it != wanted.end()) {
    if (it->second == dim)
      return success();
    if (auto arg = dyn_cast<BlockArgument>(value))
      return func.emitError() << "argument #" << arg.getArgNumber()
                              << " is a sequence along dim " << it->second
                              << " for one op and along dim " << dim
                              << " for another";
    return value.getDefiningOp()->emitOpError()
           << "computes a sequence split along dim " << it->second
           << " for one op and along dim " << dim << " for another";
  }
  wanted[value] = dim;
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return success();
  if (isElementwiseOnTensors(producer)) {
    for (Value operand : producer->getOperands())
      if (isa<RankedTensorType>(operand.getType()) &&
          failed(demand(operand, dim)))
        return failure();
    return success();
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return success(); // not row-local: distribute() says so if it matters
  OpOperand *init =
      linalgOp.getDpsInitOperand(cast<OpResult>(value).getResultNumber());
  std::optional<unsigned> loop = parallelLoopAt(linalgOp, init, dim);
  if (!loop)
    return success();
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(linalgOp, input, *loop);
    if (succeeded(position) && *position &&
        failed(demand(input->get(), **position)))
      return failure();
  }
  return success();
}

LogicalResult FunctionDistributor::shardArguments() {
  for (Operation &op : func.getBody().front())
    for (Value operand : op.getOperands())
      if (std::optional<int64_t> dim = sequenceDimOf(&op, operand))
        if (failed(demand(operand, *dim)))
          return failure();
  for (BlockArgument arg : func.getArguments()) {
    auto it = wanted.find(arg);
    if (it == wanted.end())
      continue;
    sharded[arg] = it->second;
    arg.setType(withDynamicDim(arg.getType(), it->second));
  }
  return success();
}

LogicalResult FunctionDistributor::requireSharded(Operation *op, Value operand,
                                                  int64_t dim) {
  auto it = sharded.find(operand);
  if (it == sharded.end())
    return op->emitOpError()
           << "reads a replicated sequence operand next to sharded ones: "
              "linea-sequence-parallel needs every sequence operand of an op "
              "split across the ranks";
  if (it->second != dim)
    return op->emitOpError() << "reads a value split along dim " << it->second
                           << " as a sequence along dim " << dim;
  return success();
}

LogicalResult FunctionDistributor::distribute(Operation *op) {
  bool readsSharded = llvm::any_of(
      op->getOperands(), [&](Value v) { return sharded.contains(v); });
  bool nestedReadsSharded = false;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        nestedReadsSharded |= sharded.contains(v);
    });
  if (isa<func::ReturnOp>(op) || (!readsSharded && !nestedReadsSharded))
    return success();
  if (nestedReadsSharded || isa<FoldOp, FoldedAttentionOp>(op))
    return op->emitOpError()
           << "cannot run sequence-parallel: its rows read keys from every "
              "rank; give it replicated operands (it then runs on every rank)";

  builder.setInsertionPoint(op);
  // Rank and size once, before the first op that exchanges anything.
  if (!ranks && isa<LinearAttentionOpInterface, PresumOp, AttentionOp>(op))
    ranks = buildRanks(builder, func.getLoc());
  // Each op's rule, chosen by the op's kind: the ops whose rows need other
  // ranks' rows exchange what they need; row-local ops run on this rank's.
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AttentionOp attention) {
        return distributeAttentionOp(attention);
      })
      .Case([&](LinearAttentionOpInterface attention) {
        return distributeLinearAttentionOp(attention);
      })
      .Case([&](PresumOp presum) { return distributePresumOp(presum); })
      .Case([&](linalg::LinalgOp linalgOp) {
        return linalgOp.hasPureTensorSemantics() ? distributeRowLocal(linalgOp)
                                                 : distributeOtherOp(op);
      })
      .Default([&](Operation *other) { return distributeOtherOp(other); });
}

/// Softmax attention: its query, key and value split alike (the keys of
/// every rank come by all-gather), its offsets replicated.
LogicalResult
FunctionDistributor::distributeAttentionOp(AttentionOp attention) {
  Operation *op = attention;
  int64_t seq = numBatchDims(attention.getQuery().getType());
  for (Value operand :
       {attention.getQuery(), attention.getKey(), attention.getValue()})
    if (failed(requireSharded(op, operand, seq)))
      return failure();
  if (attention.getOffsets() && sharded.contains(attention.getOffsets()))
    return op->emitOpError() << "reads a sequence-sharded value as its "
                                "offsets";
  Value result =
      distributeSoftmaxAttention(builder, module, *ranks, attention);
  sharded[result] = seq;
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

/// Linear attention: its sequence operands split alike; its initial state,
/// prefix length and offsets replicated.
LogicalResult FunctionDistributor::distributeLinearAttentionOp(
    LinearAttentionOpInterface attention) {
  Operation *op = attention;
  int64_t seq = numBatchDims(attention.getQuery().getType());
  for (Value operand :
       SmallVector<Value>{attention.getQuery(), attention.getKey(),
                          attention.getValue(), attention.getGate()})
    if (operand && failed(requireSharded(op, operand, seq)))
      return failure();
  for (Value operand : SmallVector<Value>{attention.getInitialState(),
                                          attention.getPrefixIndex()})
    if (operand && sharded.contains(operand))
      return op->emitOpError() << "reads a sequence-sharded value as its "
                                "initial state or prefix length";
  if (attention.getOffsets() && sharded.contains(attention.getOffsets()))
    return op->emitOpError() << "reads a sequence-sharded value as its "
                                "offsets";
  SmallVector<Value> results;
  if (attention.isPacked()) {
    FailureOr<SmallVector<Value>> packed =
        distributePackedAttention(builder, module, *ranks, attention);
    if (failed(packed))
      return failure();
    results = std::move(*packed);
  } else {
    results = distributeLinearAttention(builder, module, *ranks, attention);
  }
  sharded[results.front()] = seq;
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

/// presum along the split dim (no decay); its offsets replicated.
LogicalResult FunctionDistributor::distributePresumOp(PresumOp presum) {
  Operation *op = presum;
  int64_t dim = presum.getScanDim();
  if (failed(requireSharded(op, presum.getInput(), dim)))
    return failure();
  if (presum.getDecay())
    return op->emitOpError()
           << "cannot run sequence-parallel: a decayed presum's ranks would "
              "exchange decayed totals, which this pass does not build";
  if (presum.getOffsets() && sharded.contains(presum.getOffsets()))
    return op->emitOpError() << "reads a sequence-sharded value as its "
                                "offsets";
  Value result = presum.getOffsets()
                     ? distributePackedPresum(builder, module, *ranks, presum)
                     : distributePresum(builder, module, *ranks, presum);
  sharded[result] = dim;
  presum.replaceAllUsesWith(result);
  presum.erase();
  return success();
}

/// A linalg op that runs a parallel loop along the split rows (a projection
/// `x W`, an elementwise generic): the same op on this rank's rows, its
/// init resized to them.
LogicalResult FunctionDistributor::distributeRowLocal(linalg::LinalgOp op) {
  std::optional<unsigned> loop;
  Value rows;
  int64_t rowsPos = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto it = sharded.find(input->get());
    if (it == sharded.end())
      continue;
    std::optional<unsigned> inputLoop = parallelLoopAt(op, input, it->second);
    if (!inputLoop || (loop && *loop != *inputLoop))
      return op->emitOpError()
             << "mixes the rows of the split sequence (operand #"
             << input->getOperandNumber()
             << " is reduced over, or indexed across its rows)";
    loop = inputLoop;
    rows = input->get();
    rowsPos = it->second;
  }
  if (!loop)
    return op->emitOpError() << "writes into a sequence-sharded init; "
                                "linea-sequence-parallel splits its inputs";
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(op, input, *loop);
    if (failed(position))
      return op->emitOpError() << "indexes operand #"
                               << input->getOperandNumber()
                               << " across the rows of the split sequence";
    if (*position && failed(requireSharded(op, input->get(), **position)))
      return failure();
  }
  builder.setInsertionPoint(op);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    FailureOr<std::optional<int64_t>> position =
        positionOfLoop(op, &init, *loop);
    if (failed(position) || !*position)
      return op->emitOpError() << "does not write the rows of the split "
                                  "sequence one to one";
    FailureOr<Value> local = localInit(op, init.get(), **position, rows, rowsPos);
    if (failed(local))
      return failure();
    init.set(*local);
    OpResult result = op->getResult(init.getOperandNumber() - op.getNumDpsInputs());
    result.setType(local->getType());
    sharded[result] = **position;
  }
  return success();
}

/// Any other op that reads a split value: an elementwise map, else none
/// this pass can split.
LogicalResult FunctionDistributor::distributeOtherOp(Operation *op) {
  if (isElementwiseOnTensors(op))
    return distributeElementwise(op);
  return op->emitOpError()
         << "reads a sequence-sharded value, which linea-sequence-parallel "
            "splits only for Linea's linear attention ops and presum, and "
            "for ops that compute each row from the same rows (elementwise "
            "maps, projections)";
}

/// `init` with this rank's rows along `pos` (`rows` has them along
/// `rowsPos`): a fresh `tensor.empty` (or the fill of one) of that size.
FailureOr<Value> FunctionDistributor::localInit(Operation *op, Value init,
                                                int64_t pos, Value rows,
                                                int64_t rowsPos) {
  if (auto it = sharded.find(init); it != sharded.end() && it->second == pos)
    return init;
  Location loc = op->getLoc();
  if (auto empty = init.getDefiningOp<tensor::EmptyOp>()) {
    SmallVector<OpFoldResult> sizes = empty.getMixedSizes();
    sizes[pos] = tensor::getMixedSize(builder, loc, rows, rowsPos);
    return tensor::EmptyOp::create(builder, loc, sizes,
                                   empty.getType().getElementType())
        .getResult();
  }
  if (auto fill = init.getDefiningOp<linalg::FillOp>();
      fill && fill.hasPureTensorSemantics()) {
    FailureOr<Value> target =
        localInit(op, fill.getOutputs().front(), pos, rows, rowsPos);
    if (failed(target))
      return failure();
    return linalg::FillOp::create(builder, loc, fill.getInputs(), *target)
        .getResult(0);
  }
  return op->emitOpError()
         << "writes into an init that linea-sequence-parallel cannot give "
            "this rank's rows (a tensor.empty or its linalg.fill can be)";
}

/// An elementwise map: every tensor operand split alike, the result too.
LogicalResult FunctionDistributor::distributeElementwise(Operation *op) {
  std::optional<int64_t> dim;
  for (Value operand : op->getOperands())
    if (auto it = sharded.find(operand); it != sharded.end())
      dim = it->second;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        failed(requireSharded(op, operand, *dim)))
      return failure();
  for (OpResult result : op->getResults()) {
    result.setType(withDynamicDim(result.getType(), *dim));
    sharded[result] = *dim;
  }
  return success();
}

void FunctionDistributor::updateSignature() {
  Operation *terminator = func.getBody().front().getTerminator();
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().front().getArgumentTypes(),
                                 terminator->getOperandTypes()));
  Type i64 = builder.getI64Type();
  for (BlockArgument arg : func.getArguments())
    if (auto it = sharded.find(arg); it != sharded.end())
      func.setArgAttr(arg.getArgNumber(), kShardedDimAttrName,
                      IntegerAttr::get(i64, it->second));
  for (OpOperand &result : terminator->getOpOperands())
    if (auto it = sharded.find(result.get()); it != sharded.end())
      func.setResultAttr(result.getOperandNumber(), kShardedDimAttrName,
                         IntegerAttr::get(i64, it->second));
}

FailureOr<bool> FunctionDistributor::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "linea-sequence-parallel needs a function "
                               "body of one block";
  if (failed(shardArguments()))
    return failure();
  if (sharded.empty())
    return false;
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(distribute(op)))
      return failure();
  updateSignature();
  return true;
}

FailureOr<bool> distributeFunction(func::FuncOp func, ModuleOp module) {
  return FunctionDistributor(func, module).run();
}

} // namespace mlir::linea::distributed
