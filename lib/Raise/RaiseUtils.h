//===- RaiseUtils.h - what every raise pattern reads and builds -*- C++ -*-===//
//
// The vocabulary the raise patterns share: an accumulated product split into
// masks, a scale and the tensors it multiplies; a tensor seen through the
// loops of the op that reads it; the remarks of `explain`.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_RAISEUTILS_H
#define LINEA_LIB_RAISE_RAISEUTILS_H

#include "ElementExpr.h"
#include "IndexPredicate.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <memory>
#include <string>

namespace mlir::linea::raise {

/// The remarks of `linea-raise{explain=1}`: one line each, at most
/// `kRemarkWidth` characters of reason (`explain=2`: the whole text).
class RaiseLog {
public:
  static constexpr size_t kRemarkWidth = 160;

  explicit RaiseLog(unsigned explain) : explain(explain) {}
  void raised(Operation *op, const Twine &what);
  /// A candidate left as written: `why` the first pattern that took the op
  /// for its idiom refused it.
  void rejected(Operation *op, const Twine &why);
  /// Another pattern that took the op at `loc` for its idiom (`pattern`)
  /// and refused it: on an op left as written, or one that a later pattern
  /// raised.
  void refused(Location loc, StringRef pattern, const Twine &why);
  unsigned getNumRaised() const { return numRaised; }
  /// `text` as a remark shows it: one line, cut to `kRemarkWidth`
  /// characters where `explain` is 1.
  std::string line(const Twine &text) const;

private:
  unsigned explain;
  unsigned numRaised = 0;
};

/// Why a root did not raise. `candidate` is set once the root has the shape
/// of the idiom (so a plain projection matmul is not reported).
struct Rejection {
  bool candidate = false;
  std::string reason;
};

/// A tensor whose dim p is indexed by loop `loops[p]` of the op reading it;
/// `kUnitDim` marks a dim of size 1 read at index 0 (a kept reduced dim).
struct LoopView {
  static constexpr unsigned kUnitDim = ~0u;
  Value tensor;
  SmallVector<unsigned> loops;

