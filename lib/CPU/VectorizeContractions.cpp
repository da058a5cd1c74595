//===- VectorizeContractions.cpp - register-tiled CPU contraction kernels -===//
//
// The attention forms spend their time in contractions: K^T V over a whole
// sequence, Q S down it, and the four small products of a chunk. Lowered by
// convert-linalg-to-loops, the accumulator of such a loop nest lives in
// memory and is loaded and stored at every step. This pass writes the kernel
// a BLAS micro-kernel is: a tile of C held in vector registers while the
// reduction streams one row of B and one column of A through it.
//
//===----------------------------------------------------------------------===//

#include "linea/CPU/Passes.h"
#include "linea/Utils/MaskedContraction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAVECTORIZECONTRACTIONS
#include "linea/CPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// A contraction the kernel runs, laid out (linea::ContractionLayout: n is
/// C's innermost dim, B the operand that reads it), with what the kernel
/// folds in.
struct ContractionLayout : linea::ContractionLayout {
  /// The i1 that masks a product in the body (`select(visible, a*b, 0)`),
  /// or null.
  Value visible;
  /// The body ops that compute `visible`, in order.
  SmallVector<Operation *> predicate;
  /// A fill of C with zeros just before the op, which the kernel can fold
  /// into its accumulators, or null.
  linalg::FillOp zeroFill;
};

struct KernelShape {
  int64_t width;     // lanes of one vector register
  int64_t rows;      // rows of C held in registers
  int64_t block;     // reduction steps per cache block
  int64_t columns() const { return 2 * width; }
};

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

bool isF32Buffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.getElementType().isF32();
}

/// An f32 buffer whose innermost dim is contiguous (rows load as vectors).
bool hasUnitInnermostStride(Value memref) {
  if (!isF32Buffer(memref))
    return false;
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// A contraction the kernel runs (linea::matchMaskedContraction: the body
/// `out + a * b`, maybe under `select(visible, ., 0)`), named by its layout:
/// n is C's innermost dim, B the operand that reads it.
FailureOr<ContractionLayout> matchContraction(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return failure();
  FailureOr<linea::MaskedContraction> c = linea::matchMaskedContraction(op);
  if (failed(c) || c->widens)
    return failure();
  FailureOr<linea::ContractionLayout> laidOut =
      linea::layoutContraction(op, *c);
  if (failed(laidOut))
    return failure();
  ContractionLayout layout;
  static_cast<linea::ContractionLayout &>(layout) = *laidOut;
  layout.visible = c->visible;
  layout.predicate = c->predicate;
  if (!isF32Buffer(layout.a->get()) ||
      !hasUnitInnermostStride(layout.b->get()) ||
      !hasUnitInnermostStride(layout.c->get()))
    return failure();
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (fill && fill.hasPureBufferSemantics() &&
      fill.getDpsInits()[0] == layout.c->get() &&
      matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    layout.zeroFill = fill;
  return layout;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Whether `op` runs inside a parallel loop already (a batch loop, or the
/// `scf.forall` of a sequence block, which becomes one): the tiles of a
/// kernel there stay sequential, one parallel region nested in another
/// being no faster and, lowered to OpenMP, less well formed.
bool isInParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() ||
         op->getParentOfType<scf::ForallOp>();
}

/// Whether `memref` is a view of a constant global: memory no op writes,
/// so a copy of it made once stays valid anywhere.
bool isConstantMemory(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto global = memref.getDefiningOp<memref::GetGlobalOp>();
  if (!global)
    return false;
  auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      global, global.getNameAttr());
  return symbol && symbol.getConstant();
}

/// The outermost loop around `op` that `operand` (constant memory, defined
/// outside it) does not change, or null: what reads only `operand` can run
/// once before that loop instead of at every one of its iterations.
Operation *outermostInvariantLoop(Operation *op, Value operand) {
  if (!isConstantMemory(operand))
    return nullptr;
  Operation *outermost = nullptr;
  for (Operation *parent = op->getParentOp();
       parent && isa<LoopLikeOpInterface>(parent);
       parent = parent->getParentOp()) {
    if (parent->isAncestor(operand.getParentRegion()->getParentOp()))
      break;
    outermost = parent;
  }
  return outermost;
}

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, linalg::GenericOp op,
                const ContractionLayout &layout, KernelShape shape)
      : b(b), loc(op.getLoc()), op(op), layout(layout), shape(shape) {}

  void build() {
    for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                           .createLoopRanges(b, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
    loopValues.assign(op.getNumLoops(), Value());
    startsFromZero = layout.zeroFill && finishesInOnePass();
    spreadsTiles = layout.batch.empty() && !isInParallelLoop(op);
    if (layout.batch.empty()) {
      buildBatch();
      return;
    }
    // The batches (heads) are independent: one scf.parallel over all of
    // them, which linea-lower-to-cpu runs on threads.
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned d : layout.batch) {
      lbs.push_back(constant(0));
      ubs.push_back(sizes[d]);
      steps.push_back(constant(1));
    }
    scf::ParallelOp::create(
        b, loc, lbs, ubs, steps,
        [&](OpBuilder &nested, Location, ValueRange ivs) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          for (auto [d, iv] : llvm::zip(layout.batch, ivs))
            loopValues[d] = iv;
          buildBatch();
        });
  }

  /// Whether the zero fill of C before the op is folded into the kernel
  /// (its accumulators start from zero, and C is never read).
  bool foldsZeroFill() const { return startsFromZero; }

