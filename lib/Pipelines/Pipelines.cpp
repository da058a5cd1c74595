//===- Pipelines.cpp - Linea's named pass pipelines -----------------------===//

#include "linea/Pipelines/Pipelines.h"
#include "linea/Pipelines/Compile.h"
#include "linea/Pipelines/OptionCheck.h"

#include "linea/Bufferization/Passes.h"
#include "linea/CPU/Passes.h"
#include "linea/Conversion/Passes.h"
#include "linea/Distributed/Passes.h"
#include "linea/Forms/Passes.h"
#include "linea/Raise/Passes.h"
#include "linea/GPU/Passes.h"
#include "linea/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace mlir::linea {
/// linea-optimize's passes. `lineaKernels` says who compiles the result:
/// Linea's own lowering gets each GPU sequence as one block's program
/// (linea-distribute-sequences); another compiler (linea-export) gets the
/// forms as plain tensor IR.
static void buildFormsPipeline(OpPassManager &pm,
                               const OptimizeOptions &options,
                               bool lineaKernels) {
  bool distribute = lineaKernels && options.target == TargetKind::gpu;
  // The machine, once: every later pass reads it from the module.
  LineaPlanTargetOptions target;
  target.target = options.target;
  target.chip = options.chip;
  target.targetDescription = options.targetDescription;
  pm.addPass(createLineaPlanTarget(target));
  // Before any rewrite: the checks read the ops' operands as written.
  if (options.runtimeChecks)
    addRuntimeChecks(pm);
  // Packed sequences: every pass after this one sees single sequences.
  LineaSplitSegmentsOptions segments;
  segments.target = options.target;
  segments.handOff = !lineaKernels;
  segments.precision = options.precision;
  pm.addPass(createLineaSplitSegments(segments));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLineaExpandFoldedAttention());
  pm.addPass(createLineaFoldToLoop());
  // The window rows a fold's step does not keep are never computed.
  pm.addPass(createLineaComputeKeptSlices());
  pm.addPass(createLineaSplitPrefix());
  pm.addPass(createCanonicalizerPass());
  LineaSelectFormsOptions select;
  select.target = options.target;
  select.form = options.form;
  select.chunkSize = options.chunkSize;
  select.explain = options.explain;
  pm.addPass(createLineaSelectForms(select));
  // Between the choice of forms and their rewrites: the form is known and
  // the ops still stand as written.
  if (options.markMinimalTraffic)
    pm.addPass(createLineaMarkMinimalTraffic());
  // On the GPU each sequence's chunk loop is one block's program.
  if (distribute)
    pm.addPass(createLineaDistributeSequences());
  pm.addPass(createLineaPrefixToOneShot());
  pm.addPass(createLineaCausalToChunked());
  // Sequence blocks per gated chunk are for Linea's kernels; a receiving
  // compiler maps grids over every chunk itself.
  LineaCausalToChunkParallelOptions chunkParallel;
  chunkParallel.handOff = !lineaKernels;
  pm.addPass(createLineaCausalToChunkParallel(chunkParallel));
  // Softmax attention handed to a GPU compiler stays loop-free (the masked
  // softmax by its definition), for that compiler to tile into kernels of
  // its own: IREE 3.13's CUDA target crashed on the tiles of the GPU plan.
  if (distribute) {
    // The ops flash-attention blocks take; linea-tile-attention the rest.
    LineaFlashAttentionOptions flash;
    flash.precision = options.precision;
    pm.addPass(createLineaFlashAttention(flash));
  }
  if (lineaKernels || options.target == TargetKind::cpu)
    pm.addPass(createLineaTileAttention());
  // The forms above create presums of their own (the gates' log-decays):
  // the cost model picks the scan for those too, then the scans are built.
  pm.addPass(createLineaSelectForms(select));
  // The chunk-parallel form's scan of chunk states: one block per slice.
  if (distribute)
    pm.addPass(createLineaDistributeSequences());
  pm.addPass(createLineaPresumToScan());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
} // namespace mlir::linea

void mlir::linea::addRuntimeChecks(OpPassManager &pm) {
  pm.addPass(createLineaInsertRuntimeChecks());
}

