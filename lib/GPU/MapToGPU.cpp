//===- MapToGPU.cpp - linalg ops and sequence loops -> GPU-mapped loops ---===//
//
// Two mappings. A sequence block (an scf.forall mapped to GPU blocks: one
// chunk loop per batch/head/value tile) whose temporaries fit in shared
// memory stays one block per iteration, each linalg op inside spread over
// the block's threads. Every other linalg
// op is a kernel of its own with one thread per element of its parallel
// iteration space (all parallel dims collapsed to one and tiled into
// blocks); reductions run sequentially in each thread, their output
// elements in registers.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/Passes.h"
#include "linea/Utils/Fills.h"
#include "linea/Utils/SequenceBlocks.h"

#include "GPUMapping.h"
#include "SiblingKernels.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAMAPTOGPU
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The number of iterations of `loop`'s band where every bound and step
/// is a constant.
std::optional<int64_t> staticTripCount(scf::ParallelOp loop) {
  int64_t trips = 1;
  for (auto [lower, upper, step] : llvm::zip(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower);
    std::optional<int64_t> u = getConstantIntValue(upper);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    trips *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
  }
  return trips;
}

/// Collapses a parallel band to one dim (a no-op for one dim). A band of
/// static size keeps a constant bound (the collapse multiplies the dims'
/// sizes in ops of its own).
scf::ParallelOp collapseToOneDim(RewriterBase &rewriter, scf::ParallelOp loop) {
  if (loop.getNumLoops() == 1)
    return loop;
  std::optional<int64_t> trips = staticTripCount(loop);
  std::vector<unsigned> all(loop.getNumLoops());
  std::iota(all.begin(), all.end(), 0);
  // The collapse replaces the loop by a new one just before the op that
  // followed it.
  Operation *next = loop->getNextNode();
  rewriter.setInsertionPoint(loop);
  collapseParallelLoops(rewriter, loop, {all});
  Operation *collapsed = next->getPrevNode();
  while (!isa<scf::ParallelOp>(collapsed))
    collapsed = collapsed->getPrevNode();
  auto band = cast<scf::ParallelOp>(collapsed);
  if (trips && matchPattern(band.getLowerBound()[0], m_Zero()) &&
      matchPattern(band.getStep()[0], m_One())) {
    rewriter.setInsertionPoint(band);
    Value size =
        arith::ConstantIndexOp::create(rewriter, band.getLoc(), *trips);
    rewriter.modifyOpInPlace(
        band, [&] { band.getUpperBoundMutable()[0].assign(size); });
  }
  return band;
}

//===----------------------------------------------------------------------===//
// linalg ops to loops
//===----------------------------------------------------------------------===//

/// Parallel dims first, in their order, then the reductions: the loop nest
/// of the op is then one parallel band over a sequential one.
FailureOr<linalg::GenericOp> parallelFirst(RewriterBase &rewriter,
                                           linalg::GenericOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, type] : llvm::enumerate(iterators))
    if (type != utils::IteratorType::parallel)
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  return linalg::interchangeGenericOp(rewriter, op, order);
}

/// Whether an op in `loop` other than `load` and `store` may read or write
/// memory that is a view of `root` (or any memory it cannot name).
bool touchesElsewhere(scf::ForOp loop, Value root, Operation *load,
                      Operation *store) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (op == load || op == store ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value value = effect.getValue();
      if (!value || linea::viewRoot(value) == root)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether two index values are the same: one value, or the results of
/// two equal pure ops on the same operands (linalg's loop lowering gives
/// each access its own `affine.apply`).
bool sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  return x && y && isPure(x) &&
         OperationEquivalence::isEquivalentTo(
             x, y, OperationEquivalence::IgnoreLocations);
}

/// The load of the element `store` writes, earlier in its block.
memref::LoadOp loadOfStored(memref::StoreOp store) {
  for (auto load : store->getBlock()->getOps<memref::LoadOp>())
    if (load.getMemRef() == store.getMemRef() &&
        llvm::equal(load.getIndices(), store.getIndices(), sameIndex) &&
        load->isBeforeInBlock(store))
      return load;
  return {};
}

