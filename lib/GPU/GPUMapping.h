//===- GPUMapping.h - what Linea's GPU mapping passes share ----*- C++ -*-===//
//
// Marking loops for blocks and threads, the buffer a view is of, and where
// each temporary of a
// sequence block lives in the block's shared memory (linea-map-to-gpu asks
// whether it fits, linea-sequence-blocks-to-launch places it).
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_CONVERSION_LINEATOGPU_GPUMAPPING_H
#define LINEA_LIB_CONVERSION_LINEATOGPU_GPUMAPPING_H

#include "linea/Target/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::linea {

/// Maps `loop`'s first dims to `processors` (the others run sequentially),
/// for convert-parallel-loops-to-gpu and linea-sequence-blocks-to-launch.
void mapLoopTo(scf::ParallelOp loop, ArrayRef<gpu::Processor> processors);

/// An `scf.parallel` over [0, sizes...) mapped to `processors`, the builder
/// placed in its body; returns its indices. (Blocks and threads are one
/// loop: nested loops with constant bounds would be merged by the
/// canonicalizer, which drops their mapping. For the same reason a dim of
/// one iteration, a grid of one block, is left out, its index 0: the
/// canonicalizer would fold it, mapping and all, and the grid would stay
/// on the host.) A size may be a value computed on the host (a grid over
/// a dynamic dim).
SmallVector<Value> parallelLoop(OpBuilder &b, Location loc,
                                ArrayRef<OpFoldResult> sizes,
                                ArrayRef<gpu::Processor> processors);
SmallVector<Value> parallelLoop(OpBuilder &b, Location loc,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<gpu::Processor> processors);

/// Each host loop nest under `root` (outside sequence blocks and kernels)
/// that adds into one f32 buffer at indices its body computes (the
/// gradient of a lookup), as one `scf.parallel` band over its loops whose
/// adds are `memref.atomic_rmw addf` (ScatterAdds.cpp); returns the bands.
/// Other nests stay as they are.
SmallVector<scf::ParallelOp> scatterAddsToParallel(RewriterBase &rewriter,
                                                   Operation *root);

/// True for an scf.parallel whose first dim is mapped to `processor`.
bool isMappedTo(scf::ParallelOp loop, gpu::Processor processor);

/// The allocation or argument `memref` is a view of (through every
/// ViewLikeOpInterface op): two memrefs with different roots do not alias.
Value viewRoot(Value memref);

/// The buffers (view roots) `op` and the ops nested in it read and write
/// (a deallocation counts as a write); false where an effect is on no
/// known buffer.
bool bufferEffects(Operation *op, llvm::SmallPtrSetImpl<Value> &reads,
                   llvm::SmallPtrSetImpl<Value> &writes);

/// The function arguments that hold the caller's tensors (device memory):
/// every buffer argument of a public function, and the arguments of private
/// ones that some call passes one of those to, or a view of one.
DenseSet<Value> callerBuffers(ModuleOp module);

/// Calls `access(op, root)` for each host op under `root` (outside every
/// kernel) that may read or write elements of a buffer, with the buffer's
/// view root. An op that says nothing of its effects (a call) counts as
/// accessing every buffer it is given; ops whose effects are their
/// regions' are looked into instead, and a TMA descriptor's host half
/// reads a buffer's address, not its elements.
void forEachHostAccess(Operation *root,
                       function_ref<void(Operation *op, Value buffer)> access);

/// Byte offsets of the `memref.alloc`s nested in a block, as a stack along
/// the region tree: an allocation lives until the end of its block, so
/// allocations in sibling regions (the chunk loop's body and the remainder
/// chunk's branch) share the same bytes.
struct SharedMemoryPlan {
  llvm::DenseMap<Operation *, int64_t> offsets;
  int64_t bytes = 0;
};

