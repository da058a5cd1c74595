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
    Lowers the run-time checks: every `linea.check` (what
    `linea-insert-runtime-checks` writes) and every host `cf.assert` (a
    front end's, such as torch-mlir's "mismatched size for broadcast")
    becomes a branch that, when the condition is false, calls
    `void HANDLER(const char *message)`; the handler decides what a failed
    check does. A `linea.check`'s message is formatted there, with the values
    it compared (`snprintf` into a buffer on the stack), so a passing check
    costs its comparison only. A `cf.assert`'s message gets the model's
    source line (`layer.py:12: `) and, where its condition is an integer
    comparison, both sides (`(compared 7 and 63)`).

    Upstream lowers `cf.assert` to `puts` and `abort`, which ends the calling
    process: linea-compile's libraries route every check to a handler that
    returns an error from `linea_checked_F`. With `handler=` empty a failed
    check prints its message with `puts` and calls `abort`, as upstream's
    `cf.assert` does; linea-run turns that into its one-line error. A
    `cf.assert` inside a GPU kernel stays upstream's (the device has no
    host handler to call). The lowering pipelines
    run it late, just before `scf` becomes a CFG, with their `check-handler`
    option (empty by default): after `convert-scf-to-openmp`, so that a
    check in a parallel loop's body does not keep that body's
    `memref.alloca_scope` (a call would). The formatting is a private
    function of its own, called with the values, so that its buffer is on
    its own stack.

    ```mlir
    linea.check %same, "f.mlir:2:6: linea.linear_attention: 'key' sequence length {0} does not match 'query' sequence length {1}"(%lk, %lq : index, index)
    // becomes
    %failed = arith.xori %same, %true : i1
    scf.if %failed {
      %0 = arith.index_cast %lk : index to i64
      %1 = arith.index_cast %lq : index to i64
      func.call @linea_check_failure(%0, %1) : (i64, i64) -> ()
    }
    ...
    func.func private @linea_check_failure(%lk: i64, %lq: i64) {
      %buffer = llvm.alloca %c1024 x i8 : (i64) -> !llvm.ptr
      %format = llvm.mlir.addressof @linea_check_message : !llvm.ptr
      llvm.call @snprintf(%buffer, %c1024, %format, %lk, %lq) vararg(...)
      call @linea_check_failed(%buffer) : (!llvm.ptr) -> ()
      return
    }
    ```
  }];
  let options = [
    Option<"handler", "handler", "std::string", /*default=*/"\"linea_check_failed\"",
           "The function a failed check calls with its message; empty: "
           "puts and abort">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def LineaForgetTarget : Pass<"linea-forget-target", "::mlir::ModuleOp"> {
  let summary = "Drop the planned target once nothing reads it";
  let description = [{
    Removes every `linea.target` attribute (`#linea.target<...>`, what
    `linea-select-forms` planned for) from the module and the ops in it.
    The lowering pipelines run it where they leave Linea's IR for the LLVM
    dialect, after the last pass that reads the target (the GPU mapping, the
    kernel report): upstream tools that read their output (`mlir-translate`,
    `mlir-runner`) do not know Linea's attributes.

    ```mlir
    module attributes {linea.target = #linea.target<kind = cpu, ...>} { ... }
    // becomes
    module { ... }
    ```
  }];
}

#endif // LINEA_CONVERSION_PASSES_TD