/// Keeps one accumulator of `loop` in a register: an element its body
/// loads and stores back at indices fixed across the loop, where nothing
/// else in the loop touches that buffer, is loaded once before the loop,
/// carried as an iteration argument and stored once after it. Returns the
/// loop that replaces `loop`, or null where no element qualifies.
scf::ForOp keepAccumulatorInRegister(RewriterBase &rewriter, scf::ForOp loop) {
  auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
  for (auto store : loop.getBody()->getOps<memref::StoreOp>()) {
    memref::LoadOp load = loadOfStored(store);
    Value memref = store.getMemRef();
    if (!load || !outside(memref) ||
        !llvm::all_of(store.getIndices(), outside) ||
        touchesElsewhere(loop, linea::viewRoot(memref), load, store))
      continue;
    Location loc = store.getLoc();
    SmallVector<Value> indices(store.getIndices());
    Value next = store.getValueToStore();
    rewriter.setInsertionPoint(loop);
    Value init = memref::LoadOp::create(rewriter, loc, memref, indices);
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{next};
        });
    if (failed(replaced))
      return {};
    auto carried = cast<scf::ForOp>(replaced->getOperation());
    rewriter.replaceAllUsesWith(load.getResult(),
                                carried.getRegionIterArgs().back());
    rewriter.eraseOp(store);
    rewriter.eraseOp(load);
    rewriter.setInsertionPointAfter(carried);
    memref::StoreOp::create(rewriter, loc, carried.getResults().back(), memref,
                            indices);
    return carried;
  }
  return {};
}

/// Keeps the accumulators of the reduction loops inside `nest` in
/// registers (a linalg reduction's outputs, which linalg's loop lowering
/// loads and stores on every iteration), the innermost loops first so that
/// an outer loop then carries what an inner one loads before it and stores
/// after. `nest` itself stays as it is: what it is mapped to must hold all
/// of the op's accesses.
void keepAccumulatorsInRegisters(RewriterBase &rewriter, Operation *nest) {
  SmallVector<scf::ForOp> loops;
  nest->walk([&](scf::ForOp loop) {
    if (loop.getOperation() != nest)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    // The index computations of an output element do not depend on the
    // reduction loop: hoisted, they are defined outside it.
    moveLoopInvariantCode(loop);
    while (loop)
      loop = keepAccumulatorInRegister(rewriter, loop);
  }
}

/// `op` as loops: an scf.parallel band over its parallel dims (when it has
/// any) around scf.for loops over its reductions, the accumulators of the
/// reduction loops inside it kept in registers. Returns the outermost loop,
/// or null for an op without loops.
FailureOr<Operation *> lowerToLoops(RewriterBase &rewriter,
                                    linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  // Named ops (fill, copy) become generics so they can be reordered.
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op->emitError() << "cannot be mapped to the GPU";
    generic = *generalized;
  }
  FailureOr<linalg::GenericOp> ordered = parallelFirst(rewriter, generic);
  if (failed(ordered))
    return generic->emitError() << "cannot order its loops for the GPU";
  rewriter.setInsertionPoint(*ordered);
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToParallelLoops(rewriter, *ordered);
  if (failed(loops))
    return ordered->emitError() << "cannot be turned into parallel loops";
  rewriter.eraseOp(*ordered);
  if (loops->empty())
    return nullptr;
  keepAccumulatorsInRegisters(rewriter, loops->front());
  return loops->front();
}

//===----------------------------------------------------------------------===//
// A fill that starts a reduction's accumulators
//===----------------------------------------------------------------------===//

