//===- linea-run.cpp - run a Linea program on the CPU ---------------------===//
//
//   linea-run FILE.mlir [--entry NAME] [--pipeline P | --no-optimize]
//             [--no-raise] [--arg A]... [--output-dir DIR] [--repeat N] [--reuse-memory]
//             [--sequence-parallel [--stats]]
//
// --repeat N times N calls after an untimed first one and prints their
// median; --reuse-memory keeps freed buffers for the next call.
//
// Raises model IR into Linea ops (linea-raise, unless --no-raise),
// optimizes (linea-optimize, or P), lowers to the LLVM dialect
// (linea-lower-to-cpu), JIT-compiles with MLIR's ExecutionEngine and calls
// the entry function. Tensor arguments come from .npy files, index and
// integer arguments from the command line; result k is written to
// DIR/result{k}.npy with --output-dir DIR, and without it nothing is written:
// each result's shape, sum and L2 norm are printed instead. Every user error
// is one line on stderr and exit code 1.
//
// Under `mpirun -np P`, --sequence-parallel runs linea-sequence-parallel
// first: each rank takes its rows of the sharded arguments, and rank 0
// writes the full results (SequenceParallel.h). --stats prints the bytes
// each rank's program sent.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#ifdef LINEA_HAVE_MPI
#include "SequenceParallel.h"
#endif
#include "../common/CommandLine.h"
#include "../common/Diagnostics.h"

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Distributed/Passes.h"
#include "linea/Pipelines/Compile.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Transforms/Passes.h"
#include "linea/Target/HostCompile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <malloc.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>

using namespace mlir;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// Set once this process is one rank of a --sequence-parallel job: an error
/// on one rank must stop the others, which would wait for it forever.
bool inJob = false;

[[noreturn]] void die(const Twine &message) {
#ifdef LINEA_HAVE_MPI
  if (inJob) {
    llvm::errs() << "linea-run: error: " << message << "\n";
    linea::run::abortJob();
  }
#endif
  linea::tools::fail("linea-run", message);
}

struct Options {
  linea::tools::ProgramOptions program;
  std::string entry;
  std::vector<std::string> args;
  std::string outputDir; // empty: print a summary of each result, write nothing
  int repeat = 0;
  bool reuseMemory = false;
  bool sequenceParallel = false, stats = false;
};

constexpr const char *kUsage =
    "usage: linea-run FILE.mlir [--entry NAME] [--pipeline P | --no-optimize] "
    "[--no-raise] [--arg A]... [--output-dir DIR] [--repeat N] [--reuse-memory] "
    "[--sequence-parallel [--stats]] [--version]; result k goes to "
    "DIR/result{k}.npy, and without --output-dir nothing is written (each "
    "result's shape, sum and L2 norm are printed)";

Options parseOptions(int argc, char **argv) {
  Options options;
  linea::tools::Arguments arguments("linea-run", kUsage, argc, argv);
  auto value = [&](StringRef flag) { return arguments.value(flag); };
  while (arguments.next()) {
    if (auto v = value("--entry")) {
      options.entry = *v;
    } else if (auto v = value("--arg")) {
      options.args.push_back(*v);
    } else if (auto v = value("--output-dir")) {
      options.outputDir = *v;
    } else if (auto v = value("--repeat")) {
      if (StringRef(*v).getAsInteger(10, options.repeat) || options.repeat < 1)
        die("--repeat needs a positive integer, got '" + *v + "'");
    } else if (arguments.current() == "--reuse-memory") {
      options.reuseMemory = true;
    } else if (arguments.current() == "--sequence-parallel") {
      options.sequenceParallel = true;
    } else if (arguments.current() == "--stats") {
      options.stats = true;
    } else {
      options.program.take(arguments, "linea-run", kUsage);
    }
  }
  if (options.program.file.empty())
    die(Twine("no input file; ") + kUsage);
  options.program.check("linea-run");
  if (options.stats && !options.sequenceParallel)
    die("--stats counts the bytes of a --sequence-parallel run; add "
        "--sequence-parallel");
  return options;
}

