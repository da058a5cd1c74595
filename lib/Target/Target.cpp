//===- Target.cpp - the machines Linea compiles for -----------------------===//

#include "linea/Target/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

#include <cmath>
#include <tuple>

using namespace mlir::linea;

namespace {

const int64_t kCPUChunks[] = {16, 32, 64, 128, 256};
const int64_t kGPUChunks[] = {16, 32, 64, 128};

/// What Linea's generated CPU loops sustain on one core of these machines,
/// not the hardware peak (estimates, set by hand).
const TargetDescription kCPU = {
    TargetKind::cpu,
    "cpu",
    /*chip=*/"",
    /*matrixFlopsPerSecond=*/4e9,
    /*scalarFlopsPerSecond=*/4e9,
    /*bytesPerSecond=*/8e9,
    /*secondsPerIteration=*/2e-6,
    /*contractionTile=*/32,
    /*parallelUnits=*/1,
    /*threadsPerBlock=*/1,
    /*sharedMemoryPerBlock=*/0,
    /*valueTile=*/0,
    kCPUChunks,
};

/// An H100 SXM: dense f16/bf16 tensor cores, f32 CUDA cores, HBM3, 132 SMs,
/// 227 KiB of (dynamic, opted-in) shared memory per block, and the cost of
/// one synchronized chunk step inside a block.
const TargetDescription kGPU = {
    TargetKind::gpu,
    "gpu",
    kDefaultGPUChip,
    /*matrixFlopsPerSecond=*/990e12,
    /*scalarFlopsPerSecond=*/67e12,
    /*bytesPerSecond=*/3.35e12,
    /*secondsPerIteration=*/1e-6,
    /*contractionTile=*/64,
    /*parallelUnits=*/132,
    /*threadsPerBlock=*/256,
    /*sharedMemoryPerBlock=*/227 * 1024,
    /*valueTile=*/64,
    kGPUChunks,
};

} // namespace

int64_t mlir::linea::hostVectorWidth() {
  auto features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx512f"))
    return 16;
  if (features.lookup("avx2") || features.lookup("avx"))
    return 8;
  return 4;
}

int64_t mlir::linea::hostRegisterRows() {
  int64_t registers = llvm::sys::getHostCPUFeatures().lookup("avx512f") ? 32 : 16;
  return (registers - 3) / 2;
}

std::optional<ChipName> mlir::linea::parseChip(llvm::StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  llvm::StringRef digits = chip.take_while(llvm::isDigit);
  llvm::StringRef variant = chip.drop_front(digits.size());
  unsigned number = 0;
  if (digits.size() < 2 || digits.size() > 3 ||
      digits.getAsInteger(10, number) || variant.size() > 1 ||
      (!variant.empty() && variant != "a" && variant != "f"))
    return std::nullopt;
  return ChipName{number, variant.empty() ? '\0' : variant.front()};
}

/// The compute capability of `sm_XX[a|f]`; 0 for anything else.
static unsigned chipNumber(llvm::StringRef chip) {
  std::optional<ChipName> name = parseChip(chip);
  return name ? name->number : 0;
}

/// The most shared memory one block may use on an NVIDIA chip (`sm_XX`),
/// with the opt-in to dynamic shared memory above 48 KiB that Linea's CUDA
/// runtime library makes at launch: 227 KiB on sm_90/sm_100, 163 KiB on
/// sm_80/sm_87, 99 KiB on sm_86/sm_89, 48 KiB elsewhere.
static int64_t sharedMemoryForChip(llvm::StringRef chip) {
  unsigned arch = chipNumber(chip);
  if (arch == 90 || arch == 100 || arch == 103)
    return 227 * 1024;
  if (arch == 80 || arch == 87)
    return 163 * 1024;
  if (arch == 86 || arch == 89 || arch == 120)
    return 99 * 1024;
  return kStaticSharedMemoryBytes;
}

/// The SMs of an NVIDIA chip (`sm_XX`): its data-center part's count (132
/// for sm_90, 108 for sm_80), an estimate for chips without one.
static int64_t multiprocessorsForChip(llvm::StringRef chip) {
  unsigned arch = chipNumber(chip);
  if (arch == 80)
    return 108; // A100
  if (arch == 86)
    return 84; // A40
  if (arch == 89)
    return 142; // L40S
  if (arch == 100)
    return 148; // B200
  return kGPU.parallelUnits; // H100, and an estimate for the rest
}

