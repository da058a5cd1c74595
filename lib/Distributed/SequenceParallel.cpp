//===- SequenceParallel.cpp - one sequence across the ranks of MPI --------===//
//
// Linear attention needs from the rows before a rank only their state, a
// `Dk x Dv` matrix, so a sequence split across ranks exchanges states, never
// activations. Each rank runs its rows as ordinary Linea ops from a zero
// state (the optimizer picks their forms as for any other op); their final
// states, and for a gate the sums of their log-decays, are the rank's
// record. One all-gather shares the records, and every rank folds those of
// the ranks before it onto the initial state: an exclusive scan over ranks
// (seed 000 again, one level up). The output is linear in the state, so
// `Q S` (decayed, with a gate) then moves the rows onto the state they
// really start from. Row-local ops around the Linea ops (projections,
// elementwise maps) are split along with them.
//
// The pass walks each public function (FunctionDistributor.cpp); each op's
// rule for splitting lives in a file of its own: linear attention
// (DistributeLinearAttention.cpp), packed segments
// (DistributePackedSegments.cpp), presum (DistributePresum.cpp) and softmax
// attention (DistributeSoftmaxAttention.cpp), with what they share in
// DistributedUtils.h.
//
//===----------------------------------------------------------------------===//

#include "DistributedUtils.h"

#include "linea/Distributed/Passes.h"
#include "linea/Distributed/RankCollectives.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEASEQUENCEPARALLEL
#include "linea/Distributed/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea;

namespace {
struct LineaSequenceParallelPass
    : linea::impl::LineaSequenceParallelBase<LineaSequenceParallelPass> {
  using LineaSequenceParallelBase::LineaSequenceParallelBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    LineaSequenceParallelBase::getDependentDialects(registry);
    registerMPIMemoryEffects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mpiImplementation != "OpenMPI" && mpiImplementation != "MPICH") {
      module.emitError() << "mpi-implementation must be OpenMPI or MPICH, got '"
                         << mpiImplementation << "'";
      return signalPassFailure();
    }
    bool distributed = false;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !func.isPublic())
        continue;
      FailureOr<bool> changed = distributed::distributeFunction(func, module);
      if (failed(changed))
        return signalPassFailure();
      distributed |= *changed;
    }
    if (distributed)
      declareImplementation(module);
  }

  /// The DLTI entry the mpi dialect's lowering reads, unless one is there.
  void declareImplementation(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    StringAttr key = StringAttr::get(ctx, "MPI:Implementation");
    auto existing = module->getAttrOfType<MapAttr>(DLTIDialect::kMapAttrName);
    SmallVector<DataLayoutEntryInterface> entries;
    if (existing) {
      for (DataLayoutEntryInterface entry : existing.getEntries())
        if (auto name = dyn_cast<StringAttr>(entry.getKey()); name && name == key)
          return;
      llvm::append_range(entries, existing.getEntries());
    }
    entries.push_back(DataLayoutEntryAttr::get(
        key, StringAttr::get(ctx, mpiImplementation)));
    module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(ctx, entries));
  }
};

} // namespace
