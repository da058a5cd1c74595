//===- MarkMinimalTraffic.cpp - the bytes each Linea op moves at least ----===//
//
// The kernel report compares what an op's kernels move with what the op
// cannot do without: its operands and results as stored, and the states a
// chunk-parallel form passes between its phases.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/MinimalTraffic.h"
#include "linea/GPU/Passes.h"

#include "linea/Dialect/LineaDialect.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/LocationMarks.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAMARKMINIMALTRAFFIC
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

Location mlir::linea::withMinimalBytes(Location loc, double bytes) {
  return withMark(loc, kMinimalBytesKey,
                  IntegerAttr::get(IntegerType::get(loc.getContext(), 64),
                                   static_cast<int64_t>(bytes)));
}

std::optional<FusedLoc> mlir::linea::markedSource(Location loc) {
  return markedWith(loc, kMinimalBytesKey);
}

double mlir::linea::minimalBytesOf(FusedLoc marked) {
  return cast<IntegerAttr>(markOf(marked, kMinimalBytesKey)).getInt();
}

namespace {

/// Bytes of a static tensor as stored, if it is one.
std::optional<double> storedBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  double bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * bits / 8;
}

/// The f32 states `[B..., N + 1, Dk, Dv]` of a chunk-parallel form (0 for
/// other forms and ops).
double perChunkStateBytes(Operation *op) {
  auto attention = dyn_cast<LinearAttentionOpInterface>(op);
  auto form = dyn_cast<FormOpInterface>(op);
  FormAttr chosen = form ? form.getFormAttr() : FormAttr();
  if (!attention || !chosen || chosen.getKind() != FormKind::chunk_parallel ||
      chosen.getChunkSize() <= 0)
    return 0;
  ShapedType q = attention.getQuery().getType();
  ShapedType v = attention.getValue().getType();
  int64_t numBatch = numBatchDims(q);
  double batch = 1;
  for (int64_t size : q.getShape().take_front(numBatch))
    batch *= size;
  int64_t chunks = llvm::divideCeil(q.getDimSize(numBatch), chosen.getChunkSize());
  return 4.0 * batch * (chunks + 1) * q.getShape().back() * v.getShape().back();
}

/// Operands and results as stored, each distinct value once, plus the
/// form's per-chunk states; none for an op with a dynamic tensor.
std::optional<double> minimalBytes(Operation *op) {
  llvm::SetVector<Value> values;
  values.insert(op->operand_begin(), op->operand_end());
  values.insert(op->result_begin(), op->result_end());
  double bytes = perChunkStateBytes(op);
  for (Value value : values) {
    if (!isa<TensorType>(value.getType()))
      continue;
    std::optional<double> stored = storedBytes(value.getType());
    if (!stored)
      return std::nullopt;
    bytes += *stored;
  }
  return bytes;
}

struct LineaMarkMinimalTrafficPass
    : linea::impl::LineaMarkMinimalTrafficBase<LineaMarkMinimalTrafficPass> {
  void runOnOperation() override {
    getOperation()->walk<WalkOrder::PreOrder>([](Operation *op) {
      if (!isa_and_nonnull<LineaDialect>(op->getDialect()))
        return WalkResult::advance();
      if (std::optional<double> bytes = minimalBytes(op);
          bytes && !markedSource(op->getLoc()))
        op->setLoc(withMinimalBytes(op->getLoc(), *bytes));
      // Ops nested in this one (a fold's body) are part of it.
      return WalkResult::skip();
    });
  }
};

} // namespace
