//===- ContractionsToMMA.cpp - matmul contractions -> mma.sync warps ------===//
//
// Linea's forms spend their FLOPs in three contraction shapes (see
// Utils/AttentionBuilders): A M (matmulAccumulate), A^T M (the state update
// K^T V, transposedMatmulAccumulate) and A M^T (the scores Q K^T,
// maskedScores), the last one usually masked (the causal `t <= i`). Where
// the sizes are static and tile evenly, warps run them as m16n8k16
// tensor-core steps with an f32 accumulator; a mask is applied to the
// finished accumulator elements (the old value where it does not hold).
//
// Two ways to feed the warps. A grid (the one-shot and chunk-parallel
// forms) is staged: a block per output tile copies the operands' slices
// into shared memory, converted to f16/bf16, and its warps load fragments
// with ldmatrix, so each element leaves global memory once per block.
// Contractions into one output in a row share a grid and its registers,
// and a zero fill before them becomes zero accumulators. A sequence block,
// whose operands are mostly its own shared temporaries, has each lane load
// the fragment elements PTX assigns it.
//
// This file is the pass: which contractions go where, and the buffers they
// read as stored. What it matches and chains is AccumulationChains.h; the
// builders are StagedGrid.h (ldmatrix + mma.sync), WarpgroupGrid.h (wgmma,
// sm_90a) and LaneLoadGrid.h (lanes load their own fragments).
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/MmaShape.h"
#include "linea/GPU/Passes.h"
#include "linea/Utils/FloatTypes.h"
#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"

#include "AccumulationChains.h"
#include "Fragments.h"
#include "GPUMapping.h"
#include "LaneLoadGrid.h"
#include "StagedGrid.h"
#include "StoredTypes.h"
#include "WarpgroupGrid.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACONTRACTIONSTOMMA
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

using linea::mma::kTileM;
constexpr int64_t kWarp = linea::mma::kWarpSize;
using linea::mma::AccumulationChain;
using linea::mma::BlockTiling;
using linea::mma::Contraction;
using linea::mma::StagedSlices;