void mlir::linea::buildRaisePipeline(OpPassManager &pm, bool raise,
                                     bool checkAssumedSizes) {
  if (checkAssumedSizes)
    pm.addPass(createLineaCheckAssumedSizes());
  if (raise)
    pm.addNestedPass<func::FuncOp>(createLineaRaise());
}

void mlir::linea::buildOptimizePipeline(OpPassManager &pm,
                                        const OptimizeOptions &options) {
  buildFormsPipeline(pm, options, /*lineaKernels=*/true);
}

void mlir::linea::buildExportPipeline(OpPassManager &pm,
                                      const ExportOptions &options) {
  buildRaisePipeline(pm, options.raise, options.runtimeChecks);
  OptimizeOptions forms;
  forms.target = options.target;
  forms.chip = options.chip;
  // Causal regions handed off without a loop over chunks: another
  // compiler runs each iteration of one as dispatches of its own.
  forms.form = options.form == FormPreference::automatic
                   ? FormPreference::chunk_parallel
                   : FormPreference(options.form);
  forms.chunkSize = options.chunkSize;
  forms.runtimeChecks = options.runtimeChecks;
  buildFormsPipeline(pm, forms, /*lineaKernels=*/false);
  // The chunk states' scan (and any presum left) as masked sums, no loop.
  pm.addPass(createLineaPresumToMaskedSums());
  // What is left of Linea (the forms' own ops, a fold's loop) by its
  // plain definition; elementwise arith on tensors as linalg.
  pm.addPass(createConvertLineaToLinalg());
  pm.addPass(createConvertElementwiseToLinalgPass());
  // Causal products as plain contractions (which the receiver tiles as
  // matmuls) and a mask on their results.
  pm.addPass(createLineaSplitOutputMasks());
  pm.addPass(createLineaChecksToAsserts());
  pm.addPass(createLineaForgetTarget());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The forms' index arithmetic (affine.apply) as arith.
  pm.addPass(createLowerAffinePass());
  // Named linalg ops as linalg.generic: every MLIR parses those, while the
  // named ops differ between versions (IREE 3.13 has no linalg.add). Last:
  // the canonicalizer would erase a generalized copy into a loop's state,
  // which keeps the state's buffer the same through the loop.
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createLineaVerifyExported());
}

/// The run-time checks (linea.check, and cf.assert where a handler takes
/// them) become calls of `handler`, or print and abort. Late, after the
/// parallel loops' bodies lost their memref.alloca_scope: a call in a body
/// would keep the scope, which the CFG of the failure branch cannot live in.
static void addRouteChecks(OpPassManager &pm, StringRef handler) {
  linea::LineaRouteChecksOptions checks;
  checks.handler = handler.str();
  pm.addPass(linea::createLineaRouteChecks(checks));
}

