//===- linea-compile.cpp - a Linea program as a shared library ------------===//
//
// linea-compile FILE.mlir -o libNAME.so [--entry F]... [--pipeline P |
//     --no-optimize] [--no-raise] [--target cpu|cuda] [--chip sm_XX]
//     [--options O]
//
// Raises model IR into Linea ops (linea-raise, unless --no-raise),
// optimizes (linea-optimize, or P), lowers for the CPU, compiles for the host
// CPU in-process and links a shared library with the system C compiler.
// With --target cuda the program goes through linea-lower-to-nvvm (for
// --chip, with the pipeline options O): the kernels are embedded as a
// gpu.binary and the host code calls libLineaCudaRuntime.so; tensors are
// device (or managed) memory and results are device memory from the CUDA
// runtime's stream-ordered pool (free them with linea_free_result). Each
// entry function `@f` gets MLIR's C interface, `_mlir_ciface_f`: memrefs are
// passed as pointers to strided descriptors `{allocated, aligned, offset,
// sizes[rank], strides[rank]}`, index arguments as int64_t, and results through
// a pointer to a descriptor (a struct of descriptors for several results)
// passed first. Result buffers are malloc'ed by the library; the caller frees
// `allocated`. Next to the library: `NAME.h` (the C declarations) and
// `NAME.json` (the signature: dtypes and shapes, `?` for dynamic dims).
//
//===----------------------------------------------------------------------===//

#include "../common/CommandLine.h"
#include "../common/Diagnostics.h"
#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Distributed/Passes.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Target/HostCompile.h"
#include "linea/Transforms/Passes.h"
#include "linea/Version.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace mlir;

namespace {

[[noreturn]] void die(const llvm::Twine &message) {
  linea::tools::fail("linea-compile", message);
}

struct Options {
  linea::tools::ProgramOptions program;
  std::string output;
  std::vector<std::string> entries;
  std::string target = "cpu";
  std::string chip = "sm_90a";
  std::string gpuOptions;
  bool chipGiven = false;

  bool sequenceParallel = false;

  bool cuda() const { return target == "cuda"; }
};

constexpr const char *kUsage =
    "usage: linea-compile FILE.mlir -o LIB.so [--entry F]... "
    "[--pipeline P | --no-optimize] [--no-raise] [--target cpu|cuda] [--chip sm_XX] "
    "[--options O] [--sequence-parallel] [--version]";

Options parseOptions(int argc, char **argv) {
  Options options;
  linea::tools::Arguments arguments("linea-compile", kUsage, argc, argv);
  auto value = [&](StringRef flag) { return arguments.value(flag); };
  while (arguments.next()) {
    if (auto v = value("-o")) {
      options.output = *v;
    } else if (auto v = value("--entry")) {
      options.entries.push_back(*v);
    } else if (auto v = value("--target")) {
      options.target = *v;
    } else if (auto v = value("--chip")) {
      options.chip = *v;
      options.chipGiven = true;
    } else if (auto v = value("--options")) {
      options.gpuOptions = *v;
    } else if (arguments.current() == "--sequence-parallel") {
      options.sequenceParallel = true;
    } else {
      options.program.take(arguments, "linea-compile", kUsage);
    }
  }
  if (options.program.file.empty() || options.output.empty())
    die(Twine("an input file and -o are needed; ") + kUsage);
  options.program.check("linea-compile");
  if (options.target != "cpu" && options.target != "cuda")
    die("unknown target '" + options.target + "'; expected cpu or cuda");
  if (options.cuda() &&
      (options.program.noOptimize || options.program.pipelineGiven))
    die("--target cuda runs linea-lower-to-nvvm; give its options with "
        "--options, not --pipeline or --no-optimize");
  if (options.cuda() && options.sequenceParallel)
    die("--sequence-parallel builds for the CPU; drop --target cuda");
  if (!options.cuda() && (options.chipGiven || !options.gpuOptions.empty()))
    die("--chip and --options go with --target cuda");
  if (!llvm::Regex("^sm_[0-9]{2,3}[af]?$").match(options.chip))
    die("bad --chip '" + options.chip + "'; expected sm_XX, e.g. sm_80 or sm_90a");
  for (StringRef own : {"chip=", "format=", "runtime-checks=", "check-handler="})
    if (StringRef(options.gpuOptions).contains(own))
      die("--options may not set '" + own.drop_back() +
          "': linea-compile sets it (use --chip for the chip)");
  if (std::optional<std::string> problem =
          linea::diagnosePassOptions("linea-lower-to-nvvm", options.gpuOptions))
    die("bad --options: " + *problem);
  return options;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The entry functions: those named, or every public function with a body.
SmallVector<func::FuncOp> findEntries(ModuleOp module,
                                      ArrayRef<std::string> names) {
  SmallVector<func::FuncOp> entries;
  for (const std::string &name : names) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      die("no function @" + name + " with a body in the module");
    entries.push_back(func);
  }
  if (names.empty())
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
  if (entries.empty())
    die("the module has no public function to export");
  return entries;
}

/// One argument or result in the manifest and the header.
struct ValueSpec {
  std::string kind; // "tensor" or "scalar"
  std::string dtype;
  SmallVector<int64_t> shape; // ShapedType::kDynamic for `?`
  /// linea-sequence-parallel: the dim split across ranks, if any.
  std::optional<int64_t> shardedDim;
};

std::optional<int64_t> shardedDimIn(DictionaryAttr attrs) {
  if (auto dim = attrs ? attrs.getAs<IntegerAttr>(
                             linea::LineaDialect::kShardedDimAttrName)
                       : IntegerAttr())
    return dim.getInt();
  return std::nullopt;
}

std::string dtypeOf(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isIndex())
    return "index";
  if (auto integer = dyn_cast<IntegerType>(type))
    return "i" + std::to_string(integer.getWidth());
  return "";
}

