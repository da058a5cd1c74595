//===- WarpgroupGrid.cpp - staged contractions on wgmma (sm_90a) ----------===//
//
// The layouts below are the PTX ISA's canonical wgmma layouts with the
// 128-byte swizzle, for 16-bit elements. A slice is stored as 128-byte rows
// of 64 elements; within each group of 8 rows (1024 bytes), row r keeps its
// 16-byte chunk c at chunk c ^ r. The operand's inner index runs along the
// rows:
//   - K-major (A stored [row][depth], B stored [col][depth], the keys of
//     Q K^T): a row per output row or column, its 64 depth elements;
//     8-row groups 1024 bytes apart (the stride byte offset); one k16 step
//     is 32 bytes further along the rows.
//   - MN-major (the depth outer: K of K^T V, V of P V, S of Q S): a row per
//     depth index holding 64 consecutive rows or columns, the 64-deep
//     blocks of 64 side by side (8192 bytes apart, the leading byte
//     offset), 8-row groups 1024 bytes apart; one k16 step is 16 rows,
//     2048 bytes.
// The accumulators of a warpgroup's m64nNk16 are those of N / 8 mma.sync
// tiles per warp: warp w of the group holds rows 16 w .. 16 w + 15, lane l
// rows l / 4 and l / 4 + 8, columns 8 j + 2 (l % 4) and the next.
//
//===----------------------------------------------------------------------===//

#include "WarpgroupGrid.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::linea::mma;

namespace {

/// Bytes of one swizzled row, its 16-bit elements, and their bytes.
constexpr int64_t kRowBytes = 128;
constexpr int64_t kRowElements = 64;
constexpr int64_t kElementBytes = kRowBytes / kRowElements;
/// Rows per swizzle pattern (1024 bytes), also the rows of a core matrix.
constexpr int64_t kPatternRows = 8;
/// wgmma's descriptor fields: the start address, leading and stride byte
/// offsets (each in 16-byte units, 14 bits) and the swizzle mode (1: 128
/// bytes).
constexpr int64_t kLeadingOffsetBit = 16, kStrideOffsetBit = 32,
                  kSwizzleModeBit = 62, kSwizzle128B = 1;
constexpr int64_t kFieldMask = (1 << 14) - 1;
/// How long one mbarrier try_wait may suspend the thread (a hint, in
/// nanoseconds; the wait loops until the phase completes).
constexpr int64_t kTryWaitTicks = 10000000;

/// One operand's slice in the staged buffer, from element `offset`.
struct SwizzledSlice {
  int64_t offset;
  bool mnMajor;

  /// Byte offsets that wgmma's descriptor encodes.
  int64_t strideByteOffset() const { return kPatternRows * kRowBytes; }
  int64_t leadingByteOffset() const {
    // K-major: unused (a k16 step stays inside a swizzled row); MN-major:
    // the distance between blocks of 64 rows or columns.
    return mnMajor ? WarpgroupTiling::kDepth * kRowBytes : 16;
  }
  /// Bytes from the buffer's start to the slice's k16 step at `depth`.
  int64_t stepStart(int64_t depth) const {
    return (offset + (mnMajor ? depth * kRowElements : depth)) * kElementBytes;
  }
};

/// How one operand of a member reaches the staged buffer: its slice there,
/// the block tile's first row (or column) of it, whether cp.async lines
/// can copy it (null: elements only), its tensor map (null: no TMA) and
/// its row limit (A's dynamic row count: TMA reads zeros past it too).
struct OperandSource {
  Value operand;
  SwizzledSlice slice;
  Value base;
  int64_t extent;
  Value lines, map;
  Value rowLimit = Value();
};

class WarpgroupBlockBuilder : public FragmentBuilder {
public:
  WarpgroupBlockBuilder(OpBuilder &b, Location loc,
                        ArrayRef<Contraction> members, bool zeroInit,
                        Type operandType, const WarpgroupTiling &tiling,
                        ArrayRef<TensorMaps> maps)
      : FragmentBuilder(b, loc, members.front(), operandType),
        members(members), zeroInit(zeroInit), tiling(tiling), maps(maps) {}

