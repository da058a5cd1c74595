//===- OptionCheck.h - pass options checked before MLIR parses them -*- C++ -*-===//
//
// MLIR's pass-option parser prints `<Pass-Options-Parser>: no such option X`
// and a line or two more. Linea's tools check a pipeline first and say, in
// one line, which pass or option is unknown, the nearest valid spelling and
// the valid options.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_PIPELINES_OPTIONCHECK_H
#define LINEA_PIPELINES_OPTIONCHECK_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::detail {
class PassOptions;
} // namespace mlir::detail

namespace mlir::linea {

/// Records the options of the pipeline `name` (every option `options`
/// declares), for the checks below: each of Linea's pipelines records its
/// own where it is registered.
void recordPipelineOptions(llvm::StringRef name,
                           const mlir::detail::PassOptions &options);

/// Why the textual pipeline (`linea-optimize{chunk-size=64}`,
/// `builtin.module(func.func(linea-raise))`) would not parse: an unknown pass
/// or pipeline, or an unknown option of one of Linea's, as one line naming
/// the nearest valid spelling. Nothing when it looks right (MLIR's parser
/// still has the last word on values and on upstream passes' options).
std::optional<std::string> diagnosePipeline(llvm::StringRef pipeline);

/// The same for one pass or pipeline and its options text
/// (`chunk-size=64 explain=1`), as `--NAME=OPTIONS` gives them.
std::optional<std::string> diagnosePassOptions(llvm::StringRef name,
                                               llvm::StringRef options);

} // namespace mlir::linea

#endif // LINEA_PIPELINES_OPTIONCHECK_H