ValueSpec describe(Type type, const Twine &what) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    // Integer tensors are a model's token ids (an embedding's gather) or a
    // packed sequence's offsets (index: 64-bit on the host).
    std::string dtype = dtypeOf(tensor.getElementType());
    if (!llvm::is_contained({"f32", "f16", "bf16", "i32", "i64", "index"},
                            dtype))
      die(what + " has type " + typeString(type) +
          "; exported functions take f32, f16, bf16, i32, i64 or index "
          "tensors");
    return {"tensor", dtype, SmallVector<int64_t>(tensor.getShape())};
  }
  std::string dtype = dtypeOf(type);
  if (dtype != "index" && dtype != "i64" && dtype != "i32" && dtype != "f32")
    die(what + " has type " + typeString(type) +
        "; exported functions take tensors, index, i32, i64 or f32");
  return {"scalar", dtype, {}};
}

struct Signature {
  std::string name;
  std::vector<ValueSpec> args, results;
};

Signature signatureOf(func::FuncOp func) {
  Signature signature{func.getName().str(), {}, {}};
  FunctionType type = func.getFunctionType();
  for (auto [k, arg] : llvm::enumerate(type.getInputs())) {
    signature.args.push_back(
        describe(arg, "@" + func.getName() + " argument " + Twine(k)));
    signature.args.back().shardedDim = shardedDimIn(func.getArgAttrDict(k));
  }
  for (auto [k, result] : llvm::enumerate(type.getResults())) {
    ValueSpec value =
        describe(result, "@" + func.getName() + " result " + Twine(k));
    if (value.kind != "tensor")
      die("@" + func.getName() + " result " + Twine(k) +
          " is a scalar; exported functions return tensors");
    value.shardedDim = shardedDimIn(func.getResultAttrDict(k));
    signature.results.push_back(value);
  }
  return signature;
}

llvm::json::Value toJSON(const ValueSpec &value) {
  llvm::json::Array shape;
  for (int64_t size : value.shape)
    shape.push_back(ShapedType::isDynamic(size) ? llvm::json::Value("?")
                                                : llvm::json::Value(size));
  return llvm::json::Object{
      {"kind", value.kind},
      {"dtype", value.dtype},
      {"shape", std::move(shape)},
      {"sharded_dim", value.shardedDim ? llvm::json::Value(*value.shardedDim)
                                       : llvm::json::Value(nullptr)}};
}