/// Whether anything under `root` holds 16-bit floats: `precision=auto`
/// leaves a program without any as it is.
bool hasSixteenBitBuffers(Operation *root) {
  return root
      ->walk([&](Operation *op) {
        bool found =
            llvm::any_of(op->getResultTypes(), linea::holdsSixteenBitFloats);
        for (Region &region : op->getRegions())
          for (Block &block : region)
            found |= llvm::any_of(block.getArgumentTypes(),
                                  linea::holdsSixteenBitFloats);
        return found ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// `precision=auto`'s tensor-core type for `op`, contraction `c`: the
/// element type of the 16-bit Linea op it was built from (its location
/// says), else the 16-bit type one of its operands was widened from (a
/// model's projection of bf16 activations, widened to compute in f32),
/// bf16 before f16; null for an f32 contraction, which stays on the CUDA
/// cores.
Type ownSixteenBitType(linalg::GenericOp op, const Contraction &c) {
  if (Type own = linea::computeTypeOf(op.getLoc()))
    return own;
  Type a = linea::widenedFrom(c.a), m = linea::widenedFrom(c.m);
  if (m && m.isBF16())
    return m;
  return a ? a : m;
}

struct LineaContractionsToMMAPass
    : linea::impl::LineaContractionsToMMABase<LineaContractionsToMMAPass> {
  using LineaContractionsToMMABase::LineaContractionsToMMABase;

  /// Named contractions (linalg.matmul, linalg.batch_matmul, ...: a
  /// model's projections as torch-mlir writes them) as the generics the
  /// matcher reads; Linea's own forms build generics already.
  void generalizeNamedContractions(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> named;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) &&
          linalg::isaContractionOpInterface(op) &&
          !op->getParentOfType<gpu::LaunchOp>())
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
  }

  void runOnOperation() override {
    Builder builder(&getContext());
    // The option's type for every contraction, or (auto) each
    // contraction's own.
    Type operandType;
    bool automatic = precision == linea::Precision::automatic;
    if (precision == linea::Precision::f16)
      operandType = builder.getF16Type();
    else if (precision == linea::Precision::bf16)
      operandType = builder.getBF16Type();
    // precision=f32 and auto's contractions without a 16-bit type: the
    // CUDA cores, by FMA.
    bool tensorCores =
        operandType || (automatic && hasSixteenBitBuffers(getOperation()));
    FailureOr<linea::BlockLimits> limits =
        linea::blockLimits(getOperation(), getArgument(), blockSize);
    if (failed(limits))
      return signalPassFailure();
    threads = limits->threads;
    // (The CUDA cores' grids take blocks of 256 threads only.)
    if (tensorCores && threads % kWarp) {
      getOperation()->emitError()
          << "linea-contractions-to-mma needs a block-size that is a "
             "positive multiple of 32 for tensor cores, got "
          << threads;
      return signalPassFailure();
    }
    // The tensor-core instructions are the planned chip's.
    const linea::TargetDescription &gpu = limits->target;
    minimumBlocks = gpu.parallelUnits;
    warpgroupMma = linea::hasWarpgroupMMA(gpu.chip);
    tmaLoads = tma && linea::hasTensorMemoryAccelerator(gpu.chip);
    copies.clear();
    narrowed.clear();
    fittingBlocks.clear();
    // Decided on the temporaries as they come: narrowing only shrinks them.
    getOperation()->walk([&](scf::ForallOp forall) {
      if (linea::runsAsOneBlock(forall, limits->sharedMemory))
        fittingBlocks.insert(forall);
    });
    IRRewriter rewriter(&getContext());
    generalizeNamedContractions(rewriter);
    // A sequence block's copies of 16-bit operands stay 16-bit, for its
    // contractions to read as stored.
    linea::copyIntoStoredTemporaries(rewriter, getOperation());
    SmallVector<std::pair<linalg::GenericOp, Contraction>> matches, scalar;
    operandTypes.clear();
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      std::optional<Contraction> c = linea::mma::matchContraction(op);
      if (!c)
        return;
      Type type = !tensorCores  ? Type()
                  : operandType ? operandType
                                : ownSixteenBitType(op, *c);
      if (!type) {
        // A sequence block runs its contractions on its own threads.
        if (!linea::isInSequenceBlock(op))
          scalar.push_back({op, *c});
        return;
      }
      matches.push_back({op, *c});
      operandTypes[op] = type;
    });
    narrowTemporaries(rewriter, matches);
    SymbolTableCollection symbols;
    for (AccumulationChain &chain : linea::mma::collectChains(matches)) {
      takeEpilogue(rewriter, chain);
      buildChain(rewriter, chain, operandTypes.lookup(chain.ops.front()),
                 symbols);
    }
    for (AccumulationChain &chain : linea::mma::collectChains(scalar)) {
      takeEpilogue(rewriter, chain);
      buildScalarChain(rewriter, chain, symbols);
    }
    for (linalg::GenericOp copy : copies)
      linea::eraseUnusedCopy(rewriter, copy);
    for (auto [alloc, twin] : narrowed)
      linea::eraseUnusedBuffer(rewriter, alloc);
  }

  /// The widening and narrowing copies whose 16-bit buffers staged grids
  /// read or write instead.
  llvm::SetVector<linalg::GenericOp> copies;
  /// Sequence-block temporaries only tensor cores read, and their 16-bit
  /// twins (views shaped as they are).
  llvm::MapVector<memref::AllocOp, Value> narrowed;
  /// The tensor-core type of each contraction the pass takes.
  DenseMap<Operation *, Type> operandTypes;
  /// Sequence blocks whose temporaries fit in shared memory, which
  /// linea-map-to-gpu keeps one block each.
  DenseSet<Operation *> fittingBlocks;
  /// Threads per block, and the blocks a grid should have to keep every SM
  /// of the planned GPU busy.
  int64_t threads = 0;
  int64_t minimumBlocks = 0;
  /// What the planned chip has: warpgroup MMA (sm_90a), and TMA (sm_90 and
  /// later) where the `tma` option leaves it on.
  bool warpgroupMma = false;
  bool tmaLoads = false;

  /// A sequence block's temporaries that only its tensor-core contractions
  /// read hold the tensor-core type (which the warps would narrow each
  /// element to anyway), in rows that ldmatrix loads.
  void narrowTemporaries(
      IRRewriter &rewriter,
      ArrayRef<std::pair<linalg::GenericOp, Contraction>> matches) {
    DenseSet<Operation *> onTensorCores;
    for (const auto &match : matches)
      if (linea::isInSequenceBlock(match.first))
        onTensorCores.insert(match.first);
    auto tensorCoreRead = [&](OpOperand &use) {
      auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
      return generic && onTensorCores.contains(generic) &&
             generic.isDpsInput(&use);
    };
    for (const auto &[op, c] : matches)
      for (Value operand : {c.a, c.m}) {
        auto alloc = linea::viewRoot(operand).getDefiningOp<memref::AllocOp>();
        if (!onTensorCores.contains(op) || !alloc || narrowed.count(alloc))
          continue;
        if (Value twin = linea::narrowTemporary(
                rewriter, alloc, operandTypes.lookup(op), tensorCoreRead))
          narrowed[alloc] = twin;
      }
  }

  /// `operand`'s 16-bit rows in shared memory, cast to the workgroup
  /// address space for ldmatrix: where it is a view of a 16-bit temporary
  /// of a sequence block that fits in shared memory, its rows starting
  /// 16-byte aligned.
  Value sharedRows(OpBuilder &b, Location loc, Value operand,
                   Type operandType) {
    auto alloc = linea::viewRoot(operand).getDefiningOp<memref::AllocOp>();
    auto type = cast<MemRefType>(operand.getType());
    // ldmatrix reads 16-byte rows: whole cp.async lines.
    if (!alloc || type.getElementType() != operandType ||
        !fittingBlocks.contains(linea::enclosingSequenceBlock(alloc)) ||
        !linea::inCopyLines(type, /*anyOffset=*/false))
      return {};
    return linea::workgroupView(b, loc, operand);
  }

  /// A chain as one staged grid where its sizes tile by a block; else, in
  /// a sequence block (which runs it as one block), as lanes loading their
  /// own fragments on shared accumulators; else each contraction on its
  /// own: staged alone, or with lane loads where the sizes do not tile,
  /// the fill of zeros kept. Dynamic sizes (rows, batch) take a staged
  /// grid or stay as they are.
  void buildChain(IRRewriter &b, const AccumulationChain &chain,
                  Type operandType, SymbolTableCollection &symbols) {
    linalg::GenericOp first = chain.ops.front();
    bool oneBlock = linea::isInSequenceBlock(first);
    bool dynamicSizes = chain.members.front().dynamicSizes();
    if (dynamicSizes && oneBlock)
      return;
    std::optional<linea::mma::WarpgroupTiling> warpgroupTiling;
    std::optional<BlockTiling> tiling;
    if (!oneBlock) {
      tiling = stagedTiling(chain.members, operandType);
      if (warpgroupMma)
        warpgroupTiling = preferredWarpgroupTiling(chain.members, tiling);
    }
    if (warpgroupTiling || tiling || oneBlock) {
      // Where the last member was: what the ops between members compute
      // (the decayed queries of `O += Q S`) is ready there.
      b.setInsertionPoint(chain.ops.back());
      if (warpgroupTiling)
        buildWarpgroupGrid(b, first.getLoc(), chain, operandType,
                           *warpgroupTiling, symbols);
      else if (tiling)
        buildStagedGrid(b, first.getLoc(), chain, operandType, *tiling,
                        symbols);
      else
        buildLaneLoads(b, first.getLoc(), chain, operandType, oneBlock);
      eraseBuilt(b, chain, /*epilogueApplied=*/!oneBlock);
      return;
    }
    if (dynamicSizes && chain.ops.size() == 1)
      return;
    if (chain.ops.size() > 1) {
      for (auto [i, op] : llvm::enumerate(chain.ops))
        buildChain(b,
                   AccumulationChain{{op},
                                     {chain.members[i]},
                                     i == 0 ? chain.zeroFill : nullptr},
                   operandType, symbols);
      return;
    }
    b.setInsertionPoint(first);
    buildLaneLoads(b, first.getLoc(),
                   AccumulationChain{{first}, chain.members, {}}, operandType,
                   oneBlock);
    b.eraseOp(first);
  }

  /// The elementwise op after `chain` that its grid applies as it stores
  /// (epilogueOf), with what it uses defined before the chain's last member.
  static void takeEpilogue(RewriterBase &rewriter, AccumulationChain &chain) {
    chain.epilogue = linea::mma::epilogueOf(chain);
    if (!chain.epilogue)
      return;
    for (Operation *def : linea::mma::epilogueDefinitions(chain))
      rewriter.moveOpBefore(def, chain.ops.back());
  }

  /// Erases what a grid now computes: the chain's ops, its fill and (where
  /// the grid applied it) its epilogue, with the output where that was the
  /// epilogue's input only.
  static void eraseBuilt(IRRewriter &b, const AccumulationChain &chain,
                         bool epilogueApplied) {
    for (linalg::GenericOp op : chain.ops)
      b.eraseOp(op);
    if (chain.zeroFill)
      b.eraseOp(chain.zeroFill);
    if (!epilogueApplied || !chain.epilogue)
      return;
    b.eraseOp(chain.epilogue);
    auto alloc = linea::viewRoot(chain.members.front().out)
                     .getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return;
    // (The grid's row count was taken from the buffer's size.)
    MemRefType type = alloc.getType();
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (auto dim = dyn_cast<memref::DimOp>(user))
        if (std::optional<int64_t> index = dim.getConstantIndex()) {
          b.setInsertionPoint(dim);
          b.replaceOp(
              dim,
              type.isDynamicDim(*index)
                  ? alloc.getDynamicSizes()[type.getDynamicDimIndex(*index)]
                  : arith::ConstantIndexOp::create(b, dim.getLoc(),
                                                   type.getDimSize(*index))
                        .getResult());
        }
    linea::eraseUnusedBuffer(b, alloc);
  }

  /// An f32 chain as a staged grid on the CUDA cores (a thread's tile of
  /// outputs by FMA), where a scalar tiling divides it and its slices fit
  /// the static shared memory; else each member alone, or as it is.
  void buildScalarChain(IRRewriter &b, const AccumulationChain &chain,
                        SymbolTableCollection &symbols) {
    Type f32 = b.getF32Type();
    std::optional<BlockTiling> tiling =
        linea::mma::chooseScalarTiling(chain.members, threads, minimumBlocks);
    if (tiling && StagedSlices(chain.members, f32, *tiling).bytes() <=
                      linea::kStaticSharedMemoryBytes) {
      b.setInsertionPoint(chain.ops.back());
      buildStagedGrid(
          b,
          linea::withBlocksPerSM(chain.ops.front()->getLoc(),
                                 linea::mma::scalarBlocksPerSM(*tiling)),
          chain, f32, *tiling, symbols);
      eraseBuilt(b, chain, /*epilogueApplied=*/true);
      return;
    }
    if (chain.ops.size() > 1)
      for (auto [i, op] : llvm::enumerate(chain.ops))
        buildScalarChain(b,
                         AccumulationChain{{op},
                                           {chain.members[i]},
                                           i == 0 ? chain.zeroFill : nullptr},
                         symbols);
  }

  /// The wgmma tiling of a staged grid for `members`, where one divides
  /// them and gives the GPU's SMs as much work as the mma.sync grid
  /// (`warpTiling`) would: wgmma's tiles are at least 64 x 64, and where
  /// the output is too small to fill the SMs even so, the smaller mma.sync
  /// tiles keep more of them busy.
  std::optional<linea::mma::WarpgroupTiling>
  preferredWarpgroupTiling(ArrayRef<Contraction> members,
                           const std::optional<BlockTiling> &warpTiling) {
    std::optional<linea::mma::WarpgroupTiling> tiling =
        linea::mma::chooseWarpgroupTiling(members, threads, minimumBlocks);
    if (!tiling || !warpTiling)
      return tiling;
    int64_t blocks = tiling->numBlocks(members.front());
    if (blocks < minimumBlocks &&
        blocks < warpTiling->numBlocks(members.front()))
      return std::nullopt;
    return tiling;
  }


  /// The block tiling of a staged grid for `members`, if one divides
  /// their output and their slices fit in static shared memory.
  std::optional<BlockTiling> stagedTiling(ArrayRef<Contraction> members,
                                          Type operandType) {
    std::optional<BlockTiling> tiling =
        linea::mma::chooseBlockTiling(members, threads / kWarp, minimumBlocks);
    if (!tiling ||
        StagedSlices(members, operandType, *tiling).bytes() >
            linea::kStaticSharedMemoryBytes)
      return std::nullopt;
    return tiling;
  }

  /// Warps that take strips of 16 x 8 tiles in turn, each lane loading its
  /// fragment elements: one block's (inside a sequence block, which runs
  /// it) or a grid's. A strip is as many of a column's tiles (up to 8) as
  /// still leave every warp of a block an item.
  void buildLaneLoads(OpBuilder &b, Location loc, AccumulationChain chain,
                      Type operandType, bool oneBlock) {
    OpBuilder::InsertionGuard guard(b);
    for (Contraction &k : chain.members) {
      readOperandsAsStored(b, k);
      k.aShared = sharedRows(b, loc, k.a, operandType);
      // (ldmatrix would read M's columns past ragged ones.)
      if (!k.raggedCols())
        k.mShared = sharedRows(b, loc, k.m, operandType);
    }
    writeChainAsStored(b, chain, chain.members);
    const Contraction &c = chain.members.front();
    int64_t warpsPerBlock = threads / kWarp;
    int64_t stripTiles = 1;
    for (int64_t r = std::min<int64_t>(8, c.rows / kTileM); oneBlock && r > 1;
         --r)
      if ((c.rows / kTileM) % r == 0 && c.numTiles() / r >= warpsPerBlock) {
        stripTiles = r;
        break;
      }
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    int64_t numBlocks =
        oneBlock ? 1
                 : llvm::divideCeil(
                       linea::mma::laneLoadItems(chain.members, stripTiles),
                       warpsPerBlock);
    // One block (inside a sequence block, or a grid that small) is a loop
    // over its threads alone (parallelLoop leaves the unit dim out).
    SmallVector<Value> ids =
        linea::parallelLoop(b, loc, {numBlocks, threads},
                            {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    Value thread = ids[1];
    Value warp = arith::DivUIOp::create(b, loc, thread, cst(kWarp));
    if (numBlocks > 1)
      warp = arith::AddIOp::create(
          b, loc, warp,
          arith::MulIOp::create(b, loc, ids[0], cst(warpsPerBlock)));
    Value lane = arith::RemUIOp::create(b, loc, thread, cst(kWarp));
    linea::mma::buildLaneLoads(b, loc, chain.members, bool(chain.zeroFill),
                               operandType, stripTiles, warp,
                               cst(numBlocks * warpsPerBlock), lane);
  }

  /// A chain that writes its whole output (a zero fill before it) read only
  /// by a narrowing copy stores into the narrowed 16-bit buffer itself:
  /// `members`' outputs are retargeted, the copy left to erase.
  void writeChainAsStored(OpBuilder &b, const AccumulationChain &chain,
                          MutableArrayRef<Contraction> members) {
    // (An epilogue writes the result itself, narrowed where it narrows.)
    if (!chain.zeroFill || chain.epilogue)
      return;
    SmallVector<Operation *> writers{chain.zeroFill};
    llvm::append_range(writers, chain.ops);
    linalg::GenericOp narrowing;
    if (Value narrow = linea::writeAsStored(b, members.front().out, writers,
                                            narrowing)) {
      for (Contraction &k : members)
        k.out = narrow;
      copies.insert(narrowing);
    }
  }

  /// A grid of blocks, one per block tile, with the staged slices as
  /// private workgroup globals (kernel outlining carries them into the GPU
  /// module, where they become static shared memory).
  void buildStagedGrid(OpBuilder &b, Location loc,
                       const AccumulationChain &chain, Type operandType,
                       const BlockTiling &tiling,
                       SymbolTableCollection &symbols) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Contraction> members = membersAsStored(b, loc, chain);
    StagedSlices types(members, operandType, tiling);
    auto globals = [&](ArrayRef<MemRefType> slotTypes, StringRef operand) {
      DenseMap<MemRefType, memref::GlobalOp> byType;
      for (MemRefType type : StagedSlices::distinct(slotTypes))
        byType[type] = stagedSlice(b, loc, type, operand, symbols);
      return byType;
    };
    DenseMap<MemRefType, memref::GlobalOp> aGlobals =
        globals(types.aTypes, "a");
    DenseMap<MemRefType, memref::GlobalOp> mGlobals =
        globals(types.mTypes, "m");
    SmallVector<Value> ids = linea::parallelLoop(
        b, loc,
        {linea::mma::gridBlocks(b, loc, members.front(), tiling.rows,
                                tiling.cols),
         b.getIndexAttr(threads)},
        {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    auto get = [&](memref::GlobalOp global) -> Value {
      return memref::GetGlobalOp::create(b, loc, global.getType(),
                                         global.getSymName());
    };
    SmallVector<std::pair<Value, Value>> slices;
    for (auto [aType, mType] : llvm::zip(types.aTypes, types.mTypes))
      slices.push_back({get(aGlobals[aType]), get(mGlobals[mType])});
    linea::mma::buildStagedBlock(b, loc, members, bool(chain.zeroFill),
                                 operandType, tiling, threads, ids[0], ids[1],
                                 slices);
  }

  /// A grid of blocks on warpgroup MMA, one per block tile, staging both
  /// slices in one private workgroup global aligned for the swizzle (by
  /// TMA where the chip, `tma` and the operands allow).
  void buildWarpgroupGrid(OpBuilder &b, Location loc,
                          const AccumulationChain &chain, Type operandType,
                          const linea::mma::WarpgroupTiling &tiling,
                          SymbolTableCollection &symbols) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Contraction> members = membersAsStored(b, loc, chain);
    memref::GlobalOp global = stagedSlice(
        b, loc, linea::mma::warpgroupStagedType(operandType, tiling), "ab",
        symbols, linea::mma::kSwizzleAlignment);
    // On the host, before the grid.
    SmallVector<linea::mma::TensorMaps> maps;
    if (tmaLoads)
      maps = linea::mma::createTensorMaps(b, loc, members, operandType, tiling);
    SmallVector<Value> ids = linea::parallelLoop(
        b, loc,
        {linea::mma::gridBlocks(b, loc, members.front(), tiling.rows,
                                tiling.cols),
         b.getIndexAttr(tiling.threads())},
        {gpu::Processor::BlockX, gpu::Processor::ThreadX});
    Value staged = memref::GetGlobalOp::create(b, loc, global.getType(),
                                               global.getSymName());
    linea::mma::buildWarpgroupBlock(b, loc, members, bool(chain.zeroFill),
                                    operandType, tiling, ids[0], ids[1],
                                    staged, maps);
  }

  /// `chain`'s members for a staged grid: widened bf16/f16 operands read,
  /// and a zero-filled result that is narrowed afterwards written, as
  /// stored; dynamic rows and batch dims counted (on the host, before the
  /// grid).
  SmallVector<Contraction> membersAsStored(OpBuilder &b, Location loc,
                                           const AccumulationChain &chain) {
    SmallVector<Contraction> members(chain.members);
    members.front().epilogue = chain.epilogue;
    for (Contraction &k : members)
      readOperandsAsStored(b, k);
    writeChainAsStored(b, chain, members);
    for (Contraction &k : members) {
      if (k.dynamicRows())
        k.rowCount =
            memref::DimOp::create(b, loc, k.out, k.batchShape.size());
      k.batchSizes.assign(k.batchShape.size(), Value());
      for (auto [i, size] : llvm::enumerate(k.batchShape))
        if (ShapedType::isDynamic(size))
          k.batchSizes[i] = memref::DimOp::create(b, loc, k.out, i);
    }
    return members;
  }

  /// Points `k`'s widened operands at their bf16/f16 buffers (views built
  /// at `b`'s insertion point), keeping the widening copies for erasure.
  void readOperandsAsStored(OpBuilder &b, Contraction &k) {
    for (Value *operand : {&k.a, &k.m}) {
      auto alloc = linea::viewRoot(*operand).getDefiningOp<memref::AllocOp>();
      if (Value twin = alloc ? narrowed.lookup(alloc) : Value()) {
        *operand = linea::retargetViews(b, *operand, twin);
        continue;
      }
      linalg::GenericOp widening;
      if (Value stored = linea::readAsStored(b, *operand, widening)) {
        *operand = stored;
        copies.insert(widening);
      }
    }
  }

  /// A fresh private global of `type` in the symbol table around the
  /// builder's insertion point, named after the operand it stages.
  static memref::GlobalOp stagedSlice(OpBuilder &b, Location loc,
                                      MemRefType type, StringRef operand,
                                      SymbolTableCollection &symbols,
                                      int64_t alignment = 16) {
    Operation *tableOp = SymbolTable::getNearestSymbolTable(
        b.getInsertionBlock()->getParentOp());
    OpBuilder detached(b.getContext());
    auto global = memref::GlobalOp::create(
        detached, loc, ("linea_staged_" + operand).str(),
        detached.getStringAttr("private"), type, Attribute(),
        /*constant=*/false, detached.getI64IntegerAttr(alignment));
    // At the top, renamed if the name is taken.
    symbols.getSymbolTable(tableOp).insert(
        global, tableOp->getRegion(0).front().begin());
    return global;
  }
};

} // namespace