private:
  Value constant(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value ceilDiv(Value x, int64_t d) {
    return arith::CeilDivUIOp::create(b, loc, x, constant(d));
  }

  /// Whether each tile of C is finished by one pass over k: masked, or a
  /// reduction no longer than one block.
  bool finishesInOnePass() {
    if (layout.visible)
      return true;
    std::optional<int64_t> k = getConstantIntValue(sizes[layout.k]);
    return k && *k <= shape.block;
  }

  /// Over a long reduction, A and B are copied block by block into panels
  /// that the tiles then read in order (as a BLAS packs them): the
  /// unpacked rows of the one-shot state's K and V sit a row of the
  /// sequence apart and thrash the cache. A's rows are copied as vectors,
  /// so only where its contiguous dim is m.
  bool usesPanels() {
    if (layout.visible)
      return false;
    std::optional<int64_t> k = getConstantIntValue(sizes[layout.k]);
    if (k && *k <= shape.block)
      return false;
    AffineMap aMap = op.getMatchingIndexingMap(layout.a);
    return cast<AffineDimExpr>(aMap.getResults().back()).getPosition() ==
               layout.m &&
           hasUnitInnermostStride(layout.a->get());
  }

  /// A buffer of the given sizes, static where they are constants.
  Value allocate(ArrayRef<Value> dims) {
    SmallVector<int64_t> shapeDims;
    SmallVector<Value> dynamic;
    for (Value d : dims) {
      std::optional<int64_t> v = getConstantIntValue(d);
      shapeDims.push_back(v ? *v : ShapedType::kDynamic);
      if (!v)
        dynamic.push_back(d);
    }
    return memref::AllocOp::create(
        b, loc, MemRefType::get(shapeDims, b.getF32Type()), dynamic);
  }

  /// A `for` loop from `lb` to `ub` whose body `fn` builds at the loop's
  /// induction variable.
  void forLoop(Value lb, Value ub, Value step, function_ref<void(Value)> fn) {
    scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPointToStart(nested.getInsertionBlock());
                         fn(iv);
                         scf::YieldOp::create(b, loc);
                       });
  }

  /// `scf.if condition { then } else { otherwise }`, no else without
  /// `otherwise`.
  void ifThen(Value condition, function_ref<void()> then,
              function_ref<void()> otherwise = nullptr) {
    auto branch = [&](function_ref<void()> fn) {
      return [&, fn](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nested.getInsertionBlock());
        fn();
        scf::YieldOp::create(b, loc);
      };
    };
    if (!otherwise) {
      scf::IfOp::create(b, loc, condition, branch(then));
      return;
    }
    scf::IfOp::create(b, loc, condition, branch(then), branch(otherwise));
  }

  /// One batch's contraction, with buffers of its own for the packed
  /// operands (batches may run on different threads).
  void buildBatch() {
    SmallVector<Value> buffers;
    // B's contiguous dim is k (the scores' keys): packed k-major first.
    if (layout.bDepthInner) {
      if (!packsOnceBeforeLoops()) {
        packKMajor(sizes[layout.k], sizes[layout.n]);
        buffers.push_back(kMajorB);
      }
    } else if (usesPanels()) {
      Value block = constant(shape.block);
      panelA = allocate({ceilDiv(sizes[layout.m], shape.rows), block,
                         constant(shape.rows)});
      panelB = allocate({ceilDiv(sizes[layout.n], shape.columns()), block,
                         constant(shape.columns())});
      buffers = {panelA, panelB};
    }
    buildReductionBlocks();
    for (Value buffer : buffers)
      memref::DeallocOp::create(b, loc, buffer);
  }

  /// A projection's constant weights inside loops (a fold's steps): B is
  /// packed k-major once, before the outermost loop that leaves it as it
  /// is, and freed after it, instead of at every iteration.
  bool packsOnceBeforeLoops() {
    Operation *loop = outermostInvariantLoop(op, layout.b->get());
    std::optional<int64_t> k = getConstantIntValue(sizes[layout.k]);
    std::optional<int64_t> n = getConstantIntValue(sizes[layout.n]);
    if (!loop || !layout.batch.empty() || !k || !n ||
        op.getMatchingIndexingMap(layout.b).getNumResults() != 2)
      return false;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop);
    // The kernel's own sizes do not exist yet out there: constants do.
    packKMajor(constant(*k), constant(*n));
    b.setInsertionPointAfter(loop);
    memref::DeallocOp::create(b, loc, kMajorB);
    return true;
  }

  SmallVector<Value> indicesOf(OpOperand *operand) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(loopValues[cast<AffineDimExpr>(e).getPosition()]);
    return indices;
  }

  Value zeroF32() {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  }

  /// B[batch.., n, k] -> kMajorB[k, n] (a new buffer of those sizes), a
  /// square of `width` at a time through a 2-D vector transpose.
  void packKMajor(Value kSize, Value nSize) {
    kMajorB = allocate({kSize, nSize});
    int64_t w = shape.width;
    AffineMap bMap = op.getMatchingIndexingMap(layout.b);
    MLIRContext *ctx = b.getContext();
    unsigned nPos = *bMap.getResultPosition(getAffineDimExpr(layout.n, ctx));
    unsigned kPos = *bMap.getResultPosition(getAffineDimExpr(layout.k, ctx));
    AffineMap readMap =
        AffineMap::get(bMap.getNumResults(), 0,
                       {b.getAffineDimExpr(nPos), b.getAffineDimExpr(kPos)}, ctx);
    auto squareType = VectorType::get({w, w}, b.getF32Type());
    forLoop(constant(0), nSize, constant(w), [&](Value n0) {
      forLoop(constant(0), kSize, constant(w), [&](Value k0) {
        loopValues[layout.n] = n0;
        loopValues[layout.k] = k0;
        Value square = vector::TransferReadOp::create(
            b, loc, squareType, layout.b->get(), indicesOf(layout.b),
            AffineMapAttr::get(readMap), zeroF32(), /*mask=*/Value(),
            b.getBoolArrayAttr({false, false}));
        Value transposed = vector::TransposeOp::create(b, loc, square,
                                                       ArrayRef<int64_t>{1, 0});
        vector::TransferWriteOp::create(b, loc, transposed, kMajorB,
                                        ValueRange{k0, n0},
                                        ArrayRef<bool>{false, false});
      });
    });
  }

  /// Copies `lanes` consecutive elements of `operand` along its contiguous
  /// dim `dim`, for every tile and every step of the block, into
  /// panel[tile, step, lane] (zeros past the operand's end).
  void packPanel(OpOperand *operand, Value panel, unsigned dim, int64_t lanes,
                 Value k0, Value length) {
    auto laneType = VectorType::get({lanes}, b.getF32Type());
    Value tiles = ceilDiv(sizes[dim], lanes);
    // Step by step: each step reads one contiguous row of the operand.
    loop(spreadsTiles, constant(0), length, constant(1), [&](Value step) {
      forLoop(constant(0), tiles, constant(1), [&](Value tile) {
        loopValues[layout.k] = arith::AddIOp::create(b, loc, k0, step);
        loopValues[dim] = arith::MulIOp::create(b, loc, tile, constant(lanes));
        Value lane = vector::TransferReadOp::create(
            b, loc, laneType, operand->get(), indicesOf(operand), zeroF32(),
            ArrayRef<bool>{false});
        vector::TransferWriteOp::create(b, loc, lane, panel,
                                        ValueRange{tile, step, constant(0)},
                                        ArrayRef<bool>{true});
      });
    });
  }

  void buildReductionBlocks() {
    Value kSize = sizes[layout.k];
    if (layout.visible) {
      // A masked tile is finished in one pass over k: the mask applies to
      // the whole sum.
      buildTiles(constant(0), kSize);
      return;
    }
    Value block = constant(shape.block);
    forLoop(constant(0), kSize, block, [&](Value k0) {
      Value k1 = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, k0, block), kSize);
      if (!panelA) {
        buildTiles(k0, k1);
        return;
      }
      Value length = arith::SubIOp::create(b, loc, k1, k0);
      packPanel(layout.a, panelA, layout.m, shape.rows, k0, length);
      packPanel(layout.b, panelB, layout.n, shape.columns(), k0, length);
      buildTiles(constant(0), length);
    });
  }

  /// Every tile of C: full tiles of `rows` x `columns`, then the rows left
  /// in tiles of halving heights (8, 4, 2, 1: at most one of each) and the
  /// columns left in one masked vector. The reduction runs from k0 to k1
  /// (steps of the panels where there are panels). Outside any parallel
  /// loop, the full tiles of the outer dim are one (a projection's rows).
  void buildTiles(Value k0, Value k1) {
    auto rowTiles = [&](bool outer, function_ref<void(Value, int64_t)> fn) {
      Value mSize = sizes[layout.m];
      Value start = constant(0);
      for (int64_t rows : tileHeights()) {
        Value left = arith::SubIOp::create(b, loc, mSize, start);
        Value end = arith::AddIOp::create(b, loc, start, roundDown(left, rows));
        bool parallel = outer && rows == shape.rows && spreadsTiles;
        loop(parallel, start, end, constant(rows),
             [&](Value m0) { fn(m0, rows); });
        start = end;
      }
    };
    auto columnTiles = [&](bool outer, function_ref<void(Value, bool)> fn) {
      Value nSize = sizes[layout.n];
      Value full = roundDown(nSize, shape.columns());
      loop(outer && spreadsTiles, constant(0), full,
           constant(shape.columns()),
           [&](Value n0) { fn(n0, /*inBounds=*/true); });
      ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, full,
                                   nSize),
             [&] { fn(full, /*inBounds=*/false); });
    };
    // With panels, one panel of B stays in cache while A's panels stream
    // past it; without, a few rows of A (the queries of `Q S`, read
    // straight from the sequence) do while B's rows stream.
    if (panelA) {
      columnTiles(/*outer=*/true, [&](Value n0, bool inBounds) {
        rowTiles(/*outer=*/false, [&](Value m0, int64_t rows) {
          buildTile(k0, k1, m0, n0, rows, inBounds);
        });
      });
      return;
    }
    rowTiles(/*outer=*/true, [&](Value m0, int64_t rows) {
      columnTiles(/*outer=*/false, [&](Value n0, bool inBounds) {
        buildTile(k0, k1, m0, n0, rows, inBounds);
      });
    });
  }

  /// The heights of row tiles: the full `rows`, then the powers of two
  /// below it, so that the rows left over (fewer than `rows`) take at most
  /// one tile of each height instead of a tile each.
  SmallVector<int64_t> tileHeights() const {
    SmallVector<int64_t> heights = {shape.rows};
    for (int64_t h = llvm::PowerOf2Ceil(shape.rows) / 2; h >= 1; h /= 2)
      heights.push_back(h);
    return heights;
  }

  /// A loop over [lb, ub) by `step`: scf.parallel (threads) or scf.for.
  void loop(bool parallel, Value lb, Value ub, Value step,
            function_ref<void(Value)> fn) {
    if (!parallel)
      return forLoop(lb, ub, step, fn);
    scf::ParallelOp::create(
        b, loc, ValueRange{lb}, ValueRange{ub}, ValueRange{step},
        [&](OpBuilder &nested, Location, ValueRange ivs) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          fn(ivs[0]);
        });
  }

  Value roundDown(Value x, int64_t multiple) {
    return arith::SubIOp::create(
        b, loc, x, arith::RemUIOp::create(b, loc, x, constant(multiple)));
  }

  VectorType rowType() {
    return VectorType::get({shape.columns()}, b.getF32Type());
  }

  Value readRow(Value memref, ValueRange indices, bool inBounds) {
    return vector::TransferReadOp::create(b, loc, rowType(), memref, indices,
                                          zeroF32(), ArrayRef<bool>{inBounds});
  }

  Value rowIndex(Value m0, int64_t r) {
    return r == 0 ? m0 : arith::AddIOp::create(b, loc, m0, constant(r));
  }

  /// C's rows m0 .. m0+rows-1 at columns n0 .., as vectors.
  SmallVector<Value> readC(Value m0, Value n0, int64_t rows, bool inBounds) {
    SmallVector<Value> result;
    for (int64_t r = 0; r < rows; ++r) {
      loopValues[layout.m] = rowIndex(m0, r);
      loopValues[layout.n] = n0;
      result.push_back(readRow(layout.c->get(), indicesOf(layout.c), inBounds));
    }
    return result;
  }

  void writeC(ArrayRef<Value> rows, Value m0, Value n0, bool inBounds) {
    for (auto [r, row] : llvm::enumerate(rows)) {
      loopValues[layout.m] = rowIndex(m0, r);
      loopValues[layout.n] = n0;
      vector::TransferWriteOp::create(b, loc, row, layout.c->get(),
                                      indicesOf(layout.c),
                                      ArrayRef<bool>{inBounds});
    }
  }

  /// The tile's reduction over k0 .. k1: one row of B and one scalar of A
  /// per row of C at each step, the sums in registers.
  SmallVector<Value> reduce(Value k0, Value k1, Value m0, Value n0,
                            ArrayRef<Value> init, bool inBounds) {
    // Where the tile's rows and columns sit: in the panels, or in A.
    Value rowTile, columnTile;
    SmallVector<Value> rows;
    if (panelA) {
      rowTile = arith::DivUIOp::create(b, loc, m0, constant(shape.rows));
      columnTile = arith::DivUIOp::create(b, loc, n0, constant(shape.columns()));
      Value lane = arith::RemUIOp::create(b, loc, m0, constant(shape.rows));
      for (size_t r = 0; r < init.size(); ++r)
        rows.push_back(rowIndex(lane, r));
    } else {
      for (size_t r = 0; r < init.size(); ++r)
        rows.push_back(rowIndex(m0, r));
    }
    Value zero = constant(0);
    auto loop = scf::ForOp::create(
        b, loc, k0, k1, constant(1), init,
        [&](OpBuilder &nested, Location, Value k, ValueRange acc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          loopValues[layout.k] = k;
          loopValues[layout.n] = n0;
          Value row;
          if (panelB)
            row = readRow(panelB, ValueRange{columnTile, k, zero},
                          /*inBounds=*/true);
          else if (kMajorB)
            row = readRow(kMajorB, ValueRange{k, n0}, inBounds);
          else
            row = readRow(layout.b->get(), indicesOf(layout.b), inBounds);
          SmallVector<Value> next;
          for (auto [r, sum] : llvm::enumerate(acc)) {
            Value a;
            if (panelA) {
              a = memref::LoadOp::create(b, loc, panelA,
                                         ValueRange{rowTile, k, rows[r]});
            } else {
              loopValues[layout.m] = rows[r];
              a = memref::LoadOp::create(b, loc, layout.a->get(),
                                         indicesOf(layout.a));
            }
            Value splat = vector::BroadcastOp::create(b, loc, rowType(), a);
            next.push_back(vector::FMAOp::create(b, loc, splat, row, sum));
          }
          scf::YieldOp::create(b, loc, next);
        });
    return SmallVector<Value>(loop.getResults());
  }

  void buildTile(Value k0, Value k1, Value m0, Value n0, int64_t rows,
                 bool inBounds) {
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType(), b.getF32FloatAttr(0)));
    if (!layout.visible) {
      SmallVector<Value> acc = startsFromZero
                                   ? SmallVector<Value>(rows, zeros)
                                   : readC(m0, n0, rows, inBounds);
      writeC(reduce(k0, k1, m0, n0, acc, inBounds), m0, n0, inBounds);
      return;
    }
    SmallVector<Value> masks;
    Value anyVisible;
    for (int64_t r = 0; r < rows; ++r) {
      masks.push_back(visibleRow(rowIndex(m0, r), n0));
      Value some = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                               masks.back());
      anyVisible =
          anyVisible ? arith::OrIOp::create(b, loc, anyVisible, some) : some;
    }
    // A tile the mask hides entirely adds nothing to C (but is zeros,
    // where the kernel stands in for C's zero fill).
    auto finish = [&] {
      SmallVector<Value> init(rows, zeros);
      SmallVector<Value> sums = reduce(k0, k1, m0, n0, init, inBounds);
      SmallVector<Value> old = startsFromZero ? SmallVector<Value>()
                                              : readC(m0, n0, rows, inBounds);
      SmallVector<Value> result;
      for (int64_t r = 0; r < rows; ++r) {
        Value kept = arith::SelectOp::create(b, loc, masks[r], sums[r], zeros);
        result.push_back(startsFromZero
                             ? kept
                             : arith::AddFOp::create(b, loc, old[r], kept));
      }
      writeC(result, m0, n0, inBounds);
    };
    if (!startsFromZero) {
      ifThen(anyVisible, finish);
      return;
    }
    ifThen(anyVisible, finish, [&] {
      writeC(SmallVector<Value>(rows, zeros), m0, n0, inBounds);
    });
  }

  /// The body's predicate for row `m` and the columns n0 .. n0+columns-1:
  /// its index arithmetic replayed on vectors of column indices.
  Value visibleRow(Value m, Value n0) {
    auto indexVector = VectorType::get({shape.columns()}, b.getIndexType());
    Value columns = arith::AddIOp::create(
        b, loc, vector::StepOp::create(b, loc, indexVector),
        vector::BroadcastOp::create(b, loc, indexVector, n0));
    IRMapping mapping;
    for (Operation *o : layout.predicate) {
      if (auto index = dyn_cast<linalg::IndexOp>(o)) {
        unsigned d = index.getDim();
        mapping.map(index.getResult(),
                    d == layout.n ? columns : d == layout.m ? m : loopValues[d]);
        continue;
      }
      bool vectorized = llvm::any_of(o->getOperands(), [&](Value v) {
        return isa<VectorType>(mapping.lookupOrDefault(v).getType());
      });
      if (!vectorized || isa<arith::ConstantOp>(o)) {
        mapping.map(o->getResults(), b.clone(*o, mapping)->getResults());
        continue;
      }
      SmallVector<Value> operands;
      for (Value v : o->getOperands()) {
        Value mapped = mapping.lookupOrDefault(v);
        if (!isa<VectorType>(mapped.getType()))
          mapped = vector::BroadcastOp::create(
              b, loc, VectorType::get({shape.columns()}, mapped.getType()),
              mapped);
        operands.push_back(mapped);
      }
      OperationState state(loc, o->getName(), operands,
                           {VectorType::get({shape.columns()},
                                            o->getResult(0).getType())},
                           o->getAttrs());
      mapping.map(o->getResult(0), b.create(state)->getResult(0));
    }
    Value visible = mapping.lookupOrDefault(layout.visible);
    if (!isa<VectorType>(visible.getType()))
      visible = vector::BroadcastOp::create(
          b, loc, VectorType::get({shape.columns()}, b.getI1Type()), visible);
    return visible;
  }

  OpBuilder &b;
  Location loc;
  linalg::GenericOp op;
  const ContractionLayout &layout;
  KernelShape shape;
  SmallVector<Value> sizes;
  /// The current value of each loop of the generic, as the kernel's loops
  /// reach it.
  SmallVector<Value> loopValues;
  /// B transposed to [k, n] (the scores' keys), or null.
  Value kMajorB;
  /// A and B of one reduction block as [tile, step, lane] panels, or null.
  Value panelA, panelB;
  bool startsFromZero = false;
  /// Whether the tiles are spread over threads: where no batch loop or
  /// enclosing parallel loop is (a projection `[B*L, Dm] x [Dm, Dm]`).
  bool spreadsTiles = false;
};