void writeManifest(StringRef path, ArrayRef<Signature> signatures,
                   const Options &options) {
  llvm::json::Array functions;
  for (const Signature &signature : signatures) {
    llvm::json::Array args, results;
    for (const ValueSpec &v : signature.args)
      args.push_back(toJSON(v));
    for (const ValueSpec &v : signature.results)
      results.push_back(toJSON(v));
    functions.push_back(llvm::json::Object{
        {"name", signature.name},
        {"symbol", "_mlir_ciface_" + signature.name},
        {"args", std::move(args)},
        {"results", std::move(results)}});
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  os << llvm::formatv("{0:2}",
                      llvm::json::Value(llvm::json::Object{
                          {"linea_version", LINEA_VERSION},
                          {"abi", "mlir_ciface"},
                          {"target", options.target},
                          {"chip", options.cuda() ? llvm::json::Value(
                                                        options.chip)
                                                  : llvm::json::Value(nullptr)},
                          {"functions", std::move(functions)}}))
     << "\n";
}

/// `f32[2x?x8]`, `index`: a value as the header's comments and the shim's
/// messages show it.
std::string describe(const ValueSpec &v) {
  if (v.kind != "tensor")
    return v.dtype;
  SmallVector<std::string> dims;
  for (int64_t size : v.shape)
    dims.push_back(ShapedType::isDynamic(size) ? "?" : std::to_string(size));
  return v.dtype + "[" + llvm::join(dims, "x") + "]";
}

std::string cType(StringRef dtype) {
  if (dtype == "f32")
    return "float";
  if (dtype == "f16" || dtype == "bf16")
    return "uint16_t";
  if (dtype == "i32")
    return "int32_t";
  return "int64_t";
}

void writeHeader(StringRef path, StringRef guard, StringRef library,
                 ArrayRef<Signature> signatures) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  os << "// Generated by linea-compile (Linea " << LINEA_VERSION
     << "): the C interface of " << library << ".\n"
     << "// Tensors are strided memref descriptors; results come back through "
        "the\n// first pointer, in buffers the caller frees with "
        "linea_free_result(allocated).\n"
     << "// linea_checked_F checks every argument against the signature "
        "(sizes,\n// row-major contiguous strides, pointers), runs, and "
        "returns 0, or 1 after a\n// failed check (the message: "
        "linea_last_error()). Calling _mlir_ciface_F\n// directly checks "
        "nothing of the arguments, and a failed run-time check\n// prints "
        "its message and aborts.\n"
     << "#ifndef " << guard << "\n#define " << guard
     << "\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  std::set<std::pair<std::string, int64_t>> declared;
  auto descriptor = [&](const ValueSpec &v) {
    std::string name =
        "LineaMemRef_" + v.dtype + "_" + std::to_string(v.shape.size());
    if (declared.insert({v.dtype, v.shape.size()}).second)
      os << "\ntypedef struct {\n  " << cType(v.dtype) << " *allocated;\n  "
         << cType(v.dtype) << " *aligned;\n  int64_t offset;\n  int64_t sizes["
         << v.shape.size() << "];\n  int64_t strides[" << v.shape.size()
         << "];\n} " << name << ";\n";
    return name;
  };
  for (const Signature &signature : signatures) {
    std::vector<std::string> resultTypes;
    for (const ValueSpec &v : signature.results)
      resultTypes.push_back(descriptor(v));
    for (const ValueSpec &v : signature.args)
      if (v.kind == "tensor")
        descriptor(v);
    std::string resultType = resultTypes.empty() ? "" : resultTypes.front();
    if (resultTypes.size() > 1) {
      resultType = signature.name + "_results";
      os << "\ntypedef struct {\n";
      for (auto [k, type] : llvm::enumerate(resultTypes))
        os << "  " << type << " result" << k << ";\n";
      os << "} " << resultType << ";\n";
    }
    std::vector<std::string> params;
    if (!resultType.empty())
      params.push_back(resultType + " *results");
    for (auto [k, v] : llvm::enumerate(signature.args))
      params.push_back(v.kind == "tensor"
                           ? descriptor(v) + " *arg" + std::to_string(k)
                           : cType(v.dtype) + " arg" + std::to_string(k));
    std::string list = llvm::join(params, ", ");
    SmallVector<std::string> args, results;
    for (auto [k, v] : llvm::enumerate(signature.args))
      args.push_back("arg" + std::to_string(k) + ": " + describe(v));
    for (const ValueSpec &v : signature.results)
      results.push_back(describe(v));
    os << "\n// " << signature.name << "(" << llvm::join(args, ", ") << ") -> "
       << (results.size() == 1 ? results.front()
                               : "(" + llvm::join(results, ", ") + ")")
       << "\n// (row-major contiguous tensors; `?` a size given at the call)";
    os << "\nvoid _mlir_ciface_" << signature.name << "(" << list << ");\n"
       << "int linea_checked_" << signature.name << "(" << list << ");\n";
  }
  os << "\nconst char *linea_last_error(void);\n"
     << "void linea_free_result(void *allocated);\n"
     << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif // " << guard << "\n";
}