/// Everything left in Linea through the reference lowering, then one-shot
/// bufferization with deallocation: the common front of both targets.
static void buildReferenceToBuffers(OpPassManager &pm,
                                    bool unshareEmpties = false) {
  using namespace mlir::linea;
  pm.addPass(createConvertLineaToLinalg());
  // Elementwise arith on tensors (common in fold bodies) becomes linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  // Accumulators computed in their consumers' memory: a chunk's rows in
  // the output, a sequence's output in its slice of the whole.
  pm.addPass(createLineaUnshareFills());
  // A buffer per writer, which 16-bit buffers can then replace.
  if (unshareEmpties)
    pm.addPass(createLineaUnshareEmpties());
  pm.addPass(createLineaEliminateEmptyOuterFirst());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop whose state cannot stay in one buffer (IR from elsewhere, such
  // as a hand-off's fold loop after CSE shared its temporaries) gets a new
  // buffer per iteration rather than an error.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Identical subviews merge, and copies of a buffer onto itself fold.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Temporaries die inside their loop iteration: a fold over a long input
  // keeps only one window's buffers alive.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createLineaLowerCopies());
}

/// Upstream's NVVM lowering (the passes of gpu-lower-to-nvvm-pipeline),
/// spelled out so that the CUDA toolkit (ptxas, libdevice for exp and
/// friends) is an option rather than whatever the environment says.
static void buildKernelsToBinary(OpPassManager &pm,
                                 const linea::LowerToNVVMOptions &options) {
  // The staged contractions' ldmatrix (nvgpu) becomes NVVM first, as in
  // upstream's pipeline.
  pm.addPass(createConvertNVGPUToNVVMPass());
  // Constants and index arithmetic move into the kernels rather than
  // becoming kernel arguments (divisions by constants stay cheap).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // A model's constant weights are read from the kernels' modules (device
  // memory), not through the host's addresses.
  pm.addPass(linea::createLineaSinkConstantGlobals());
  // Kernels named after what they compute, for profiles and the report.
  pm.addPass(linea::createLineaNameKernels());
  pm.addPass(createGpuKernelOutliningPass());
  // Outlining copies the staged slices' workgroup globals into the kernels'
  // modules; the host's originals, now unused, go.
  pm.addPass(createSymbolDCEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(linea::createLineaLaunchBounds());
  if (options.report)
    pm.addPass(linea::createLineaKernelReport());
  pm.addPass(linea::createLineaForgetTarget());
  pm.addPass(createConvertVectorToSCFPass());
  addRouteChecks(pm, options.checkHandler);
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(linea::createLineaExpandDynamicGroups());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = linea::ptxFeaturesForChip(options.chip);
  std::string libdevice = options.cudaPath + "/nvvm/libdevice/libdevice.10.bc";
  if (llvm::sys::fs::exists(libdevice))
    target.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaPath;
  switch (options.format) {
  case linea::BinaryFormat::bin:
    binary.compilationTarget = "bin";
    break;
  case linea::BinaryFormat::isa:
    binary.compilationTarget = "isa";
    break;
  case linea::BinaryFormat::fatbin:
    binary.compilationTarget = "fatbin";
    break;
  }
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// linea-optimize for the GPU, with the form and chunk size the GPU
/// pipelines forward.
static void buildOptimizeForGPU(OpPassManager &pm,
                                const linea::LowerToNVVMOptions &options) {
  linea::OptimizeOptions optimize;
  optimize.target = linea::TargetKind::gpu;
  optimize.form = options.form;
  optimize.chunkSize = options.chunkSize;
  optimize.runtimeChecks = options.runtimeChecks;
  optimize.chip = options.chip;
  optimize.targetDescription = options.targetDescription;
  optimize.markMinimalTraffic = options.report;
  optimize.precision = options.precision;
  linea::buildOptimizePipeline(pm, optimize);
}


/// The model IR's linalg around the Linea ops as the CPU's and the GPU's
/// kernels take it, before those ops lower to linalg of their own:
/// torch-mlir's dynamic-shape idioms made plain, elementwise chains fused
/// into their users (`fuse`: a loop nest or a launch each, not one per
/// op), and projections whose heads the raise folded into the product
/// merged back into the plain matmul that the kernels run (`collapse`).
static void buildModelIRForKernels(OpPassManager &pm, bool fuse,
                                   bool collapse) {
  pm.addNestedPass<func::FuncOp>(linea::createLineaSimplifyFrontEndShapes());
  if (fuse)
    pm.addNestedPass<func::FuncOp>(linea::createLineaFuseElementwise());
  if (collapse)
    pm.addNestedPass<func::FuncOp>(
        linea::createLineaCollapseContractionGroups());
}

/// linea-lower-to-nvvm up to its kernels as gpu.launch ops in the host
/// functions, the part the GPU and the CPU emulation share.
static void buildLaunches(OpPassManager &pm,
                          const linea::LowerToNVVMOptions &options) {
  // The model's assumed sizes before anything canonicalizes them away; the
  // Linea ops' checks come with linea-optimize.
  if (options.runtimeChecks)
    pm.addPass(linea::createLineaCheckAssumedSizes());
  buildOptimizeForGPU(pm, options);
  buildModelIRForKernels(pm, /*fuse=*/true, /*collapse=*/true);
  // A projection's bias, activation and zero fill in its own shape, for its
  // grid to take (a dynamic batch leaves them on reshaped views).
  pm.addNestedPass<func::FuncOp>(
      linea::createLineaEpiloguesInContractionShape());
  buildReferenceToBuffers(pm, /*unshareEmpties=*/true);
  pm.addPass(linea::createLineaExpandFlashAttention());
  linea::LineaContractionsToMMAOptions mma;
  mma.precision = options.precision;
  mma.blockSize = options.blockSize;
  pm.addPass(linea::createLineaContractionsToMMA(mma));
  pm.addPass(linea::createLineaReadAsStored());
  linea::LineaAsyncCopiesOptions async;
  async.blockSize = options.blockSize;
  pm.addPass(linea::createLineaAsyncCopies(async));
  pm.addPass(linea::createLineaStageHostReads());
  pm.addPass(linea::createLineaPaddedWrites());
  linea::LineaRowReductionsOptions rows;
  rows.blockSize = options.blockSize;
  pm.addPass(linea::createLineaRowReductions(rows));
  linea::LineaMapToGPUOptions map;
  map.blockSize = options.blockSize;
  pm.addPass(linea::createLineaMapToGPU(map));
  // Folds the tiled bounds to constants: launch sizes must be known on the
  // host before each launch.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(linea::createLineaSequenceBlocksToLaunch());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(linea::createLineaCheckHostCode());
}

void mlir::linea::buildLowerToNVVMPipeline(OpPassManager &pm,
                                           const linea::LowerToNVVMOptions &options) {
  // Cubins and fat binaries need ptxas: a wrong cuda-path fails here.
  if (options.format != linea::BinaryFormat::isa) {
    LineaRequireCudaToolkitOptions toolkit;
    toolkit.cudaPath = options.cudaPath;
    pm.addPass(linea::createLineaRequireCudaToolkit(toolkit));
  }
  buildLaunches(pm, options);
  pm.addPass(createLineaHostSharedAllocs());
  pm.addPass(createLineaAsyncLaunches());
  pm.addPass(createCanonicalizerPass());
  buildKernelsToBinary(pm, options);
}

/// Loops, vectors and buffers to the LLVM dialect. scf.parallel runs on
/// `threads` OpenMP threads (0: the runtime's default), or in order where
/// `threads` is 1; `openmp`: the IR has OpenMP regions of its own. A failed
/// run-time check calls `checkHandler` (empty: prints and aborts).
static void buildBuffersToLLVM(OpPassManager &pm, unsigned threads = 1,
                               bool openmp = false,
                               StringRef checkHandler = "") {
  pm.addPass(linea::createLineaForgetTarget());
  pm.addPass(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (threads != 1) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = threads;
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
    // Inlines the memref.alloca_scope around each loop body (nothing in it
    // is on the stack), which the CFG of scf-to-cf could not live in.
    pm.addPass(createCanonicalizerPass());
  }
  addRouteChecks(pm, checkHandler);
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  // Math LLVM has no intrinsic for (erf in GELU, tanh, atan) calls libm;
  // vectors of it are unrolled into vector ops, so before their lowering.
  // Arithmetic on 16-bit floats the host has no instructions for runs in
  // f32, one rounding per op as written (LLVM would call compiler-rt's
  // conversions, which libgcc lacks for bf16).
  math::MathExtendToSupportedTypesOptions extendMath;
  pm.addPass(math::createMathExtendToSupportedTypes(extendMath));
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(linea::createLineaExpandDynamicGroups());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 conversions as integer arithmetic: LLVM would otherwise call
  // compiler-rt's __truncsfbf2, which libgcc does not define, and a
  // compiled library would depend on its host process to provide it.
  // (f64 -> bf16, a model's literal, first through f32.)
  pm.addPass(linea::createLineaNarrowTruncations());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // A sequence-parallel program's mpi ops (linea-sequence-parallel).
  pm.addPass(linea::createLineaConvertMPIToLLVM());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (threads != 1 || openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::linea::buildLowerToCPUPipeline(OpPassManager &pm,
                                          const LowerToCPUOptions &options) {
  int64_t vectorWidth =
      options.vectorWidth > 0 ? options.vectorWidth : hostVectorWidth();
  // The checks read the Linea ops (a decayed presum's sizes), so they go in
  // before the vector scans replace any.
  if (options.runtimeChecks)
    addRuntimeChecks(pm);
  // (The merged matmuls are for the register-tiled kernels: only with
  // `vectorize`.)
  buildModelIRForKernels(pm, options.fuseElementwise, options.vectorize);
  if (options.vectorize) {
    LineaVectorizeScansOptions scans;
    scans.vectorWidth = vectorWidth;
    pm.addNestedPass<func::FuncOp>(createLineaVectorizeScans(scans));
  }
  buildReferenceToBuffers(pm);
  // A model's temporaries die with their last reader, not at its return.
  pm.addNestedPass<func::FuncOp>(createLineaFreeAfterLastUse());
  if (options.vectorize) {
    LineaVectorizeContractionsOptions kernels;
    kernels.vectorWidth = vectorWidth;
    kernels.registerRows = options.registerRows != 0 ? options.registerRows
                                                    : hostRegisterRows();
    // Views of constant weights out of the loops around their projections
    // (a fold's steps), so that their packing follows them out.
    pm.addNestedPass<func::FuncOp>(createLoopInvariantCodeMotionPass());
    pm.addNestedPass<func::FuncOp>(createLineaVectorizeContractions(kernels));
    // What is left around the kernels, in rows of vectors; the exps in
    // them are vectors then, for the approximation.
    pm.addNestedPass<func::FuncOp>(createLineaVectorizeElementwise());
    pm.addNestedPass<func::FuncOp>(createLineaApproximateExp());
    pm.addPass(createCanonicalizerPass());
  }
  // Every heap buffer, the kernels' panels included.
  pm.addPass(createLineaCheckAllocations());
  buildBuffersToLLVM(pm, options.threads, /*openmp=*/false, options.checkHandler);
}

void mlir::linea::buildGPUMappedOnCPUPipeline(OpPassManager &pm,
                                              const LowerToNVVMOptions &options) {
  buildLaunches(pm, options);
  pm.addPass(createCanonicalizerPass());
  // Each launch's blocks in order, its threads an OpenMP team where they
  // meet (barriers, warp instructions), loops where they do not.
  pm.addPass(createLineaEmulateGpuThreads());
  buildBuffersToLLVM(pm, /*threads=*/1, /*openmp=*/true, options.checkHandler);
}

/// Registers the pipeline `name` and records its options for the tools'
/// one-line option checks (OptionCheck.h).
template <typename Options>
static void registerPipeline(StringRef name, StringRef description,
                             void (*build)(OpPassManager &, const Options &)) {
  PassPipelineRegistration<Options>(name, description, build);
  linea::recordPipelineOptions(name, Options());
}

void mlir::linea::registerPipelines() {
  registerPipeline<OptimizeOptions>(
      "linea-optimize",
      "Linea's optimizing pipeline: fold loops, prefix splitting, cost-model "
      "form selection, one-shot, chunked, tiled and blocked-scan forms",
      buildOptimizePipeline);
  registerPipeline<ExportOptions>(
      "linea-export",
      "Hand Linea's rewrite to another compiler: raise, choose forms, and "
      "write the result in upstream dialects only (linalg, tensor, scf, "
      "arith, math, cf.assert for the run-time checks)",
      buildExportPipeline);
  registerPipeline<LowerToCPUOptions>(
      "linea-lower-to-cpu",
      "Lower every Linea op (reference forms) and the upstream dialects to "
      "the LLVM dialect, runnable by mlir-runner and linea-run",
      buildLowerToCPUPipeline);
  registerPipeline<LowerToNVVMOptions>(
      "linea-lower-to-nvvm",
      "Lower a Linea program to GPU kernels in a gpu.binary (cubin or PTX) "
      "for a chosen sm_XX, and the host side to GPU runtime calls",
      buildLowerToNVVMPipeline);
  registerPipeline<LowerToNVVMOptions>(
      "linea-gpu-mapped-to-cpu",
      "linea-lower-to-nvvm up to its gpu.launch ops (tensor-core code too, "
      "with precision=f16|bf16), then run on the CPU: each launch's blocks "
      "in order, its threads as loops, or as an OpenMP team where they meet "
      "(barriers, ldmatrix, mma.sync): the kernels checked numerically "
      "where no GPU runs",
      buildGPUMappedOnCPUPipeline);
}

void mlir::linea::registerAllPasses() {
  registerLineaTransformsPasses();
  registerLineaFormsPasses();
  registerLineaRaisePasses();
  registerLineaConversionPasses();
  registerLineaBufferizationPasses();
  registerLineaGPUPasses();
  registerLineaCPUPasses();
  registerLineaDistributedPasses();
  registerPipelines();
  registerCompilePipeline();
}
