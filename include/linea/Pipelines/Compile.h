//===- Compile.h - the one flow from model IR to machine code ---*- C++ -*-===//
//
// linea-run, linea-compile (and through it the Python package) and the
// `linea-compile` pass pipeline (linea-opt, the plugin, the C API) all build
// the same flow here: the model's assumed sizes checked and its layers
// raised, the run-time checks inserted once, each op outlined (CPU), the
// optimizing pipeline, then the lowering for the target.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_PIPELINES_COMPILE_H
#define LINEA_PIPELINES_COMPILE_H

#include "linea/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::linea {

struct CompileOptions : public PassPipelineOptions<CompileOptions> {
  Option<TargetKind> target{
      *this, "target",
      llvm::cl::desc("cpu: the host, through linea-lower-to-cpu; gpu: CUDA "
                     "kernels and their host code, through "
                     "linea-lower-to-nvvm"),
      llvm::cl::init(TargetKind::cpu), targetKindValues()};
  Option<bool> raise{*this, "raise",
                     llvm::cl::desc("Raise the model's layers into Linea ops "
                                    "first (linea-raise)"),
                     llvm::cl::init(true)};
  Option<std::string> pipeline{
      *this, "pipeline",
      llvm::cl::desc("The optimizing pipeline for target=cpu, as text (empty: "
                     "none); the default is linea-optimize"),
      llvm::cl::init(std::string(kDefaultOptimizePipeline))};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Check the dynamic sizes of the Linea ops at run time "
                     "(linea-insert-runtime-checks, once, after the raise)"),
      llvm::cl::init(true)};
  Option<std::string> checkHandler{
      *this, "check-handler",
      llvm::cl::desc("The function `void F(const char *message)` a failed "
                     "run-time check calls; empty: print and abort"),
      llvm::cl::init("")};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The NVIDIA chip with target=gpu (empty: the default "
                     "chip, sm_90a)"),
      llvm::cl::init("")};
  Option<std::string> gpuOptions{
      *this, "gpu-options",
      llvm::cl::desc("More of linea-lower-to-nvvm's options with target=gpu, "
                     "as text (e.g. 'precision=bf16')"),
      llvm::cl::init("")};

  /// The pipeline text linea-optimize is spelled as by default: built
  /// directly (without its own run-time checks, the flow has them).
  static constexpr llvm::StringLiteral kDefaultOptimizePipeline =
      "linea-optimize";
};

/// The flow up to the lowering: assumed sizes checked, the raise, the
/// run-time checks, each op outlined on the CPU, the optimizing pipeline.
/// Fails, with a one-line message on `errors`, where `pipeline` does not
/// parse.
LogicalResult buildCompileFront(OpPassManager &pm,
                                const CompileOptions &options,
                                llvm::raw_ostream &errors);

/// The lowering for the target: linea-lower-to-cpu, or linea-lower-to-nvvm
/// with `chip` and `gpu-options` (a cubin in the module). Fails, with a
/// one-line message on `errors`, on options linea-lower-to-nvvm refuses.
LogicalResult buildCompileLowering(OpPassManager &pm,
                                   const CompileOptions &options,
                                   llvm::raw_ostream &errors);

/// Both, in one pass manager: the `linea-compile` pipeline.
LogicalResult buildCompilePipeline(OpPassManager &pm,
                                   const CompileOptions &options,
                                   llvm::raw_ostream &errors);

/// Runs the flow on `module`, as the tools do: the lowering is skipped
/// where the optimizing pipeline already reached the LLVM dialect (such as
/// linea-gpu-mapped-to-cpu). Diagnostics go to the context's handler.
LogicalResult runCompilePipeline(ModuleOp module,
                                 const CompileOptions &options);

/// Registers `linea-compile`.
void registerCompilePipeline();

} // namespace mlir::linea

#endif // LINEA_PIPELINES_COMPILE_H
