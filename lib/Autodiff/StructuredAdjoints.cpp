//===- StructuredAdjoints.cpp - The adjoint of a linalg.generic ------------===//
//
// One rule serves every structured op (the driver generalizes named ops
// first): an operand's cotangent is a linalg.generic over the same loops
// writing through the operand's own map, parallel over the loops that index
// it directly and a sum over the others, whose body recomputes the forward body and
// differentiates it (ScalarAdjoints.cpp). Matmul, batch_matmul, transpose,
// broadcasts, reductions by sum and elementwise maps all come out of it.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// How a generic treats the tensor its output starts from.
enum class InitRole {
  overwritten, // the body never reads it
  summedInto,  // `out + e` under reduction loops: the init passes through
  elementwise, // read by an all-parallel body like one more input
};

/// What the adjoint generics of one forward generic share.
struct GenericAdjoint {
  linalg::GenericOp forward;
  SmallVector<InitRole> roles;  // per output
  SmallVector<Value> results;   // the results' cotangents (zeros where none)

  /// The operands (and maps) the adjoint generics read: every input, the
  /// inits read elementwise, then the results' cotangents.
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
};

} // namespace

static FailureOr<InitRole> roleOfInit(linalg::GenericOp op, unsigned output) {
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(output));
  if (out.use_empty())
    return InitRole::overwritten;
  if (op.getNumReductionLoops() == 0)
    return InitRole::elementwise;
  Operation *yield = op.getBody()->getTerminator();
  if (out.hasOneUse()) {
    Operation *user = *out.getUsers().begin();
    if (isa<arith::AddFOp>(user) && user->hasOneUse() &&
        yield->getOperand(output) == user->getResult(0))
      return InitRole::summedInto;
  }
  return op.emitOpError()
         << "cannot be differentiated: output #" << output
         << " is reduced by something other than a sum";
}

