//===- CostModel.cpp - which form each attention op takes -----------------===//
//
// FLOPs and bytes per batch element, from the dims (Dv counts the extra
// normalizer column of `normalize`):
//   one-shot   S = K^T V, O = Q S:          4 L Dk Dv
//   quadratic  (Q K^T .* M) V:              2 L^2 (Dk + Dv)
//   chunked(C) per chunk, ceil(L / C) times: 2 C^2 (Dk + Dv) + 4 C Dk Dv
// Gates add an exp per decay factor (counted as 8 FLOPs). Time is the
// roofline max(FLOPs / peak, bytes / bandwidth) times the batch, plus a fixed
// cost per sequential chunk.
//
//===----------------------------------------------------------------------===//

#include "linea/Analysis/CostModel.h"
#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::linea;

StringRef mlir::linea::stringifyForm(Form form) {
  switch (form) {
  case Form::OneShot:
    return "oneshot";
  case Form::Chunked:
    return "chunked";
  case Form::Quadratic:
    return "quadratic";
  case Form::Scan:
    return "scan";
  case Form::BlockedScan:
    return "blocked_scan";
  }
  llvm_unreachable("unknown form");
}

std::optional<Form> mlir::linea::symbolizeForm(StringRef name) {
  return llvm::StringSwitch<std::optional<Form>>(name)
      .Case("oneshot", Form::OneShot)
      .Case("chunked", Form::Chunked)
      .Case("quadratic", Form::Quadratic)
      .Case("scan", Form::Scan)
      .Case("blocked_scan", Form::BlockedScan)
      .Default(std::nullopt);
}

TargetModel TargetModel::cpu() {
  // What Linea's generated CPU loops sustain on one core of these machines,
  // not the hardware peak.
  return {"cpu", 4e9, 8e9, 2e-6, 32, 1, {16, 32, 64, 128, 256}};
}

TargetModel TargetModel::gpu() {
  // An H100: dense f16/bf16 tensor-core rate, HBM3 bandwidth, and the cost
  // of one synchronized chunk step inside a block.
  return {"gpu", 990e12, 3.35e12, 1e-6, 64, 132, {16, 32, 64, 128}, 48 * 1024};
}

std::optional<TargetModel> TargetModel::byName(StringRef name) {
  if (name == "cpu")
    return cpu();
  if (name == "gpu")
    return gpu();
  return std::nullopt;
}