func::FuncOp findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      die("no function @" + name + " with a body in the module");
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() != 1)
    die("the module has " + Twine(candidates.size()) +
        " public functions; name one with --entry");
  return candidates.front();
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// One argument or result as the packed calling convention sees it: a
/// memref descriptor {allocated, aligned, offset, sizes[r], strides[r]} or
/// a scalar, each field in an 8-byte slot.
struct Slots {
  std::vector<int64_t> words;
};

/// A bound argument: the storage its descriptor points into.
struct BoundArg {
  linea::npy::Array array;
  /// An i32 tensor's elements, narrowed from the file's.
  std::vector<int32_t> narrowed;
  Slots slots;
};

Slots tensorDescriptor(const void *data, ArrayRef<int64_t> shape) {
  Slots slots;
  auto pointer = reinterpret_cast<int64_t>(data);
  slots.words = {pointer, pointer, 0};
  llvm::append_range(slots.words, shape);
  int64_t stride = 1;
  SmallVector<int64_t> strides(shape.size());
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  llvm::append_range(slots.words, strides);
  return slots;
}

Slots scalarSlot(Type type, StringRef text, int index) {
  Slots slots;
  if (type.isIndex() || type.isSignlessInteger()) {
    int64_t value;
    if (text.getAsInteger(10, value))
      die("argument " + Twine(index) + ": expected an integer for " +
          typeString(type) + ", given '" + text + "'");
    slots.words = {value};
    return slots;
  }
  if (type.isF32()) {
    double value;
    if (text.getAsDouble(value))
      die("argument " + Twine(index) + ": expected a number for f32, given '" +
          text + "'");
    float narrow = static_cast<float>(value);
    int64_t word = 0;
    std::memcpy(&word, &narrow, sizeof(float));
    slots.words = {word};
    return slots;
  }
  die("argument " + Twine(index) + " has type " + typeString(type) +
      ", which linea-run cannot bind");
}

/// `value` rounded to the nearest `semantics` value (ties to even), as bits.
uint16_t roundTo(const llvm::fltSemantics &semantics, float value) {
  llvm::APFloat rounded(value);
  bool lost;
  rounded.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(rounded.bitcastToAPInt().getZExtValue());
}

float widen(const llvm::fltSemantics &semantics, uint16_t bits) {
  return llvm::APFloat(semantics, llvm::APInt(16, bits)).convertToFloat();
}

/// The 16-bit float semantics of `type`, if it is f16 or bf16.
const llvm::fltSemantics *halfSemantics(Type type) {
  if (type.isF16())
    return &llvm::APFloat::IEEEhalf();
  if (type.isBF16())
    return &llvm::APFloat::BFloat();
  return nullptr;
}

/// The array's elements in the signature's element type: f32 as read
/// (a float16 file widened exactly), f16 from a float16 file as is, and
/// otherwise (bf16 always: numpy has none) rounded to nearest even.
void convertElements(linea::npy::Array &array, Type element,
                     const std::string &what) {
  const llvm::fltSemantics *half = halfSemantics(element);
  if (!half) {
    if (array.isHalf) {
      for (uint16_t bits : array.halves)
        array.data.push_back(widen(llvm::APFloat::IEEEhalf(), bits));
      array.halves.clear();
      array.isHalf = false;
    }
    return;
  }
  if (array.isHalf && element.isF16())
    return;
  if (array.isHalf) {
    for (uint16_t bits : array.halves)
      array.data.push_back(widen(llvm::APFloat::IEEEhalf(), bits));
    array.halves.clear();
  }
  if (element.isF16())
    llvm::errs() << "linea-run: warning: " << what
                 << ": rounded to float16\n";
  for (float value : array.data)
    array.halves.push_back(roundTo(*half, value));
  array.data.clear();
  array.isHalf = true;
}

