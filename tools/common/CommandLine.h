//===- CommandLine.h - what linea-run and linea-compile parse alike -*- C++ -*-===//
//
// Both tools read `--flag value` or `--flag=value`, answer `--help` and
// `--version`, take one input file and a choice of pipeline, and end every
// user error as one line and exit code 1.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_COMMON_COMMANDLINE_H
#define LINEA_TOOLS_COMMON_COMMANDLINE_H

#include "linea/Pipelines/Compile.h"
#include "linea/Pipelines/OptionCheck.h"
#include "linea/Pipelines/Pipelines.h"
#include "linea/Version.h"


#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>
#include <string>

namespace mlir::linea::tools {

/// `TOOL: error: MESSAGE` on stderr, exit code 1.
[[noreturn]] inline void fail(llvm::StringRef tool, const llvm::Twine &message) {
  llvm::errs() << tool << ": error: " << message << "\n";
  std::exit(1);
}

/// Walks argv one argument at a time.
class Arguments {
public:
  Arguments(llvm::StringRef tool, llvm::StringRef usage, int argc, char **argv)
      : tool(tool), usage(usage), argc(argc), argv(argv) {}

  /// Moves to the next argument (false at the end); answers --help and
  /// --version on the spot.
  bool next() {
    if (++index >= argc)
      return false;
    if (current() == "--help" || current() == "-h") {
      llvm::outs() << usage << "\n";
      std::exit(0);
    }
    if (current() == "--version") {
      llvm::outs() << tool << " (Linea version " << LINEA_VERSION << ")\n";
      std::exit(0);
    }
    return true;
  }

  llvm::StringRef current() const { return argv[index]; }

  /// The value of `flag` when the current argument is `flag value` or
  /// `flag=value`.
  std::optional<std::string> value(llvm::StringRef flag) {
    if (current() == flag) {
      if (index + 1 >= argc)
        fail(tool, flag + " needs a value");
      return std::string(argv[++index]);
    }
    if (current().starts_with((flag + "=").str()))
      return current().drop_front(flag.size() + 1).str();
    return std::nullopt;
  }

private:
  llvm::StringRef tool, usage;
  int argc;
  char **argv;
  int index = 0;
};

/// The input file and the optimizing pipeline, read alike by both tools:
/// `FILE`, `--pipeline P` (default linea-optimize) or `--no-optimize`, and
/// `--no-raise` (model IR is raised into Linea ops first, by default).
struct ProgramOptions {
  std::string file;
  std::string pipeline =
      mlir::linea::CompileOptions::kDefaultOptimizePipeline.str();
  bool noOptimize = false, pipelineGiven = false, noRaise = false;

  /// Takes the current argument, the tool's own flags being read already:
  /// one of the flags above or the input file; anything else starting with
  /// `-` (but `-`, standard input) is an error naming the usage.
  void take(Arguments &arguments, llvm::StringRef tool, llvm::StringRef usage) {
    llvm::StringRef arg = arguments.current();
    if (arg == "--no-optimize") {
      noOptimize = true;
    } else if (arg == "--no-raise") {
      noRaise = true;
    } else if (auto v = arguments.value("--pipeline")) {
      pipeline = *v;
      pipelineGiven = true;
    } else if (arg.starts_with("-") && arg != "-") {
      fail(tool, "unknown option '" + arg + "'; " + usage);
    } else if (file.empty()) {
      file = arg.str();
    } else {
      fail(tool, "more than one input file ('" + file + "' and '" + arg + "')");
    }
  }

  /// After the last argument: --pipeline and --no-optimize exclude each
  /// other, and a misspelt pass or option is one line naming the right one.
  void check(llvm::StringRef tool) const {
    if (noOptimize && pipelineGiven)
      fail(tool, "--pipeline and --no-optimize exclude each other");
    if (std::optional<std::string> problem = diagnosePipeline(pipeline))
      fail(tool, "bad --pipeline: " + *problem);
  }

  /// The compile flow's raise and optimizing pipeline as given: the raise
  /// unless --no-raise, the pipeline (linea-optimize by default), none with
  /// --no-optimize.
  void configure(mlir::linea::CompileOptions &flow) const {
    flow.raise = !noRaise;
    flow.pipeline = noOptimize ? std::string() : pipeline;
  }
};

} // namespace mlir::linea::tools

#endif // LINEA_TOOLS_COMMON_COMMANDLINE_H
