//===- CostModel.h - which form each op takes ------------------*- C++ -*-===//
//
// Every form decision of the optimizer is made here, from the static dims
// and a target description: for linear attention the one-shot state
// (bidirectional regions, and the recurrent decode step when L = 1), the
// quadratic masked form, and the chunked algorithm at each candidate chunk
// size; for presum the sequential or the blocked scan. The op says which
// forms are legal (FormOpInterface); linea-select-forms records the choice
// as the op's `form` attribute and the rewrites obey it.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_ANALYSIS_COSTMODEL_H
#define LINEA_ANALYSIS_COSTMODEL_H

#include "linea/Dialect/LineaOps.h"
#include "linea/Target/Target.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::linea {

/// What a user asks of the cost model: choose (automatic), or force one
/// form wherever it is legal.
enum class FormPreference {
  automatic,
  oneshot,
  chunked,
  chunk_parallel,
  quadratic,
  scan,
  blocked_scan
};

/// The forced form of a preference, or none for `automatic`.
std::optional<FormKind> forcedForm(FormPreference preference);
/// The command-line spellings (`auto`, `oneshot`, ...).
llvm::cl::ValuesClass formPreferenceValues();

struct FormEstimate {
  FormKind kind;
  int64_t size = 0; // the chunk size of a chunked or chunk-parallel form
  double flops = 0, bytes = 0, seconds = 0;
  /// A GPU chunked form's sequence block: the shared memory it needs, and
  /// whether that fits one block (else its chunk loop runs on the host).
  double blockBytes = 0;
  bool oneBlock = false;
};

struct FormChoice {
  FormEstimate chosen;
  /// Every legal alternative weighed, the chosen one included.
  llvm::SmallVector<FormEstimate> alternatives;
  /// Set when a forced form was not legal for this op.
  std::string note;
};

/// The dynamic sequence length the model assumes when L is `?`.
constexpr int64_t kAssumedDynamicLength = 4096;
/// What the estimates assume for a dynamic batch dim.
constexpr int64_t kAssumedDynamicBatch = 8;

/// Weighs the legal forms of `op` on `target` and picks the cheapest, or
/// `forced` / `forcedChunk` where legal. Returns std::nullopt for an op
/// that has no form to choose (a prefix op before splitting).
std::optional<FormChoice> chooseForm(FormOpInterface op,
                                     const TargetDescription &target,
                                     std::optional<FormKind> forced = {},
                                     int64_t forcedChunk = 0);

/// The chosen form as the attribute the op records.
FormAttr formAttrFor(MLIRContext *ctx, const FormEstimate &estimate);

/// One line: the choice and every alternative's FLOPs, bytes and time.
std::string describeChoice(const FormChoice &choice);

} // namespace mlir::linea

#endif // LINEA_ANALYSIS_COSTMODEL_H
