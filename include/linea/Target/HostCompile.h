//===- HostCompile.h - LLVM code generation for the host CPU ----*- C++ -*-===//
//
// What linea-run's JIT and linea-compile's libraries share: the host's target
// machine and the LLVM optimization of a lowered Linea module.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TARGET_HOSTCOMPILE_H
#define LINEA_TARGET_HOSTCOMPILE_H

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::linea {

/// A target machine for this machine's CPU (its vector width decides what
/// the loop vectorizer does), at -O3 code generation, position independent
/// when `pic` (for shared libraries).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(bool pic = false);

/// LLVM's -O3 on a lowered Linea module, in time linear in its size: each
/// top-level loop nest is first extracted into a function of its own
/// (LLVM's LoopExtractor) that is never inlined back. A whole model lowers
/// to one function with a loop nest per op, and some -O3 passes
/// (IndVarSimplify first) grow faster than linearly with a function's loop
/// count: 25 ops took 25 s in -O3 as one function and 1.3 s as 95.
/// Fixed-size stack buffers allocated inside loops (a GPU launch's
/// parameters) move to their function's entry block first, so that a loop
/// does not grow the stack with every iteration.
llvm::Error optimizeHostModule(llvm::Module &module,
                               llvm::TargetMachine *machine);

} // namespace mlir::linea

#endif // LINEA_TARGET_HOSTCOMPILE_H
