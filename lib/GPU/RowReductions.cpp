//===- RowReductions.cpp - row reductions and their neighbours, one launch ===//
//
// A normalization (LayerNorm, RMSNorm, a softmax over the last dim) is a
// few reductions along each row of an [R, C] space with elementwise ops
// around them. As kernels of their own each intermediate makes a round trip
// through global memory and each reduction runs a thread per row; here the
// group is one launch, lanes of a warp sharing a row: strided coalesced
// loops, a shuffle butterfly per reduction, the elementwise ops recomputed
// where they are read, and only what is read after the group stored.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/LinalgBodies.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"
#include "StoredTypes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAROWREDUCTIONS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32;

//===----------------------------------------------------------------------===//
// The ops a row kernel runs
//===----------------------------------------------------------------------===//

/// The rows are the leading `k` loops (the batch and the sequence of a
/// [B, L, D] LayerNorm), the columns the last.
enum class RowRole {
  /// Not run by a row kernel (no reduction in its run has its rows).
  none,
  /// One value per row: loops [rows...], parallel.
  rowwise,
  /// One value per element: loops [rows..., C], parallel.
  elementwise,
  /// Along each row: loops [rows..., C], the last a reduction.
  reduction,
};

/// A linalg op a row kernel can run, and how.
struct RowOp {
  /// (Mutable: LinalgOp's accessors are not const.)
  mutable linalg::LinalgOp op;
  RowRole role;
  /// k, the loops over rows (for an op of parallel loops, until
  /// assignRoles decides, all its loops).
  unsigned rowDims = 0;
  /// C, the static column count of an elementwise op or a reduction (for
  /// an op of parallel loops before its role is known, its last loop's
  /// static size, or 0).
  int64_t columns = 0;
  /// A reduction's combining op (its body's yielded value), its kind, and
  /// the term it adds to the output.
  Operation *combine = nullptr;
  arith::AtomicRMWKind kind = arith::AtomicRMWKind::addf;
  Value term;

  Value out() const { return op.getDpsInits()[0]; }
};