/// Checks what the rule assumes of `op`; fills the roles of its inits and
/// the body's lookups into differentiated tensors from outside (`gathers`:
/// the only way a body may read one, GatherAdjoint.cpp).
static LogicalResult checkDifferentiable(linalg::GenericOp op,
                                         const Cotangents &cotangents,
                                         SmallVector<InitRole> &roles,
                                         SmallVector<tensor::ExtractOp> &gathers) {
  WalkResult captured = op.getRegion().walk([&](Operation *inner) {
    auto lookup = dyn_cast<tensor::ExtractOp>(inner);
    if (lookup && inner->getParentOp() == op.getOperation() &&
        !op.getRegion().isAncestor(lookup.getTensor().getParentRegion()) &&
        cotangents.isActive(lookup.getTensor()))
      gathers.push_back(lookup);
    for (Value v : inner->getOperands())
      if (!op.getRegion().isAncestor(v.getParentRegion()) &&
          cotangents.isActive(v) &&
          !(lookup && v == lookup.getTensor() && llvm::is_contained(gathers, lookup))) {
        inner->emitOpError()
            << "reads a differentiated value from outside its linalg body; "
               "linea-differentiate needs it passed as an input";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (captured.wasInterrupted())
    return failure();
  for (unsigned j = 0, e = op.getNumDpsInits(); j < e; ++j) {
    FailureOr<InitRole> role = roleOfInit(op, j);
    if (failed(role))
      return failure();
    roles.push_back(*role);
  }
  return success();
}

/// The cotangent of one operand (`source`, read through `sourceMap` as body
/// argument `sourceArg`): a generic over the forward loops.
static Value buildOperandAdjoint(OpBuilder &b, const GenericAdjoint &adj,
                                 Value source, AffineMap sourceMap,
                                 BlockArgument sourceArg) {
  linalg::GenericOp op = adj.forward;
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops();
  // Parallel over the loops that index the operand directly (distinct
  // points write distinct elements), a sum over the rest. A loop seen only
  // inside an expression (a head's column `h * Dh + c`, a shifted read) is
  // summed too: whether the expression is injective or not, accumulating
  // is right.
  SmallVector<utils::IteratorType> iterators(numLoops, kRed);
  for (AffineExpr expr : sourceMap.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      iterators[dim.getPosition()] = kPar;
  bool sums = llvm::is_contained(iterators, kRed);

  auto shaped = dyn_cast<RankedTensorType>(source.getType());
  Type elementType = shaped ? shaped.getElementType() : source.getType();
  // A sum of 16-bit cotangents (a bf16 weight's gradient over every token)
  // accumulates in f32 and rounds once, as torch's reductions do: rounded
  // at each of L additions its error would grow with L.
  Type sumType = sums && elementType.getIntOrFloatBitWidth() < 32
                     ? Type(b.getF32Type())
                     : elementType;
  SmallVector<OpFoldResult> sizes;
  if (shaped)
    sizes = tensor::getMixedSizes(b, loc, source);
  Value init = sums ? buildFilled(b, loc, sizes, sumType, 0.0)
                    : tensor::EmptyOp::create(b, loc, sizes, elementType)
                          .getResult();
  SmallVector<AffineMap> maps = adj.maps;
  maps.push_back(sourceMap);

  Block *forwardBody = op.getBody();
  unsigned numInputs = op.getNumDpsInputs();
  unsigned numOutputs = op.getNumDpsInits();
  bool failedBody = false;
  auto adjoint = linalg::GenericOp::create(
      b, loc, init.getType(), adj.operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        // Recompute the forward body from the same operands.
        IRMapping primal;
        unsigned next = 0;
        for (unsigned i = 0; i < numInputs; ++i)
          primal.map(forwardBody->getArgument(i), args[next++]);
        for (unsigned j = 0; j < numOutputs; ++j) {
          BlockArgument out = forwardBody->getArgument(numInputs + j);
          if (adj.roles[j] == InitRole::elementwise)
            primal.map(out, args[next++]);
          else // a summed-into init adds a constant: its value drops out
            primal.map(out, arith::ConstantOp::create(
                                nb, nloc, out.getType(),
                                nb.getZeroAttr(out.getType())));
        }
        SmallVector<Value> yieldCotangents(args.begin() + next,
                                           args.begin() + next + numOutputs);
        for (Operation &inner : forwardBody->without_terminator())
          nb.clone(inner, primal);
        llvm::DenseMap<Value, Value> primalOf =
            primalValues(*forwardBody, primal);
        FailureOr<SmallVector<Value>> d = differentiateScalarBody(
            nb, nloc, *forwardBody, primalOf, yieldCotangents, {sourceArg});
        Value contribution;
        if (failed(d)) {
          failedBody = true;
        } else {
          contribution = (*d)[0];
        }
        if (!contribution)
          contribution = arith::ConstantOp::create(
              nb, nloc, elementType, nb.getZeroAttr(elementType));
        if (sums) {
          if (contribution.getType() != sumType)
            contribution =
                arith::ExtFOp::create(nb, nloc, sumType, contribution);
          contribution =
              arith::AddFOp::create(nb, nloc, args.back(), contribution);
        }
        linalg::YieldOp::create(nb, nloc, contribution);
      });
  if (failedBody)
    return Value();
  Value result = castFromF32(b, loc, adjoint.getResult(0), elementType);
  if (!shaped)
    result = tensor::ExtractOp::create(b, loc, result, ValueRange{});
  return result;
}

static LogicalResult emitGenericAdjoint(linalg::GenericOp op, OpBuilder &b,
                                        Cotangents &cotangents) {
  GenericAdjoint adj{op, {}, {}, {}, {}};
  SmallVector<tensor::ExtractOp> gathers;
  if (failed(checkDifferentiable(op, cotangents, adj.roles, gathers)))
    return failure();
  Location loc = op.getLoc();
  for (Value result : op->getResults())
    adj.results.push_back(cotangents.lookupOrZeros(b, loc, result));

  SmallVector<std::pair<OpOperand *, BlockArgument>> sources;
  for (OpOperand *input : op.getDpsInputOperands()) {
    adj.operands.push_back(input->get());
    adj.maps.push_back(op.getMatchingIndexingMap(input));
    sources.push_back({input, op.getMatchingBlockArgument(input)});
  }
  for (auto [j, role] : llvm::enumerate(adj.roles)) {
    OpOperand *init = op.getDpsInitOperand(j);
    if (role == InitRole::elementwise) {
      adj.operands.push_back(init->get());
      adj.maps.push_back(op.getMatchingIndexingMap(init));
      sources.push_back({init, op.getMatchingBlockArgument(init)});
    } else if (role == InitRole::summedInto) {
      cotangents.accumulate(b, loc, init->get(), adj.results[j]);
    }
  }
  for (auto [j, d] : llvm::enumerate(adj.results)) {
    adj.operands.push_back(d);
    adj.maps.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(j)));
  }

  for (tensor::ExtractOp lookup : gathers) {
    SmallVector<Value> initsRead;
    for (auto [j, role] : llvm::enumerate(adj.roles))
      initsRead.push_back(role == InitRole::elementwise
                              ? op.getDpsInitOperand(j)->get()
                              : Value());
    if (failed(emitGatherAdjoint(op, lookup, initsRead, adj.results, b,
                                 cotangents)))
      return failure();
  }
  for (auto [operand, arg] : sources) {
    Value source = operand->get();
    if (!cotangents.isActive(source))
      continue;
    Value d = buildOperandAdjoint(b, adj, source,
                                  op.getMatchingIndexingMap(operand), arg);
    if (!d)
      return failure();
    cotangents.accumulate(b, loc, source, d);
  }
  return success();
}

std::optional<LogicalResult>
mlir::linea::emitStructuredAdjoint(Operation *op, OpBuilder &b,
                                   Cotangents &cotangents) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return std::nullopt;
  return emitGenericAdjoint(generic, b, cotangents);
}