/// An i32, i64 or index tensor (token ids, a packed sequence's offsets)
/// from an int32 or int64 file; an i32 element past 32 bits is an error,
/// never wrapped. Index is 64-bit on the host.
void bindIntegers(BoundArg &bound, Type element, const std::string &what) {
  if (!bound.array.isInteger)
    die(what + ": expected an int32 or int64 array for " +
        typeString(element) + " elements, given floats");
  if (element.isInteger(64) || element.isIndex()) {
    bound.slots = tensorDescriptor(bound.array.integers.data(),
                                   bound.array.shape);
    return;
  }
  for (int64_t value : bound.array.integers) {
    if (value != int64_t(int32_t(value)))
      die(what + ": " + Twine(value) + " does not fit the signature's i32");
    bound.narrowed.push_back(int32_t(value));
  }
  bound.slots = tensorDescriptor(bound.narrowed.data(), bound.array.shape);
}

BoundArg bindTensor(RankedTensorType type, StringRef path, int index) {
  std::string what = ("argument " + Twine(index) + " (" + path + ")").str();
  Type element = type.getElementType();
  bool integer = element.isSignlessInteger(32) ||
                 element.isSignlessInteger(64) || element.isIndex();
  if (!element.isF32() && !halfSemantics(element) && !integer)
    die(what + ": linea-run binds f32, f16, bf16, i32, i64 and index tensors, "
               "the signature has " +
        typeString(type));
  auto array = linea::npy::read(path);
  if (!array)
    die(what + ": " + llvm::toString(array.takeError()));
  bool matches = array->shape.size() == size_t(type.getRank());
  for (int64_t i = 0; matches && i < type.getRank(); ++i)
    matches = type.isDynamicDim(i) || type.getDimSize(i) == array->shape[i];
  if (!matches)
    die(what + ": expected " + typeString(type) + ", given shape " +
        linea::npy::formatShape(array->shape));
  if (integer) {
    BoundArg bound{std::move(*array), {}, {}};
    bindIntegers(bound, element, what);
    return bound;
  }
  if (array->isInteger)
    die(what + ": expected a float array for " + typeString(type) +
        ", given integers");
  if (array->convertedFromF64)
    llvm::errs() << "linea-run: warning: " << what
                 << ": float64 converted to float32\n";
  convertElements(*array, element, what);
  BoundArg bound{std::move(*array), {}, {}};
  bound.slots = tensorDescriptor(bound.array.isHalf
                                     ? static_cast<const void *>(
                                           bound.array.halves.data())
                                     : bound.array.data.data(),
                                 bound.array.shape);
  return bound;
}

/// A result descriptor read back from the packed result buffer; `half` the
/// semantics of 16-bit elements, null for f32.
struct ResultView {
  void *allocated;
  void *aligned;
  int64_t offset;
  SmallVector<int64_t> sizes, strides;
  const llvm::fltSemantics *half = nullptr;

  float element(int64_t position) const {
    if (!half)
      return static_cast<const float *>(aligned)[position];
    return widen(*half, static_cast<const uint16_t *>(aligned)[position]);
  }
};

SmallVector<ResultView> readResults(ArrayRef<int64_t> words,
                                    ArrayRef<RankedTensorType> types) {
  SmallVector<ResultView> views;
  size_t at = 0;
  for (RankedTensorType type : types) {
    int64_t rank = type.getRank();
    ResultView view;
    view.allocated = reinterpret_cast<void *>(words[at]);
    view.aligned = reinterpret_cast<void *>(words[at + 1]);
    view.half = halfSemantics(type.getElementType());
    view.offset = words[at + 2];
    view.sizes.assign(words.begin() + at + 3, words.begin() + at + 3 + rank);
    view.strides.assign(words.begin() + at + 3 + rank,
                        words.begin() + at + 3 + 2 * rank);
    views.push_back(std::move(view));
    at += 3 + 2 * rank;
  }
  return views;
}

