//===- PackedAdjoint.cpp - packed ops backwards, segment by segment -------===//
//
// A packed op is, by definition, the op on each segment alone, so its
// adjoint is the op's adjoint on each segment alone: the same parallel loop
// over the segments as its definition (buildSegmentLoop), whose body
// rebuilds the unpacked op on the segment's rows (the primal: the rules read
// its operands, and softmax attention its output) and emits that op's
// adjoint from the segment's rows of the output cotangents (and entry n of a
// final state's). The cotangents of the segment's operands go to its rows
// (and entry n of an initial state's) of the packed operands' cotangents.
// No segment reads another's rows, so no cotangent crosses a boundary.
//
//===----------------------------------------------------------------------===//

#include "linea/Autodiff/Cotangents.h"
#include "linea/Dialect/LineaOps.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/Segments.h"
#include "linea/Utils/StructuredBuilders.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::linea;

LogicalResult mlir::linea::emitPackedAdjoint(PackedOpInterface op, OpBuilder &b,
                                             Cotangents &ct) {
  Location loc = op->getLoc();
  PackedOperands operands = op.getPackedOperands();
  // The operands that take a cotangent: active sequences, and active float
  // entries (initial states; prefix lengths are integers). Their cotangents
  // start uninitialized: every row (and entry) is written by exactly one
  // segment, since the offsets cover [0, L) (checked at run time).
  SmallVector<unsigned> rowOperands, entryOperands;
  SmallVector<Value> rowOutputs, entryOutputs;
  for (auto [i, x] : llvm::enumerate(operands.sequences))
    if (ct.isActive(x)) {
      rowOperands.push_back(i);
      rowOutputs.push_back(buildEmptyLike(b, loc, x));
    }
  for (auto [i, x] : llvm::enumerate(operands.entries))
    if (ct.isActive(x) && isDifferentiableType(x.getType())) {
      entryOperands.push_back(i);
      entryOutputs.push_back(buildEmptyLike(b, loc, x));
    }
  if (rowOutputs.empty() && entryOutputs.empty())
    return success();

  // The cotangents of the packed results, read by every segment.
  Value dOutput = ct.lookupOrZeros(b, loc, op->getResult(0));
  Value dFinal = op->getNumResults() > 1
                     ? ct.lookupOrZeros(b, loc, op->getResult(1))
                     : Value();
  LogicalResult status = success();
  SmallVector<Value> sums = buildSegmentLoop(
      b, loc, operands.offsets, operands.sequences, operands.dim, rowOutputs,
      entryOutputs,
      [&](OpBuilder &nb, Location l,
          const Segment &segment) -> SmallVector<Value> {
        SmallVector<Value> entries = segmentEntries(nb, l, operands, segment);
        Operation *alone = op.buildOnSegment(nb, l, segment.slices, entries);
        // A segment's rule runs inside the segment's iteration (one GPU
        // block each): its rows in order there, whatever the machine, so
        // it takes the row-by-row forms (the CPU's), whose loops stay in
        // the block.
        Cotangents local;
        for (unsigned i : rowOperands)
          local.markActive(segment.slices[i]);
        for (unsigned i : entryOperands)
          local.markActive(entries[i]);
        for (Value result : alone->getResults())
          local.markActive(result);
        local.accumulate(nb, l, alone->getResult(0),
                         sliceAlong(nb, l, dOutput, operands.dim,
                                    segment.start, segment.size));
        if (dFinal)
          local.accumulate(nb, l, alone->getResult(1),
                           segmentEntry(nb, l, dFinal, segment.index));
        if (failed(emitAdjoint(alone, nb, local)))
          status = failure();
        SmallVector<Value> contributions;
        for (unsigned i : rowOperands)
          contributions.push_back(
              local.lookupOrZeros(nb, l, segment.slices[i]));
        for (unsigned i : entryOperands)
          contributions.push_back(local.lookupOrZeros(nb, l, entries[i]));
        return contributions;
      });
  if (failed(status))
    return failure();
  for (auto [i, sum] : llvm::zip(rowOperands, ArrayRef(sums).take_front(
                                                  rowOperands.size())))
    ct.accumulate(b, loc, operands.sequences[i], sum);
  for (auto [i, sum] : llvm::zip(entryOperands, ArrayRef(sums).drop_front(
                                                    rowOperands.size())))
    ct.accumulate(b, loc, operands.entries[i], sum);
  return success();
}