/// The fill of `reduction`'s output buffer right before it (only ops
/// without memory effects between them), where `reduction` then writes
/// every element of that buffer from its accumulators: an op with
/// reduction loops (a sum, a matmul on the CUDA cores) and one output it
/// indexes by a projected permutation of its parallel dims. Null
/// otherwise.
Operation *fillStartingReduction(linalg::LinalgOp reduction) {
  if (reduction.getNumReductionLoops() == 0 ||
      reduction.getNumDpsInits() != 1 ||
      !reduction.getIndexingMapsArray().back().isProjectedPermutation())
    return nullptr;
  Value out = reduction.getDpsInits()[0];
  for (Operation *op = reduction->getPrevNode(); op; op = op->getPrevNode()) {
    if (isMemoryEffectFree(op) || isa<ViewLikeOpInterface>(op))
      continue;
    // (A linalg.fill may convert its value; the accumulators start at the
    // value only where it has the output's element type.)
    auto fill = dyn_cast<DestinationStyleOpInterface>(op);
    Value value = linea::filledValue(op);
    if (fill && value && fill.getNumDpsInits() == 1 &&
        fill.getDpsInits()[0] == out &&
        value.getType() == getElementTypeOrSelf(out.getType()))
      return op;
    return nullptr;
  }
  return nullptr;
}

/// Starts the accumulators of the reduction lowered into `nest` at `value`
/// instead of loading them from `out` (which a fill of `value` would have
/// written): where every load of `out` in `nest` is an accumulator's first
/// one, outside the reduction loops (keepAccumulatorsInRegisters hoisted
/// all of them). Returns whether it did.
bool startAccumulatorsAt(Operation *nest, Value out, Value value) {
  Value root = linea::viewRoot(out);
  SmallVector<memref::LoadOp> loads;
  bool inLoop = false;
  nest->walk([&](memref::LoadOp load) {
    if (linea::viewRoot(load.getMemref()) != root)
      return;
    loads.push_back(load);
    Operation *loop = load->getParentOfType<scf::ForOp>();
    inLoop |= loop && nest->isAncestor(loop);
  });
  if (inLoop || loads.empty())
    return false;
  for (memref::LoadOp load : loads) {
    load.getResult().replaceAllUsesWith(value);
    load.erase();
  }
  return true;
}

//===----------------------------------------------------------------------===//
// One kernel per op
//===----------------------------------------------------------------------===//

/// A band of a static size `trips`: blocks of `blockSize` threads, thread
/// t of block b taking iteration b * blockSize + t where it is in range.
/// (upstream's tiling would give both loops constant bounds, and the
/// canonicalizer would merge the two, or fold a block loop of one
/// iteration, dropping their mapping and leaving the op on the host: a
/// weight's gradient, a reduction over L into [512], was one.) The block
/// index scaled before the thread loop keeps the two loops apart.
void mapStaticBand(RewriterBase &rewriter, scf::ParallelOp loop,
                   int64_t trips, int64_t blockSize) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  if (trips <= blockSize) {
    linea::mapLoopTo(loop, {gpu::Processor::ThreadX});
    return;
  }
  auto blocks = scf::ParallelOp::create(
      rewriter, loc, ValueRange{cst(0)},
      ValueRange{cst(llvm::divideCeil(trips, blockSize))}, ValueRange{cst(1)});
  linea::mapLoopTo(blocks, {gpu::Processor::BlockX});
  rewriter.setInsertionPointToStart(blocks.getBody());
  Value base = arith::MulIOp::create(rewriter, loc,
                                     blocks.getInductionVars()[0],
                                     cst(blockSize));
  auto threads =
      scf::ParallelOp::create(rewriter, loc, ValueRange{cst(0)},
                              ValueRange{cst(blockSize)}, ValueRange{cst(1)});
  linea::mapLoopTo(threads, {gpu::Processor::ThreadX});
  rewriter.setInsertionPointToStart(threads.getBody());
  Value trip = arith::AddIOp::create(rewriter, loc, base,
                                     threads.getInductionVars()[0]);
  Value inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                        trip, cst(trips));
  auto guard = scf::IfOp::create(rewriter, loc, inRange, false);
  rewriter.setInsertionPointToStart(guard.thenBlock());
  Value iv = arith::AddIOp::create(
      rewriter, loc, loop.getLowerBound()[0],
      arith::MulIOp::create(rewriter, loc, trip, loop.getStep()[0]));
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, guard.thenBlock()->getTerminator(), {iv});
  rewriter.eraseOp(loop);
}

