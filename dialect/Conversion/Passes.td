//===- Passes.td - conversions out of Linea --------------------*- tablegen -*-===//

#ifndef LINEA_CONVERSION_PASSES_TD
#define LINEA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLineaToLinalg : Pass<"convert-linea-to-linalg"> {
  let summary = "Lower every Linea op by its plain definition (the reference)";
  let description = [{
    The reference lowering: each op becomes upstream `linalg`, `scf`,
    `tensor`, `arith` and `math` IR that computes SPEC's definition directly,
    chosen to be obviously correct rather than fast. It is the oracle the
    optimizing rewrites are checked against.

    - linear attention: the masked quadratic form
      `O = scale * ((phi(Q) phi(K)^T) .* M) V (+ phi(Q) S0)`, the mask
      computed from the row and column indices (`t <= p(i)`), the normalizer
      the row sum of the masked scores;
    - gated linear attention: the same with decays `exp(b_p - b_t)`,
      `b = presum(g)`, taken only where `t <= p` so every weight is `<= 1`;
    - attention: masked scores, a row max, `exp`, a row sum (rows with no
      visible key are zero);
    - presum: a sequential `scf.for` carrying the running sum;
    - fold: an `scf.for` over segments carrying the memory, the body inlined;
    - torch-mlir's `tm_tensor.scan` (what linea-raise left: --no-raise, or
      a combiner other than add): an `scf.for` along its dimension carrying
      the running row, combined with each slice by the scan's own
      (commutative) combiner.

    f16/bf16 operands are extended to f32 on entry and results truncated on
    exit. Dynamic leading dims and dynamic `L` are supported throughout.

    ```mlir
    %y = linea.presum %x exclusive : tensor<4x8xf32>
    // becomes an scf.for over the 4 rows carrying a tensor<1x8xf32> sum
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def LineaRouteChecks : Pass<"linea-route-checks", "::mlir::ModuleOp"> {
  let summary = "Failed run-time checks call a handler instead of aborting";
  let description = [{
    Every `cf.assert` (the run-time checks of `linea-insert-runtime-checks`,
    or any other) becomes a branch that, when the condition is false, calls
    `void HANDLER(const char *message)` with the assert's message as a
    NUL-terminated constant string; the handler decides what a failed check
    does. Upstream lowers `cf.assert` to `puts` and `abort`, which ends the
    calling process: linea-run's handler prints one line and exits with 1,
    and linea-compile's libraries return an error from `linea_checked_F`.

    ```mlir
    cf.assert %same, "f.mlir:2:6: linea.linear_attention: 'key' sequence length does not match 'query' sequence length"
    // becomes
    %failed = arith.xori %same, %true : i1
    scf.if %failed {
      %message = llvm.mlir.addressof @linea_check_message_0 : !llvm.ptr
      func.call @linea_check_failed(%message) : (!llvm.ptr) -> ()
    }
    ```
  }];
  let options = [
    Option<"handler", "handler", "std::string", /*default=*/"\"linea_check_failed\"",
           "The function a failed check calls with its message">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // LINEA_CONVERSION_PASSES_TD
