//===- CostModel.cpp - which form each op takes ---------------------------===//
//
// FLOPs and bytes per batch element, from the dims (Dv counts the extra
// normalizer column of `normalize`):
//   one-shot   S = K^T V, O = Q S:          4 L Dk Dv
//   quadratic  (Q K^T .* M) V:              2 L^2 (Dk + Dv); a gated op's
//              is its recurrence, on the GPU about 4 launches a row
//   chunked(C) per chunk, ceil(L / C) times: 2 C^2 (Dk + Dv) + 4 C Dk Dv;
//              on the GPU its bytes add the fragment loads of a sequence
//              block's contractions (operands read once per output tile).
//   chunk_parallel(C): the chunked FLOPs plus the scan of the N = ceil(L / C)
//              chunk states (N Dk Dv); its bytes add each chunk's state
//              written, scanned (read and written) and read back (16 Dk Dv)
//              and its scores (8 C^2); on the GPU, blocks per chunk keep the
//              scores, and a per-sequence state pass writes each entering
//              state once and reads it once (TargetDescription::chunkBlocks);
//              as grids with a dynamic batch or length and ragged value
//              columns (a normalized op's), its contractions run on CUDA
//              cores loading both operands (4 bytes per FLOP).
// Gates add an exp per decay factor (counted as 8 FLOPs). Time is the
// roofline max(FLOPs / (peak x share of the parallel units busy),
// bytes / bandwidth) times the batch, plus a fixed cost per sequential step.
// The chunked form runs its chunks in order, in parallel over the sequences
// and a chunk's rows (on the GPU: one block per sequence and value tile);
// the chunk-parallel form runs its two heavy phases over every chunk of
// every sequence at once and keeps only the scan's N light steps in order,
// but its per-chunk states and scores go through memory (added to the
// roofline time, not overlapped).
//
//===----------------------------------------------------------------------===//

#include "linea/Analysis/CostModel.h"
#include "linea/GPU/MmaShape.h"
#include "linea/Utils/AttentionBuilders.h"
#include "linea/Utils/SequenceBlocks.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::linea;

std::optional<FormKind> mlir::linea::forcedForm(FormPreference preference) {
  switch (preference) {
  case FormPreference::automatic:
    return std::nullopt;
  case FormPreference::oneshot:
    return FormKind::oneshot;
  case FormPreference::chunked:
    return FormKind::chunked;
  case FormPreference::chunk_parallel:
    return FormKind::chunk_parallel;
  case FormPreference::quadratic:
    return FormKind::quadratic;
  case FormPreference::scan:
    return FormKind::scan;
  case FormPreference::blocked_scan:
    return FormKind::blocked_scan;
  }
  llvm_unreachable("unknown form preference");
}

llvm::cl::ValuesClass mlir::linea::formPreferenceValues() {
  return llvm::cl::values(
      clEnumValN(FormPreference::automatic, "auto", "the cost model chooses"),
      clEnumValN(FormPreference::oneshot, "oneshot", "the one-shot state"),
      clEnumValN(FormPreference::chunked, "chunked", "the chunked algorithm"),
      clEnumValN(FormPreference::chunk_parallel, "chunk_parallel",
                 "the chunk-parallel algorithm"),
      clEnumValN(FormPreference::quadratic, "quadratic",
                 "the masked quadratic form"),
      clEnumValN(FormPreference::scan, "scan", "presum: the sequential scan"),
      clEnumValN(FormPreference::blocked_scan, "blocked_scan",
                 "presum: the blocked two-level scan"));
}

FormAttr mlir::linea::formAttrFor(MLIRContext *ctx,
                                  const FormEstimate &estimate) {
  return FormAttr::get(ctx, estimate.kind,
                       isChunkedKind(estimate.kind) ? estimate.size : 0);
}

