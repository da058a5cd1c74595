//===- Target.h - the machines Linea compiles for --------------*- C++ -*-===//
//
// Every number that describes a target lives here once: the cost model
// weighs forms with it, the GPU mapping sizes blocks and shared memory with
// it, the kernel report estimates times with it, and the pipelines and pass
// options take their defaults from it.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TARGET_TARGET_H
#define LINEA_TARGET_TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace mlir::linea {

/// The machines the cost model weighs for.
enum class TargetKind { cpu, gpu };

/// The operand type of tensor-core contractions (f32: CUDA cores;
/// automatic: the program's own 16-bit type, where it has one).
enum class Precision { f32, f16, bf16, automatic };

/// The most shared memory a block may declare statically, without the
/// opt-in to dynamic shared memory: 48 KiB on every NVIDIA chip.
constexpr int64_t kStaticSharedMemoryBytes = 48 * 1024;

/// The most threads a block may have on every NVIDIA chip (CUDA's limit).
constexpr int64_t kMaxThreadsPerBlock = 1024;

/// The chip a GPU description is for when none is named: an H100 (SXM).
constexpr llvm::StringLiteral kDefaultGPUChip = "sm_90a";

/// One machine's numbers. The built-in descriptions are estimates from data
/// sheets; `load` replaces the rates with measured ones. What a module was
/// planned for travels with it as `#linea.target<...>` (TargetAttr), which
/// every pass that needs a machine number reads.
struct TargetDescription {
  TargetKind kind;
  llvm::StringRef name;
  /// The NVIDIA chip (`sm_90a`) of a GPU description; empty for the CPU.
  llvm::StringRef chip;
  /// The contraction rate the forms reach with every parallel unit busy:
  /// tensor cores at f16/bf16 where the target has them, else the vector
  /// units. A form that keeps only some units busy gets that share of it.
  double matrixFlopsPerSecond;
  /// Everything else, and contractions at f32 on a GPU (CUDA cores).
  double scalarFlopsPerSecond;
  double bytesPerSecond;
  /// The fixed cost of one sequential step (a chunk of the chunk loop).
  double secondsPerIteration;
  /// Rows at which a contraction reaches half of its peak.
  double contractionTile;
  /// Blocks that run at once (the SMs; the threads of a CPU's parallel
  /// loops); 1 where loops run in order.
  int64_t parallelUnits;
  /// Threads of a GPU block.
  int64_t threadsPerBlock;
  /// Shared memory one block may use (0: the target has none): the chip's
  /// opt-in maximum (see `forChip`).
  int64_t sharedMemoryPerBlock;
  /// Value columns per sequence block: wider values are split into tiles
  /// of this many columns, each its own block.
  int64_t valueTile;
  /// The chunk sizes the cost model weighs.
  llvm::ArrayRef<int64_t> chunkCandidates;
  /// Whether the rates were measured on a machine (`load`) rather than
  /// estimated.
  bool calibrated = false;

  /// The built-in description of `kind`: one core of the host CPU, or the
  /// GPU of `kDefaultGPUChip`.
  static const TargetDescription &get(TargetKind kind);

  /// The built-in description of an NVIDIA chip (`sm_XX`): its SMs and
  /// shared memory, and the rates of its data-center part (A100 for sm_80,
  /// H100 for sm_90 and, as an estimate, for the others).
  static TargetDescription forChip(llvm::StringRef chip);

  /// The description a pass's options name: the built-in one of `kind` (of
  /// `chip` on a GPU, where one is named), with the measured rates of the
  /// JSON file `path` where one is named. An error for a chip on the CPU
  /// or a chip that is not `sm_XX`.
  static llvm::Expected<TargetDescription>
  named(TargetKind kind, llvm::StringRef chip, llvm::StringRef path);

  /// Which phases of a causal op's chunk-parallel form run as blocks on
  /// this GPU rather than as grids over every chunk (nothing on a target
  /// without shared memory). The cost model prices the form by it and
  /// linea-causal-to-chunk-parallel builds by it: one decision.
  struct ChunkBlocks {
    /// Every chunk's rows in a block of its own, which keeps the chunk's
    /// scores (and decays) in shared memory.
    bool rowsPerChunk = false;
    /// The states entering the chunks in one pass: a block per sequence
    /// and state tile walks the chunks in order, its state in shared
    /// memory, so that no chunk's local state passes through global memory
    /// and no scan runs (with enough such blocks to keep half the GPU
    /// busy).
    bool statesPerSequence = false;
  };
  /// The blocks for chunks of `chunk` rows, key width `dk`, value width
  /// `dv` (a normalizer's column counted), operands of `elementBytes`
  /// bytes, gated or not, over `sequences` independent sequences (unknown
  /// where a batch dim is dynamic).
  ChunkBlocks chunkBlocks(bool gated, int64_t chunk, int64_t dk, int64_t dv,
                          int64_t elementBytes,
                          std::optional<int64_t> sequences) const;

