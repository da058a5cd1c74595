//===- TMTensorOps.td - torch-mlir's scan, as Linea reads it --*- tablegen -*-===//
//
// torch-mlir prints `torch.cumsum` as `tm_tensor.scan`, an op of its TMTensor
// dialect that upstream MLIR does not have. Linea registers the one op (and
// its terminator) with torch-mlir's syntax, so model IR parses as printed;
// linea-raise turns an add scan into `linea.presum`, and the reference
// lowering runs any other as a loop.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_TMTENSOR_OPS_TD
#define LINEA_TMTENSOR_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TMTensor_Dialect : Dialect {
  let name = "tm_tensor";
  let summary = "torch-mlir's tm_tensor.scan, so that model IR parses as printed";
  let description = [{
    The subset of torch-mlir's TMTensor dialect that its linalg-on-tensors
    output uses: `tm_tensor.scan` (its `torch.cumsum`) and its terminator.
    Only the tensor form; Linea raises or lowers it before bufferization.
  }];
  let cppNamespace = "::mlir::linea::tm_tensor";
}

def TMTensor_ScanOp : Op<TMTensor_Dialect, "scan", [
    Pure, AttrSizedOperandSegments,
    SingleBlockImplicitTerminator<"::mlir::linea::tm_tensor::YieldOp">]> {
  let summary = "a scan along one dimension with a combining region";
  let description = [{
    With `input` and the initial `output` and `accumulator`, for each
    position `p` along `dimension`: inclusive, `output[0] = input[0]` and
    `output[p] = combine(output[p-1], input[p])`; exclusive,
    `output[0] = accumulator` and `output[p] = combine(output[p-1],
    input[p-1])`. The second result is the last `output` row (the
    accumulator's type: the input's shape without `dimension`). The region
    combines two scalars and yields one. Linea accepts commutative combiners
    (add, multiply, max, min of floats and integers), where the order of the
    region's arguments does not matter.

    ```mlir
    %y:2 = tm_tensor.scan dimension(1) inclusive(true)
        ins(%x : tensor<2x16x4xf32>) outs(%o, %a : tensor<2x16x4xf32>, tensor<2x4xf32>) {
    ^bb0(%u: f32, %w: f32):
      %s = arith.addf %u, %w : f32
      tm_tensor.yield %s : f32
    } -> tensor<2x16x4xf32>, tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       Variadic<AnyRankedTensor>:$outputs,
                       I64Attr:$dimension, BoolAttr:$inclusive);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `dimension` `(` $dimension `)` `inclusive` `(` $inclusive `)` attr-dict
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    $region (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getInput() { return getInputs()[0]; }
    ::mlir::Value getOutput() { return getOutputs()[0]; }
    ::mlir::Value getAccumulator() { return getOutputs()[1]; }
    /// The op combining the region's arguments, if the region is one
    /// commutative op on them (what Linea can run), else null.
    ::mlir::Operation *getCommutativeCombiner();
  }];
}

def TMTensor_YieldOp : Op<TMTensor_Dialect, "yield", [
    Pure, Terminator, ReturnLike, HasParent<"ScanOp">]> {
  let summary = "yields the combined value of a tm_tensor.scan step";
  let description = [{
    ```mlir
    tm_tensor.yield %s : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

#endif // LINEA_TMTENSOR_OPS_TD
