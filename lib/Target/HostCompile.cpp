//===- HostCompile.cpp - LLVM code generation for the host CPU ------------===//

#include "linea/Target/HostCompile.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/LoopExtractor.h"

using namespace llvm;

Expected<std::unique_ptr<TargetMachine>>
mlir::linea::createHostTargetMachine(bool pic) {
  auto builder = orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  if (pic)
    builder->setRelocationModel(Reloc::PIC_);
  return builder->createTargetMachine();
}

/// Moves every fixed-size alloca into its function's entry block. MLIR's
/// translation of `gpu.launch_func` allocates each launch's parameter array
/// where the launch is: inside a host loop that is a fresh stack allocation
/// per iteration, never freed until the function returns, and a loop of a
/// few thousand launches overflowed the stack (a segmentation fault in
/// cuLaunchKernel, seen on an H100). In the entry block each is allocated
/// once. Every such buffer is filled and read within one iteration (a
/// launch's parameters are copied by the launch), so one buffer serves all.
static void hoistFixedSizeAllocas(Module &module) {
  for (Function &function : module) {
    if (function.isDeclaration())
      continue;
    BasicBlock &entry = function.getEntryBlock();
    SmallVector<AllocaInst *> moved;
    for (BasicBlock &block : function)
      if (&block != &entry)
        for (Instruction &inst : block)
          if (auto *alloca = dyn_cast<AllocaInst>(&inst))
            if (isa<ConstantInt>(alloca->getArraySize()))
              moved.push_back(alloca);
    for (AllocaInst *alloca : moved)
      alloca->moveBefore(entry.getFirstInsertionPt());
  }
}

/// Moves every top-level loop nest of every function into a function of its
/// own, marked noinline so that -O3's inliner does not undo the split.
static void extractLoopNests(Module &module, TargetMachine *machine) {
  SmallPtrSet<Function *, 16> before;
  for (Function &function : module)
    before.insert(&function);

  LoopAnalysisManager loops;
  FunctionAnalysisManager functions;
  CGSCCAnalysisManager sccs;
  ModuleAnalysisManager modules;
  PassBuilder builder(machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  ModulePassManager passes;
  passes.addPass(LoopExtractorPass());
  passes.run(module, modules);

  for (Function &function : module)
    if (!before.contains(&function) && !function.isDeclaration())
      function.addFnAttr(Attribute::NoInline);
}

Error mlir::linea::optimizeHostModule(Module &module, TargetMachine *machine) {
  hoistFixedSizeAllocas(module);
  extractLoopNests(module, machine);
  return mlir::makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                         machine)(&module);
}
