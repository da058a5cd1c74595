//===- Pipelines.h - Linea's named pass pipelines --------------*- C++ -*-===//

#ifndef LINEA_PIPELINES_PIPELINES_H
#define LINEA_PIPELINES_PIPELINES_H

#include "linea/Analysis/CostModel.h"
#include "linea/Target/Target.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#ifndef LINEA_DEFAULT_CUDA_PATH
#define LINEA_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif

namespace mlir::linea {

/// The run-time checks of the Linea ops' dynamic sizes
/// (linea-insert-runtime-checks): every flow adds them through here, once,
/// before any rewrite reads the ops.
void addRuntimeChecks(OpPassManager &pm);

/// How every flow from model IR starts (linea-run, linea-compile,
/// linea-export): the sizes the model's IR assumes checked
/// (linea-check-assumed-sizes, with `checkAssumedSizes`) before anything
/// canonicalizes them away, then linea-raise on every function unless
/// `raise` is false.
void buildRaisePipeline(OpPassManager &pm, bool raise,
                        bool checkAssumedSizes = true);

/// The options of every pipeline that chooses forms (linea-optimize,
/// linea-export, linea-lower-to-nvvm), declared once.
template <typename Derived>
struct FormOptions : public PassPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<FormPreference> form{
      *this, "form",
      llvm::cl::desc("auto, or force a form wherever it is legal"),
      llvm::cl::init(FormPreference::automatic), formPreferenceValues()};
  mlir::detail::PassOptions::Option<int64_t> chunkSize{
      *this, "chunk-size",
      llvm::cl::desc("Force a chunk size (0 = the cost model's choice)"),
      llvm::cl::init(0)};
};

/// The options of the pipelines that plan the target themselves
/// (linea-optimize, linea-export: linea-plan-target's), and choose forms.
template <typename Derived>
struct PlanningOptions : public FormOptions<Derived> {
  mlir::detail::PassOptions::Option<TargetKind> target{
      *this, "target",
      llvm::cl::desc("The machine the forms are planned for: cpu or gpu"),
      llvm::cl::init(TargetKind::cpu), targetKindValues()};
  mlir::detail::PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The NVIDIA chip with target=gpu (empty: the module's "
                     "planned target, else sm_90a)"),
      llvm::cl::init("")};
};

struct OptimizeOptions : public PlanningOptions<OptimizeOptions> {
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("Remark on every form choice"),
                       llvm::cl::init(false)};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Assert dynamic shape relations and prefix ranges at "
                     "run time (linea-insert-runtime-checks)"),
      llvm::cl::init(true)};
  Option<bool> markMinimalTraffic{
      *this, "mark-minimal-traffic",
      llvm::cl::desc("Record in each op's location the bytes it moves at "
                     "least, for the kernel report "
                     "(linea-mark-minimal-traffic)"),
      llvm::cl::init(false)};
  Option<std::string> targetDescription{
      *this, "target-description",
      llvm::cl::desc("The target's measured rates, a JSON file written by "
                     "`python3 -m linea.calibrate` (empty: the built-in "
                     "estimates)"),
      llvm::cl::init("")};
  /// The tensor-core operand type Linea's GPU kernels may round to (set by
  /// linea-lower-to-nvvm's `precision`; linea-optimize alone: each 16-bit
  /// op's own): softmax attention takes flash-attention blocks under it.
  Precision precision = Precision::automatic;
};

/// linea-optimize: fold to loops, split prefixes, choose forms with the cost
/// model, and rewrite each region into its form (one-shot, chunked, tiled
/// online softmax, and for target=gpu the blocked scan).
void buildOptimizePipeline(OpPassManager &pm,
                           const OptimizeOptions &options = OptimizeOptions());

/// linea-export's `target` and `chip` name the hardware the receiving
/// compiler builds for: the cost model weighs the forms for it.
struct ExportOptions : public PlanningOptions<ExportOptions> {
  Option<bool> raise{*this, "raise",
                     llvm::cl::desc("Raise the model's layers into Linea ops "
                                    "first (linea-raise)"),
                     llvm::cl::init(true)};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Keep the run-time checks of dynamic sizes, as "
                     "cf.assert (linea-checks-to-asserts)"),
      llvm::cl::init(true)};
};

/// linea-export: the hand-off to another compiler. Raises, chooses and
/// rewrites the forms as linea-optimize does (no GPU block distribution:
/// the receiving compiler maps the work), lowers what is left of Linea by
/// its definition, and leaves upstream dialects only, checked by
/// linea-verify-exported.
void buildExportPipeline(OpPassManager &pm,
                         const ExportOptions &options = ExportOptions());

struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Assert the dynamic shape relations of the Linea ops "
                     "still present (linea-insert-runtime-checks)"),
      llvm::cl::init(true)};
  Option<std::string> checkHandler{
      *this, "check-handler",
      llvm::cl::desc("The function `void F(const char *message)` a failed "
                     "run-time check calls (linea-route-checks); empty: the "
                     "message is printed and the program aborts"),
      llvm::cl::init("")};
  Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse model IR's elementwise chains into their users, "
                     "never into contractions (linea-fuse-elementwise)"),
      llvm::cl::init(true)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Register-tiled vector kernels for the contractions "
                     "(linea-vectorize-contractions); off: plain loops"),
      llvm::cl::init(true)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of a vector register for the kernels "
                     "(0: the host's, 16 with AVX-512, 8 with AVX)"),
      llvm::cl::init(0)};
  Option<int64_t> registerRows{
      *this, "register-rows",
      llvm::cl::desc("Rows of C one contraction tile holds in registers "
                     "(linea-vectorize-contractions; 0: what the host's "
                     "registers hold, 14 with AVX-512, 6 otherwise)"),
      llvm::cl::init(0)};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads for the parallel loops (the heads of each "
                     "contraction), through the OpenMP runtime: 0 every "
                     "core (or OMP_NUM_THREADS), 1 none (no OpenMP)"),
      llvm::cl::init(0)};
};

/// linea-lower-to-cpu: every Linea op through the reference lowering, one-shot
/// bufferization and the upstream conversions to the LLVM dialect.
void buildLowerToCPUPipeline(OpPassManager &pm,
                             const LowerToCPUOptions &options = {});

/// What the gpu.binary of linea-lower-to-nvvm holds.
enum class BinaryFormat { bin, isa, fatbin };

struct LowerToNVVMOptions : public FormOptions<LowerToNVVMOptions> {
  Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The NVIDIA target, e.g. sm_80, sm_90a"),
      llvm::cl::init(kDefaultGPUChip.str())};
  Option<BinaryFormat> format{
      *this, "format", llvm::cl::desc("gpu.binary contents"),
      llvm::cl::init(BinaryFormat::bin),
      llvm::cl::values(
          clEnumValN(BinaryFormat::bin, "bin", "cubin"),
          clEnumValN(BinaryFormat::isa, "isa", "PTX"),
          clEnumValN(BinaryFormat::fatbin, "fatbin", "a fat binary"))};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block (0: the chip's target description's)"),
      llvm::cl::init(0)};
  Option<Precision> precision{
      *this, "precision",
      llvm::cl::desc("f32 (CUDA cores), or f16 or bf16: f32 operands of "
                     "the contractions are converted on load for tensor "
                     "cores (f32 accumulation); auto: an op's own 16-bit "
                     "type where its tensors are bf16 or f16"),
      llvm::cl::init(Precision::automatic), precisionValues()};
  Option<bool> report{*this, "report",
                      llvm::cl::desc("Remark per kernel: FLOPs, bytes and a "
                                     "roofline estimate for the chip"),
                      llvm::cl::init(false)};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Assert dynamic shape relations on the host (as "
                     "linea-optimize's option)"),
      llvm::cl::init(true)};
  Option<std::string> checkHandler{
      *this, "check-handler",
      llvm::cl::desc("The function `void F(const char *message)` a failed "
                     "run-time check calls (linea-route-checks); empty: the "
                     "message is printed and the program aborts"),
      llvm::cl::init("")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("The CUDA toolkit: ptxas and libdevice come from here"),
      llvm::cl::init(LINEA_DEFAULT_CUDA_PATH)};
  Option<std::string> targetDescription{
      *this, "target-description",
      llvm::cl::desc("The chip's numbers the forms are weighed and built "
                     "by, a JSON file as `python3 -m linea.calibrate` "
                     "writes it (empty: the chip's built-in description)"),
      llvm::cl::init("")};
};

/// linea-lower-to-nvvm: linea-optimize for the GPU, the reference lowering
/// of what is left, bufferization, every linalg op mapped to a kernel
/// (linea-map-to-gpu), managed memory for host buffers, then the upstream
/// NVVM pipeline: kernels to a gpu.binary for `chip`, host code to GPU
/// runtime calls.
void buildLowerToNVVMPipeline(OpPassManager &pm,
                              const LowerToNVVMOptions &options);

/// linea-gpu-mapped-to-cpu: the same IR as linea-lower-to-nvvm up to its
/// gpu.launch ops, then lowered for the CPU (linea-emulate-gpu-threads):
/// each launch's blocks one after another, its threads as loops or, where
/// they meet at barriers or in warp instructions, as an OpenMP team.
void buildGPUMappedOnCPUPipeline(OpPassManager &pm,
                                 const LowerToNVVMOptions &options);

/// Registers the pipelines above under their SPEC names.
void registerPipelines();

/// Registers every Linea pass and pipeline.
void registerAllPasses();

} // namespace mlir::linea

#endif // LINEA_PIPELINES_PIPELINES_H