/// With `cuda`, a driver failure during the call (kept by the runtime
/// library) is an error return too, and results are freed by the runtime.
std::string shimSource(ArrayRef<Signature> signatures, StringRef header,
                       bool cuda) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#include <setjmp.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
     << "#include <string.h>\n#include \"" << header << "\"\n\n";
  if (cuda)
    os << "const char *linea_cuda_take_error(void);\n"
       << "void mgpuMemFree(void *pointer, void *stream);\n"
       << "void linea_free_result(void *allocated) { mgpuMemFree(allocated, "
          "0); }\n\n";
  else
    os << "void linea_free_result(void *allocated) { free(allocated); }\n\n";
  os << "static _Thread_local jmp_buf linea_checked_call;\n"
     << "static _Thread_local int linea_in_checked_call;\n"
     << "static _Thread_local char linea_error[1024];\n\n"
     << "const char *linea_last_error(void) { return linea_error; }\n\n"
     << "void linea_check_failed(const char *message) {\n"
     << "  if (!linea_in_checked_call) {\n"
     << "    fprintf(stderr, \"linea: run-time check failed: %s\\n\", message);\n"
     << "    abort();\n  }\n"
     << "  snprintf(linea_error, sizeof linea_error, \"run-time check failed: "
        "%s\", message);\n"
     << "  longjmp(linea_checked_call, 1);\n}\n";
  // What the compiled code assumes of each tensor, checked before it runs:
  // a descriptor that disagrees would be read out of bounds.
  os << R"C(
static int linea_check_argument(const char *function, int index,
                                const char *type, int rank,
                                const int64_t *expected, const void *descriptor,
                                const void *data, int64_t offset,
                                const int64_t *sizes, const int64_t *strides) {
#define LINEA_FAIL(...)                                                        \
  do {                                                                         \
    int n = snprintf(linea_error, sizeof linea_error,                         \
                     "%s: argument %d (%s) ", function, index, type);          \
    snprintf(linea_error + n, sizeof linea_error - n, __VA_ARGS__);            \
    return 1;                                                                  \
  } while (0)
  if (!descriptor)
    LINEA_FAIL("is a null pointer");
  int empty = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0)
      LINEA_FAIL("has size %lld at dim %d", (long long)sizes[d], d);
    if (expected[d] >= 0 && sizes[d] != expected[d])
      LINEA_FAIL("has size %lld at dim %d, expected %lld", (long long)sizes[d],
                 d, (long long)expected[d]);
    empty |= sizes[d] == 0;
  }
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0 && !empty; --d) {
    if (sizes[d] > 1 && strides[d] != stride)
      LINEA_FAIL("has stride %lld at dim %d, expected %lld (row-major "
                 "contiguous)", (long long)strides[d], d, (long long)stride);
    stride *= sizes[d];
  }
  if (!empty && !data)
    LINEA_FAIL("has no data (a null aligned pointer)");
  if (offset < 0)
    LINEA_FAIL("has offset %lld", (long long)offset);
  return 0;