/// The atomic kind of a reduction's combining op, where a butterfly of
/// shuffles may regroup it.
std::optional<arith::AtomicRMWKind> combiningKind(Operation *op) {
  using Kind = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case([](arith::AddFOp) { return Kind::addf; })
      .Case([](arith::MaximumFOp) { return Kind::maximumf; })
      .Case([](arith::MinimumFOp) { return Kind::minimumf; })
      .Case([](arith::MaxNumFOp) { return Kind::maxnumf; })
      .Case([](arith::MinNumFOp) { return Kind::minnumf; })
      .Case([](arith::AddIOp) { return Kind::addi; })
      .Case([](arith::MaxSIOp) { return Kind::maxs; })
      .Case([](arith::MinSIOp) { return Kind::mins; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether a shuffle moves `type` whole: 32 or 64-bit scalars.
bool isShuffleable(Type type) {
  return type.isIntOrFloat() && (type.getIntOrFloatBitWidth() == 32 ||
                                 type.getIntOrFloatBitWidth() == 64);
}

/// The role `op` can have in a row kernel: a reduction along its last
/// loop, or (left for assignRoles to decide) rowwise or elementwise.
std::optional<RowOp> classify(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op.getNumLoops() == 0 ||
      op.getNumLoops() > 8 || linea::isInSequenceBlock(op) ||
      op->getParentOfType<gpu::LaunchOp>() ||
      op->getParentOfType<scf::ParallelOp>())
    return std::nullopt;
  if (!linea::hasPlainBody(op))
    return std::nullopt;
  Block *body = op.getBlock();
  for (OpOperand &input : op->getOpOperands())
    if (!linea::readsByLoopDims(op.getMatchingIndexingMap(&input)))
      return std::nullopt;

  unsigned loops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap written = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  MLIRContext *ctx = op.getContext();
  int64_t last = op.getStaticLoopRanges().back();
  RowOp row{op, RowRole::rowwise, loops,
            ShapedType::isDynamic(last) || last <= 0 ? 0 : last};
  if (llvm::all_of(iterators, [](utils::IteratorType t) {
        return t == utils::IteratorType::parallel;
      }))
    return written == AffineMap::getMultiDimIdentityMap(loops, ctx)
               ? std::optional<RowOp>(row)
               : std::nullopt;
  // A reduction along the last loop into the rows, its body one
  // combining op of the output.
  SmallVector<AffineExpr> rows;
  for (unsigned d = 0; d + 1 < loops; ++d)
    rows.push_back(getAffineDimExpr(d, ctx));
  if (!row.columns || loops < 2 ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1 ||
      iterators.back() != utils::IteratorType::reduction ||
      written != AffineMap::get(loops, 0, rows, ctx))
    return std::nullopt;
  BlockArgument accumulator = body->getArgument(body->getNumArguments() - 1);
  SmallVector<Operation *> combiners;
  Value term = matchReduction({accumulator}, 0, combiners);
  if (!term || combiners.size() != 1 || !accumulator.hasOneUse() ||
      !isShuffleable(accumulator.getType()))
    return std::nullopt;
  std::optional<arith::AtomicRMWKind> kind = combiningKind(combiners[0]);
  if (!kind)
    return std::nullopt;
  row.role = RowRole::reduction;
  row.rowDims = loops - 1;
  row.combine = combiners[0];
  row.kind = *kind;
  row.term = term;
  return row;
}

/// Decides each parallel op's role in `run` by the reductions' rows: with
/// a reduction over rows of its leading loops, an elementwise op (its last
/// loop of static size the columns); over rows of all its loops, rowwise;
/// else none.
void assignRoles(MutableArrayRef<RowOp> run) {
  DenseSet<unsigned> reducedRows;
  for (const RowOp &row : run)
    if (row.role == RowRole::reduction)
      reducedRows.insert(row.rowDims);
  for (RowOp &row : run) {
    if (row.role == RowRole::reduction)
      continue;
    unsigned loops = row.rowDims;
    if (row.columns && loops > 1 && reducedRows.contains(loops - 1)) {
      row.role = RowRole::elementwise;
      row.rowDims = loops - 1;
    } else if (reducedRows.contains(loops)) {
      row.role = RowRole::rowwise;
      row.columns = 0;
    } else {
      row.role = RowRole::none;
    }
  }
}

/// The buffers (by their root allocation) `op` reads and writes.
void rootsOf(linalg::LinalgOp op, DenseSet<Value> &read,
             DenseSet<Value> &written) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<BaseMemRefType>(operand.get().getType()))
      continue;
    Value root = linea::viewRoot(operand.get());
    if (op.isDpsInit(&operand))
      written.insert(root);
    if (op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand))
      read.insert(root);
  }
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

/// Where `map` reads the `rowDims` row dims: their places in its results,
/// packed a byte each, or nothing where it does not read them all.
std::optional<uint64_t> rowPlaces(AffineMap map, unsigned rowDims) {
  uint64_t places = 0;
  for (unsigned d = 0; d < rowDims; ++d) {
    std::optional<unsigned> place =
        map.getResultPosition(getAffineDimExpr(d, map.getContext()));
    if (!place)
      return std::nullopt;
    places |= uint64_t(*place + 1) << (8 * d);
  }
  return places;
}

/// The row ops of one block's run, split into groups: ops reading or
/// writing one buffer by all their row dims at the same places index the
/// same rows.
SmallVector<SmallVector<RowOp>> groupsOf(ArrayRef<RowOp> run) {
  llvm::EquivalenceClasses<Operation *> classes;
  DenseMap<std::tuple<Value, unsigned, uint64_t>, Operation *> firstByRows;
  for (const RowOp &row : run) {
    if (row.role == RowRole::none)
      continue;
    classes.insert(row.op);
    for (OpOperand &operand : row.op->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      std::optional<uint64_t> places =
          rowPlaces(row.op.getMatchingIndexingMap(&operand), row.rowDims);
      if (!places)
        continue;
      auto [it, inserted] = firstByRows.try_emplace(
          {operand.get(), row.rowDims, *places}, row.op);
      if (!inserted)
        classes.unionSets(it->second, row.op.getOperation());
    }
  }
  SmallVector<SmallVector<RowOp>> groups;
  DenseMap<Operation *, unsigned> groupOfLeader;
  for (const RowOp &row : run) {
    if (row.role == RowRole::none)
      continue;
    Operation *leader = classes.getLeaderValue(row.op);
    auto [it, inserted] = groupOfLeader.try_emplace(leader, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(row);
  }
  return groups;
}

/// Whether `value`'s allocation is used by anything but `members`, the
/// views of it and its deallocation: whether a group's write to it must
/// reach memory.
bool isReadAfter(Value root, const DenseSet<Operation *> &members) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (members.contains(user) || isa<memref::DeallocOp>(user))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(view->getResult(0));
        continue;
      }
      if (isa<memref::DimOp>(user))
        continue;
      return true;
    }
  }
  return !root.getDefiningOp<memref::AllocOp>();
}

