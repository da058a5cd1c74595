//===- ConvertMPIToLLVM.cpp - mpi ops to MPI C API calls ------------------===//

#include "linea/Distributed/Passes.h"
#include "linea/Distributed/RankCollectives.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::linea {
#define GEN_PASS_DEF_LINEACONVERTMPITOLLVM
#include "linea/Distributed/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;

namespace {

/// MLIR 22's MPI-to-LLVM patterns lower `mpi.comm_rank` but not
/// `mpi.comm_size`; this does as they do for the rank: the communicator
/// arrives as an i64 (Open MPI: a pointer, MPICH: an int handle),
/// `MPI_Comm_size(comm, &size)` fills a stack slot.
struct CommSizeLowering : ConvertOpToLLVMPattern<mpi::CommSizeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(mpi::CommSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    Type i32 = rewriter.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value comm = adaptor.getComm();
    Type commType = i32;
    if (isOpenMPI(module)) {
      commType = ptr;
      comm = LLVM::IntToPtrOp::create(rewriter, loc, ptr, comm);
    } else {
      comm = LLVM::TruncOp::create(rewriter, loc, i32, comm);
    }
    FailureOr<LLVM::LLVMFuncOp> callee = LLVM::lookupOrCreateFn(
        rewriter, module, "MPI_Comm_size", {commType, ptr}, i32);
    if (failed(callee))
      return failure();
    Value one = LLVM::ConstantOp::create(rewriter, loc, i32, 1);
    Value slot = LLVM::AllocaOp::create(rewriter, loc, ptr, i32, one);
    auto call = LLVM::CallOp::create(rewriter, loc, *callee,
                                     ValueRange{comm, slot});
    Value size = LLVM::LoadOp::create(rewriter, loc, i32, slot);
    if (op.getRetval())
      rewriter.replaceOp(op, {call.getResult(), size});
    else
      rewriter.replaceOp(op, size);
    return success();
  }

  /// As upstream reads it: the DLTI entry, MPICH when absent.
  static bool isOpenMPI(ModuleOp module) {
    FailureOr<Attribute> entry =
        dlti::query(module, ArrayRef<StringRef>{"MPI:Implementation"},
                    /*emitError=*/false);
    auto name = succeeded(entry) ? dyn_cast<StringAttr>(*entry) : StringAttr();
    return name && name.getValue() == "OpenMPI";
  }
};

/// MLIR 22 declares Open MPI's predefined reductions as `@ompi_mpi_<op>`
/// (`ompi_mpi_sum`); libmpi exports them as `ompi_mpi_op_<op>`. Renames the
/// globals (and their uses) to what the library defines.
LogicalResult fixOpenMPIReductionNames(ModuleOp module) {
  static constexpr llvm::StringLiteral kReductions[] = {
      "max",  "min",  "sum",  "prod", "land",   "band",   "lor",
      "bor",  "lxor", "bxor", "minloc", "maxloc", "replace", "no_op"};
  SymbolTable symbols(module);
  for (auto global : llvm::to_vector(module.getOps<LLVM::GlobalOp>())) {
    StringRef name = global.getSymName();
    if (!name.consume_front("ompi_mpi_") || !llvm::is_contained(kReductions, name))
      continue;
    std::string fixed = ("ompi_mpi_op_" + name).str();
    if (failed(symbols.rename(global, fixed)))
      return global.emitError() << "cannot rename to @" << fixed;
  }
  return success();
}

struct LineaConvertMPIToLLVMPass
    : linea::impl::LineaConvertMPIToLLVMBase<LineaConvertMPIToLLVMPass> {
  // The lowering pipeline's buffer deallocation, which runs before this
  // pass, needs the mpi ops' memory effects even where
  // linea-sequence-parallel ran in another pass manager or not at all.
  void getDependentDialects(DialectRegistry &registry) const override {
    LineaConvertMPIToLLVMBase::getDependentDialects(registry);
    linea::registerMPIMemoryEffects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasMPI = module
                      .walk([](Operation *op) {
                        return isa<mpi::MPIDialect>(op->getDialect())
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      })
                      .wasInterrupted();
    if (!hasMPI)
      return;
    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    mpi::populateMPIToLLVMConversionPatterns(converter, patterns);
    patterns.add<CommSizeLowering>(converter);
    ConversionTarget target(getContext());
    target.addIllegalDialect<mpi::MPIDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        (CommSizeLowering::isOpenMPI(module) &&
         failed(fixOpenMPIReductionNames(module))))
      signalPassFailure();
  }
};

} // namespace