int64_t mlir::linea::gatedChunkBlockBytes(int64_t chunk, int64_t dk,
                                          int64_t dv) {
  int64_t copies = chunk * (2 * dk + dv);
  int64_t decays = 2 * chunk * dk; // log-decays and decayed queries
  int64_t keyBlock = 16 * dk + 16 * 16;
  return 4 * (copies + decays + chunk * chunk + keyBlock);
}

int64_t mlir::linea::plainChunkBlockBytes(int64_t chunk, int64_t dk, int64_t dv,
                                          int64_t elementBytes) {
  int64_t copies = chunk * (2 * dk + dv) + dk * dv;
  return elementBytes * copies + 4 * chunk * chunk;
}

int64_t mlir::linea::stateTileAlong(int64_t width) {
  return width > kStateTile && width % kStateTile == 0 ? kStateTile : width;
}

int64_t mlir::linea::stateTilesPerSequence(int64_t dk, int64_t dv) {
  return dk / stateTileAlong(dk) * (dv / stateTileAlong(dv));
}

TargetDescription::ChunkBlocks
TargetDescription::chunkBlocks(bool gated, int64_t chunk, int64_t dk,
                               int64_t dv, int64_t elementBytes,
                               std::optional<int64_t> sequences) const {
  ChunkBlocks blocks;
  if (kind != TargetKind::gpu || sharedMemoryPerBlock <= 0)
    return blocks;
  // A rows block loads its chunk, then multiplies: a second block on the
  // SM multiplies while it waits. A plain chunk's block is sized for two;
  // a gated one's (three times the temporaries) for one.
  int64_t rowBytes =
      gated ? gatedChunkBlockBytes(chunk, dk, dv)
            : 2 * plainChunkBlockBytes(chunk, dk, dv, elementBytes);
  blocks.rowsPerChunk = rowBytes <= sharedMemoryPerBlock;
  // The pass walks the chunks in order: it pays where its blocks keep at
  // least half of the SMs busy; fewer sequences (a model's few heads) are
  // better served by local states in parallel and the scan's slices.
  blocks.statesPerSequence =
      sequences &&
      2 * *sequences * stateTilesPerSequence(dk, dv) >= parallelUnits;
  return blocks;
}

bool mlir::linea::hasWarpgroupMMA(llvm::StringRef chip) {
  // The `a` variant only: wgmma is not part of sm_90's forward-compatible
  // feature set, nor of later chips'.
  std::optional<ChipName> name = parseChip(chip);
  return name && name->number == 90 && name->variant == 'a';
}

bool mlir::linea::hasTensorMemoryAccelerator(llvm::StringRef chip) {
  return chipNumber(chip) >= 90;
}

llvm::StringRef mlir::linea::ptxFeaturesForChip(llvm::StringRef chip) {
  // PTX 8.0: LLVM's default 6.0 is refused for sm_80 and sm_90a. Where
  // kernels load by TMA, 8.3: the fence that makes a tensor map the host
  // copied to global memory visible to TMA (fence.proxy.tensormap) is
  // PTX 8.3's.
  return hasTensorMemoryAccelerator(chip) ? "+ptx83" : "+ptx80";
}

const TargetDescription &TargetDescription::get(TargetKind kind) {
  switch (kind) {
  case TargetKind::cpu:
    return kCPU;
  case TargetKind::gpu:
    return kGPU;
  }
  llvm_unreachable("unknown target");
}

TargetDescription TargetDescription::forChip(llvm::StringRef chip) {
  TargetDescription description = kGPU;
  description.chip = chip;
  description.parallelUnits = multiprocessorsForChip(chip);
  description.sharedMemoryPerBlock = sharedMemoryForChip(chip);
  if (chipNumber(chip) == 80) {
    // An A100 SXM: dense f16/bf16 tensor cores, f32 CUDA cores, HBM2e.
    description.matrixFlopsPerSecond = 312e12;
    description.scalarFlopsPerSecond = 19.5e12;
    description.bytesPerSecond = 2.04e12;
  }
  return description;
}