  void build(Value block, Value thread, Value staged) {
    // (Named values, not a structured binding: the loop bodies capture them.)
    Value rowBase, colBase;
    std::tie(rowBase, colBase) =
        blockTileOrigin(block, tiling.rows, tiling.cols);

    // The warpgroup's 64 x N outputs: row groups first, then columns.
    Value warpgroup = div(thread, kWarpgroupSize);
    Value groupRow = mul(rem(warpgroup, tiling.rowGroups()), kWarpgroupM);
    Value groupCol =
        mul(div(warpgroup, tiling.rowGroups()), tiling.warpgroupCols);
    Value warp = div(rem(thread, kWarpgroupSize), linea::mma::kWarpSize);
    Value lane = rem(thread, linea::mma::kWarpSize);
    Value row = add(add(add(rowBase, groupRow), mul(warp, kTileM)),
                    div(lane, 4));
    Value col = add(add(colBase, groupCol), mul(rem(lane, 4), 2));
    SmallVector<std::pair<Value, Value>> positions;
    for (int64_t j = 0; j < tiling.warpgroupCols / kTileN; ++j)
      llvm::append_range(positions,
                         accumulatorPositions(row, add(col, j * kTileN)));
    SmallVector<Value> acc = initialAccumulators(positions, zeroInit);

    Value address = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, staged));
    SmallVector<std::pair<OperandSource, OperandSource>> sources;
    for (auto [index, k] : llvm::enumerate(members)) {
      TensorMaps map = index < maps.size() ? maps[index] : TensorMaps();
      sources.push_back(
          {{k.a, {0, aDepthMajor(k)}, rowBase, tiling.rows,
            copyLines(k.a, WarpgroupTiling::kDepth), map.a, k.rowCount},
           {k.m, {tiling.rows * WarpgroupTiling::kDepth, mDepthMajor(k)},
            colBase, tiling.cols, copyLines(k.m, WarpgroupTiling::kDepth),
            map.m}});
      // TMA runs where the lines would (a tensor map needs them whole).
      for (OperandSource *operand :
           {&sources.back().first, &sources.back().second})
        if (!operand->lines)
          operand->map = Value();
    }
    TmaLoads tma = tmaLoads(sources, thread);

    int64_t tmaSteps = 0; // before the member's: the barrier's phases
    for (auto [k, source] : llvm::zip(members, sources)) {
      SmallVector<Value> aDescriptors =
          descriptors(source.first.slice, address, groupRow);
      SmallVector<Value> mDescriptors =
          descriptors(source.second.slice, address, groupCol);
      bool byTma = source.first.map || source.second.map;
      int64_t stepsBefore = tmaSteps;
      auto loop = scf::ForOp::create(
          b, loc, cst(0), cst(k.depth), cst(WarpgroupTiling::kDepth), acc,
          [&](OpBuilder &, Location, Value depth, ValueRange carried) {
            Value step =
                add(div(depth, WarpgroupTiling::kDepth), stepsBefore);
            if (byTma)
              loadOrStage(tma, source, depth, staged, thread);
            for (const OperandSource *operand :
                 {&source.first, &source.second})
              if (!operand->map)
                stageSlice(*operand, depth, staged, thread);
            // The threads' writes (generic proxy) become visible to wgmma
            // (async proxy), then to the whole block; TMA's writes once
            // the barrier's phase completes.
            NVVM::FenceProxyOp::create(
                b, loc, NVVM::ProxyKind::async_shared,
                NVVM::SharedSpaceAttr::get(b.getContext(),
                                           NVVM::SharedSpace::shared_cta));
            gpu::BarrierOp::create(b, loc);
            if (byTma)
              waitForLoads(tma, step);
            SmallVector<Value> next =
                steps(k, aDescriptors, mDescriptors, carried);
            gpu::BarrierOp::create(b, loc);
            scf::YieldOp::create(b, loc, next);
          });
      if (byTma)
        tmaSteps += k.depth / WarpgroupTiling::kDepth;
      acc = masked(k, loop.getResults(), acc, positions);
    }
    store(acc, positions);
  }

