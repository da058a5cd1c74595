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
#include "Interface.h"
#include "linea/Conversion/Passes.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/TMTensor.h"
#include "linea/Distributed/Passes.h"
#include "linea/Pipelines/Compile.h"
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
using namespace mlir::linea::compile;

namespace {

[[noreturn]] void die(const llvm::Twine &message) {
  linea::tools::fail("linea-compile", message);
}

struct Options {
  linea::tools::ProgramOptions program;
  std::string output;
  std::vector<std::string> entries;
  std::string target = "cpu";
  std::string chip = linea::kDefaultGPUChip.str();
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
  if (!linea::parseChip(options.chip))
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

  // Each run-time check calls the shim's `linea_check_failed(message)`:
  // inside a `linea_checked_F` call it returns the error to the caller; a
  // direct `_mlir_ciface_F` call prints the message and aborts.
  linea::CompileOptions flow;
  options.program.configure(flow);
  flow.checkHandler = "linea_check_failed";
  if (options.cuda()) {
    flow.target = linea::TargetKind::gpu;
    flow.chip = options.chip;
    flow.gpuOptions = options.gpuOptions;
  }
  if (failed(linea::runCompilePipeline(*module, flow)))
    return 1;

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
  writeManifest(manifest, signatures, options.target,
                options.cuda() ? std::optional<StringRef>(options.chip)
                               : std::nullopt);

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
