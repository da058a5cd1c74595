//===- Cotangents.h - The reverse sweep's state ----------------*- C++ -*-===//
//
// Reverse-mode differentiation of one function body. The forward ops are
// recomputed in the `_vjp` function; its reverse sweep walks them backwards
// and asks each op's adjoint rule to turn the cotangents of the op's results
// into contributions to the cotangents of its operands. `Cotangents` holds
// those sums and knows which values depend on a differentiated argument
// (activity), so a rule builds nothing for a value that cannot carry one.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_AUTODIFF_COTANGENTS_H
#define LINEA_AUTODIFF_COTANGENTS_H

#include "linea/Dialect/LineaOps.h"
#include "linea/Target/Target.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::linea {

/// Whether `type` can carry a cotangent: a float scalar or a tensor of floats.
bool isDifferentiableType(Type type);

class Cotangents {
public:
  /// Marks `value` active: it depends on a differentiated argument.
  void markActive(Value value) { active.insert(value); }
  bool isActive(Value value) const { return active.contains(value); }

  /// The cotangent summed so far for `primal`; null while nothing flowed in.
  Value lookup(Value primal) const { return sums.lookup(primal); }

  /// The cotangent of `primal`, or zeros of its type when none flowed in.
  Value lookupOrZeros(OpBuilder &b, Location loc, Value primal);

  /// Adds `contribution` (of `primal`'s type, up to static vs dynamic
  /// sizes) to `primal`'s cotangent. Inactive primals take nothing.
  void accumulate(OpBuilder &b, Location loc, Value primal,
                  Value contribution);

  /// Whether any result of `op` has a cotangent (else the op is skipped).
  bool anyResultHasCotangent(Operation *op) const;

  /// The kind of machine the gradient is for (linea-differentiate's
  /// `target`): a rule whose fastest form differs by machine asks it.
  TargetKind target() const { return machine; }
  void setTarget(TargetKind kind) { machine = kind; }

private:
  TargetKind machine = TargetKind::cpu;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> sums;
};

/// Zeros shaped like `like` (a tensor of floats or a float scalar).
Value zerosLike(OpBuilder &b, Location loc, Value like);

/// `lhs + rhs` for two values of one type (a linalg.add over tensors).
Value addCotangents(OpBuilder &b, Location loc, Value lhs, Value rhs);

/// Marks active every float result of `ops` (in order) that reads an
/// active value, directly or from inside one of its regions.
void propagateActivity(ArrayRef<Operation *> ops, Cotangents &cotangents);

/// The reverse sweep: walks `ops` (in block order) backwards and emits, at
/// `b`'s insertion point, the adjoint of each op whose results have a
/// cotangent. The caller seeds the cotangents of the values it reads back.
LogicalResult sweepBackwards(ArrayRef<Operation *> ops, OpBuilder &b,
                             Cotangents &cotangents);

/// Emits the adjoint of `op` at `b`'s insertion point. Fails with an error
/// naming the op when no rule covers it (or its attributes).
LogicalResult emitAdjoint(Operation *op, OpBuilder &b, Cotangents &cotangents);

/// The rules, by family; each returns std::nullopt for an op it does not
/// know, so the dispatcher can try the next family.
std::optional<LogicalResult>
emitLineaAdjoint(Operation *op, OpBuilder &b, Cotangents &cotangents);
std::optional<LogicalResult>
emitStructuredAdjoint(Operation *op, OpBuilder &b, Cotangents &cotangents);
std::optional<LogicalResult>
emitTensorAdjoint(Operation *op, OpBuilder &b, Cotangents &cotangents);

/// `gated_linear_attention` with a per-key-dim gate or a prefix / none mask:
/// its backward reads the states on their value side (dq, dk), where the
/// decay does not commute with the read. For the GPU those reads run
/// chunked and dv is a gated op (launches independent of L); for the CPU
/// both recurrences run one row at a time (a `[Dk, Dv]` state in cache:
/// fewer flops and exponentials). A scalar-gated causal op's rule builds
/// gated ops only.
LogicalResult emitGatedRecurrenceAdjoint(GatedLinearAttentionOp op,
                                         OpBuilder &b, Cotangents &cotangents);

/// A causal op of `like`'s kind (scale 1, no feature map) over `q, k, v`,
/// seeded with `init` (null: zero), gated by `gate` where not null: its
/// output and final state (f32).
std::pair<Value, Value> causalOpLike(LinearAttentionOpInterface like,
                                     OpBuilder &b, Location loc, Value q,
                                     Value k, Value v, Value init, Value gate);

/// The gate's cotangent of a causal gated op from the other cotangents: the
/// reverse presum of `q . dq - k . dk` (per key dim, or summed over them for
/// a scalar gate) plus `<dF, F>` (`dF` may be null). f32 in, f32 out.
Value causalGateCotangent(OpBuilder &b, Location loc, bool scalarGate, Value q,
                          Value dq, Value k, Value dk, Value dF,
                          Value finalState);

/// `linea.fold` (and so `folded_attention`, once expanded): a loop over the
/// segments in reverse that recomputes each window from the stored
/// memories (the forward output) and sweeps the body backwards.
LogicalResult emitFoldAdjoint(FoldOp op, OpBuilder &b, Cotangents &cotangents);

/// A packed op (offsets): the adjoint of the op on each segment alone, in a
/// parallel loop over the segments (presum, attention, both linear-attention
/// ops).
LogicalResult emitPackedAdjoint(PackedOpInterface op, OpBuilder &b,
                                Cotangents &cotangents);

/// The cotangent of the tensor a body of `op` reads at computed indices
/// (`read`, a `tensor.extract` of a value from outside the body: an
/// embedding's lookup): a scatter-add, over loops on `op`'s points, of each
/// point's contribution. `initsRead[j]` is output j's init where the body
/// reads it elementwise (null: an init overwritten or summed into);
/// `resultCotangents[j]` is result j's cotangent.
LogicalResult emitGatherAdjoint(linalg::GenericOp op, tensor::ExtractOp read,
                                ArrayRef<Value> initsRead,
                                ArrayRef<Value> resultCotangents, OpBuilder &b,
                                Cotangents &cotangents);

/// The recomputed value of each of `body`'s arguments and op results, by
/// original value, from the mapping its clone was made with (what
/// differentiateScalarBody reads as `primalOf`).
llvm::DenseMap<Value, Value> primalValues(Block &body, const IRMapping &primal);

/// Reverse mode inside one scalar region (a linalg.generic body): given the
/// body's ops cloned at `b` with `primalOf` mapping the original body values
/// to the clones, and the cotangents of the yielded values, returns the
/// cotangent of each of `wrt` (original block arguments), null where none
/// flows. Fails on a float op with no rule, naming it.
FailureOr<SmallVector<Value>>
differentiateScalarBody(OpBuilder &b, Location loc, Block &body,
                        const llvm::DenseMap<Value, Value> &primalOf,
                        ArrayRef<Value> yieldCotangents, ArrayRef<Value> wrt);

} // namespace mlir::linea

#endif // LINEA_AUTODIFF_COTANGENTS_H
