//===- Compile.cpp - the one flow from model IR to machine code ----------===//
//
// The order matters and is decided here only: the assumed sizes are checked
// before anything canonicalizes them away, the raise runs before the
// run-time checks (the raised ops get theirs), the checks go in once before
// any rewrite reads the ops, and on the CPU each op gets a function of its
// own before the optimizer (compile time linear in the number of ops; the
// GPU lowering outlines its kernels instead).
//
//===----------------------------------------------------------------------===//

#include "linea/Pipelines/Compile.h"
#include "linea/Pipelines/OptionCheck.h"

#include "linea/Pipelines/Pipelines.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::linea;

/// linea-optimize without run-time checks of its own (the flow inserted
/// them), or whatever pipeline the options name, parsed.
static LogicalResult addOptimizer(OpPassManager &pm,
                                  const CompileOptions &options,
                                  llvm::raw_ostream &errors) {
  StringRef text = options.pipeline;
  if (text.empty())
    return success();
  if (text == CompileOptions::kDefaultOptimizePipeline) {
    OptimizeOptions optimize;
    optimize.runtimeChecks = false;
    buildOptimizePipeline(pm, optimize);
    return success();
  }
  std::string message;
  llvm::raw_string_ostream os(message);
  if (succeeded(parsePassPipeline(text, pm, os)))
    return success();
  errors << "cannot parse pipeline '" << text << "': "
         << StringRef(message).trim().split('\n').first;
  return failure();
}

LogicalResult mlir::linea::buildCompileFront(OpPassManager &pm,
                                             const CompileOptions &options,
                                             llvm::raw_ostream &errors) {
  buildRaisePipeline(pm, options.raise);
  if (options.runtimeChecks)
    addRuntimeChecks(pm);
  if (options.target == TargetKind::gpu)
    return success();
  pm.addPass(createLineaOutlineOps());
  return addOptimizer(pm, options, errors);
}

/// linea-lower-to-nvvm's options: the caller's text, then the flow's own
/// (chip, a cubin, checks already inserted and routed to the handler).
static std::unique_ptr<LowerToNVVMOptions>
nvvmOptions(const CompileOptions &options, llvm::raw_ostream &errors) {
  auto parsed = LowerToNVVMOptions::createFromString(options.gpuOptions);
  if (!parsed) {
    errors << "bad options '" << options.gpuOptions
           << "' (linea-lower-to-nvvm's options, e.g. 'precision=bf16')";
    return nullptr;
  }
  parsed->chip = options.chip.empty() ? kDefaultGPUChip.str()
                                      : std::string(options.chip);
  parsed->format = BinaryFormat::bin;
  parsed->runtimeChecks = false;
  parsed->checkHandler = std::string(options.checkHandler);
  return parsed;
}

LogicalResult mlir::linea::buildCompileLowering(OpPassManager &pm,
                                                const CompileOptions &options,
                                                llvm::raw_ostream &errors) {
  if (options.target == TargetKind::gpu) {
    std::unique_ptr<LowerToNVVMOptions> lower = nvvmOptions(options, errors);
    if (!lower)
      return failure();
    buildLowerToNVVMPipeline(pm, *lower);
    return success();
  }
  LowerToCPUOptions lower;
  lower.runtimeChecks = false;
  lower.checkHandler = options.checkHandler;
  buildLowerToCPUPipeline(pm, lower);
  return success();
}

LogicalResult mlir::linea::buildCompilePipeline(OpPassManager &pm,
                                                const CompileOptions &options,
                                                llvm::raw_ostream &errors) {
  if (failed(buildCompileFront(pm, options, errors)))
    return failure();
  return buildCompileLowering(pm, options, errors);
}

/// True when only LLVM dialect ops (and the module) are left.
static bool isLoweredToLLVM(ModuleOp module) {
  WalkResult found = module->walk([](Operation *op) {
    if (isa<ModuleOp>(op) || op->getDialect()->getNamespace() == "llvm")
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !found.wasInterrupted();
}

/// Runs the passes `build` adds; its one-line error goes to the module.
static LogicalResult
runStage(ModuleOp module, const CompileOptions &options,
         LogicalResult (*build)(OpPassManager &, const CompileOptions &,
                                llvm::raw_ostream &)) {
  PassManager pm(module.getContext());
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(build(pm, options, errors)))
    return module.emitError() << message;
  return pm.run(module);
}

LogicalResult mlir::linea::runCompilePipeline(ModuleOp module,
                                              const CompileOptions &options) {
  if (failed(runStage(module, options, buildCompileFront)))
    return failure();
  // A pipeline that already reached the LLVM dialect (such as
  // linea-gpu-mapped-to-cpu) is not lowered again.
  if (isLoweredToLLVM(module))
    return success();
  return runStage(module, options, buildCompileLowering);
}

void mlir::linea::registerCompilePipeline() {
  // Registered by hand rather than through PassPipelineRegistration: a
  // nested pipeline or GPU option that does not parse is an error of the
  // pipeline's parser, not a pipeline that fails later.
  registerPassPipeline(
      "linea-compile",
      "The flow linea-run and linea-compile run: the model's assumed sizes "
      "checked, its layers raised, the run-time checks, each op outlined "
      "(CPU), the optimizing pipeline, and the lowering for the target "
      "(linea-lower-to-cpu, or linea-lower-to-nvvm with a cubin)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CompileOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string message;
        llvm::raw_string_ostream errors(message);
        if (failed(buildCompilePipeline(pm, options, errors)))
          return errorHandler("linea-compile: " + message);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(CompileOptions());
      });
  recordPipelineOptions("linea-compile", CompileOptions());
}