namespace {

/// The dims the estimates need, read off an op.
struct Problem {
  double batch = 1, length = 1, keyDim = 1, valueDim = 1;
  bool gated = false, scalarGate = false;
  bool staticLengthOne = false, dynamicLength = false;
  bool hasInitialState = false, hasFinalState = false;
};

std::optional<Problem> readProblem(Operation *op) {
  Problem p;
  RankedTensorType q, v;
  if (auto la = dyn_cast<LinearAttentionOp>(op)) {
    q = la.getQuery().getType();
    v = la.getValue().getType();
    p.valueDim = v.getDimSize(featureDim(v)) + (la.getNormalize() ? 1 : 0);
    p.hasInitialState = static_cast<bool>(la.getInitialState());
    p.hasFinalState = static_cast<bool>(la.getFinalState());
  } else if (auto gla = dyn_cast<GatedLinearAttentionOp>(op)) {
    q = gla.getQuery().getType();
    v = gla.getValue().getType();
    p.valueDim = v.getDimSize(featureDim(v));
    p.gated = true;
    p.scalarGate = gla.hasScalarGate();
    p.hasInitialState = static_cast<bool>(gla.getInitialState());
    p.hasFinalState = static_cast<bool>(gla.getFinalState());
  } else {
    return std::nullopt;
  }
  for (int64_t i = 0; i < numBatchDims(q); ++i)
    p.batch *= q.isDynamicDim(i) ? kAssumedDynamicBatch : q.getDimSize(i);
  int64_t length = q.getDimSize(seqDim(q));
  p.staticLengthOne = length == 1;
  p.dynamicLength = ShapedType::isDynamic(length);
  p.length = ShapedType::isDynamic(length) ? kAssumedDynamicLength : length;
  p.keyDim = q.getDimSize(featureDim(q));
  return p;
}

/// The forms an op may take; empty when it has no choice.
SmallVector<Form> legalForms(Operation *op, const Problem &p) {
  Mask mask;
  bool bidirectional;
  if (auto la = dyn_cast<LinearAttentionOp>(op)) {
    mask = la.getMask();
    bidirectional = mask == Mask::none;
  } else {
    auto gla = cast<GatedLinearAttentionOp>(op);
    mask = gla.getMask();
    bidirectional = gla.prefixCoversSequence();
  }
  if (bidirectional)
    return {Form::OneShot, Form::Quadratic};
  if (mask != Mask::causal)
    return {};
  if (p.staticLengthOne) // The recurrent decode step is the one-shot form.
    return {Form::OneShot, Form::Chunked, Form::Quadratic};
  return {Form::Chunked, Form::Quadratic};
}

/// The chunked form on a target with sequence blocks: one block per
/// sequence and value tile (see linea-distribute-sequences, whose default
/// tile of 64 columns this mirrors) when its temporaries fit in shared
/// memory. The returned factor is the share of the parallel units those
/// blocks keep busy; a chunk too big for one block becomes a host loop of
/// about six launches per step, charged to `iterations`.
double sequenceBlockEfficiency(const Problem &p, const TargetModel &target,
                               double c, double &iterations) {
  double dk = p.keyDim, dv = p.valueDim;
  double valueTile = dv > 64 && std::fmod(dv, 64) == 0 ? 64 : dv;
  double decayWidth = p.scalarGate ? 1 : dk;
  // The state and a chunk's scores; with gates, the chunk's decay presums
  // and decayed keys. A remainder chunk (L % C != 0) is padded to C rows:
  // copies of q, k, v (and g) and its own output rows.
  double elements = c * c + dk * valueTile;
  if (p.gated)
    elements += 4 * c * decayWidth + 2 * dk;
  if (p.dynamicLength || std::fmod(p.length, c) != 0)
    elements += c * (2 * dk + 2 * valueTile + (p.gated ? decayWidth : 0));
  double bytes = 4 * elements;
  if (bytes > target.sharedMemoryPerBlock) {
    iterations *= 6;
    return 1;
  }
  double blocks = p.batch * dv / valueTile;
  return std::min(1.0, blocks / target.parallelUnits);
}

FormEstimate estimate(const Problem &p, const TargetModel &target, Form form,
                      int64_t chunk) {
  double L = p.length, dk = p.keyDim, dv = p.valueDim;
  double decayWidth = p.scalarGate ? 1 : dk;
  double io = 4 * L * (2 * dk + 2 * dv);
  FormEstimate e{form, form == Form::Chunked ? chunk : 0};
  double iterations = 1, efficiency = 1;
  switch (form) {
  case Form::OneShot:
    e.flops = 4 * L * dk * dv + (p.gated ? 8 * L * decayWidth : 0);
    e.bytes = io + 8 * dk * dv;
    break;
  case Form::Quadratic:
    e.flops = 2 * L * L * (dk + dv) + (p.gated ? 8 * L * L * decayWidth : 0);
    e.bytes = io + 12 * L * L;
    break;
  case Form::Chunked: {
    double c = std::min<double>(chunk, L);
    iterations = std::ceil(L / c);
    e.flops = iterations * (2 * c * c * (dk + dv) + 4 * c * dk * dv +
                            (p.gated ? 8 * c * c * decayWidth : 0));
    e.bytes = io + iterations * (8 * dk * dv + 8 * c * c);
    // Contractions over only C rows run below peak: vector lanes and matrix
    // tiles fill as C / (C + tile).
    efficiency = c / (c + target.contractionTile);
    if (target.sharedMemoryPerBlock > 0)
      efficiency *= sequenceBlockEfficiency(p, target, c, iterations);
    break;
  }
  case Form::Scan:
  case Form::BlockedScan:
    llvm_unreachable("presum forms are weighed by choosePresumForm");
  }
  // The quadratic form computes the state terms separately; the one-shot
  // and chunked forms have them in the state already.
  if (form == Form::Quadratic) {
    e.flops += 2 * L * dk * dv * (p.hasInitialState + p.hasFinalState);
    e.bytes += 4 * dk * dv * (p.hasInitialState + p.hasFinalState);
  }
  e.flops *= p.batch;
  e.bytes *= p.batch;
  e.seconds = std::max(e.flops / (target.flopsPerSecond * efficiency),
                       e.bytes / target.bytesPerSecond) +
              iterations * target.secondsPerIteration;
  return e;
}

} // namespace