/// Copies a strided result into a dense row-major vector.
std::vector<float> gather(const ResultView &view) {
  int64_t count = 1;
  for (int64_t size : view.sizes)
    count *= size;
  std::vector<float> dense(count);
  SmallVector<int64_t> index(view.sizes.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t position = view.offset;
    for (size_t d = 0; d < index.size(); ++d)
      position += index[d] * view.strides[d];
    dense[flat] = view.element(position);
    for (int64_t d = index.size() - 1; d >= 0; --d) {
      if (++index[d] < view.sizes[d])
        break;
      index[d] = 0;
    }
  }
  return dense;
}

/// The result's elements in row-major order (16-bit ones widened exactly),
/// without a copy when they are f32 and dense (the common case: a fresh
/// identity-layout buffer).
ArrayRef<float> denseElements(const ResultView &view,
                              std::vector<float> &scratch) {
  int64_t count = 1, expectedStride = 1;
  bool dense = true;
  for (int64_t d = view.sizes.size() - 1; d >= 0; --d) {
    count *= view.sizes[d];
    dense &= view.sizes[d] == 1 || view.strides[d] == expectedStride;
    expectedStride *= view.sizes[d];
  }
  if (dense && !view.half)
    return ArrayRef<float>(static_cast<const float *>(view.aligned) + view.offset,
                           count);
  scratch = gather(view);
  return scratch;
}

/// Frees result buffers the JIT code allocated (not the caller's inputs,
/// not one buffer twice).
void freeResults(ArrayRef<ResultView> views,
                 const llvm::DenseSet<void *> &inputs) {
  llvm::DenseSet<void *> freed;
  for (const ResultView &view : views)
    if (!inputs.contains(view.allocated) && freed.insert(view.allocated).second)
      std::free(view.allocated);
}

} // namespace

/// A failed run-time check (cf.assert, lowered upstream to `puts(message)`
/// then `abort()`) becomes linea-run's one-line error and exit code 1,
/// before any result is written: the JIT-compiled code's `puts` and `abort`
/// resolve to these. Nothing else Linea generates calls either.
static int printFailedCheck(const char *message) {
  llvm::errs() << "linea-run: run-time check failed: " << message << "\n";
  return 0;
}
[[noreturn]] static void stopAfterFailedCheck() {
  llvm::errs().flush();
#ifdef LINEA_HAVE_MPI
  if (inJob)
    linea::run::abortJob();
#endif
  std::_Exit(1);
}
static void interceptFailedChecks(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("puts")] = {
        llvm::orc::ExecutorAddr::fromPtr(&printFailedCheck),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("abort")] = {
        llvm::orc::ExecutorAddr::fromPtr(&stopAfterFailedCheck),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

// Linea's GPU emulation library (runtime/LineaGpuEmulation.cpp): what
// linea-emulate-gpu-threads' code calls for warp instructions.
extern "C" {
void linea_gpu_emu_begin_block(int64_t threads);
void linea_gpu_emu_join(int64_t thread, int64_t teamSize);
void linea_gpu_emu_barrier(int64_t thread);
void linea_gpu_emu_ldmatrix(int64_t thread, int64_t tiles, int64_t transpose,
                            int64_t row, int64_t out);
void linea_gpu_emu_mma_m16n8k16(int64_t thread, int64_t bf16, int64_t a,
                                int64_t b, int64_t c);
void linea_gpu_emu_shared_window(int64_t base, int64_t bytes);
void linea_gpu_emu_wgmma(int64_t thread, int64_t n, int64_t bf16,
                         int64_t transposeA, int64_t transposeB,
                         int64_t descriptorA, int64_t descriptorB,
                         int64_t accumulators);
int64_t linea_gpu_emu_tensor_map(int64_t rank, int64_t address,
                                 int64_t elementBytes, int64_t swizzle,
                                 int64_t fields);
int64_t linea_gpu_emu_mbarrier_group(int64_t site, int64_t count);
void linea_gpu_emu_mbarrier_init(int64_t group, int64_t index, int64_t count);
void linea_gpu_emu_mbarrier_arrive_expect_tx(int64_t group, int64_t index,
                                             int64_t bytes);
void linea_gpu_emu_mbarrier_wait_parity(int64_t group, int64_t index,
                                        int64_t parity);
void linea_gpu_emu_tma_load(int64_t map, int64_t destination, int64_t group,
                            int64_t index, int64_t coordinates);
}

static void provideGpuEmulation(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto provide = [&](llvm::StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    provide("linea_gpu_emu_begin_block", &linea_gpu_emu_begin_block);
    provide("linea_gpu_emu_join", &linea_gpu_emu_join);
    provide("linea_gpu_emu_barrier", &linea_gpu_emu_barrier);
    provide("linea_gpu_emu_ldmatrix", &linea_gpu_emu_ldmatrix);
    provide("linea_gpu_emu_mma_m16n8k16", &linea_gpu_emu_mma_m16n8k16);
    provide("linea_gpu_emu_shared_window", &linea_gpu_emu_shared_window);
    provide("linea_gpu_emu_wgmma", &linea_gpu_emu_wgmma);
    provide("linea_gpu_emu_tensor_map", &linea_gpu_emu_tensor_map);
    provide("linea_gpu_emu_mbarrier_group", &linea_gpu_emu_mbarrier_group);
    provide("linea_gpu_emu_mbarrier_init", &linea_gpu_emu_mbarrier_init);
    provide("linea_gpu_emu_mbarrier_arrive_expect_tx",
            &linea_gpu_emu_mbarrier_arrive_expect_tx);
    provide("linea_gpu_emu_mbarrier_wait_parity",
            &linea_gpu_emu_mbarrier_wait_parity);
    provide("linea_gpu_emu_tma_load", &linea_gpu_emu_tma_load);
    return symbols;
  });
}

