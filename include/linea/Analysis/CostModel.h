//===- CostModel.h - which form each attention op takes -------*- C++ -*-===//
//
// Every form decision of the optimizer is made here, from the static dims
// and a target: the one-shot state (bidirectional regions, and the
// recurrent decode step when L = 1), the quadratic masked form, and the
// chunked algorithm at each candidate chunk size. The rewrites only obey.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_ANALYSIS_COSTMODEL_H
#define LINEA_ANALYSIS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::linea {

/// Attention forms (one-shot, chunked, quadratic) and presum forms (the
/// sequential scan, the blocked two-level scan).
enum class Form { OneShot, Chunked, Quadratic, Scan, BlockedScan };

llvm::StringRef stringifyForm(Form form);
std::optional<Form> symbolizeForm(llvm::StringRef name);

/// The machine the costs are weighed for: a roofline plus a fixed cost per
/// sequential loop iteration (chunks run one after another).
struct TargetModel {
  std::string name;
  double flopsPerSecond;
  double bytesPerSecond;
  double secondsPerIteration;
  /// Rows at which a contraction reaches half of peak.
  double contractionTile;
  /// Independent blocks the lowering runs at once (1: loops run in order).
  double parallelUnits;
  llvm::SmallVector<int64_t> chunkCandidates;
  /// Shared memory a sequence block (one block running one sequence's chunk
  /// loop) may use; 0 when the target has no such blocks.
  double sharedMemoryPerBlock = 0;

  static TargetModel cpu();
  static TargetModel gpu();
  static std::optional<TargetModel> byName(llvm::StringRef name);
};

struct FormEstimate {
  Form form;
  int64_t chunkSize = 0; // Chunked only.
  double flops = 0, bytes = 0, seconds = 0;
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

/// The name of the discardable attributes the choice is recorded in.
constexpr llvm::StringLiteral kFormAttrName = "linea.form";
constexpr llvm::StringLiteral kChunkSizeAttrName = "linea.chunk_size";

/// Weighs the legal forms of a linear or gated linear attention op (after
/// prefix splitting: mask none, causal, or a gated whole-sequence prefix),
/// or of a presum, and picks the cheapest, or `forcedForm` / `forcedChunk`
/// where legal. Returns std::nullopt for ops that have no choice to make.
std::optional<FormChoice> chooseForm(Operation *op, const TargetModel &target,
                                     std::optional<Form> forcedForm = {},
                                     int64_t forcedChunk = 0);

/// One line: the choice and every alternative's FLOPs, bytes and time.
std::string describeChoice(const FormChoice &choice);

} // namespace mlir::linea

#endif // LINEA_ANALYSIS_COSTMODEL_H