/// presum over N elements: the sequential scan is one pass (read and write
/// each element) that runs on one unit; the blocked scan is two passes that
/// spread over every unit.
static std::optional<FormChoice> choosePresumForm(PresumOp op,
                                                  const TargetModel &target,
                                                  std::optional<Form> forced) {
  RankedTensorType type = op.getInput().getType();
  double elements = 1;
  for (int64_t size : type.getShape())
    elements *= ShapedType::isDynamic(size) ? kAssumedDynamicLength : size;
  double bytes = 8 * elements;
  FormEstimate scan{Form::Scan, 0, elements, bytes,
                    bytes / (target.bytesPerSecond /
                             std::max(1.0, target.parallelUnits))};
  FormEstimate blocked{Form::BlockedScan, 0, 2 * elements, 2 * bytes,
                       2 * bytes / target.bytesPerSecond};
  FormChoice choice;
  choice.alternatives = {scan, blocked};
  bool wantBlocked = forced ? *forced == Form::BlockedScan
                            : blocked.seconds < scan.seconds;
  if (forced && *forced != Form::Scan && *forced != Form::BlockedScan) {
    choice.note = ("forced form '" + stringifyForm(*forced) +
                   "' is not legal here")
                      .str();
    wantBlocked = blocked.seconds < scan.seconds;
  }
  // Inside a sequence instance (linea-distribute-sequences) one block runs
  // the whole presum: its threads scan the columns side by side, and the
  // blocked scan would only add passes (and buffers sized at run time).
  bool honoured =
      forced && (*forced == Form::Scan || *forced == Form::BlockedScan);
  if (!honoured && op->getParentOfType<scf::ForallOp>()) {
    wantBlocked = false;
    choice.note = "inside a sequence instance";
  }
  choice.chosen = wantBlocked ? blocked : scan;
  return choice;
}

std::optional<FormChoice> mlir::linea::chooseForm(Operation *op,
                                                  const TargetModel &target,
                                                  std::optional<Form> forcedForm,
                                                  int64_t forcedChunk) {
  if (auto presum = dyn_cast<PresumOp>(op))
    return choosePresumForm(presum, target, forcedForm);
  std::optional<Problem> problem = readProblem(op);
  if (!problem)
    return std::nullopt;
  SmallVector<Form> forms = legalForms(op, *problem);
  if (forms.empty())
    return std::nullopt;

  FormChoice choice;
  SmallVector<int64_t> chunks(target.chunkCandidates);
  if (forcedChunk > 0)
    chunks = {forcedChunk};
  for (Form form : forms) {
    if (form != Form::Chunked) {
      choice.alternatives.push_back(estimate(*problem, target, form, 0));
      continue;
    }
    for (int64_t chunk : chunks)
      choice.alternatives.push_back(estimate(*problem, target, form, chunk));
  }

  auto cheapest = [&](std::optional<Form> only) {
    const FormEstimate *best = nullptr;
    for (const FormEstimate &e : choice.alternatives)
      if ((!only || e.form == *only) && (!best || e.seconds < best->seconds))
        best = &e;
    return best;
  };
  const FormEstimate *best = nullptr;
  if (forcedForm) {
    best = cheapest(forcedForm);
    if (!best)
      choice.note = ("forced form '" + stringifyForm(*forcedForm) +
                     "' is not legal here")
                        .str();
  }
  if (!best)
    best = cheapest(std::nullopt);
  choice.chosen = *best;
  return choice;
}

std::string mlir::linea::describeChoice(const FormChoice &choice) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto name = [](const FormEstimate &e) {
    std::string n = stringifyForm(e.form).str();
    if (e.form == Form::Chunked)
      n += "(" + std::to_string(e.chunkSize) + ")";
    return n;
  };
  os << "form " << name(choice.chosen);
  if (!choice.note.empty())
    os << " (" << choice.note << ")";
  os << "; weighed:";
  for (const FormEstimate &e : choice.alternatives)
    os << " " << name(e) << " "
       << llvm::format("%.3g FLOP %.3g B %.3g us;", e.flops, e.bytes,
                       e.seconds * 1e6);
  return text;
}