/// The sharded dim of argument or result attributes, if any.
std::optional<int64_t> shardedDim(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  if (auto dim = attrs.getAs<IntegerAttr>(linea::kShardedDimAttrName))
    return dim.getInt();
  return std::nullopt;
}

#ifdef LINEA_HAVE_MPI
/// linea-sequence-parallel on the module, then this rank's rows of every
/// argument it shards (the full arrays were checked against the original
/// signature already).
void shardArguments(ModuleOp module, func::FuncOp entry,
                    std::deque<BoundArg> &bound, const linea::run::Job &job) {
  PassManager distribute(module.getContext());
  distribute.addPass(linea::createLineaSequenceParallel());
  if (failed(distribute.run(module)))
    std::exit(1);
  for (auto [k, arg] : llvm::enumerate(bound)) {
    std::optional<int64_t> dim = shardedDim(entry.getArgAttrDict(k));
    if (!dim)
      continue;
    if (arg.array.isHalf)
      die("argument " + Twine(k) + ": --sequence-parallel splits f32 "
          "tensors only");
    arg.array.data = linea::run::takeRows(arg.array.data, arg.array.shape,
                                          *dim, job);
    arg.slots = tensorDescriptor(arg.array.data.data(), arg.array.shape);
  }
}
#endif

int main(int argc, char **argv) {
  // First: the option check looks passes up by name.
  registerAllPasses();
  linea::registerAllPasses();
  Options options = parseOptions(argc, argv);
#ifdef LINEA_HAVE_MPI
  linea::run::Job job;
  if (options.sequenceParallel) {
    job = linea::run::beginJob();
    inJob = true;
  }
#else
  if (options.sequenceParallel)
    die("--sequence-parallel needs MPI, and this linea-run was built "
        "without it (install libopenmpi-dev and rebuild)");
#endif

  DialectRegistry registry;
  registry.insert<linea::LineaDialect, linea::tm_tensor::TMTensorDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    linea::tools::printDiagnostic("linea-run", diag);
    return success();
  });

  if (!llvm::sys::fs::exists(options.program.file))
    die("cannot open input file '" + options.program.file + "'");
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(options.program.file, &context);
  if (!module)
    return 1;

  func::FuncOp entry = findEntry(*module, options.entry);
  std::string entryName = entry.getSymName().str();
  FunctionType signature = entry.getFunctionType();
  if (options.args.size() != signature.getNumInputs())
    die("@" + entryName + " takes " + Twine(signature.getNumInputs()) +
        " arguments, given " + Twine(options.args.size()) + " --arg");
  for (auto [k, type] : llvm::enumerate(signature.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || (!tensor.getElementType().isF32() &&
                    !halfSemantics(tensor.getElementType())))
      die("result " + Twine(k) + " has type " + typeString(type) +
          "; linea-run returns f32, f16 and bf16 tensors");
  }

  // Bind every argument before compiling so bad input fails fast.
  std::deque<BoundArg> bound;
  for (auto [k, type] : llvm::enumerate(signature.getInputs())) {
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      bound.push_back(bindTensor(tensor, options.args[k], k));
      // The callee must not write into the caller's arrays: with --repeat
      // every call sees the same inputs.
      entry.setArgAttr(k, "bufferization.writable",
                       BoolAttr::get(&context, false));
    } else {
      bound.push_back(BoundArg{{}, {}, scalarSlot(type, options.args[k], k)});
    }
  }