/// Collapses the band to one dim, tiles it by `blockSize`, and maps the
/// outer loop to blocks and the inner one to threads (a band of static
/// size: mapStaticBand).
void mapToBlocksAndThreads(RewriterBase &rewriter, scf::ParallelOp loop,
                           int64_t blockSize) {
  std::optional<int64_t> trips = staticTripCount(loop);
  loop = collapseToOneDim(rewriter, loop);
  if (trips && *trips > 0)
    return mapStaticBand(rewriter, loop, *trips, blockSize);
  auto [outer, inner] =
      scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/false);
  linea::mapLoopTo(outer, {gpu::Processor::BlockX});
  linea::mapLoopTo(inner, {gpu::Processor::ThreadX});
}

/// Puts each `cf.assert` directly in `loop`'s body under an `scf.if` on its
/// failure. Upstream's convert-parallel-loops-to-gpu leaves a mapped loop
/// whose body holds an op with effects on no particular buffer (cf.assert,
/// gpu.printf) on the host, with no diagnostic; nested in an scf.if, the
/// same assert goes into the kernel, where NVVM lowers it to
/// `__assertfail`. (torch-mlir's embedding gather asserts each id's range.)
void guardAsserts(RewriterBase &rewriter, scf::ParallelOp loop) {
  SmallVector<cf::AssertOp> asserts;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto check = dyn_cast<cf::AssertOp>(op))
      asserts.push_back(check);
  for (cf::AssertOp check : asserts) {
    Location loc = check.getLoc();
    rewriter.setInsertionPoint(check);
    Value holds = check.getArg();
    Value fails = arith::XOrIOp::create(
        rewriter, loc, holds,
        arith::ConstantIntOp::create(rewriter, loc, /*value=*/1, /*width=*/1));
    auto onFailure = scf::IfOp::create(rewriter, loc, fails,
                                       /*withElseRegion=*/false);
    rewriter.moveOpBefore(check, onFailure.thenBlock()->getTerminator());
  }
}

/// Whether `op` has at most one parallel iteration: no parallel dims, or
/// each of static size 1 (a scalar step of a host scan, a 0-d op, a full
/// reduction).
bool hasOneParallelIteration(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [range, type] : llvm::zip(ranges, op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel && range != 1)
      return false;
  return true;
}

/// Moves `op` into a gpu.launch of one block of one thread. Such an op
/// would otherwise lower to scalar code (no loop, or loops of one
/// iteration that the canonicalizer folds away with their mapping) that
/// runs on the host and reads device memory.
void wrapInOneThreadKernel(RewriterBase &rewriter, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one,
                                      one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  rewriter.moveOpBefore(op, terminator);
}

//===----------------------------------------------------------------------===//
// One block per sequence
//===----------------------------------------------------------------------===//


/// `loops` (an op's band, or a nest with no parallel dim) run by the
/// threads of a block: thread t takes iterations t, t + B, t + 2B, ... of
/// the collapsed band; a nest without parallel dims runs on thread 0.
void distributeOverThreads(RewriterBase &rewriter, Operation *loops,
                           int64_t blockSize) {
  auto band = dyn_cast<scf::ParallelOp>(loops);
  if (band)
    band = collapseToOneDim(rewriter, band);
  Operation *anchor = band ? band.getOperation() : loops;
  Location loc = anchor->getLoc();
  rewriter.setInsertionPoint(anchor);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto threads =
      scf::ParallelOp::create(rewriter, loc, ValueRange{cst(0)},
                              ValueRange{cst(blockSize)}, ValueRange{cst(1)});
  linea::mapLoopTo(threads, {gpu::Processor::ThreadX});
  rewriter.setInsertionPointToStart(threads.getBody());
  Value thread = threads.getInductionVars()[0];

  if (!band) {
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        thread, cst(0));
    auto onFirst = scf::IfOp::create(rewriter, loc, first, false);
    rewriter.moveOpBefore(loops, onFirst.thenBlock()->getTerminator());
    return;
  }
  Value lower = band.getLowerBound()[0], step = band.getStep()[0];
  Value start = arith::AddIOp::create(
      rewriter, loc, lower, arith::MulIOp::create(rewriter, loc, thread, step));
  Value stride = arith::MulIOp::create(rewriter, loc, step, cst(blockSize));
  auto strided = scf::ForOp::create(rewriter, loc, start,
                                    band.getUpperBound()[0], stride);
  Block *body = band.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, strided.getBody()->getTerminator(),
                             {strided.getInductionVar()});
  rewriter.eraseOp(band);
}