namespace {

/// The dims the estimates need, read off a linear-attention op.
struct Problem {
  double batch = 1, length = 1, keyDim = 1, valueDim = 1;
  /// The value columns of one sequence block, and the normalizer column.
  double blockColumns = 1, extraColumn = 0;
  bool gated = false, scalarGate = false;
  /// A feature map other than the identity (its rows are copies), and
  /// whether it maps a zero row to zeros (identity, relu; not elu + 1).
  bool mappedFeatures = false, featuresKeepZero = true;
  bool dynamicLength = false, dynamicBatch = false;
  bool hasInitialState = false, hasFinalState = false;
  /// Bytes per element of the op's tensors as stored.
  double elementBytes = 4;
};

Problem readProblem(LinearAttentionOpInterface op, const TargetDescription &t) {
  Problem p;
  RankedTensorType q = op.getQuery().getType(), v = op.getValue().getType();
  int64_t columns = v.getDimSize(featureDim(v));
  p.extraColumn = op.getNormalize() ? 1 : 0;
  p.valueDim = columns + p.extraColumn;
  p.blockColumns = sequenceBlockColumns(columns, t.valueTile) + p.extraColumn;
  p.gated = static_cast<bool>(op.getGate());
  p.scalarGate = op.hasScalarGate();
  p.mappedFeatures = op.getFeatureMap() != FeatureMap::identity;
  p.featuresKeepZero = featureMapKeepsZero(op.getFeatureMap());
  p.hasInitialState = static_cast<bool>(op.getInitialState());
  p.hasFinalState = static_cast<bool>(op.getFinalState());
  for (int64_t i = 0; i < numBatchDims(q); ++i) {
    p.dynamicBatch |= q.isDynamicDim(i);
    p.batch *= q.isDynamicDim(i) ? kAssumedDynamicBatch : q.getDimSize(i);
  }
  int64_t length = q.getDimSize(seqDim(q));
  p.dynamicLength = ShapedType::isDynamic(length);
  p.length = p.dynamicLength ? kAssumedDynamicLength : length;
  p.keyDim = q.getDimSize(featureDim(q));
  p.elementBytes = q.getElementTypeBitWidth() / 8;
  return p;
}

/// Shared memory one sequence block of the chunked form needs, as
/// linea-map-to-gpu plans it (planSharedMemory), in f32 elements: the state
/// and a chunk's scores; the feature-mapped rows of q and k where the map
/// copies them; a normalized op's values with the ones column and its rows
/// before the division; with a scalar gate the decayed keys of the state
/// update, the decay presums and one 16-row block of decayed keys, with a
/// gate per key column three chunk-sized decay tensors. A remainder chunk
/// (L % C != 0) is padded to C rows: copies of q, k, v (and g), its own
/// output rows, and the keys zeroed again after a map that does not keep
/// zero rows. Exact for whole chunks, an upper bound by up to a quarter
/// with a remainder, whose temporaries the planner partly shares with the
/// loop's (checked against the planner by test_cost_model_blocks.py).
double sequenceBlockBytes(const Problem &p, double c) {
  double dk = p.keyDim, tile = p.blockColumns;
  double decayWidth = p.scalarGate ? 1 : dk;
  double elements = c * c + dk * tile;
  if (p.mappedFeatures)
    elements += 2 * c * dk;
  if (p.extraColumn)
    elements += 2 * c * tile;
  if (p.gated)
    elements += p.scalarGate ? c * dk + c + 16 * dk + 4 : 3 * (c + 1) * dk;
  if (p.dynamicLength || std::fmod(p.length, c) != 0)
    elements += c * (2 * dk + 2 * tile + (p.gated ? decayWidth : 0) +
                     (p.featuresKeepZero ? 0 : dk));
  return 4 * elements;
}

/// Sequence blocks per sequence: one per value tile.
double valueTiles(const Problem &p) {
  return (p.valueDim - p.extraColumn) / (p.blockColumns - p.extraColumn);
}

/// Global-memory bytes a sequence block's contractions read per chunk and
/// sequence: its lanes load their own tensor-core fragment elements (no
/// staging), so an operand in global memory (q, k, v; the scores and the
/// state are the block's shared temporaries) is read once per 16 x 8 output
/// tile it feeds: an A element once per 8 output columns, a B element once
/// per 16 output rows. Each value tile's block reads q and k again. (The
/// gated form's decay factors are left out.)
double fragmentBytesPerChunk(const Problem &p, double c) {
  double dk = p.keyDim, tile = p.blockColumns;
  double perA = 1.0 / mma::kTileN, perB = 1.0 / mma::kTileM;
  double elements = c * c * dk * (perA + perB) // Q K^T: Q as A, K as B
                    + c * tile * c * perB      // P V: V as B
                    + c * tile * dk * perA     // Q S: Q as A
                    + dk * tile * c * (perA + perB); // K^T V
  return 4 * valueTiles(p) * elements;
}

/// The share of the target's parallel units that `programs` independent
/// programs keep busy, each program split further into value tiles where the
/// target has them.
double parallelShare(const Problem &p, const TargetDescription &target,
                     double programs) {
  double tiles = target.valueTile > 0 ? valueTiles(p) : 1;
  return std::min(1.0, programs * tiles / target.parallelUnits);
}

/// The blocks the chunk-parallel form takes on `target` for chunks of `c`
/// rows: linea-causal-to-chunk-parallel's decision.
TargetDescription::ChunkBlocks
chunkBlocksFor(const Problem &p, const TargetDescription &target, double c) {
  std::optional<int64_t> sequences;
  if (!p.dynamicBatch)
    sequences = static_cast<int64_t>(p.batch);
  return target.chunkBlocks(p.gated, static_cast<int64_t>(c),
                            static_cast<int64_t>(p.keyDim),
                            static_cast<int64_t>(p.valueDim),
                            static_cast<int64_t>(p.elementBytes), sequences);
}

/// The launches of one row of a gated op's recurrence on a GPU: the decay,
/// the state update, the row's read and its insertion into the output.
constexpr double kGatedRecurrenceLaunchesPerRow = 4;

FormEstimate estimate(const Problem &p, const TargetDescription &target,
                      FormKind kind, int64_t chunk) {
  double L = p.length, dk = p.keyDim, dv = p.valueDim;
  double decayWidth = p.scalarGate ? 1 : dk;
  double io = 4 * L * (2 * dk + 2 * dv);
  FormEstimate e{kind, isChunkedKind(kind) ? chunk : 0};
  double iterations = 1, efficiency = 1, spilled = 0;
  // The gated forms' exponentials per pair of rows (and key dim): on a GPU
  // they run on the CUDA cores, beside the tensor cores' contractions.
  double pairDecayFlops = 0;
  double flopsPerSecond = target.matrixFlopsPerSecond;
  switch (kind) {
  case FormKind::oneshot:
    e.flops = 4 * L * dk * dv + (p.gated ? 8 * L * decayWidth : 0);
    e.bytes = io + 8 * dk * dv;
    break;
  case FormKind::quadratic:
    pairDecayFlops = p.gated ? 8 * L * L * decayWidth : 0;
    e.flops = 2 * L * L * (dk + dv) + pairDecayFlops;
    e.bytes = io + 12 * L * L;
    // The quadratic form computes the state terms separately; the one-shot
    // and chunked forms have them in the state already.
    e.flops += 2 * L * dk * dv * (p.hasInitialState + p.hasFinalState);
    e.bytes += 4 * dk * dv * (p.hasInitialState + p.hasFinalState);
    // A gated op's quadratic form lowers to its recurrence (LineaToLinalg):
    // L steps in order, which on a GPU are a host loop of a few launches
    // each (a sequence block, where one runs the op, is weighed apart).
    if (p.gated && target.kind == TargetKind::gpu)
      iterations = kGatedRecurrenceLaunchesPerRow * L;
    break;
  case FormKind::chunked:
  case FormKind::chunk_parallel: {
    double c = std::min<double>(chunk, L);
    double chunks = std::ceil(L / c);
    iterations = chunks;
    double contractionFlops =
        chunks * (2 * c * c * (dk + dv) + 4 * c * dk * dv);
    pairDecayFlops = p.gated ? chunks * 8 * c * c * decayWidth : 0;
    e.flops = contractionFlops + pairDecayFlops;
    // Contractions over only C rows run below peak: vector lanes and matrix
    // tiles fill as C / (C + tile).
    efficiency = c / (c + target.contractionTile);
    // Every chunk's state and scores as whole tensors, written by one phase
    // and read by the next: their traffic adds to the compute instead of
    // hiding under it as a chunk's temporaries in one block do.
    double temporaries = chunks * (16 * dk * dv + 8 * c * c);
    if (kind == FormKind::chunk_parallel) {
      e.flops += chunks * dk * dv + (p.gated ? 8 * chunks * decayWidth : 0);
      // On the GPU its phases are blocks where they fit
      // (TargetDescription::chunkBlocks). The rows' block keeps its scores
      // (and decays) in shared memory; a gated one's lanes read the state
      // entering it once per 16 output rows, a plain one copies it once.
      // The per-sequence state pass writes each entering state once (in a
      // 16-bit op's own type), and no local state or scan goes through
      // memory. Grids over every chunk instead decay a gated op's keys
      // before each 16-row query block to its first row: C / 16 copies of
      // the chunk's keys, each element loaded with its log-decays, stored
      // and read back (20 bytes).
      TargetDescription::ChunkBlocks blocks = chunkBlocksFor(p, target, c);
      // Each chunk's local state written, scanned (read and written), and
      // the entering state read by the rows.
      double enteringBytes = 4, stateWrites = 12 * dk * dv;
      if (blocks.statesPerSequence) {
        enteringBytes = p.elementBytes < 4 ? 2 : 4;
        stateWrites = enteringBytes * dk * dv;
      }
      double stateReads = enteringBytes * dk * dv *
                          (blocks.rowsPerChunk && p.gated ? c / 16 : 1);
      double scoreTraffic = 8 * c * c;
      if (blocks.rowsPerChunk)
        scoreTraffic = 0;
      else if (target.kind == TargetKind::gpu && p.gated)
        scoreTraffic += (c / 16) * c * dk * 20;
      temporaries = chunks * (stateWrites + stateReads + scoreTraffic);
      e.bytes = io + temporaries;
      spilled = temporaries;
      // Its grids span the batch and the chunks (a block tile per batch
      // element and chunk, however many there are at run time).
      efficiency *= parallelShare(p, target, p.batch * chunks);
      // With dynamic sizes only staged grids take a contraction, and those
      // take no ragged columns (a normalized op's values and their ones
      // column): a thread per output element then loads both operands of
      // every multiply-add from global memory (4 bytes per FLOP). Blocks
      // per chunk take ragged columns.
      if (target.kind == TargetKind::gpu && !blocks.rowsPerChunk &&
          (p.dynamicBatch || p.dynamicLength) &&
          std::fmod(p.valueDim, mma::kTileN) != 0) {
        flopsPerSecond = target.scalarFlopsPerSecond;
        e.bytes += 4 * contractionFlops;
        spilled += 4 * contractionFlops;
      }
      break;
    }
    e.bytes = io + chunks * (8 * dk * dv + 8 * c * c);
    if (target.sharedMemoryPerBlock == 0) {
      // On the CPU each chunk's contractions are parallel loops over the
      // batch and the chunk's rows.
      efficiency *= parallelShare(p, target, p.batch * c);
      break;
    }
    e.blockBytes = sequenceBlockBytes(p, c);
    e.oneBlock = e.blockBytes <= target.sharedMemoryPerBlock;
    if (e.oneBlock) {
      // One block per sequence and value tile runs the chunk loop; its
      // contractions read their operands fragment by fragment.
      efficiency *=
          std::min(1.0, p.batch * valueTiles(p) / target.parallelUnits);
      e.bytes += chunks * fragmentBytesPerChunk(p, c);
    } else {
      // A chunk too big for one block: the sequence blocks become a host
      // loop over every sequence and value tile, with about six launches
      // per chunk, whose grids pass the state and the scores through
      // memory as the chunk-parallel form's do.
      iterations *= 6 * p.batch * valueTiles(p);
      spilled = temporaries;
    }
    break;
  }
  case FormKind::scan:
  case FormKind::blocked_scan:
    llvm_unreachable("presum forms are weighed by choosePresumForm");
  }
  e.flops *= p.batch;
  e.bytes *= p.batch;
  double matrixFlops = e.flops, scalarSeconds = 0;
  if (target.kind == TargetKind::gpu &&
      flopsPerSecond != target.scalarFlopsPerSecond) {
    matrixFlops -= p.batch * pairDecayFlops;
    scalarSeconds = p.batch * pairDecayFlops / target.scalarFlopsPerSecond;
  }
  e.seconds = std::max(matrixFlops / (flopsPerSecond * efficiency),
                       e.bytes / target.bytesPerSecond) +
              scalarSeconds +
              p.batch * spilled / target.bytesPerSecond +
              iterations * target.secondsPerIteration;
  return e;
}

/// The cheapest of `alternatives` of `kind` (any kind when unset).
const FormEstimate *cheapest(ArrayRef<FormEstimate> alternatives,
                             std::optional<FormKind> kind) {
  const FormEstimate *best = nullptr;
  for (const FormEstimate &e : alternatives)
    if ((!kind || e.kind == *kind) && (!best || e.seconds < best->seconds))
      best = &e;
  return best;
}

/// The cheapest alternative, or the cheapest of the forced kind when that
/// is legal (else a note says it is not).
FormChoice pick(SmallVector<FormEstimate> alternatives,
                std::optional<FormKind> forced) {
  FormChoice choice;
  choice.alternatives = std::move(alternatives);
  const FormEstimate *best = nullptr;
  if (forced) {
    best = cheapest(choice.alternatives, forced);
    if (!best)
      choice.note = ("forced form '" + stringifyFormKind(*forced) +
                     "' is not legal here")
                        .str();
  }
  if (!best)
    best = cheapest(choice.alternatives, std::nullopt);
  choice.chosen = *best;
  return choice;
}

/// presum over N elements. On the CPU the sequential scan is one pass (read
/// and write each element) that runs on one unit; the blocked scan is two
/// passes that spread over every unit. On the GPU a sequential scan is a
/// sequence block per slice (linea-distribute-sequences): one launch, one
/// synchronized step per scanned row, its slices spread over the SMs' lanes;
/// the blocked scan's loops stay on the host: about five launches per block
/// and two per row of its in-block scans (each charged a step). Inside a sequence
/// block one block runs the whole presum, so it has one unit.
FormChoice choosePresumForm(PresumOp op, const TargetDescription &target,
                            std::optional<FormKind> forced) {
  RankedTensorType type = op.getInput().getType();
  auto known = [](int64_t size) {
    return ShapedType::isDynamic(size) ? double(kAssumedDynamicLength)
                                       : double(size);
  };
  double elements = 1;
  for (int64_t size : type.getShape())
    elements *= known(size);
  double length = known(type.getDimSize(op.getScanDim()));
  double bytes = 8 * elements;
  double units = isInSequenceBlock(op) ? 1 : target.parallelUnits;
  double scanSeconds = bytes / (target.bytesPerSecond / units);
  double blockedSeconds = 2 * bytes / target.bytesPerSecond;
  if (target.kind == TargetKind::gpu && !isInSequenceBlock(op)) {
    double lanes = double(target.parallelUnits) * target.threadsPerBlock;
    double filled = std::min(1.0, elements / length / lanes);
    scanSeconds = bytes / (target.bytesPerSecond * filled) +
                  length * target.secondsPerIteration;
    double launches = 2 * length + 5 * std::ceil(length / std::sqrt(length));
    blockedSeconds += launches * target.secondsPerIteration;
  }
  FormEstimate scan{FormKind::scan, 0, elements, bytes, scanSeconds};
  FormEstimate blocked{FormKind::blocked_scan, 0, 2 * elements, 2 * bytes,
                       blockedSeconds};
  SmallVector<FormEstimate> alternatives;
  for (const FormEstimate &e : {scan, blocked})
    if (llvm::is_contained(op.getLegalForms(), e.kind))
      alternatives.push_back(e);
  return pick(std::move(alternatives), forced);
}

/// An op inside a sequence block (a packed op's segment on the GPU) is the
/// program of one block: only forms whose temporaries fit its shared memory
/// keep it one, the chunk-parallel form's grids never do, and the quadratic
/// form's L x L scores have no static size with L dynamic. The others would
/// turn the whole loop of blocks into a host loop of launches; where none
/// fits, every form stays and linea-map-to-gpu says why the loop is on the
/// host.
void keepThoseThatRunInOneBlock(SmallVector<FormEstimate> &alternatives,
                                const Problem &p,
                                const TargetDescription &target) {
  auto runsInOneBlock = [&](const FormEstimate &e) {
    switch (e.kind) {
    case FormKind::oneshot:
      return true;
    case FormKind::quadratic:
      return !p.dynamicLength &&
             4 * p.length * p.length <= target.sharedMemoryPerBlock;
    case FormKind::chunked:
      return e.oneBlock;
    default:
      return false;
    }
  };
  if (llvm::any_of(alternatives, runsInOneBlock))
    llvm::erase_if(alternatives, std::not_fn(runsInOneBlock));
}

FormChoice chooseLinearAttentionForm(LinearAttentionOpInterface op,
                                     ArrayRef<FormKind> legal,
                                     const TargetDescription &target,
                                     std::optional<FormKind> forced,
                                     int64_t forcedChunk) {
  Problem problem = readProblem(op, target);
  SmallVector<int64_t> chunks(target.chunkCandidates);
  if (forcedChunk > 0)
    chunks = {forcedChunk};
  SmallVector<FormEstimate> alternatives;
  for (FormKind kind : legal) {
    if (!isChunkedKind(kind)) {
      alternatives.push_back(estimate(problem, target, kind, 0));
      continue;
    }
    for (int64_t chunk : chunks)
      alternatives.push_back(estimate(problem, target, kind, chunk));
  }
  if (isInSequenceBlock(op))
    keepThoseThatRunInOneBlock(alternatives, problem, target);
  return pick(std::move(alternatives), forced);
}

} // namespace

