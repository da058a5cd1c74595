//===- KernelReport.cpp - static FLOPs, bytes and a roofline per kernel ---===//

#include "linea/Dialect/LineaOps.h"
#include "linea/GPU/MinimalTraffic.h"
#include "linea/GPU/MmaShape.h"
#include "linea/GPU/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

#include <algorithm>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAKERNELREPORT
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {


struct Cost {
  double flops = 0, bytes = 0;
  bool tensorCores = false, known = true;

  Cost &operator+=(const Cost &other) {
    flops += other.flops;
    bytes += other.bytes;
    tensorCores |= other.tensorCores;
    known &= other.known;
    return *this;
  }
};

double elementBytes(Type type) {
  // (An index, such as a packed op's segment offset, is 64 bits on NVVM.)
  if (type.isIndex())
    return 8;
  return std::max<double>(1, type.getIntOrFloatBitWidth() / 8.0);
}

/// Whether `memref` is in shared memory: a view (through casts to the
/// generic space included) of a workgroup buffer, such as a sequence
/// block's temporaries in dynamic shared memory or a staged slice. Its
/// loads and stores move no global-memory bytes.
bool isSharedMemory(Value memref) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
      cast<MemRefType>(linea::viewRoot(memref).getType()).getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Kernel arguments that are constants at the launch site, and the
/// threads of a block (1-D blocks; 0 otherwise).
struct Constants : llvm::DenseMap<Value, int64_t> {
  int64_t blockThreads = 0;
};

std::optional<int64_t> constantOf(Value v, const Constants &known) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  auto it = known.find(v);
  if (it != known.end())
    return it->second;
  return std::nullopt;
}

/// `v` as a constant, through the integer casts and truncations that
/// lowering to NVVM puts around an index constant.
std::optional<int64_t> constantThroughCasts(Value v, const Constants &known) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<LLVM::TruncOp, LLVM::ZExtOp, LLVM::SExtOp, arith::IndexCastOp,
             arith::TruncIOp, arith::ExtUIOp, UnrealizedConversionCastOp>(
            def) ||
        def->getNumOperands() != 1)
      break;
    v = def->getOperand(0);
  }
  return constantOf(v, known);
}

/// Whether `condition` holds for thread 0 of a 1-D block alone.
bool firstThreadOnly(Value condition) {
  auto compare = condition.getDefiningOp<arith::CmpIOp>();
  if (!compare || compare.getPredicate() != arith::CmpIPredicate::eq)
    return false;
  for (auto [id, zero] : {std::pair(compare.getLhs(), compare.getRhs()),
                          std::pair(compare.getRhs(), compare.getLhs())}) {
    auto thread = id.getDefiningOp<gpu::ThreadIdOp>();
    if (thread && thread.getDimension() == gpu::Dimension::x &&
        matchPattern(zero, m_Zero()))
      return true;
  }
  return false;
}

/// The per-thread cost of a region, loops multiplied out.
Cost costOf(Region &region, const Constants &known);