struct LineaVectorizeContractionsPass
    : linea::impl::LineaVectorizeContractionsBase<
          LineaVectorizeContractionsPass> {
  using Base::Base;

  /// Model IR's contractions come as named ops (`linalg.matmul`,
  /// `batch_matmul`, the transposed variants, `matvec`): as the generics they
  /// are, the matcher reads them like any other. A `linalg.fill` stays named:
  /// a kernel folds the zero fill before it.
  static void generalizeNamedContractions(Operation *root) {
    SmallVector<linalg::LinalgOp> named;
    root->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) &&
          isa<linalg::ContractionOpInterface>(op.getOperation()))
        named.push_back(op);
    });
    IRRewriter rewriter(root->getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(linea::checkTileOption(root, "vector-width", vectorWidth, 64)) ||
        failed(linea::checkTileOption(root, "register-rows", registerRows, 16)) ||
        failed(linea::checkTileOption(root, "reduction-block", reductionBlock,
                                      1 << 24)))
      return signalPassFailure();
    KernelShape shape{vectorWidth, registerRows, reductionBlock};
    generalizeNamedContractions(root);
    SmallVector<std::pair<linalg::GenericOp, ContractionLayout>> matched;
    getOperation()->walk([&](linalg::GenericOp op) {
      FailureOr<ContractionLayout> layout = matchContraction(op);
      if (succeeded(layout))
        matched.emplace_back(op, std::move(*layout));
    });
    for (auto &[op, layout] : matched) {
      OpBuilder builder(op);
      KernelBuilder kernel(builder, op, layout, shape);
      kernel.build();
      if (kernel.foldsZeroFill())
        layout.zeroFill.erase();
      op.erase();
    }
    // The k-major packing's squares: with 16 lanes, AVX-512's 16x16
    // unpack-and-shuffle transpose, not the generic lowering's permutes of
    // every lane (each with a mask constant of its own, spilled).
    if (vectorWidth == 16) {
      RewritePatternSet patterns(&getContext());
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle16x16);
      if (failed(applyPatternsGreedily(root, std::move(patterns))))
        return signalPassFailure();
    }
  }
};

} // namespace
