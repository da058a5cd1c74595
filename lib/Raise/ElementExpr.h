//===- ElementExpr.h - one element of a tensor program, as an expression --===//
//
// Front ends spell the same math many ways: a causal mask is a `tril`, a
// `select` on index comparisons fused into a body, an i1 tensor built from
// two broadcast aranges, or a 0/1 float tensor multiplied in. What a raise
// needs is the value of one element of a linalg op's operand at a point of
// its iteration space, whatever producers, reshapes and broadcasts lie in
// between. The ElementTracer builds that value as an expression tree over
// the root op's loop indices: elementwise producers are inlined, reshapes and
// transposes become index arithmetic, splat constants become scalars, and
// everything else (a contraction, a function argument) is a leaf that reads
// an element of a tensor at affine indices.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_ELEMENTEXPR_H
#define LINEA_LIB_RAISE_ELEMENTEXPR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>
#include <string>

namespace mlir::linea {

/// One node of an element expression. Nodes are owned by their tracer.
struct ElementExpr {
  enum class Kind {
    /// An integer affine in the root's loop indices (`linalg.index`, an
    /// arange, a reshape's index arithmetic).
    Index,
    /// A scalar constant (integer, float or i1).
    Constant,
    /// An element of a tensor the tracer does not look into, at `indices`
    /// (affine in the root's loop indices).
    Read,
    /// A scalar defined outside every traced body (a `tensor.dim`, a
    /// function's scalar argument): opaque.
    Scalar,
    /// The root's own output element (its accumulator), `resultNumber`.
    Output,
    /// A scalar op of the body (`op`) applied to `operands`.
    Op,
  };

  Kind kind;
  Type type;
  AffineExpr index;                        // Index
  TypedAttr constant;                      // Constant
  Value value;                             // Read (the tensor), Scalar
  SmallVector<AffineExpr> indices;         // Read
  unsigned resultNumber = 0;               // Output
  Operation *op = nullptr;                 // Op
  SmallVector<const ElementExpr *> operands; // Op

  bool isa(Kind k) const { return kind == k; }
  template <typename OpTy> OpTy getOp() const {
    return kind == Kind::Op ? dyn_cast<OpTy>(op) : OpTy();
  }
  /// The constant as a double, if this is a float or integer constant.
  std::optional<double> getConstantValue() const;
  /// A one-line rendering in math notation, for remarks
  /// (`d3 - d2 <= 0 ? generic[d0, d2, d3] : 0`; casts and roundings elided).
  std::string str() const;
};

/// Builds element expressions over the iteration space of one root op.
class ElementTracer {
public:
  explicit ElementTracer(linalg::LinalgOp root);

  /// The expression of `bodyValue`, a value used in the root's body (or
  /// defined above it).
  FailureOr<const ElementExpr *> traceBodyValue(Value bodyValue);
  /// The expression the root yields for its result `n`.
  FailureOr<const ElementExpr *> traceYield(unsigned n = 0);
  /// The element of `tensor` at `indices` (affine in the root's loops).
  FailureOr<const ElementExpr *> traceElement(Value tensor,
                                              ArrayRef<AffineExpr> indices);
  /// The element of the root's input `operand` as a leaf: the tensor
  /// itself, whatever produced it.
  const ElementExpr *operandLeaf(OpOperand &operand);

  /// Reads `tensors` as leaves from now on, whatever produced them (a
  /// feature map applied before an outer product stays the tensor it is).
  void stopAt(ValueRange tensors) { stops.insert(tensors.begin(), tensors.end()); }

  linalg::LinalgOp getRoot() const { return root; }
  unsigned getNumLoops() const { return numLoops; }
  /// Why the last failed trace failed.
  const std::string &getFailureReason() const { return reason; }

private:
  /// Loop dim k of the op being inlined, as an affine expr of the root's.
  struct Frame {
    mutable linalg::LinalgOp op;
    SmallVector<AffineExpr> loops;
  };

  FailureOr<const ElementExpr *> traceScalar(Value v, const Frame &frame);
  FailureOr<const ElementExpr *> traceBodyOp(Operation *op,
                                             const Frame &frame);
  FailureOr<const ElementExpr *> traceProducer(linalg::LinalgOp producer,
                                               unsigned result,
                                               ArrayRef<AffineExpr> indices);
  FailureOr<SmallVector<AffineExpr>>
  sourceIndices(Operation *reshape, ArrayRef<AffineExpr> indices);