Cost costOf(Operation *op, const Constants &known) {
  Cost cost;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // Loops that threads or warps stride through start at their own index
    // (an unknown start): each takes the average share, so that the
    // block's threads together take every trip once.
    std::optional<int64_t> lb = constantOf(loop.getLowerBound(), known);
    std::optional<int64_t> ub = constantOf(loop.getUpperBound(), known);
    std::optional<int64_t> step = constantOf(loop.getStep(), known);
    if (!ub || !step || *step <= 0) {
      cost.known = false;
      return cost;
    }
    double trips =
        lb ? std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step))
           : std::max<double>(0, double(*ub) / double(*step));
    Cost body = costOf(loop.getRegion(), known);
    cost.flops = body.flops * trips;
    cost.bytes = body.bytes * trips;
    cost.tensorCores = body.tensorCores;
    cost.known = body.known;
    return cost;
  }
  if (isa<NVVM::MmaOp>(op)) {
    // One m16n8k16 step of a warp, shared by its lanes.
    cost.flops = 2.0 * linea::mma::kTileM * linea::mma::kTileN * linea::mma::kTileK /
                 linea::mma::kWarpSize;
    cost.tensorCores = true;
    return cost;
  }
  if (auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
    // One m64nNk16 step of a warpgroup, shared by its threads; its
    // operands come from shared memory.
    NVVM::MMAShapeAttr shape = wgmma.getShape();
    cost.flops = 2.0 * shape.getM() * shape.getN() * shape.getK() /
                 linea::mma::kWarpgroupSize;
    cost.tensorCores = true;
    return cost;
  }
  if (auto arrive = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    // The bytes the TMA loads completing on the barrier bring from global
    // memory.
    std::optional<int64_t> bytes =
        constantThroughCasts(arrive.getTxcount(), known);
    if (!bytes)
      cost.known = false;
    else
      cost.bytes = *bytes;
    return cost;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op);
      branch && branch.getElseRegion().empty() && known.blockThreads > 0 &&
      firstThreadOnly(branch.getCondition())) {
    // Thread 0's work (issuing TMA loads): once per block, each thread's
    // share of it.
    Cost once = costOf(branch.getThenRegion(), known);
    once.flops /= known.blockThreads;
    once.bytes /= known.blockThreads;
    return once;
  }
  if (auto copy = dyn_cast<NVVM::CpAsyncOp>(op)) {
    // Global to shared memory: the bytes read once.
    cost.bytes = copy.getSize();
    return cost;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op);
      branch && !branch.getElseRegion().empty()) {
    // Either branch, counted as the costlier one (the guarded fast path
    // and its fallback move the same bytes at most).
    Cost taken = costOf(branch.getThenRegion(), known);
    Cost other = costOf(branch.getElseRegion(), known);
    if (other.bytes + other.flops > taken.bytes + taken.flops)
      std::swap(taken, other);
    taken.known &= other.known;
    taken.tensorCores |= other.tensorCores;
    return taken;
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    if (!isSharedMemory(load.getMemRef()))
      cost.bytes = elementBytes(load.getType());
    return cost;
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    if (!isSharedMemory(store.getMemRef()))
      cost.bytes = elementBytes(store.getValue().getType());
    return cost;
  }
  // Arithmetic on floats, not conversions (the f16/bf16 operand loads).
  if (op->getNumResults() == 1 && isa<FloatType>(op->getResult(0).getType()) &&
      !isa<arith::TruncFOp, arith::ExtFOp>(op) &&
      (op->getDialect()->getNamespace() == "arith" || isa<math::ExpOp>(op)) &&
      op->getNumOperands() > 0)
    cost.flops = 1;
  // A fused multiply-add is two.
  if (isa<math::FmaOp>(op) && isa<FloatType>(op->getResult(0).getType()))
    cost.flops = 2;
  // Conditional bodies (bound guards) are counted as if taken.
  for (Region &region : op->getRegions())
    cost += costOf(region, known);
  return cost;
}

/// One part of a band of sibling kernels (linea-map-to-gpu's mergeBands):
/// an else-less `scf.if` on `t - start < count` (unsigned; `t` itself for
/// the first part), start and count constants.
struct SiblingPart {
  Value t;
  int64_t start, count;
};

std::optional<SiblingPart> siblingPart(Operation &op, const Constants &known) {
  auto branch = dyn_cast<scf::IfOp>(op);
  if (!branch || !branch.getElseRegion().empty())
    return std::nullopt;
  auto compare = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!compare || compare.getPredicate() != arith::CmpIPredicate::ult)
    return std::nullopt;
  std::optional<int64_t> count = constantOf(compare.getRhs(), known);
  if (!count || *count <= 0)
    return std::nullopt;
  SiblingPart part{compare.getLhs(), 0, *count};
  if (auto local = part.t.getDefiningOp<arith::SubIOp>()) {
    std::optional<int64_t> start = constantOf(local.getRhs(), known);
    if (!start)
      return std::nullopt;
    part = {local.getLhs(), *start, *count};
  }
  return part;
}

/// Whether `parts` are the parts of one band: two or more, on the same
/// index, laid end to end from 0.
bool formBand(ArrayRef<SiblingPart> parts) {
  if (parts.size() < 2)
    return false;
  int64_t next = 0;
  for (const SiblingPart &part : parts) {
    if (part.t != parts.front().t || part.start != next)
      return false;
    next += part.count;
  }
  return true;
}

/// The per-thread cost of `block`. A band of sibling kernels costs each
/// part's work on its share of the band's threads, not every part's on
/// every thread (each thread takes one part's iteration).
Cost costOf(Block &block, const Constants &known) {
  SmallVector<SiblingPart> parts;
  SmallVector<Cost> partCosts;
  Cost cost;
  for (Operation &op : block) {
    Cost opCost = costOf(&op, known);
    if (std::optional<SiblingPart> part = siblingPart(op, known)) {
      parts.push_back(*part);
      partCosts.push_back(opCost);
      continue;
    }
    cost += opCost;
  }
  bool band = formBand(parts);
  double threads = 0;
  for (const SiblingPart &part : parts)
    threads += part.count;
  for (auto [part, partCost] : llvm::zip(parts, partCosts)) {
    if (band) {
      partCost.flops *= part.count / threads;
      partCost.bytes *= part.count / threads;
    }
    cost += partCost;
  }
  return cost;
}

Cost costOf(Region &region, const Constants &known) {
  Cost cost;
  for (Block &block : region)
    cost += costOf(block, known);
  return cost;
}

std::optional<double> constantProduct(ValueRange values) {
  double product = 1;
  for (Value v : values) {
    APInt c;
    if (!matchPattern(v, m_ConstantInt(&c)))
      return std::nullopt;
    product *= c.getSExtValue();
  }
  return product;
}

