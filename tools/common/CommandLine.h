//===- CommandLine.h - what linea-run and linea-compile parse alike -*- C++ -*-===//
//
// Both tools read `--flag value` or `--flag=value`, answer `--help` and
// `--version`, and end every user error as one line and exit code 1.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_COMMON_COMMANDLINE_H
#define LINEA_TOOLS_COMMON_COMMANDLINE_H

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

} // namespace mlir::linea::tools

#endif // LINEA_TOOLS_COMMON_COMMANDLINE_H
