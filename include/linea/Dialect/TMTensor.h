//===- TMTensor.h - torch-mlir's tm_tensor.scan, as Linea reads it -*- C++ -*-===//

#ifndef LINEA_DIALECT_TMTENSOR_H
#define LINEA_DIALECT_TMTENSOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "linea/Dialect/TMTensorDialect.h.inc"

#define GET_OP_CLASSES
#include "linea/Dialect/TMTensorOps.h.inc"

#endif // LINEA_DIALECT_TMTENSOR_H