struct LineaMapToGPUPass : linea::impl::LineaMapToGPUBase<LineaMapToGPUPass> {
  using LineaMapToGPUBase::LineaMapToGPUBase;

  void runOnOperation() override {
    FailureOr<linea::BlockLimits> limits =
        linea::blockLimits(getOperation(), getArgument(), blockSize);
    if (failed(limits))
      return signalPassFailure();
    sharedMemory = limits->sharedMemory;
    int64_t threads = limits->threads;
    IRRewriter rewriter(&getContext());
    if (failed(mapSequenceLoops(rewriter)))
      return signalPassFailure();
    mapScatterAdds(rewriter, threads);

    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics())
        ops.push_back(op);
    });
    // A zero fill right before a reduction into its buffer is no kernel of
    // its own where the reduction's accumulators can start at its value
    // (a LayerNorm's sums): it waits for the reduction, which decides.
    DenseMap<Operation *, Operation *> startingFill;
    for (linalg::LinalgOp op : ops)
      if (!linea::isInSequenceBlock(op))
        if (Operation *fill = fillStartingReduction(op))
          startingFill[op] = fill;
    DenseSet<Operation *> waiting;
    for (auto [reduction, fill] : startingFill)
      waiting.insert(fill);
    // Elementwise ops side by side that leave each other's buffers alone
    // are one kernel, mapped when their first one comes.
    SmallVector<linalg::LinalgOp> candidates;
    for (linalg::LinalgOp op : ops)
      if (!linea::isInSequenceBlock(op) && !waiting.contains(op) &&
          !hasOneParallelIteration(op))
        candidates.push_back(op);
    SmallVector<SmallVector<linalg::LinalgOp>> groups =
        linea::siblingGroups(candidates);
    DenseMap<Operation *, size_t> groupOf;
    for (auto [index, group] : llvm::enumerate(groups))
      for (linalg::LinalgOp member : group)
        groupOf[member] = index;
    for (linalg::LinalgOp op : ops) {
      if (auto grouped = groupOf.find(op); grouped != groupOf.end()) {
        ArrayRef<linalg::LinalgOp> group = groups[grouped->second];
        if (group.front() == op &&
            failed(mapSiblings(rewriter, group, threads)))
          return signalPassFailure();
        continue;
      }
      if (waiting.contains(op))
        continue;
      Operation *fill = startingFill.lookup(op);
      Value out = fill ? op.getDpsInits()[0] : Value();
      bool started = false;
      if (failed(mapOp(rewriter, op, threads, [&](Operation *loops) {
            started = fill && startAccumulatorsAt(loops, out,
                                                  linea::filledValue(fill));
          })))
        return signalPassFailure();
      if (started)
        rewriter.eraseOp(fill);
      else if (fill &&
               failed(mapOp(rewriter, cast<linalg::LinalgOp>(fill), threads)))
        return signalPassFailure();
    }
  }

  /// `op` as a kernel of its own (or, in a sequence block, spread over its
  /// threads); `lowered` sees its loops before they are mapped.
  LogicalResult mapOp(RewriterBase &rewriter, linalg::LinalgOp op,
                      int64_t threads,
                      function_ref<void(Operation *)> lowered = nullptr) {
    bool inSequenceBlock = linea::isInSequenceBlock(op);
    bool oneThread = !inSequenceBlock && hasOneParallelIteration(op);
    if (oneThread)
      wrapInOneThreadKernel(rewriter, op);
    FailureOr<Operation *> loops = lowerToLoops(rewriter, op);
    if (failed(loops))
      return failure();
    if (!*loops)
      return success();
    if (lowered)
      lowered(*loops);
    if (oneThread)
      return success();
    if (inSequenceBlock)
      distributeOverThreads(rewriter, *loops, threads);
    else if (auto band = dyn_cast<scf::ParallelOp>(*loops)) {
      guardAsserts(rewriter, band);
      mapToBlocksAndThreads(rewriter, band, threads);
    }
    return success();
  }

  /// `group` (siblingGroups) as one kernel: each op's band collapsed to
  /// one dim, the bands laid end to end.
  LogicalResult mapSiblings(RewriterBase &rewriter,
                            ArrayRef<linalg::LinalgOp> group, int64_t threads) {
    SmallVector<scf::ParallelOp> bands;
    for (linalg::LinalgOp member : group) {
      Location loc = member.getLoc();
      FailureOr<Operation *> loops = lowerToLoops(rewriter, member);
      if (failed(loops))
        return failure();
      auto band = dyn_cast_or_null<scf::ParallelOp>(*loops);
      if (!band)
        return emitError(loc) << "no parallel loops to share a kernel";
      guardAsserts(rewriter, band);
      bands.push_back(collapseToOneDim(rewriter, band));
    }
    mapToBlocksAndThreads(rewriter, linea::mergeBands(rewriter, bands),
                          threads);
    return success();
  }

  /// Host loop nests that add into a buffer at computed indices (a
  /// lookup's gradient) become one band of atomic adds, mapped as an op's
  /// band. (Before the linalg ops become loops: no other host loop nest
  /// has such a body yet.)
  void mapScatterAdds(RewriterBase &rewriter, int64_t blockSize) {
    for (scf::ParallelOp band :
         linea::scatterAddsToParallel(rewriter, getOperation())) {
      guardAsserts(rewriter, band);
      mapToBlocksAndThreads(rewriter, band, blockSize);
    }
  }

  /// Sequence blocks that fit in shared memory stay; every other forall
  /// becomes a host loop whose ops are kernels of their own.
  LogicalResult mapSequenceLoops(RewriterBase &rewriter) {
    SmallVector<scf::ForallOp> foralls;
    getOperation()->walk<WalkOrder::PreOrder>(
        [&](scf::ForallOp forall) { foralls.push_back(forall); });
    for (scf::ForallOp forall : foralls) {
      if (forall.getNumResults())
        return forall->emitError()
               << "linea-map-to-gpu runs on buffers: bufferize this "
                  "scf.forall first";
      // Inside a block that stays, a nested forall is that block's loop.
      if (linea::isInSequenceBlock(forall))
        return forall->emitError()
               << "a sequence block cannot hold another scf.forall";
      if (fitsInOneBlock(forall))
        continue;
      if (readsSharedMemory(forall))
        return forall->emitError()
               << "sequence block reads its temporaries as shared memory "
                  "(ldmatrix) but cannot be one block: run "
                  "linea-contractions-to-mma for the same #linea.target";
      rewriter.setInsertionPoint(forall);
      if (failed(scf::forallToForLoop(rewriter, forall)))
        return forall->emitError() << "cannot be mapped to the GPU";
    }
    return success();
  }

  /// Whether `forall` addresses its temporaries as workgroup memory (the
  /// tensor-core warps' ldmatrix views), which only a block of its own has.
  static bool readsSharedMemory(scf::ForallOp forall) {
    WalkResult walk = forall.walk([](memref::MemorySpaceCastOp cast) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          cast.getDest().getType().getMemorySpace());
      return space && space.getValue() == gpu::AddressSpace::Workgroup
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return walk.wasInterrupted();
  }

  /// Whether `forall` runs as one block (runsAsOneBlock); a remark says why
  /// a sequence block does not.
  bool fitsInOneBlock(scf::ForallOp forall) const {
    return linea::runsAsOneBlock(
        forall, sharedMemory, [&](Operation *obstacle, int64_t bytes, int64_t budget) {
          InFlightDiagnostic remark = mlir::emitRemark(forall.getLoc())
                                      << "sequence loop stays on the host: ";
          if (obstacle)
            remark << "'" << obstacle->getName() << "' cannot run in one block";
          else
            remark << bytes << " bytes of temporaries exceed " << budget
                   << " bytes of shared memory";
        });
  }

  /// The planned GPU's shared memory per block (BlockLimits).
  int64_t sharedMemory = 0;
};

} // namespace