  /// The position of `loop` among the dims, if the view has it.
  std::optional<unsigned> position(unsigned loop) const;
  /// The indexing map of the view over `numLoops` loops (unit dims as 0).
  AffineMap map(unsigned numLoops, MLIRContext *ctx) const;
};

/// The view of a Read leaf whose indices are loops or, for dims of size 1,
/// the constant 0.
FailureOr<LoopView> getLoopView(const ElementExpr *read);
/// The view of an operand of `op` through its indexing map.
FailureOr<LoopView> getLoopView(linalg::LinalgOp op, OpOperand &operand);

/// `out + p_1 * p_2 * ...` split into what the raise patterns tell apart.
struct Product {
  /// Factors that zero the product where an index predicate is false
  /// (`select(m, x, 0)`, `x * uitofp(m)`); `second` is true when the
  /// product survives where `first` is false instead (`select(m, 0, x)`).
  SmallVector<std::pair<const ElementExpr *, bool>> masks;
  /// Every constant factor, multiplied (divisions by constants included).
  double scale = 1.0;
  /// The tensor elements multiplied.
  SmallVector<const ElementExpr *> reads;
  /// Anything else (a data-dependent factor, an exp, ...).
  SmallVector<const ElementExpr *> others;
  /// Where an operand held scores but also a factor that is neither a mask
  /// nor a constant (and so stayed a tensor): that factor, and the read of
  /// the scores under it.
  const ElementExpr *scoresBlockedBy = nullptr;
  const ElementExpr *blockedScores = nullptr;
};

/// Whether `tensor` is a constant float tensor (dense or dense_resource)
/// whose every element is `allowed`: a mask given as a table.
bool isConstantTableOf(Value tensor, function_ref<bool(double)> allowed);

/// The factors of `e`.
Product factorize(const ElementExpr *e);
/// The root's body as `out + product`, factor by factor. A factor that is
/// an operand is expanded into what produced it where that is a mask, a
/// constant, or masked and scaled scores (`isScores` of the tensor under
/// them); any other operand is kept as the tensor it is (a feature map
/// computed outside stays outside). Failure, with `why`, for any other
/// body.
/// `keepOthers`: an operand holding scores and also factors that are
/// neither masks nor constants (a decay) is still expanded, those factors
/// joining `others`.
FailureOr<Product> matchAccumulation(ElementTracer &tracer,
                                     function_ref<bool(Value)> isScores,
                                     std::string &why,
                                     bool keepOthers = false);
/// The body of the tracer's root as `out + product`, no operand expanded as
/// scores: where the raises that read a plain product (the cumulative
/// state, the softmax's `W V`, a triangular sum) start (matchPlainReduction).
FailureOr<Product> matchPlainAccumulation(ElementTracer &tracer);

/// The conjunction of `product`'s masks as a predicate of loops (`row`,
/// `col`); failure with `why`.
FailureOr<IndexPredicate> getMask(const Product &product, unsigned row,
                                  unsigned col, MLIRContext *ctx,
                                  std::string &why,
                                  IndexPredicate::AtomValues given = {});

/// Whether the init of `op`'s result 0 is all zeros.
bool hasZeroInit(linalg::LinalgOp op);
/// The static size of loop `loop` of `op`, if static.
std::optional<int64_t> staticLoopSize(linalg::LinalgOp op, unsigned loop);

/// `view.tensor` with its dims reordered so that dim p is indexed by
/// `order[p]` (a linalg.transpose, or the tensor itself); the view's unit
/// dims (read at 0) are collapsed away first.
Value permuteTo(OpBuilder &b, Location loc, const LoopView &view,
                ArrayRef<unsigned> order);
/// `value`, whose dim p is indexed by loop `loops[p]`, laid out as `target`
/// (a permutation of the same loops, plus unit dims): the result a raise
/// gives in place of the op it replaces.
Value relayout(OpBuilder &b, Location loc, Value value,
               ArrayRef<unsigned> loops, const LoopView &target);
/// `value` as `type` (a tensor.cast where static and dynamic sizes differ;
/// a float conversion where a 16-bit op's output replaces an f32
/// accumulator).
Value castTo(OpBuilder &b, Location loc, Value value, Type type);

/// A change of float type (`arith.extf`, `arith.truncf`): in real
/// arithmetic the identity. Front ends print a half-precision model with
/// 16-bit operands widened to f32 accumulators and results rounded back to
/// 16 bits; the raised op keeps those intermediates in f32 (SPEC: 16-bit
/// operands accumulate in f32) and rounds once, at its output, so the
/// raise reads its factors through their roundings. (Checked: the raised
/// 16-bit layers of the corpus are closer to the float64 layer than the
/// same IR as written.)
bool isRounding(Operation *op);
/// `tensor` before elementwise ops that only round it (a `linalg.generic`
/// yielding `truncf`/`extf` of its one input, identity maps).
Value throughRoundings(Value tensor);
/// The element types Linea's ops take: f32, and 16-bit floats (accumulated
/// in f32).
bool isOpElementType(Type type);
/// The element type of the Linea op raised from `inputs` (its queries, keys
/// and values) in place of a root whose result is `output`: the inputs' one
/// type, if Linea's ops take it and `output` has it or is an f32
/// accumulator (a 16-bit model's). Failure with `why` otherwise.
FailureOr<Type> raisedElementType(ArrayRef<Value> inputs, Value output,
                                  std::string &why);
/// `value` (whose dim p is indexed by `loops[p]`) laid out as the root's
/// output `out`, of the root's result type.
Value inRootLayout(OpBuilder &b, Operation *root, Value value,
                   ArrayRef<unsigned> loops, const LoopView &out);
/// Replaces `root` by `value` laid out as above.
void replaceRoot(RewriterBase &rewriter, Operation *root, Value value,
                 ArrayRef<unsigned> loops, const LoopView &out);

/// `op` as the root of a raise that reduces: a linalg op on tensors with
/// one output and one reduced loop, or null.
linalg::LinalgOp asReductionRoot(Operation *op);
/// A reduction root read as `out + product` with no operand expanded as
/// scores. The tracer owns the product's expressions (and traces more of
/// the root for the raise that goes on).
struct PlainReduction {
  linalg::LinalgOp root;
  std::unique_ptr<ElementTracer> tracer;
  Product product;
};
/// The opening the raises that read a plain product share (the cumulative
/// state, the softmax's `W V`, a triangular sum): `op` as a reduction root
/// (asReductionRoot) whose body is a plain accumulation
/// (matchPlainAccumulation) of `numReads` tensors, with masks where
/// `masked` (a triangular sum's), none otherwise, and no other factor.
/// Failure otherwise: the op is no candidate of those raises.
FailureOr<PlainReduction> matchPlainReduction(Operation *op, unsigned numReads,
                                              bool masked);
/// An inclusive add scan along `dim` (torch.cumsum's tm_tensor.scan, or a
/// linea.presum without decay) producing `value`: its input.
struct AddScan {
  Value input;
  int64_t dim;
};
std::optional<AddScan> inclusiveAddScan(Value value);

/// A raise that reads float positions (a mask or a decay built from
/// `torch.arange(L, dtype=torch.float32)`) is exact up to a length
/// (`IndexPredicate::getExactExtent`, `exactExtent`): where none is given,
/// nothing to do; where a static size of the root's `loops` exceeds it,
/// failure with the reason in `why`.
LogicalResult checkExactAtStaticSizes(linalg::LinalgOp root,
                                      ArrayRef<unsigned> loops,
                                      std::optional<int64_t> extent,
                                      std::string &why);
/// ... and where a size is dynamic, a run-time check before the root that it
/// is at most that length (built with the replacement).
void checkExactAtRunTime(OpBuilder &b, linalg::LinalgOp root,
                         ArrayRef<unsigned> loops,
                         std::optional<int64_t> extent);

/// Whether `view`'s dim read by `loop` has a static size.
bool hasStaticDim(const LoopView &view, unsigned loop);

} // namespace mlir::linea::raise

#endif // LINEA_LIB_RAISE_RAISEUTILS_H