#ifdef LINEA_HAVE_MPI
  if (options.sequenceParallel)
    shardArguments(*module, entry, bound, job);
#endif
  // The result ranks (a sharded result's sequence dim is dynamic now).
  SmallVector<RankedTensorType> resultTypes;
  SmallVector<std::optional<int64_t>> resultShards;
  for (auto [k, type] : llvm::enumerate(entry.getFunctionType().getResults())) {
    resultTypes.push_back(cast<RankedTensorType>(type));
    resultShards.push_back(shardedDim(entry.getResultAttrDict(k)));
  }

  linea::CompileOptions flow;
  options.program.configure(flow);
  if (failed(linea::runCompilePipeline(*module, flow)))
    return 1;

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto hostMachine = linea::createHostTargetMachine();
  if (!hostMachine)
    die("cannot create a target machine for the host CPU: " +
        llvm::toString(hostMachine.takeError()));
  llvm::TargetMachine *machine = hostMachine->get();
  auto transformer = [machine](llvm::Module *module) {
    return linea::optimizeHostModule(*module, machine);
  };
  // memref.copy of non-contiguous views lowers to a call into MLIR's C
  // runner utilities.
  // The OpenMP runtime serves the parallel loops of the CPU lowering.
  SmallVector<StringRef> sharedLibs = {LINEA_C_RUNNER_UTILS,
                                       LINEA_OPENMP_RUNTIME};
  ExecutionEngineOptions engineOptions;
  engineOptions.sharedLibPaths = sharedLibs;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*module, engineOptions,
                                        std::move(*hostMachine));
  if (!engine)
    die("JIT compilation failed: " + llvm::toString(engine.takeError()));
  interceptFailedChecks(**engine);
  provideGpuEmulation(**engine);
#ifdef LINEA_HAVE_MPI
  // The program's all-reduces count their bytes for --stats.
  if (options.sequenceParallel)
    (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      symbols[interner("MPI_Allreduce")] = {
          llvm::orc::ExecutorAddr::fromPtr(linea::run::countingAllreduce()),
          llvm::JITSymbolFlags::Exported};
      return symbols;
    });