llvm::Expected<TargetDescription>
TargetDescription::named(TargetKind kind, llvm::StringRef chip,
                         llvm::StringRef path) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (!chip.empty() && kind != TargetKind::gpu)
    return fail("chip=" + chip + " names a GPU; add target=gpu");
  if (!chip.empty() && !parseChip(chip))
    return fail("chip must name an NVIDIA chip (sm_80, sm_90a), got '" + chip +
                "'");
  TargetDescription builtIn = chip.empty() ? get(kind) : forChip(chip);
  if (path.empty())
    return builtIn;
  return load(builtIn, path);
}

llvm::Expected<TargetDescription>
TargetDescription::load(const TargetDescription &base, llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "target description '" + path + "': " + why);
  };
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return fail(file.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return fail(llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return fail("not a JSON object");
  TargetDescription description = base;
  description.calibrated = true;
  if (std::optional<llvm::StringRef> target = object->getString("target");
      !target || *target != description.name)
    return fail("describes target '" + target.value_or("?") +
                "', not '" + description.name + "'");
  std::pair<llvm::StringRef, double *> numbers[] = {
      {"matrixFlopsPerSecond", &description.matrixFlopsPerSecond},
      {"scalarFlopsPerSecond", &description.scalarFlopsPerSecond},
      {"bytesPerSecond", &description.bytesPerSecond},
      {"secondsPerIteration", &description.secondsPerIteration},
      {"contractionTile", &description.contractionTile}};
  for (auto [key, field] : numbers) {
    if (!object->get(key))
      continue;
    std::optional<double> value = object->getNumber(key);
    if (!value || !(*value > 0) || !std::isfinite(*value))
      return fail(key + " must be a positive number");
    *field = *value;
  }
  // Counts: at least 1 (units, threads) or 0 (shared memory, value tile: 0
  // is none, or all columns).
  std::tuple<llvm::StringRef, int64_t *, int64_t> counts[] = {
      {"parallelUnits", &description.parallelUnits, 1},
      {"threadsPerBlock", &description.threadsPerBlock, 1},
      {"sharedMemoryPerBlock", &description.sharedMemoryPerBlock, 0},
      {"valueTile", &description.valueTile, 0}};
  for (auto [key, field, least] : counts) {
    if (!object->get(key))
      continue;
    std::optional<int64_t> value = object->getInteger(key);
    if (!value || *value < least)
      return fail(key + " must be an integer >= " + llvm::Twine(least));
    *field = *value;
  }
  if (description.threadsPerBlock > kMaxThreadsPerBlock)
    return fail("threadsPerBlock must be <= " +
                llvm::Twine(kMaxThreadsPerBlock));
  return description;
}

llvm::StringRef mlir::linea::stringifyTargetKind(TargetKind kind) {
  return TargetDescription::get(kind).name;
}

llvm::StringRef mlir::linea::stringifyPrecision(Precision precision) {
  switch (precision) {
  case Precision::f32:
    return "f32";
  case Precision::f16:
    return "f16";
  case Precision::bf16:
    return "bf16";
  case Precision::automatic:
    return "auto";
  }
  llvm_unreachable("unknown precision");
}

llvm::cl::ValuesClass mlir::linea::targetKindValues() {
  return llvm::cl::values(
      clEnumValN(TargetKind::cpu, "cpu", "the host CPU (one core)"),
      clEnumValN(TargetKind::gpu, "gpu", "an NVIDIA GPU (sm_90a unless a chip is named)"));
}

llvm::cl::ValuesClass mlir::linea::precisionValues() {
  return llvm::cl::values(
      clEnumValN(Precision::f32, "f32", "f32 contractions on CUDA cores"),
      clEnumValN(Precision::f16, "f16",
                 "f16 tensor-core operands, f32 accumulation"),
      clEnumValN(Precision::bf16, "bf16",
                 "bf16 tensor-core operands, f32 accumulation"),
      clEnumValN(Precision::automatic, "auto",
                 "an op's own: bf16 (or f16) tensor-core operands for the "
                 "contractions of an op whose tensors are bf16 (f16), else "
                 "f32"));
}