#undef LINEA_FAIL
}
)C";
  for (const Signature &signature : signatures) {
    SmallVector<std::string> params, names;
    if (!signature.results.empty()) {
      params.push_back(signature.results.size() > 1
                           ? signature.name + "_results *results"
                           : "LineaMemRef_" + signature.results[0].dtype + "_" +
                                 std::to_string(signature.results[0].shape.size()) +
                                 " *results");
      names.push_back("results");
    }
    for (auto [k, v] : llvm::enumerate(signature.args)) {
      std::string name = "arg" + std::to_string(k);
      params.push_back(v.kind == "tensor"
                           ? "LineaMemRef_" + v.dtype + "_" +
                                 std::to_string(v.shape.size()) + " *" + name
                           : cType(v.dtype) + " " + name);
      names.push_back(name);
    }
    os << "\nint linea_checked_" << signature.name << "("
       << llvm::join(params, ", ") << ") {\n"
       << "  linea_error[0] = 0;\n";
    std::string function = "linea_checked_" + signature.name;
    if (!signature.results.empty())
      os << "  if (!results) {\n    snprintf(linea_error, sizeof linea_error, "
         << "\"" << function << ": the results pointer is null\");\n"
         << "    return 1;\n  }\n";
    for (auto [k, v] : llvm::enumerate(signature.args)) {
      if (v.kind != "tensor")
        continue;
      std::string name = "arg" + std::to_string(k);
      SmallVector<std::string> sizes;
      for (int64_t size : v.shape)
        sizes.push_back(std::to_string(ShapedType::isDynamic(size) ? -1 : size));
      // A rank-0 tensor has no sizes to check, only its pointers.
      os << "  static const int64_t " << name << "_shape[] = {"
         << (sizes.empty() ? "0" : llvm::join(sizes, ", ")) << "};\n"
         << "  if (linea_check_argument(\"" << function << "\", " << k
         << ", \"" << describe(v) << "\", " << v.shape.size() << ", " << name
         << "_shape, " << name << ", " << name << " ? " << name
         << "->aligned : 0, " << name << " ? " << name << "->offset : 0, "
         << name << " ? " << name << "->sizes : 0, " << name << " ? " << name
         << "->strides : 0))\n    return 1;\n";
    }
    os << "  if (setjmp(linea_checked_call)) {\n"
       << "    linea_in_checked_call = 0;\n    return 1;\n  }\n"
       << "  linea_in_checked_call = 1;\n";
    if (cuda)
      os << "  linea_cuda_take_error();\n";
    os << "  _mlir_ciface_" << signature.name << "(" << llvm::join(names, ", ")
       << ");\n  linea_in_checked_call = 0;\n";
    if (cuda)
      os << "  const char *failure = linea_cuda_take_error();\n"
         << "  if (failure[0]) {\n    snprintf(linea_error, sizeof "
            "linea_error, \"CUDA: %s\", failure);\n    return 1;\n  }\n";
    os << "  return 0;\n}\n";
  }
  return text;
}

/// linea-lower-to-nvvm with the --options given, for --chip, into a cubin;
/// the run-time checks are already in the module (routed to the shim).
LogicalResult lowerForCUDA(ModuleOp module, const Options &options) {
  // Each run-time check already in the module calls the shim's
  // `linea_check_failed(message)`: inside a `linea_checked_F` call it
  // returns the error to the caller.
  std::string text = options.gpuOptions + " chip=" + options.chip +
                     " format=bin runtime-checks=0 check-handler=linea_check_failed";
  auto lowerOptions = linea::LowerToNVVMOptions::createFromString(text);
  if (!lowerOptions)
    die("bad --options '" + options.gpuOptions +
        "' (linea-lower-to-nvvm's options, e.g. 'precision=bf16')");
  PassManager lower(module.getContext());
  linea::buildLowerToNVVMPipeline(lower, *lowerOptions);
  return lower.run(module);
}

void emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                StringRef path) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out.os(), nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    die("the host target cannot emit object files");
  passes.run(module);
  out.keep();
}

