//===- Diagnostics.h - one line per diagnostic, for the tools ---*- C++ -*-===//
//
// linea-run and linea-compile print every error, warning and remark as one
// line, `TOOL: SEVERITY: file:l:c: message` (notes dropped): a pass's
// `explain=1` remarks reach the user through either tool.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TOOLS_COMMON_DIAGNOSTICS_H
#define LINEA_TOOLS_COMMON_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>

namespace mlir::linea::tools {

/// Prints `diag` as one line: `TOOL: error: file:l:c: msg`.
inline void printDiagnostic(llvm::StringRef tool, Diagnostic &diag) {
  llvm::StringRef severity = "error";
  if (diag.getSeverity() == DiagnosticSeverity::Warning)
    severity = "warning";
  else if (diag.getSeverity() == DiagnosticSeverity::Remark)
    severity = "remark";
  else if (diag.getSeverity() == DiagnosticSeverity::Note)
    return;
  std::string where;
  if (auto fileLoc = diag.getLocation()->findInstanceOf<FileLineColLoc>())
    where = (fileLoc.getFilename().str() + ":" +
             std::to_string(fileLoc.getLine()) + ":" +
             std::to_string(fileLoc.getColumn()) + ": ");
  std::string message = diag.str();
  std::replace(message.begin(), message.end(), '\n', ' ');
  llvm::errs() << tool << ": " << severity << ": " << where << message << "\n";
}

} // namespace mlir::linea::tools

#endif // LINEA_TOOLS_COMMON_DIAGNOSTICS_H