private:
  /// The block's TMA state: its mbarrier, whether its thread is the one
  /// that issues the loads, and whether the loads run (every mapped
  /// operand starts on a 16-byte line at run time; else the grid copies
  /// those as it would without TMA). Null where no operand has a map.
  struct TmaLoads {
    Value barriers, issuer, enabled;
  };

  /// An mbarrier for the block's TMA loads, initialized by thread 0 for
  /// its one arrival per step and published by a barrier. Thread 0 also
  /// fences the tensor maps, which the host wrote to global memory, for
  /// the loads that read them.
  TmaLoads tmaLoads(ArrayRef<std::pair<OperandSource, OperandSource>> sources,
                    Value thread) {
    TmaLoads tma;
    for (const auto &[a, m] : sources)
      for (const OperandSource *operand : {&a, &m})
        if (operand->map)
          tma.enabled = tma.enabled
                            ? arith::AndIOp::create(b, loc, tma.enabled,
                                                    operand->lines)
                                  .getResult()
                            : operand->lines;
    if (!tma.enabled)
      return tma;
    auto type = nvgpu::MBarrierGroupType::get(
        b.getContext(), workgroupSpace(), /*num_barriers=*/1);
    tma.barriers = nvgpu::MBarrierCreateOp::create(b, loc, type);
    tma.issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       thread, cst(0));
    auto init = scf::IfOp::create(b, loc, tma.issuer, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(init.thenBlock()->getTerminator());
      nvgpu::MBarrierInitOp::create(b, loc, tma.barriers, cst(1), cst(0),
                                    /*predicate=*/Value());
      for (const auto &[a, m] : sources)
        for (const OperandSource *operand : {&a, &m})
          if (operand->map)
            nvgpu::TmaFenceOp::create(b, loc, operand->map);
    }
    gpu::BarrierOp::create(b, loc);
    return tma;
  }

  /// One step's slices of the mapped operands: where TMA runs, thread 0
  /// expects their bytes on the barrier and issues their loads; else the
  /// threads copy them.
  void loadOrStage(const TmaLoads &tma,
                   const std::pair<OperandSource, OperandSource> &source,
                   Value depth, Value staged, Value thread) {
    auto branch = scf::IfOp::create(b, loc, tma.enabled, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.elseBlock());
    for (const OperandSource *operand : {&source.first, &source.second})
      if (operand->map)
        stageSlice(*operand, depth, staged, thread);
    b.setInsertionPointToStart(branch.thenBlock());
    auto issue = scf::IfOp::create(b, loc, tma.issuer, /*withElse=*/false);
    b.setInsertionPoint(issue.thenBlock()->getTerminator());
    int64_t bytes = 0;
    for (const OperandSource *operand : {&source.first, &source.second})
      if (operand->map)
        bytes += operand->extent * WarpgroupTiling::kDepth * kElementBytes;
    nvgpu::MBarrierArriveExpectTxOp::create(b, loc, tma.barriers, cst(bytes),
                                            cst(0), /*predicate=*/Value());
    for (const OperandSource *operand : {&source.first, &source.second})
      if (operand->map)
        loadSlice(tma, *operand, depth, staged);
  }

  /// TMA loads of one operand's slice in the boxes its tensor map was made
  /// for (createTensorMaps): one of `extent` rows of 64 depth elements
  /// where the depth is inner (K-major), else one per 64 columns, 64 depth
  /// rows each; TMA's 128-byte swizzle lays each out as `placement` does.
  void loadSlice(const TmaLoads &tma, const OperandSource &operand,
                 Value depth, Value staged) {
    ArrayRef<int64_t> box =
        cast<nvgpu::TensorMapDescriptorType>(operand.map.getType())
            .getTensor()
            .getShape();
    int64_t boxRows = box[box.size() - 2];
    int64_t boxes =
        operand.extent * WarpgroupTiling::kDepth / (boxRows * kRowElements);
    bool mnMajor = operand.slice.mnMajor;
    for (int64_t block = 0; block < boxes; ++block) {
      // Innermost first, as TMA takes them; then the batch's, backwards.
      SmallVector<Value> coordinates =
          mnMajor ? SmallVector<Value>{add(operand.base, block * kRowElements),
                                       depth}
                  : SmallVector<Value>{depth, operand.base};
      coordinates.append(batch.rbegin(), batch.rend());
      Value view = boxView(staged, box.size(), boxRows,
                           operand.slice.offset +
                               block * boxRows * kRowElements);
      nvgpu::TmaAsyncLoadOp::create(b, loc, view, tma.barriers, operand.map,
                                    coordinates, cst(0),
                                    /*multicastMask=*/Value(),
                                    /*predicate=*/Value());
    }
  }

  /// The staged buffer's `rows` x 64 elements from `offset` as a TMA box
  /// of `rank` dims (the outer ones 1).
  Value boxView(Value staged, int64_t rank, int64_t rows, int64_t offset) {
    SmallVector<int64_t> shape(rank - 2, 1), strides(rank - 2,
                                                     rows * kRowElements);
    shape.append({rows, kRowElements});
    strides.append({kRowElements, 1});
    auto type = MemRefType::get(
        shape, operandType,
        StridedLayoutAttr::get(b.getContext(), offset, strides),
        workgroupSpace());
    return memref::ReinterpretCastOp::create(b, loc, type, staged, offset,
                                             shape, strides);
  }

  /// All threads wait for the step's loads (the barrier's phase `step`).
  void waitForLoads(const TmaLoads &tma, Value step) {
    auto branch = scf::IfOp::create(b, loc, tma.enabled, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    Value parity = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         rem(step, 2), cst(0));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, tma.barriers, parity,
                                           cst(kTryWaitTicks), cst(0));
  }

  /// One operand's slice copied by the block's threads: cp.async lines
  /// where they can, else element by element.
  void stageSlice(const OperandSource &operand, Value depth, Value staged,
                  Value thread) {
    stage({operand.operand, operand.slice.mnMajor, operand.base, depth,
           operand.extent, WarpgroupTiling::kDepth, operand.rowLimit},
          staged, thread, tiling.threads(), operand.lines,
          placement(operand.slice));
  }

  Attribute workgroupSpace() {
    return gpu::AddressSpaceAttr::get(b.getContext(),
                                      gpu::AddressSpace::Workgroup);
  }

  /// Element (outer, inner) of an operand's slice, as the operand stores
  /// it, in the staged buffer: the row and chunk it belongs to, the chunk
  /// swizzled by the row.
  SlicePlacement placement(const SwizzledSlice &slice) {
    return [this, slice](Value outer, Value inner) -> SmallVector<Value> {
      Value rowIndex = outer, column = inner;
      if (slice.mnMajor) {
        // A row per depth index; blocks of 64 along the inner index.
        rowIndex = add(mul(div(inner, kRowElements), WarpgroupTiling::kDepth),
                       outer);
        column = rem(inner, kRowElements);
      }
      Value chunk = arith::XOrIOp::create(b, loc, div(column, 8),
                                          rem(rowIndex, kPatternRows));
      Value index = add(add(mul(rowIndex, kRowElements), mul(chunk, 8)),
                        rem(column, 8));
      return {add(index, slice.offset)};
    };
  }

  /// The descriptors of `slice`'s k16 steps for the warpgroup whose rows or
  /// columns start at `groupStart` (a multiple of 64) of the block tile.
  SmallVector<Value> descriptors(const SwizzledSlice &slice, Value address,
                                 Value groupStart) {
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    int64_t fields = ((slice.leadingByteOffset() >> 4) << kLeadingOffsetBit) |
                     ((slice.strideByteOffset() >> 4) << kStrideOffsetBit) |
                     (kSwizzle128B << kSwizzleModeBit);
    // The group's start in bytes: both layouts put the 64-row (or
    // -column) blocks 64 rows of 128 bytes apart.
    Value group = arith::MulIOp::create(
        b, loc, arith::IndexCastOp::create(b, loc, i64, groupStart),
        constant(kRowBytes));
    SmallVector<Value> result;
    for (int64_t depth = 0; depth < WarpgroupTiling::kDepth;
         depth += kWarpgroupK) {
      Value start = arith::AddIOp::create(
          b, loc, address,
          arith::AddIOp::create(b, loc, group,
                                constant(slice.stepStart(depth))));
      // The address field holds bits 4..17 of the shared-memory address.
      Value field = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, start, constant(4)),
          constant(kFieldMask));
      result.push_back(
          arith::OrIOp::create(b, loc, field, constant(fields)));
    }
    return result;
  }

  /// The warpgroup's wgmma steps over one staged depth, on its
  /// accumulators (packed into the struct wgmma takes and unpacked after).
  SmallVector<Value> steps(const Contraction &k, ArrayRef<Value> aDescriptors,
                           ArrayRef<Value> mDescriptors, ValueRange carried) {
    Type f32 = b.getF32Type();
    auto type = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(carried.size(), f32));
    Value packed = LLVM::UndefOp::create(b, loc, type);
    for (auto [i, value] : llvm::enumerate(carried))
      packed = LLVM::InsertValueOp::create(b, loc, packed, value, i);
    NVVM::WGMMATypes element = operandType.isF16() ? NVVM::WGMMATypes::f16
                                                   : NVVM::WGMMATypes::bf16;
    // A is K-major in wgmma's `row` layout, B in its `col` layout; the
    // others are the transposed (MN-major) reads.
    NVVM::MMALayout aLayout =
        aDepthMajor(k) ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    NVVM::MMALayout bLayout =
        mDepthMajor(k) ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (auto [aDescriptor, mDescriptor] :
         llvm::zip(aDescriptors, mDescriptors))
      packed = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, type, packed, aDescriptor, mDescriptor,
          NVVM::MMAShapeAttr::get(b.getContext(), kWarpgroupM,
                                  tiling.warpgroupCols, kWarpgroupK),
          element, element, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, aLayout, bLayout,
          /*satfinite=*/nullptr);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    SmallVector<Value> next;
    for (int64_t i = 0; i < int64_t(carried.size()); ++i)
      next.push_back(LLVM::ExtractValueOp::create(b, loc, packed, i));
    return next;
  }

  ArrayRef<Contraction> members;
  bool zeroInit;
  const WarpgroupTiling &tiling;
  ArrayRef<TensorMaps> maps;
};

} // namespace