/// Linea's runtime library `file` beside linea-compile's own lib/
/// directory (the build tree and an install tree alike). Missing, an error
/// saying which `option` needs it and which toolkit builds it (`needs`).
std::string runtimeLibrary(const char *argv0, StringRef file, StringRef option,
                           StringRef needs) {
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&runtimeLibrary);
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(path, "lib", file);
  if (!llvm::sys::fs::exists(path))
    die(option + " needs Linea's runtime library '" + path +
        "', which is built only where " + needs + " is installed");
  return path.str().str();
}

/// Links the object and the shim into a shared library with the system C
/// compiler, against `runtimes` (found again at load time through rpaths).
/// On the CPU, MLIR's C runner utilities provide memrefCopy for strided
/// copies and LLVM's OpenMP runtime the threads of parallel loops; with
/// CUDA, Linea's runtime library provides the mgpu* calls.
void link(StringRef object, StringRef shim, StringRef exports,
          StringRef includeDir, StringRef output,
          ArrayRef<std::string> runtimes) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    die("no C compiler ('cc') to link with");
  std::string include = ("-I" + includeDir).str();
  // Only the C interface is exported: the program's own functions (an
  // `@main` among them) bind inside the library, never to the host's.
  std::string versionScript = ("-Wl,--version-script=" + exports).str();
  std::vector<std::string> rpaths;
  for (const std::string &runtime : runtimes)
    rpaths.push_back("-Wl,-rpath," + llvm::sys::path::parent_path(runtime).str());
  SmallVector<StringRef> argv = {*cc,    "-shared", "-fPIC", "-O2",  include,
                                 "-o",   output,    object,  shim,   versionScript,
                                 "-Wl,--no-undefined", "-lm"};
  argv.append(runtimes.begin(), runtimes.end());
  argv.append(rpaths.begin(), rpaths.end());
  std::string message;
  if (llvm::sys::ExecuteAndWait(*cc, argv, std::nullopt, {}, 0, 0, &message))
    die("linking '" + output + "' failed" +
        (message.empty() ? "" : ": " + message));
}

} // namespace

