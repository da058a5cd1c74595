//===- NameKernels.cpp - every gpu.launch named after what it computes ----===//
//
// The forms name each stage of a Linea op in its ops' locations
// (KernelNames.h); a launch takes the name most of its ops carry. The
// model's own ops carry none: their launches are named after their content.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"
#include "linea/Utils/KernelNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEANAMEKERNELS
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// The kernel name most ops of `launch` carry (the first seen of a tie).
std::optional<StringRef> carriedName(gpu::LaunchOp launch) {
  llvm::MapVector<StringRef, int64_t> counts;
  launch.getBody().walk([&](Operation *op) {
    if (std::optional<StringRef> name = linea::kernelNameOf(op->getLoc()))
      ++counts[*name];
  });
  std::optional<StringRef> best;
  int64_t most = 0;
  for (auto [name, count] : counts)
    if (count > most) {
      best = name;
      most = count;
    }
  return best;
}

bool isFloatLike(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

/// A product of two different values added to something: a contraction's
/// step (x * x, a sum of squares, is a reduction's).
bool accumulatesProducts(Operation *op) {
  if (isa<math::FmaOp>(op))
    return op->getOperand(0) != op->getOperand(1);
  if (!isa<arith::AddFOp>(op))
    return false;
  return llvm::any_of(op->getOperands(), [](Value term) {
    auto product = term.getDefiningOp<arith::MulFOp>();
    return product && product.getLhs() != product.getRhs();
  });
}

/// What a launch with no carried name computes, from its content.
StringRef contentName(gpu::LaunchOp launch) {
  bool tensorCores = false, loops = false, products = false, arithmetic = false,
       reads = false;
  launch.getBody().walk([&](Operation *op) {
    auto memory = dyn_cast<MemoryEffectOpInterface>(op);
    reads |= memory && memory.hasEffect<MemoryEffects::Read>();
    tensorCores |= isa<NVVM::MmaOp, NVVM::WgmmaMmaAsyncOp>(op);
    loops |= isa<scf::ForOp, scf::WhileOp>(op);
    bool floating = llvm::any_of(op->getResultTypes(), isFloatLike);
    arithmetic |= floating &&
                  isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
                      op->getDialect()) &&
                  !isa<arith::ConstantOp>(op);
    auto loop = op->getParentOfType<scf::ForOp>();
    products |= floating && loop && launch->isProperAncestor(loop) &&
                accumulatesProducts(op);
  });
  if (tensorCores || products)
    return "matmul";
  if (loops)
    return "reduction";
  if (arithmetic)
    return "elementwise";
  return reads ? "copy" : "fill";
}

struct LineaNameKernelsPass
    : linea::impl::LineaNameKernelsBase<LineaNameKernelsPass> {
  void runOnOperation() override {
    // Launches of one stage are numbered in program order (the first
    // bare), so that each kernel has a name of its own in a profile.
    llvm::StringMap<int64_t> launchesNamed;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      if (launch.getFunctionAttr())
        return;
      std::optional<StringRef> carried = carriedName(launch);
      std::string name =
          ("linea_" + (carried ? *carried : contentName(launch))).str();
      if (int64_t earlier = launchesNamed[name]++)
        name += "_" + std::to_string(earlier);
      launch.setFunctionAttr(FlatSymbolRefAttr::get(&getContext(), name));
    });
  }
};

} // namespace
