//===- AsyncLaunches.cpp - kernels queued, waited for where the host needs --===//
//
// Every launch of a function goes on one stream (the runtime's stream of the
// calling thread), asynchronously; the host waits for that stream only where
// it reads or writes a buffer itself and before it returns.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "GPUMapping.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAASYNCLAUNCHES
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// `launch` again, asynchronous after `stream`: the same sizes, attributions
/// and body.
void launchAfter(RewriterBase &rewriter, gpu::LaunchOp launch, Value stream) {
  rewriter.setInsertionPoint(launch);
  auto types = [](ArrayRef<BlockArgument> values) {
    return llvm::map_to_vector(values,
                               [](BlockArgument v) { return v.getType(); });
  };
  auto async = gpu::LaunchOp::create(
      rewriter, launch.getLoc(), launch.getGridSizeX(), launch.getGridSizeY(),
      launch.getGridSizeZ(), launch.getBlockSizeX(), launch.getBlockSizeY(),
      launch.getBlockSizeZ(), launch.getDynamicSharedMemorySize(),
      gpu::AsyncTokenType::get(rewriter.getContext()), ValueRange{stream},
      types(launch.getWorkgroupAttributions()),
      types(launch.getPrivateAttributions()), launch.getClusterSizeX(),
      launch.getClusterSizeY(), launch.getClusterSizeZ(),
      launch.getModuleAttr(), launch.getFunctionAttr());
  async.getBody().takeBody(launch.getBody());
  async->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
  rewriter.eraseOp(launch);
}

/// The runtime's host wait for the calling thread's stream.
constexpr StringLiteral kSynchronize = "linea_cuda_synchronize";

func::FuncOp declareSynchronize(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kSynchronize))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto declaration = func::FuncOp::create(
      builder, module.getLoc(), kSynchronize,
      builder.getFunctionType(TypeRange(), TypeRange()));
  declaration.setPrivate();
  return declaration;
}

/// Makes `function`'s launches asynchronous on its stream and puts the
/// host's waits in; false if it launches nothing.
bool queueLaunches(func::FuncOp function, func::FuncOp synchronize) {
  SmallVector<gpu::LaunchOp> launches;
  function.walk([&](gpu::LaunchOp launch) {
    if (!launch.getAsyncToken() && launch.getAsyncDependencies().empty())
      launches.push_back(launch);
  });
  if (launches.empty())
    return false;

  IRRewriter rewriter(function.getContext());
  rewriter.setInsertionPointToStart(&function.getBody().front());
  Type token = gpu::AsyncTokenType::get(function.getContext());
  Value stream =
      gpu::WaitOp::create(rewriter, function.getLoc(), token, ValueRange())
          .getAsyncToken();
  for (gpu::LaunchOp launch : launches)
    launchAfter(rewriter, launch, stream);

  // The host's own reads and writes, and the caller, see finished kernels.
  // (A call to the runtime, not `gpu.wait [%stream]`: the canonicalizer
  // drops a wait on a token that no op but `gpu.wait async` made, which
  // upstream's token model considers complete.)
  SetVector<Operation *> waiters;
  linea::forEachHostAccess(function,
                           [&](Operation *op, Value) { waiters.insert(op); });
  function.walk([&](func::ReturnOp ret) { waiters.insert(ret); });
  for (Operation *op : waiters) {
    rewriter.setInsertionPoint(op);
    func::CallOp::create(rewriter, op->getLoc(), synchronize, ValueRange());
  }
  return true;
}

struct LineaAsyncLaunchesPass
    : linea::impl::LineaAsyncLaunchesBase<LineaAsyncLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    func::FuncOp synchronize;
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      if (!synchronize)
        synchronize = declareSynchronize(module);
      queueLaunches(function, synchronize);
    }
    // Declared only where something calls it.
    if (synchronize && synchronize.symbolKnownUseEmpty(module))
      synchronize.erase();
  }
};

} // namespace