  const ElementExpr *make(ElementExpr node);
  const ElementExpr *leaf(Value tensor, ArrayRef<AffineExpr> indices);
  LogicalResult fail(const Twine &why);

  linalg::LinalgOp root;
  unsigned numLoops;
  std::deque<ElementExpr> nodes;
  std::string reason;
  unsigned depth = 0;
  llvm::SmallDenseSet<Value, 4> stops;
};

/// The integer expression `e` as an affine expr of the root's loop indices,
/// if it is one (index casts, sign extensions, sums, products by constants).
FailureOr<AffineExpr> getAffineExpr(const ElementExpr *e, MLIRContext *ctx);

/// The affine expr `e` as `sum_k coefficients[k] * d_k + constant` over
/// `numDims` dims; failure for anything but sums of scaled dims.
struct LinearForm {
  SmallVector<int64_t> coefficients;
  int64_t constant = 0;
};
FailureOr<LinearForm> getLinearForm(AffineExpr e, unsigned numDims);

/// A float that holds an integer affine in the loop indices exactly:
/// positions as `torch.arange(L, dtype=torch.float32)` makes them (`sitofp`
/// of an index), and their sums, differences, negations and products by
/// integral constants. Exact while every value the float arithmetic rounds
/// stays within `2^p` (p: its type's precision, 24 for f32).
struct FloatPosition {
  AffineExpr value;
  /// Each value rounded on the way, and the magnitude up to which its type
  /// holds every integer.
  SmallVector<std::pair<AffineExpr, int64_t>> rounded;
};
FailureOr<FloatPosition> getFloatPosition(const ElementExpr *e,
                                          MLIRContext *ctx);

/// The largest extent n such that every value `p` rounds is exact with each
/// of `loops` in [0, n): int64 max where nothing bounds it, 0 where a value
/// reads another loop of the root's `numDims` or is never exact.
int64_t exactExtent(const FloatPosition &p, ArrayRef<unsigned> loops,
                    unsigned numDims);

/// Whether `e` depends on any of the root's `loops` (through an index or the
/// indices of a read).
bool dependsOnLoops(const ElementExpr *e, ArrayRef<unsigned> loops);

/// The element of a read leaf at its evaluated indices, if known.
using ReadEvaluator =
    function_ref<std::optional<double>(const ElementExpr *read,
                                       ArrayRef<int64_t> indices)>;

/// The value of `e` in double precision where the root's loop d is `at[d]`;
/// none for an outside scalar, an op it does not know, or a read that
/// `read` (when given) does not know.
std::optional<double> evaluate(const ElementExpr *e, ArrayRef<int64_t> at,
                               ReadEvaluator read = {});

/// `lhs <p> rhs` as `arith.cmpf` decides it (ordered predicates false on a
/// NaN, unordered ones true); none for a predicate it does not know.
std::optional<bool> compareFloats(arith::CmpFPredicate p, double lhs,
                                  double rhs);

/// The elements of a constant tensor (`arith.constant` of dense or
/// `dense_resource` elements of a float or integer type), as doubles: what a
/// mask given as a table (a registered buffer) holds.
class ConstantTensor {
public:
  static std::optional<ConstantTensor> get(Value tensor);

  ArrayRef<int64_t> getShape() const { return type.getShape(); }
  int64_t getNumElements() const { return type.getNumElements(); }
  /// The element at row-major position `flat`.
  double at(int64_t flat) const;
  /// The element at `indices`; none out of bounds.
  std::optional<double> at(ArrayRef<int64_t> indices) const;

private:
  RankedTensorType type;
  /// One of the two holds the elements.
  DenseElementsAttr dense;
  ArrayRef<char> blob;
  unsigned elementBytes = 0;
};

/// Builds `e` at the insertion point, the root's loop d being `loops[d]`
/// (index values; null for a loop it must not read); failure for what it
/// cannot build (the root's output, a loop it has no value for).
FailureOr<Value> materialize(OpBuilder &b, Location loc, const ElementExpr *e,
                             ArrayRef<Value> loops);

} // namespace mlir::linea

#endif // LINEA_LIB_RAISE_ELEMENTEXPR_H