std::optional<FormChoice>
mlir::linea::chooseForm(FormOpInterface op, const TargetDescription &target,
                        std::optional<FormKind> forced, int64_t forcedChunk) {
  if (auto presum = dyn_cast<PresumOp>(op.getOperation()))
    return choosePresumForm(presum, target, forced);
  SmallVector<FormKind> legal = op.getLegalForms();
  auto attention = dyn_cast<LinearAttentionOpInterface>(op.getOperation());
  if (legal.empty() || !attention)
    return std::nullopt;
  return chooseLinearAttentionForm(attention, legal, target, forced,
                                   forcedChunk);
}

std::string mlir::linea::describeChoice(const FormChoice &choice) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto name = [](const FormEstimate &e) {
    std::string n = stringifyFormKind(e.kind).str();
    if (isChunkedKind(e.kind))
      n += "(" + std::to_string(e.size) + ")";
    return n;
  };
  os << "form " << name(choice.chosen);
  if (!choice.note.empty())
    os << " (" << choice.note << ")";
  os << "; weighed:";
  for (const FormEstimate &e : choice.alternatives) {
    os << " " << name(e) << " "
       << llvm::format("%.3g FLOP %.3g B %.3g us", e.flops, e.bytes,
                       e.seconds * 1e6);
    // A GPU chunked form: whether its chunk loop is one block per sequence.
    if (e.blockBytes > 0)
      os << llvm::format(e.oneBlock ? ", a block of %.0f B"
                                    : ", host loops (a block of %.0f B)",
                         e.blockBytes);
    os << ";";
  }
  return text;
}