std::optional<WarpgroupTiling>
linea::mma::chooseWarpgroupTiling(ArrayRef<Contraction> members,
                                  int64_t maxThreads, int64_t minBlocks) {
  const Contraction &c = members.front();
  if (llvm::any_of(members,
                   [](const Contraction &k) {
                     return k.depth % WarpgroupTiling::kDepth;
                   }) ||
      (!c.dynamicRows() && c.rows % kWarpgroupM) || c.cols % kRowElements)
    return std::nullopt;
  int64_t outputs = c.numTiles() * kTileM * kTileN;
  int64_t maxGroups = maxThreads / kWarpgroupSize;
  std::optional<WarpgroupTiling> best;
  // Squarest first: of equal areas, the one that loads the fewest operand
  // elements.
  const std::pair<int64_t, int64_t> tiles[] = {
      {128, 128}, {64, 128}, {128, 64}, {64, 64}};
  for (auto [rows, cols] : tiles) {
    if ((!c.dynamicRows() && c.rows % rows) || c.cols % cols ||
        rows / kWarpgroupM > maxGroups)
      continue;
    // As many warpgroups as allowed, splitting the columns in 64s.
    int64_t colGroups =
        std::min(maxGroups / (rows / kWarpgroupM), cols / kRowElements);
    WarpgroupTiling tiling{rows, cols, cols / colGroups};
    if (best && best->rows * best->cols == rows * cols)
      continue;
    best = tiling;
    if (outputs / (rows * cols) >= minBlocks)
      return best;
  }
  return best;
}