  /// The description of `kind` with the numbers measured on a machine read
  /// from `path`, a JSON object as `python3 -m linea.calibrate` writes it:
  /// `{"target": "cpu", "matrixFlopsPerSecond": ..., ...}` with any of the
  /// fields `matrixFlopsPerSecond`, `scalarFlopsPerSecond`,
  /// `bytesPerSecond`, `secondsPerIteration`, `contractionTile` (positive
  /// numbers), `parallelUnits`, `threadsPerBlock` (positive integers),
  /// `sharedMemoryPerBlock` and `valueTile` (integers >= 0).
  static llvm::Expected<TargetDescription> load(const TargetDescription &base,
                                                llvm::StringRef path);
};

/// Shared memory (bytes, an upper bound) of a GPU block that computes one
/// gated chunk's rows from the state entering it, as the chunk-parallel
/// form's third phase does on the GPU (C rows, key width `dk`, value width
/// `dv`): its copies of q, k and v, the in-chunk log-decays, the scores, the
/// decayed queries and one 16-row key block with its diagonal block, all
/// f32. Where it does not fit, that phase runs as grids over every chunk.
int64_t gatedChunkBlockBytes(int64_t chunk, int64_t dk, int64_t dv);

/// Shared memory (bytes, an upper bound) of a GPU block that computes one
/// plain chunk's rows from the state entering it: its copies of q, k and v
/// (`elementBytes` each, as stored) and of the state, and the scores (f32).
int64_t plainChunkBlockBytes(int64_t chunk, int64_t dk, int64_t dv,
                             int64_t elementBytes);

/// The state tile (rows and columns) of one block of the per-sequence state
/// pass (TargetDescription::ChunkBlocks::statesPerSequence).
constexpr int64_t kStateTile = 64;

/// The state tile of that pass along a state width: kStateTile where the
/// width splits evenly into several, else the whole width.
int64_t stateTileAlong(int64_t width);

/// The blocks of that pass per sequence, for a `dk x dv` state.
int64_t stateTilesPerSequence(int64_t dk, int64_t dv);

/// An NVIDIA chip's name, read once for every pass and tool: `sm_`, its
/// compute capability as two or three digits, and an optional variant
/// suffix (`a`: the chip's own features such as wgmma; `f`: the family's).
struct ChipName {
  unsigned number;
  char variant; // 0, 'a' or 'f'
};

/// `chip` read as above; nothing for anything else (`sm80`, `sm_9`, `gfx90a`).
std::optional<ChipName> parseChip(llvm::StringRef chip);

/// Whether an NVIDIA chip (`sm_XX`) has warpgroup MMA (wgmma): sm_90a.
bool hasWarpgroupMMA(llvm::StringRef chip);

/// Whether an NVIDIA chip has the tensor memory accelerator (TMA): sm_90
/// and later.
bool hasTensorMemoryAccelerator(llvm::StringRef chip);

/// The PTX version Linea's kernels for an NVIDIA chip need, as NVVM target
/// features: "+ptx80", or "+ptx83" where they may load by TMA.
llvm::StringRef ptxFeaturesForChip(llvm::StringRef chip);

/// The f32 lanes of one vector register of the machine this runs on: 16 with
/// AVX-512, 8 with AVX, else 4. Linea's CPU code is compiled for the host.
int64_t hostVectorWidth();

/// The rows of C one contraction tile holds in the host's vector registers:
/// two registers of accumulators per row, plus B's two and A's broadcast,
/// out of 32 registers with AVX-512 (14 rows) and 16 otherwise (6 rows).
int64_t hostRegisterRows();

llvm::StringRef stringifyTargetKind(TargetKind kind);
llvm::StringRef stringifyPrecision(Precision precision);

/// The command-line spellings of the enums above, for pass and pipeline
/// options.
llvm::cl::ValuesClass targetKindValues();
llvm::cl::ValuesClass precisionValues();

} // namespace mlir::linea

#endif // LINEA_TARGET_TARGET_H
