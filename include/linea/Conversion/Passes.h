//===- Passes.h - conversions out of Linea ---------------------*- C++ -*-===//

#ifndef LINEA_CONVERSION_PASSES_H
#define LINEA_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace linea {

#define GEN_PASS_DECL
#include "linea/Conversion/Passes.h.inc"

/// The reference lowering of every Linea op (see convert-linea-to-linalg).
void populateLineaToLinalgPatterns(RewritePatternSet &patterns);

/// Marks the block-mapped scf.parallel of a sequence block (one GPU block
/// runs one sequence's chunk loop), from linea-map-to-gpu to
/// linea-sequence-blocks-to-launch.
constexpr llvm::StringLiteral kSequenceBlockAttrName = "linea.sequence_block";

#define GEN_PASS_REGISTRATION
#include "linea/Conversion/Passes.h.inc"

} // namespace linea
} // namespace mlir

#endif // LINEA_CONVERSION_PASSES_H
