//===- Passes.h - Linea's GPU passes ---------------------------*- C++ -*-===//

#ifndef LINEA_GPU_PASSES_H
#define LINEA_GPU_PASSES_H

#include "linea/Target/Target.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::linea {

#define GEN_PASS_DECL
#include "linea/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "linea/GPU/Passes.h.inc"

} // namespace mlir::linea

#endif // LINEA_GPU_PASSES_H