/// The map by which a buffer of `rank` dims is read at its own row (and
/// column) from loops of `loops` dims: (d0, ..., d[rank - 1]).
AffineMap rowMap(int64_t rank, unsigned loops, MLIRContext *ctx) {
  SmallVector<AffineExpr> results;
  for (int64_t d = 0; d < rank; ++d)
    results.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(loops, 0, results, ctx);
}

/// Why `group` cannot be one row kernel, or null.
const char *whyNotOneKernel(ArrayRef<RowOp> group) {
  if (llvm::none_of(group, [](const RowOp &row) {
        return row.role == RowRole::reduction;
      }))
    return "no reduction";
  int64_t columns = 0;
  for (const RowOp &row : group) {
    if (!row.columns)
      continue;
    if (columns && columns != row.columns)
      return "different column counts";
    columns = row.columns;
  }
  // Every buffer the group writes is one view, read (before its writer
  // too) by its own row (and column) index only: other rows are other
  // warps'. A row value ([R]) is written before anything reads it: a lane
  // reading the old one could run behind the first lane's store.
  DenseMap<Value, Value> writtenAs;
  for (const RowOp &row : group) {
    auto [it, inserted] =
        writtenAs.try_emplace(linea::viewRoot(row.out()), row.out());
    if (!inserted && it->second != row.out())
      return "two views of one written buffer";
  }
  DenseSet<Value> rowValuesWritten;
  for (const RowOp &row : group) {
    for (OpOperand &operand : row.op->getOpOperands()) {
      Value buffer = operand.get();
      if (!isa<BaseMemRefType>(buffer.getType()))
        continue;
      auto written = writtenAs.find(linea::viewRoot(buffer));
      if (written == writtenAs.end())
        continue;
      if (written->second != buffer)
        return "two views of one written buffer";
      bool byThisOp = row.op.isDpsInit(&operand);
      int64_t rank = cast<MemRefType>(buffer.getType()).getRank();
      AffineMap map = row.op.getMatchingIndexingMap(&operand);
      if (rank > map.getNumDims() ||
          map != rowMap(rank, map.getNumDims(), map.getContext()))
        return "a written buffer read off its row";
      bool read = !byThisOp || row.op.payloadUsesValueFromOperand(&operand);
      if (read && rank == row.rowDims && !rowValuesWritten.contains(buffer))
        return "a row value read before the group writes it";
    }
    Value out = row.out();
    if (cast<MemRefType>(out.getType()).getRank() == row.rowDims)
      rowValuesWritten.insert(out);
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Builds one group's launch: lanes of a warp per row, the reductions'
/// row values in order, then the outputs.
class RowKernel {
public:
  /// Up to `threads` (at least a warp) threads per block: whole warps (a
  /// shuffle's lanes all run), `lanes` to a row.
  RowKernel(ArrayRef<RowOp> group, int64_t threads) : group(group) {
    for (const RowOp &row : group)
      columns = std::max(columns, row.columns);
    int64_t usable = threads / kWarpSize * kWarpSize;
    lanes = std::min<int64_t>(
        kWarpSize, static_cast<int64_t>(llvm::PowerOf2Ceil(columns)));
    rowsPerBlock = usable / lanes;
    this->threads = rowsPerBlock * lanes;
  }

  void build(RewriterBase &rewriter);

private:
  /// Values already built in the current scope (a row's, or one column's),
  /// by the member (or, for loads, the operand) they stand for.
  using Memo = DenseMap<std::pair<const void *, Value>, Value>;

  /// The last member before `member` that writes `buffer`, if any.
  std::optional<unsigned> writerBefore(Value buffer, unsigned member) const {
    for (unsigned m = member; m-- > 0;)
      if (group[m].out() == buffer)
        return m;
    return std::nullopt;
  }

  Value valueOf(OpBuilder &b, unsigned member, OpOperand &operand,
                ValueRange ivs, Memo &memo);
  Value valueWritten(OpBuilder &b, unsigned writer, ValueRange ivs, Memo &memo);
  Value evaluate(OpBuilder &b, unsigned member, ValueRange ivs, Memo &memo);
  Value reduce(OpBuilder &b, unsigned member);
  void storeOutputs(OpBuilder &b, const DenseSet<Operation *> &members);

  Value constant(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  ArrayRef<RowOp> group;
  int64_t columns = 0, lanes = 1, rowsPerBlock = 1, threads = 1;
  Location loc = UnknownLoc();
  /// The row's indices and those of the element in column `column`.
  SmallVector<Value> at(Value column = Value()) const {
    SmallVector<Value> ivs(rowIvs);
    if (column)
      ivs.push_back(column);
    return ivs;
  }

  /// In the launch: the row's indices (clamped into range, so that every
  /// lane of a warp reaches its shuffles), whether it is a row at all,
  /// the lane.
  SmallVector<Value> rowIvs;
  Value inRange, lane;
  /// The value of each rowwise op and reduction at the row.
  DenseMap<unsigned, Value> rowValues;
};

/// The value `member` reads through `operand` at loop indices `ivs`: what
/// an earlier member wrote there, or memory.
Value RowKernel::valueOf(OpBuilder &b, unsigned member, OpOperand &operand,
                         ValueRange ivs, Memo &memo) {
  Value buffer = operand.get();
  if (!isa<BaseMemRefType>(buffer.getType()))
    return buffer;
  if (std::optional<unsigned> writer = writerBefore(buffer, member))
    return valueWritten(b, *writer, ivs, memo);
  AffineMap map = group[member].op.getMatchingIndexingMap(&operand);
  std::pair<const void *, Value> key{map.getAsOpaquePointer(), buffer};
  if (Value loaded = memo.lookup(key))
    return loaded;
  Value loaded = linea::loadByMap(b, loc, buffer, map, ivs);
  memo[key] = loaded;
  return loaded;
}

/// The value member `writer` wrote at `ivs` (its own row and column).
Value RowKernel::valueWritten(OpBuilder &b, unsigned writer, ValueRange ivs,
                              Memo &memo) {
  if (group[writer].role != RowRole::elementwise)
    return rowValues.lookup(writer);
  std::pair<const void *, Value> key{group[writer].op.getOperation(), Value()};
  if (Value value = memo.lookup(key))
    return value;
  Value value = evaluate(b, writer, ivs, memo);
  memo[key] = value;
  return value;
}

/// `member`'s body at loop indices `ivs`: the value it yields, or a
/// reduction's term.
Value RowKernel::evaluate(OpBuilder &b, unsigned member, ValueRange ivs,
                          Memo &memo) {
  const RowOp &row = group[member];
  return linea::cloneBodyAt(
      b, row.op, ivs,
      [&](OpOperand &operand) -> Value {
        // (A reduction's accumulator: only its combining op, left out.)
        if (row.combine && row.op.isDpsInit(&operand))
          return {};
        return valueOf(b, member, operand, ivs, memo);
      },
      row.term, row.combine);
}

/// Reduction `member` at the row: each lane's columns, the lanes'
/// partials combined by an xor butterfly (every lane gets the whole), and
/// the value its output held before.
Value RowKernel::reduce(OpBuilder &b, unsigned member) {
  const RowOp &row = group[member];
  Type type = row.term.getType();
  Value identity = arith::getIdentityValue(row.kind, type, b, loc);
  auto loop = scf::ForOp::create(
      b, loc, lane, constant(b, columns), constant(b, lanes),
      ValueRange{identity},
      [&](OpBuilder &nb, Location, Value column, ValueRange carried) {
        Memo memo;
        Value term = evaluate(nb, member, at(column), memo);
        Value sum = arith::getReductionOp(row.kind, nb, loc, carried[0], term);
        scf::YieldOp::create(nb, loc, sum);
      });
  Value partial = loop.getResult(0);
  Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
  for (int64_t offset = lanes / 2; offset > 0; offset /= 2) {
    Value by = arith::ConstantIntOp::create(b, loc, offset, 32);
    auto shuffle = gpu::ShuffleOp::create(b, loc, partial, by, width,
                                          gpu::ShuffleMode::XOR);
    partial = arith::getReductionOp(row.kind, b, loc, partial,
                                    shuffle.getShuffleResult());
  }
  Memo memo;
  OpOperand *out = row.op.getDpsInitOperand(0);
  Value before = valueOf(b, member, *out, at(), memo);
  return arith::getReductionOp(row.kind, b, loc, before, partial);
}

/// Stores what the group wrote and is read after it, on rows in range:
/// each element's final value (all of a column's computed before any is
/// stored, so that an op updating its input in place reads the old one),
/// then each row value, by the row's first lane.
void RowKernel::storeOutputs(OpBuilder &b,
                             const DenseSet<Operation *> &members) {
  SmallVector<std::pair<Value, unsigned>> elements, rows;
  for (unsigned m = group.size(); m-- > 0;) {
    Value out = group[m].out();
    if (!isReadAfter(linea::viewRoot(out), members) ||
        llvm::any_of(elements, [&](auto e) { return e.first == out; }) ||
        llvm::any_of(rows, [&](auto r) { return r.first == out; }))
      continue;
    bool isRow = cast<MemRefType>(out.getType()).getRank() ==
                 static_cast<int64_t>(group[m].rowDims);
    (isRow ? rows : elements).push_back({out, m});
  }
  auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  if (!elements.empty())
    scf::ForOp::create(
        b, loc, lane, constant(b, columns), constant(b, lanes), ValueRange{},
        [&](OpBuilder &nb, Location, Value column, ValueRange) {
          Memo memo;
          SmallVector<Value> values;
          for (auto [out, writer] : elements)
            values.push_back(valueWritten(nb, writer, at(column), memo));
          for (auto [value, element] : llvm::zip(values, elements))
            memref::StoreOp::create(nb, loc, value, element.first, at(column));
          scf::YieldOp::create(nb, loc);
        });
  if (rows.empty())
    return;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      constant(b, 0));
  auto onFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(onFirst.thenBlock());
  Memo memo;
  for (auto [out, writer] : rows)
    memref::StoreOp::create(b, loc, valueWritten(b, writer, at(), memo), out,
                            at());
}

/// The extents of the rows' dims: those of a buffer the group reads by
/// all of them and does not write where there is one (an allocation the
/// group leaves unused then goes).
SmallVector<Value> rowExtents(OpBuilder &b, Location loc,
                              ArrayRef<RowOp> group) {
  DenseSet<Value> written;
  for (const RowOp &row : group)
    written.insert(linea::viewRoot(row.out()));
  std::optional<std::pair<Value, AffineMap>> anchor;
  for (const RowOp &row : group)
    for (OpOperand &operand : row.op->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      AffineMap map = row.op.getMatchingIndexingMap(&operand);
      if (!rowPlaces(map, row.rowDims))
        continue;
      if (!anchor || (written.contains(linea::viewRoot(anchor->first)) &&
                      !written.contains(linea::viewRoot(operand.get()))))
        anchor = {operand.get(), map};
    }
  assert(anchor && "a group is joined by buffers indexed by its rows");
  SmallVector<Value> extents;
  for (unsigned d = 0; d < group.front().rowDims; ++d) {
    unsigned place =
        *anchor->second.getResultPosition(getAffineDimExpr(d, b.getContext()));
    extents.push_back(b.createOrFold<memref::DimOp>(loc, anchor->first, place));
  }
  return extents;
}

void RowKernel::build(RewriterBase &rewriter) {
  Operation *last = group.back().op;
  loc = linea::withKernelName(last->getLoc(), "row_reductions");
  DenseSet<Operation *> members;
  for (const RowOp &row : group)
    members.insert(row.op);

  rewriter.setInsertionPoint(last);
  SmallVector<Value> extents = rowExtents(rewriter, loc, group);
  Value rows = extents.front();
  for (Value extent : ArrayRef(extents).drop_front())
    rows = arith::MulIOp::create(rewriter, loc, rows, extent);
  Value one = constant(rewriter, 1);
  Value blocks = arith::CeilDivUIOp::create(rewriter, loc, rows,
                                            constant(rewriter, rowsPerBlock));
  auto launch = gpu::LaunchOp::create(rewriter, loc, blocks, one, one,
                                      constant(rewriter, threads), one, one);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value thread = launch.getThreadIds().x;
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            constant(b, rowsPerBlock)),
      arith::DivUIOp::create(b, loc, thread, constant(b, lanes)));
  lane = arith::RemUIOp::create(b, loc, thread, constant(b, lanes));
  inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear, rows);
  Value clamped = arith::MinUIOp::create(
      b, loc, linear, arith::SubIOp::create(b, loc, rows, constant(b, 1)));
  // The row's indices, the last row dim fastest.
  rowIvs.resize(extents.size());
  for (unsigned d = extents.size(); d-- > 1;) {
    rowIvs[d] = arith::RemUIOp::create(b, loc, clamped, extents[d]);
    clamped = arith::DivUIOp::create(b, loc, clamped, extents[d]);
  }
  rowIvs[0] = clamped;

  for (auto [m, row] : llvm::enumerate(group)) {
    if (row.role == RowRole::reduction) {
      rowValues[m] = reduce(b, m);
    } else if (row.role == RowRole::rowwise) {
      Memo memo;
      rowValues[m] = evaluate(b, m, at(), memo);
    }
  }
  storeOutputs(b, members);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Whether an op between a group's members leaves them free to move to
