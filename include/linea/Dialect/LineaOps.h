//===- LineaOps.h - Linea ops, attributes and interfaces -------*- C++ -*-===//

#ifndef LINEA_DIALECT_LINEAOPS_H
#define LINEA_DIALECT_LINEAOPS_H

#include "linea/Dialect/LineaDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include "linea/Dialect/LineaEnums.h.inc"
#include "linea/Target/Target.h"

namespace mlir::linea {
/// The forms that run a causal region in chunks of rows (and carry a size).
inline bool isChunkedKind(FormKind kind) {
  return kind == FormKind::chunked || kind == FormKind::chunk_parallel;
}

/// The parameters of `#linea.target` (TargetAttr): `cpu` / `gpu`, a
/// number, `true` / `false`.
FailureOr<TargetKind> parseTargetKind(AsmParser &parser);
FailureOr<llvm::APFloat> parseTargetNumber(AsmParser &parser);
FailureOr<bool> parseTargetFlag(AsmParser &parser);
} // namespace mlir::linea

#define GET_ATTRDEF_CLASSES
#include "linea/Dialect/LineaAttrs.h.inc"

namespace mlir::linea {

/// The target `op`'s module (or the nearest enclosing op that has one) was
/// planned for: its `linea.target` attribute, or null.
TargetAttr plannedTarget(Operation *op);

/// Whether linea-select-forms planned `op`'s forms for the GPU.
bool plannedForGPU(Operation *op);

/// The target `root` is planned for: the one already recorded on it (or an
/// enclosing op), which the options must agree with, else the one the
/// options name (`chip` and the calibrated `descriptionPath` may be empty),
/// recorded on `root` for every later pass to read. The first pass of a
/// pipeline that needs the machine plans it; an error on `root` where the
/// options name another machine than the one recorded.
FailureOr<TargetDescription> planTarget(Operation *root, TargetKind kind,
                                        StringRef chip,
                                        StringRef descriptionPath);

/// The numbers `pass`, a pass for targets of `kind`, uses on `op`: those of
/// the target `op`'s module was planned for. Where none of that kind was
/// recorded, an error on `op` naming `pass` and the pass that records one
/// (linea-plan-target): a pass never guesses the machine.
FailureOr<TargetDescription> targetFor(Operation *op, TargetKind kind,
                                       StringRef pass);

/// Sequence tensors are `[B..., L, D]`: these name the positions.
inline int64_t seqDim(ShapedType t) { return t.getRank() - 2; }
inline int64_t featureDim(ShapedType t) { return t.getRank() - 1; }
inline int64_t numBatchDims(ShapedType t) { return t.getRank() - 2; }

/// The largest chunk or block size a form may carry: far from where index
/// arithmetic on it could overflow (`2 * size`, `size * size`).
inline constexpr int64_t kMaxFormSize = int64_t(1) << 24;

/// SPEC's normalizer offset: `normalize` divides each row by
/// `phi(q_i) . z_i + kNormalizerEpsilon` (f32 builders take it as 1e-6f).
inline constexpr double kNormalizerEpsilon = 1e-6;

/// Everything that defines a linear-attention op, gated or not: what
/// LinearAttentionOpInterface::getSpec reads and createLike builds from.
/// What a packed op reads of each segment (PackedOpInterface): the rows of
/// `sequences` along `dim`, entry n of each of `entries` (one per segment:
/// initial states, prefix lengths); its output rows are shaped as
/// `outputLike`'s.
struct PackedOperands {
  Value offsets;
  SmallVector<Value> sequences, entries;
  int64_t dim = 0;
  Value outputLike;
};

struct LinearAttentionSpec {
  Value query, key, value;
  Value gate;         // null: ungated
  Value initialState; // null: zero
  Value prefixIndex;  // the dynamic prefix length(s), or null
  Value offsets;      // packed segments' offsets, or null
  Mask mask = Mask::causal;
  std::optional<int64_t> prefixLength; // the static prefix length
  FeatureMap featureMap = FeatureMap::identity;
  float scale = 1.0f;
  bool normalize = false;
  FormAttr form; // null: no form chosen
  Type outputType;
  Type finalStateType; // null: no final-state result
};

/// Where a run-time check's message says it is: `file:line:col` of `loc`
/// (its first file position), or the location as MLIR prints it.
std::string describeCheckLocation(Location loc);

/// A `linea.check` message `location: text`, the location's braces doubled
/// (the message reads `{N}` as a value; `text` may use them so).
std::string checkMessageAt(Location loc, StringRef text);

/// The message of an op's RuntimeVerifiableOpInterface check, one line:
/// `location: op-name: what` (the generator linea-insert-runtime-checks
/// and linea-check-assumed-sizes hand the interface).
std::string runtimeCheckMessage(Operation *op, StringRef what);

/// Entry `n` of a packed sequence's offsets (an index, i32 or i64 tensor),
/// as an index.
Value segmentOffset(OpBuilder &b, Location loc, Value offsets, Value n);

/// N, the number of segments of N + 1 `offsets` (static when their size is).
OpFoldResult segmentCount(OpBuilder &b, Location loc, Value offsets);

/// The run-time checks of packed segments' `offsets` into a sequence of
/// `length` rows (`lengthName`, such as `'query' sequence length`): N + 1 >=
/// 1 entries, the first 0, the last `length`, none smaller than the one
/// before. Each is a `linea.check` whose message starts with `prefix` (braces
/// already doubled) and runs only when the one before held, so every entry
/// read is in range. The op's own checks and sequence parallelism's (against
/// all ranks' rows) are these.
void checkSegmentOffsets(OpBuilder &b, Location loc, StringRef prefix,
                         Value offsets, Value length, StringRef lengthName);

/// The run-time checks of a packed op's prefix `lengths`: one per segment
/// of `offsets` (checked first), each `j_n` in `[0, o_{n+1} - o_n]`, the
/// first out of range named with its segment. Messages start with `prefix`
/// as checkSegmentOffsets' do; the op's own checks and sequence
/// parallelism's are these.
void checkSegmentPrefixLengths(OpBuilder &b, Location loc, StringRef prefix,
                               Value lengths, Value offsets);

} // namespace mlir::linea

#include "linea/Dialect/LineaInterfaces.h.inc"

#define GET_OP_CLASSES
#include "linea/Dialect/LineaOps.h.inc"

#endif // LINEA_DIALECT_LINEAOPS_H