int main(int argc, char **argv) {
  // First: the option check looks passes up by name.
  registerAllPasses();
  linea::registerAllPasses();
  Options options = parseOptions(argc, argv);

  DialectRegistry registry;
  registry.insert<linea::LineaDialect, linea::tm_tensor::TMTensorDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  // Errors, warnings and remarks one line each (a pass's explain=1 remarks
  // reach the caller: linea.compile(..., explain=1) prints them).
  ScopedDiagnosticHandler diagnostics(&context, [](Diagnostic &diag) {
    linea::tools::printDiagnostic("linea-compile", diag);
    return success();
  });

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(options.program.file, &context);
  if (!module)
    return 1;
  // Each rank's rows of the sequences: the signatures below are the
  // rewritten ones, with `sharded_dim` in the manifest.
  if (options.sequenceParallel) {
    PassManager distribute(&context);
    distribute.addPass(linea::createLineaSequenceParallel());
    if (failed(distribute.run(*module)))
      return 1;
  }
  SmallVector<func::FuncOp> entries = findEntries(*module, options.entries);
  SmallVector<Signature> signatures;
  for (func::FuncOp entry : entries) {
    signatures.push_back(signatureOf(entry));
    entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   UnitAttr::get(&context));
    // Callers keep their inputs: the library never writes into them.
    for (unsigned k = 0; k < entry.getNumArguments(); ++k)
      if (isa<RankedTensorType>(entry.getArgument(k).getType()))
        entry.setArgAttr(k, "bufferization.writable",
                         BoolAttr::get(&context, false));
  }

  // The run-time checks come first, so that --no-optimize and any
  // --pipeline get them, and go to the shim instead of aborting.
  PassManager checks(&context);
  // Model IR into Linea ops first: the raised ops get their checks too.
  options.program.addRaiseTo(checks);
  checks.addPass(linea::createLineaInsertRuntimeChecks());
  // On the CPU each op gets a function of its own: compile time linear in
  // the number of ops (the GPU pipeline outlines its kernels instead).
  if (!options.cuda())
    checks.addPass(linea::createLineaOutlineOps());
  if (failed(checks.run(*module)))
    return 1;
  if (options.cuda()) {
    if (failed(lowerForCUDA(*module, options)))
      return 1;
  } else {
    PassManager optimize(&context);
    options.program.addTo(optimize, "linea-compile");
    if (failed(optimize.run(*module)))
      return 1;
    PassManager lower(&context);
    linea::LowerToCPUOptions lowerOptions;
    lowerOptions.runtimeChecks = false;
    // Each run-time check calls the shim's `linea_check_failed(message)`:
    // inside a `linea_checked_F` call it returns the error to the caller; a
    // direct `_mlir_ciface_F` call prints the message and aborts.
    lowerOptions.checkHandler = "linea_check_failed";
    linea::buildLowerToCPUPipeline(lower, lowerOptions);
    if (failed(lower.run(*module)))
      return 1;
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto hostMachine = linea::createHostTargetMachine(/*pic=*/true);
  if (!hostMachine)
    die("cannot create a target machine for the host CPU: " +
        llvm::toString(hostMachine.takeError()));
  std::unique_ptr<llvm::TargetMachine> machine = std::move(*hostMachine);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    die("translation to LLVM IR failed");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error error =
          linea::optimizeHostModule(*llvmModule, machine.get()))
    die("optimizing failed: " + llvm::toString(std::move(error)));

  // libNAME.so -> NAME.h and NAME.json next to it.
  llvm::SmallString<256> stem(options.output);
  llvm::sys::path::replace_extension(stem, "");
  StringRef base = llvm::sys::path::filename(stem);
  StringRef name = base.starts_with("lib") ? base.drop_front(3) : base;
  llvm::SmallString<256> directory(llvm::sys::path::parent_path(stem));
  if (directory.empty())
    directory = ".";
  llvm::SmallString<256> header(directory), manifest(directory);
  llvm::sys::path::append(header, name + ".h");
  llvm::sys::path::append(manifest, name + ".json");
  std::string guard = ("LINEA_" + name.upper() + "_H");
  std::replace_if(guard.begin(), guard.end(),
                  [](char c) { return !llvm::isAlnum(c); }, '_');
  writeHeader(header, guard, llvm::sys::path::filename(options.output),
              signatures);
  writeManifest(manifest, signatures, options);

  llvm::SmallString<128> object, shim, exports;
  if (llvm::sys::fs::createTemporaryFile("linea-compile", "o", object) ||
      llvm::sys::fs::createTemporaryFile("linea-compile-shim", "c", shim) ||
      llvm::sys::fs::createTemporaryFile("linea-compile", "map", exports))
    die("cannot create a temporary file");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(exports, ec);
    if (ec)
      die("cannot write '" + exports + "': " + ec.message());
    os << "{\n  global: _mlir_ciface_*; linea_checked_*; linea_last_error; "
          "linea_free_result;\n"
       << "  local: *;\n};\n";
  }
  // Parallel loops became calls into the OpenMP runtime.
  bool usesOpenMP = llvmModule->getFunction("__kmpc_fork_call") != nullptr;
  emitObject(*llvmModule, *machine, object);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(shim, ec);
    if (ec)
      die("cannot write '" + shim + "': " + ec.message());
    os << shimSource(signatures, llvm::sys::path::filename(header),
                     options.cuda());
  }
  std::vector<std::string> runtimes = {
      options.cuda() ? runtimeLibrary(argv[0], "libLineaCudaRuntime.so",
                                     "--target cuda", "a CUDA toolkit")
                    : LINEA_C_RUNNER_UTILS};
  if (usesOpenMP)
    runtimes.push_back(LINEA_OPENMP_RUNTIME);
  if (options.sequenceParallel) {
    // The all-gather of sequence-parallel code.
    runtimes.push_back(runtimeLibrary(argv[0], "libLineaMpiRuntime.so",
                                      "--sequence-parallel", "MPI"));
#ifdef LINEA_MPI_LIBRARY
    runtimes.push_back(LINEA_MPI_LIBRARY);
#endif
  }
  link(object, shim, exports, directory, options.output, runtimes);
  for (StringRef temporary : {object.str(), shim.str(), exports.str()})
    llvm::sys::fs::remove(temporary);
  return 0;
}