/// the last one: no memory effect but allocation.
bool movesPast(Operation &op) {
  if (isMemoryEffectFree(&op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(&op);
  return effects && effects.onlyHasEffect<MemoryEffects::Allocate>();
}

/// Whether an op of `run` outside `group`, between its first and last
/// member, touches a buffer the group touches: then the group cannot
/// move to its last member.
bool isInterleaved(ArrayRef<RowOp> run, ArrayRef<RowOp> group) {
  DenseSet<Operation *> members;
  DenseSet<Value> touched;
  for (const RowOp &row : group) {
    members.insert(row.op);
    rootsOf(row.op, touched, touched);
  }
  bool inside = false;
  for (const RowOp &row : run) {
    if (row.op == group.front().op)
      inside = true;
    if (row.op == group.back().op)
      return false;
    if (!inside || members.contains(row.op))
      continue;
    DenseSet<Value> other;
    rootsOf(row.op, other, other);
    if (llvm::any_of(other, [&](Value root) { return touched.contains(root); }))
      return true;
  }
  return false;
}

struct LineaRowReductionsPass
    : linea::impl::LineaRowReductionsBase<LineaRowReductionsPass> {
  using LineaRowReductionsBase::LineaRowReductionsBase;

  void runOnOperation() override {
    FailureOr<linea::BlockLimits> limits =
        linea::blockLimits(getOperation(), getArgument(), blockSize);
    if (failed(limits))
      return signalPassFailure();
    threads = limits->threads;
    // A row's lanes meet by shuffles, which need whole warps.
    if (threads < kWarpSize)
      return;
    SmallVector<SmallVector<RowOp>> runs;
    getOperation()->walk([&](Block *block) { collectRuns(*block, runs); });
    IRRewriter rewriter(&getContext());
    for (ArrayRef<RowOp> run : runs)
      for (ArrayRef<RowOp> group : groupsOf(run))
        if (!whyNotOneKernel(group) && !isInterleaved(run, group))
          fuse(rewriter, group);
  }

  /// The runs of row ops in `block`: only allocations and ops without
  /// memory effects between them.
  void collectRuns(Block &block, SmallVector<SmallVector<RowOp>> &runs) {
    SmallVector<RowOp> run;
    auto flush = [&] {
      if (llvm::any_of(run, [](const RowOp &row) {
            return row.role == RowRole::reduction;
          })) {
        assignRoles(run);
        runs.push_back(std::move(run));
      }
      run.clear();
    };
    for (Operation &op : block) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (std::optional<RowOp> row = classify(linalgOp)) {
          run.push_back(*row);
          continue;
        }
      if (!movesPast(op))
        flush();
    }
    flush();
  }

  void fuse(RewriterBase &rewriter, ArrayRef<RowOp> group) {
    DenseSet<Operation *> members;
    SetVector<Value> written;
    for (const RowOp &row : group) {
      members.insert(row.op);
      written.insert(linea::viewRoot(row.out()));
    }
    SmallVector<Value> internal;
    for (Value root : written)
      if (!isReadAfter(root, members))
        internal.push_back(root);
    RowKernel(group, threads).build(rewriter);
    for (const RowOp &row : llvm::reverse(group))
      rewriter.eraseOp(row.op);
    for (Value root : internal)
      linea::eraseUnusedBuffer(rewriter, root.getDefiningOp<memref::AllocOp>());
  }

  int64_t threads = 0;
};

} // namespace