#endif

  SmallVector<void *> packed;
  llvm::DenseSet<void *> inputBuffers;
  for (BoundArg &arg : bound) {
    for (int64_t &word : arg.slots.words)
      packed.push_back(&word);
    if (!arg.array.data.empty())
      inputBuffers.insert(arg.array.data.data());
    if (!arg.array.halves.empty())
      inputBuffers.insert(arg.array.halves.data());
  }
  size_t resultWords = 0;
  for (RankedTensorType type : resultTypes)
    resultWords += 3 + 2 * type.getRank();
  std::vector<int64_t> resultBuffer(std::max<size_t>(resultWords, 1));
  if (!resultTypes.empty())
    packed.push_back(resultBuffer.data());

  // glibc maps every large block afresh and unmaps it when freed, so each
  // run would pay the page faults of new result buffers; kept in the heap,
  // the buffers one run frees serve the next.
  if (options.reuseMemory) {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  }
  // With --repeat, one untimed call first: the first call resolves the
  // JIT's symbols, starts the OpenMP runtime and touches fresh memory.
  int runs = options.repeat > 0 ? options.repeat + 1 : 1;
  std::vector<double> millis;
  SmallVector<ResultView> views;
  for (int run = 0; run < runs; ++run) {
    if (run > 0)
      freeResults(views, inputBuffers);
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = (*engine)->invokePacked(entryName, packed))
      die("cannot call @" + entryName + ": " + llvm::toString(std::move(error)));
    auto stop = std::chrono::steady_clock::now();
    if (run > 0 || runs == 1)
      millis.push_back(
          std::chrono::duration<double, std::milli>(stop - start).count());
    views = readResults(resultBuffer, resultTypes);
  }

  bool writes = true;
#ifdef LINEA_HAVE_MPI
  writes = job.rank == 0;
#endif
  // Results go to files only where --output-dir says; without it, one line
  // per result (its shape, sum and L2 norm) and no file.
  bool toFiles = !options.outputDir.empty();
  if (writes && toFiles && !llvm::sys::fs::is_directory(options.outputDir))
    if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir))
      die("cannot create output directory '" + options.outputDir +
          "': " + ec.message());
  for (auto [k, view] : llvm::enumerate(views)) {
    std::vector<float> scratch;
    ArrayRef<float> elements = denseElements(view, scratch);
    SmallVector<int64_t> shape(view.sizes);
#ifdef LINEA_HAVE_MPI
    // Every rank's rows to rank 0, in rank order.
    std::vector<float> full;
    if (resultShards[k]) {
      full = linea::run::gatherRows(elements, shape, *resultShards[k], job);
      elements = full;
    }
#endif
    if (!writes)
      continue;
    if (!toFiles) {
      double sum = 0, squares = 0;
      for (float value : elements) {
        sum += value;
        squares += double(value) * value;
      }
      std::string dims;
      for (int64_t size : shape)
        dims += (dims.empty() ? "" : "x") + std::to_string(size);
      llvm::outs() << "result" << k << ": shape " << (dims.empty() ? "()" : dims)
                   << llvm::format(", sum %.6f, l2 %.6f\n", sum, std::sqrt(squares));
      continue;
    }
    llvm::SmallString<256> path(options.outputDir);
    llvm::sys::path::append(path, "result" + std::to_string(k) + ".npy");
    // f16 as float16 (exact); bf16, which numpy lacks, as float32 (exact).
    std::vector<uint16_t> halves;
    if (resultTypes[k].getElementType().isF16())
      for (float value : elements)
        halves.push_back(roundTo(llvm::APFloat::IEEEhalf(), value));
    llvm::Error error =
        resultTypes[k].getElementType().isF16()
            ? linea::npy::writeHalf(path, shape, halves)
            : linea::npy::write(path, shape, elements);
    if (error)
      die(llvm::toString(std::move(error)));
  }
  freeResults(views, inputBuffers);

  if (options.repeat > 0 && writes) {
    std::sort(millis.begin(), millis.end());
    llvm::outs() << llvm::format("median %.3f ms over %d runs\n",
                                 millis[millis.size() / 2], options.repeat);
  }
#ifdef LINEA_HAVE_MPI
  if (options.stats)
    linea::run::printBytesSent(job, runs);
  if (options.sequenceParallel)
    linea::run::endJob();
#endif
  return 0;
}