/// Plans `body`'s allocations; fails on one with a dynamic size, a layout
/// or an element type without a byte size, or one that can escape its
/// block (a memref yielded or carried by a loop), naming it in `obstacle`.
FailureOr<SharedMemoryPlan> planSharedMemory(Block &body,
                                             Operation *&obstacle);

/// The shared memory a sequence block's temporaries need as one block, or
/// the op that keeps its body from running as one block: an allocation the
/// plan cannot place, or a side effect outside linalg ops and thread loops
/// (every thread would repeat it). linea-map-to-gpu keeps a sequence block
/// on the GPU where this fits its shared memory.
FailureOr<int64_t> sequenceBlockBytes(scf::ForallOp forall,
                                      Operation *&obstacle);

/// What one block may use on the GPU a module is planned for
/// (`#linea.target`), as a GPU pass sees it.
struct BlockLimits {
  int64_t threads;
  int64_t sharedMemory;
  /// The planned GPU itself (its chip, its SMs).
  TargetDescription target;
};

/// The block limits for the GPU pass `pass` on `root`: the threads its
/// `block-size` option names where that is in [1, kMaxThreadsPerBlock],
/// the planned GPU's where it is 0, and the planned GPU's shared memory.
/// An error naming `pass` for any other block size, or where no GPU target
/// was recorded (linea-plan-target).
FailureOr<BlockLimits> blockLimits(Operation *root, StringRef pass,
                                   int64_t blockSize);

/// Whether `forall` is a sequence block whose temporaries fit in
/// `sharedMemory` bytes (BlockLimits): linea-map-to-gpu keeps it one GPU
/// block (else a host loop), and the passes before it that address its
/// temporaries as shared memory (ldmatrix, cp.async) ask the same. For a
/// sequence block that does not fit, `whyNot` (if given) is told why: the
/// op that cannot run in one block, else the bytes of its temporaries and
/// the shared memory they exceed.
bool runsAsOneBlock(
    scf::ForallOp forall, int64_t sharedMemory,
    function_ref<void(Operation *obstacle, int64_t bytes, int64_t budget)>
        whyNot = nullptr);

/// Bytes one cp.async moves (the size that may bypass L1).
constexpr int64_t kCopyBytes = 16;

/// Elements of `type` in one cp.async line (0 for sub-byte types).
int64_t elementsPerCopyLine(Type type);

/// Whether `type` is addressed in whole cp.async lines: innermost stride 1
/// and size, every other stride and (unless `anyOffset`, to be checked at
/// run time with startsOnCopyLine) the offset multiples of a line.
bool inCopyLines(MemRefType type, bool anyOffset);

/// Whether `memref`'s first element starts a cp.async line, at run time
/// (a caller's view may start anywhere).
Value startsOnCopyLine(OpBuilder &b, Location loc, Value memref);

/// Whether every row of `memref` is whole cp.async lines, at run time: its
/// first element starts one, the innermost stride is 1 and each other
/// stride whole lines (a view of a caller's rows, heads split from them,
/// may have any).
Value rowsOnCopyLines(OpBuilder &b, Location loc, Value memref);

/// `memref` seen in the workgroup address space (what ldmatrix and
/// cp.async address), its shape and layout kept.
Value workgroupView(OpBuilder &b, Location loc, Value memref);

/// Line `line` of a thread's share (lines `line`, `line + threads`, ... of
/// `lines`) copied by one 16-byte cp.async (bypassing L1) from `source`
/// into `shared` (workgroup memory) and committed as a group; after its
/// last line the thread waits for all of its groups. Where
/// `sourceElements` is given, only that many elements are read and the
/// rest of the line is zeros (0: a line past the end of `source`).
void copyLineAsync(OpBuilder &b, Location loc, Value shared,
                   ValueRange sharedIndices, Value source,
                   ValueRange sourceIndices, Value line, int64_t lines,
                   int64_t threads, Value sourceElements = Value());

} // namespace mlir::linea

#endif // LINEA_LIB_CONVERSION_LINEATOGPU_GPUMAPPING_H