/// How many times the host launches `launch`: the product of the trip
/// counts of the host loops around it (null where one is not constant).
std::optional<double> hostTrips(gpu::LaunchFuncOp launch) {
  double trips = 1;
  for (auto loop = launch->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    std::optional<APInt> count = loop.getStaticTripCount();
    if (!count)
      return std::nullopt;
    trips *= count->getZExtValue();
  }
  return trips;
}

/// The launches of one source op, added up.
struct OpTotal {
  double launches = 0, flops = 0, bytes = 0, seconds = 0;
  /// Launches without a static estimate (dynamic sizes or trip counts).
  int unknown = 0;
};

/// The per-op remark: totals against the bytes the op moves at least.
void remarkOpTotal(FusedLoc source, const OpTotal &total, StringRef chip) {
  InFlightDiagnostic remark = emitRemark(source.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  double minimal = linea::minimalBytesOf(source);
  os << llvm::format("op total: %.0f launches, %.3g FLOP, %.3g B, %s "
                     "estimate %.3g us; minimal %.3g B (operands and results "
                     "as stored, per-chunk states), moved / minimal %.3g",
                     total.launches, total.flops, total.bytes, chip.str().c_str(),
                     total.seconds * 1e6, minimal,
                     minimal > 0 ? total.bytes / minimal : 0.0);
  if (total.unknown)
    os << "; " << total.unknown << " launches without a static estimate";
  remark << text;
}

struct LineaKernelReportPass
    : linea::impl::LineaKernelReportBase<LineaKernelReportPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The planned GPU's rates: an estimate, not a measurement.
    FailureOr<linea::TargetDescription> planned =
        linea::targetFor(module, linea::TargetKind::gpu, getArgument());
    if (failed(planned))
      return signalPassFailure();
    const linea::TargetDescription &gpu = *planned;
    std::string chip = gpu.chip.str();
    SymbolTableCollection symbols;
    llvm::MapVector<FusedLoc, OpTotal> totals;
    module.walk([&](gpu::LaunchFuncOp launch) {
      std::optional<FusedLoc> source = linea::markedSource(launch.getLoc());
      OpTotal *total = source ? &totals[*source] : nullptr;
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return;
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      std::optional<double> blocks = constantProduct({grid.x, grid.y, grid.z});
      std::optional<double> threads =
          constantProduct({grid.x, grid.y, grid.z, block.x, block.y, block.z});
      Constants known;
      std::optional<double> blockY = constantProduct({block.y, block.z});
      std::optional<double> blockX = constantProduct({block.x});
      if (blockY && *blockY == 1 && blockX)
        known.blockThreads = int64_t(*blockX);
      for (auto [arg, operand] :
           llvm::zip(kernel.getArguments(), launch.getKernelOperands()))
        if (std::optional<int64_t> c =
                constantThroughCasts(operand, Constants()))
          known[arg] = *c;
      Cost perThread = costOf(kernel.getBody(), known);
      InFlightDiagnostic remark = launch.emitRemark()
                                  << "kernel @" << launch.getKernelModuleName().getValue() << ": ";
      if (!threads || !perThread.known) {
        remark << "dynamic launch or loop bounds, no static estimate";
        if (total)
          ++total->unknown;
        return;
      }
      double flops = perThread.flops * *threads;
      double bytes = perThread.bytes * *threads;
      double peak = perThread.tensorCores ? gpu.matrixFlopsPerSecond
                                          : gpu.scalarFlopsPerSecond;
      double computeTime = flops / peak;
      double memoryTime = bytes / gpu.bytesPerSecond;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::format("%.0f threads in %.0f blocks, %.3g FLOP, %.3g B, "
                         "%.3g FLOP/B, %s estimate %.3g us (%s-bound%s)",
                         *threads, *blocks, flops, bytes,
                         bytes > 0 ? flops / bytes : 0.0, chip.c_str(),
                         std::max(computeTime, memoryTime) * 1e6,
                         computeTime > memoryTime ? "compute" : "memory",
                         perThread.tensorCores ? ", tensor cores" : "");
      std::optional<double> trips = hostTrips(launch);
      if (!trips)
        os << "; in a host loop of unknown trip count";
      else if (*trips != 1)
        os << llvm::format("; launched %.0f times by host loops: %.3g FLOP, "
                           "%.3g B, %s estimate %.3g us in all",
                           *trips, flops * *trips, bytes * *trips,
                           chip.c_str(),
                           std::max(computeTime, memoryTime) * 1e6 * *trips);
      remark << text;
      if (!total)
        return;
      if (!trips) {
        ++total->unknown;
        return;
      }
      total->launches += *trips;
      total->flops += flops * *trips;
      total->bytes += bytes * *trips;
      total->seconds += std::max(computeTime, memoryTime) * *trips;
    });
    for (auto &[source, total] : totals)
      remarkOpTotal(source, total, chip);
  }
};

} // namespace