MemRefType linea::mma::warpgroupStagedType(Type operandType,
                                           const WarpgroupTiling &tiling) {
  return MemRefType::get(
      {tiling.stagedElements()}, operandType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(operandType.getContext(),
                                 gpu::AddressSpace::Workgroup));
}

/// The box a TMA load of `operand`'s slice copies (outermost first, as the
/// memref's dims): `extent` x 64 where the depth is inner, else 64 x 64.
static SmallVector<int64_t> boxShape(MemRefType operand, bool mnMajor,
                                     int64_t extent) {
  SmallVector<int64_t> box(operand.getRank() - 2, 1);
  box.append({mnMajor ? WarpgroupTiling::kDepth : extent, kRowElements});
  return box;
}

/// `operand`'s tensor map, if TMA can load its slices: its elements are the
/// tensor-core type and its rows whole 16-byte lines (its start is checked
/// in the kernel), in at most 5 dims.
static Value createTensorMap(OpBuilder &b, Location loc, Value operand,
                             Type operandType, bool mnMajor, int64_t extent) {
  auto type = cast<MemRefType>(operand.getType());
  if (type.getElementType() != operandType ||
      type.getRank() > int64_t(kMaxTMATensorDimension) ||
      !linea::inCopyLines(type, /*anyOffset=*/true))
    return {};
  SmallVector<int64_t> box = boxShape(type, mnMajor, extent);
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      b.getContext(),
      MemRefType::get(box, operandType, MemRefLayoutAttrInterface(),
                      workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_128B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(operandType, type.getMemorySpace()),
      operand);
  SmallVector<Value> boxValues;
  for (int64_t size : box)
    boxValues.push_back(arith::ConstantIndexOp::create(b, loc, size));
  return nvgpu::TmaCreateDescriptorOp::create(b, loc, mapType, unranked,
                                              boxValues);
}

SmallVector<TensorMaps>
linea::mma::createTensorMaps(OpBuilder &b, Location loc,
                             ArrayRef<Contraction> members, Type operandType,
                             const WarpgroupTiling &tiling) {
  SmallVector<TensorMaps> maps;
  for (const Contraction &k : members)
    maps.push_back(
        {createTensorMap(b, loc, k.a, operandType, aDepthMajor(k),
                         tiling.rows),
         createTensorMap(b, loc, k.m, operandType, mDepthMajor(k),
                         tiling.cols)});
  return maps;
}

void linea::mma::buildWarpgroupBlock(OpBuilder &b, Location loc,
                                     ArrayRef<Contraction> members,
                                     bool zeroInit, Type operandType,
                                     const WarpgroupTiling &tiling,
                                     Value block, Value thread, Value staged,
                                     ArrayRef<TensorMaps> maps) {
  WarpgroupBlockBuilder(b, loc, members, zeroInit, operandType, tiling, maps)
      .build(block, thread, staged);
}
