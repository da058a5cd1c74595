//===- AccumulationChains.h - what linea-contractions-to-mma runs -*- C++ -*-===//
//
// The contractions tensor cores take (Linea's three shapes over static
// buffers that tile by 16 x 8 x 16, read through the shared masked-
// contraction matcher), and the chains of them that accumulate into one
// output one after the other, which one grid runs with the accumulators in
// registers.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_GPU_ACCUMULATIONCHAINS_H
#define LINEA_LIB_GPU_ACCUMULATIONCHAINS_H

#include "Fragments.h"

#include <optional>

namespace mlir::linea::mma {

/// `op` as a contraction tensor cores can run: on f32 buffers, one of A M,
/// A^T M and A M^T (batch dims first, as Linea's builders lay them out),
/// optionally masked, its rows and depth multiples of the 16 x 16 tile and
/// static, but for output rows that A stores outer (a model's projection
/// over a dynamic L), which only a staged grid runs; static columns, ragged
/// ones (not a multiple of 8) only for lanes that load their fragments.
std::optional<Contraction> matchContraction(linalg::GenericOp op);

/// Contractions that accumulate into one output one after the other in
/// their block (the chunk-parallel output `O = P V` then `O += Q S`), and
/// the fill of zeros before the first, if any. None of them reads the
/// output, so one grid can run them all with the accumulators kept in
/// registers, starting from zero instead of the fill. Ops between them may
/// do other work (decay the queries of `Q S`): the chain runs where its
/// last member was, so those ops must leave the output alone and write
/// nothing an earlier member reads. The fill is a `linalg.fill` or the
/// generic a fill generalizes to.
struct AccumulationChain {
  SmallVector<linalg::GenericOp> ops;
  SmallVector<Contraction> members;
  Operation *zeroFill = nullptr;
  /// The elementwise op the chain's grid applies as it stores (epilogueOf),
  /// or null.
  linalg::GenericOp epilogue;
};

/// `matches`, in program order, grouped into chains.
SmallVector<AccumulationChain, 0>
collectChains(ArrayRef<std::pair<linalg::GenericOp, Contraction>> matches);

/// The elementwise op right after `chain` (only allocations, ops without
/// memory effects and run-time checks between) that a grid outside a sequence
/// block can apply to each output element as it stores it: a bias, an
/// activation, a residual add. It reads the output only at the element
/// it computes (the identity map over the output's dims), writes one
/// buffer there (the output itself, or another that nothing the chain
/// reads shares an allocation with), reads everything else by loop dims or
/// constants, and its body has no memory effects; where it writes
/// elsewhere, nothing after it reads the output. What it uses is defined
/// before the chain's last member, or after it by ops without memory
/// effects or allocations of values that are (epilogueDefinitions). Null where
/// there is none.
linalg::GenericOp epilogueOf(const AccumulationChain &chain);

/// The ops after `chain`'s last member that its epilogue needs before it,
/// in order: the definitions of what it uses (views, constants, its
/// output's allocation) and the run-time checks between (a broadcast's
/// `cf.assert`, with its condition's definition). The grid, built where
/// that member is, needs them moved before it.
SmallVector<Operation *> epilogueDefinitions(const AccumulationChain &chain);

} // namespace mlir::linea::mma

#endif // LINEA_LIB_GPU_ACCUMULATIONCHAINS_H
