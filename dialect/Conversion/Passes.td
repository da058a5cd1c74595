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
    `linea-select-forms` planned for) from the module and the ops in it, and
    Linea's other discardable annotations with it (`linea.as_written` on a
    raise's guarded `scf.if`, `linea.gradient_of` on a gradient function),
    whose readers (the raise, `linea-differentiate`) have run by then.
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

def LineaChecksToAsserts : Pass<"linea-checks-to-asserts"> {
  let summary = "Run-time checks as upstream cf.assert, for a compiler that is not Linea";
  let description = [{
    Every `linea.check` becomes `cf.assert` on the same condition, so that a
    module handed to another compiler (`linea-export`) keeps Linea's
    run-time checks in a form that compiler knows: IREE turns a failed
    `cf.assert` into an error status naming the message, upstream's
    lowering into `puts` and `abort`. `cf.assert` takes a constant message,
    so the values a check would print (`{N}`) are left out of it; the rest
    of the message (the model's source line, the op, the operands) stays.

    ```mlir
    linea.check %same, "f.mlir:2:6: linea.linear_attention: 'key' sequence length {0} does not match 'query' sequence length {1}"(%lk, %lq : index, index)
    // becomes
    cf.assert %same, "f.mlir:2:6: linea.linear_attention: 'key' sequence length does not match 'query' sequence length"
    ```
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

def LineaPresumToMaskedSums : Pass<"linea-presum-to-masked-sums"> {
  let summary = "Presum as triangular masked sums, no loop (for a hand-off)";
  let description = [{
    A `linea.presum` without decay or offsets becomes contractions with
    0/1 triangular masks, in two levels: the input padded with zeros to
    blocks of `B` rows (about `sqrt(N)` for a static length `N`, 16 for a
    dynamic one) and viewed as `[..., N / B, B, ...]`; each row's sum inside
    its block (a `B x B` mask), plus the totals of the blocks before it (an
    `N / B x N / B` strict mask; the totals themselves a contraction with a
    `1 x B` mask of ones). About `2 N sqrt(N)` multiply-adds per
    column instead of `N`, but no loop: `linea-export` uses it because the
    compilers it hands off to (IREE) run a loop's iterations as separate
    dispatches and copy what it carries, while masked sums fuse and tile as
    matmuls do. Exclusive and reverse sums change the masks only; f16 and
    bf16 inputs are summed in f32.

    A decayed presum is left for the scan (its weights as differences of
    running log-sums would lose f32 precision over long spans), as is a
    packed one (`linea-split-segments` splits those first). The masks
    multiply: an infinity or NaN in the input reaches the rows before it
    too (0 * inf), where a scan keeps it to the rows after it.

    ```mlir
    %y = linea.presum %x exclusive : tensor<2x100x8xf32>
    // becomes: x padded to 10 blocks of 10 rows, [2, 10, 10, 8]; a
    // 10 x 10 strict mask summed over each block's rows, the block totals
    // summed under a 10 x 10 strict mask, the two added, the padding sliced
    // off
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaSplitOutputMasks : Pass<"linea-split-output-masks"> {
  let summary = "A masked contraction as a plain contraction and a mask on its result";
  let description = [{
    Linea's forms write a causal product as one `linalg.generic` whose body
    zeroes the products the mask hides, `out + select(t <= i, q * k, 0)`.
    Where the predicate reads only indices of the output (and constants),
    every product summed into one output element is kept or dropped
    together, so the mask can follow the sum: the generic becomes a plain
    contraction (`out + q * k`, what other compilers take for a matmul) and
    an elementwise `select` on its result zeroes the hidden elements. The
    sums are the same. A predicate that reads a reduction index or an
    operand's element stays in the body. `linea-export` runs it: IREE tiles
    the plain contraction as a matmul (a causal layer's hand-off ran 1.6x
    faster there).

    ```mlir
    %s = linalg.generic {... ["parallel", "parallel", "parallel", "reduction"]}
        ins(%q, %k : ...) outs(%zero : tensor<4x64x64xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %t = linalg.index 2 : index
      %i = linalg.index 1 : index
      %visible = arith.cmpi sle, %t, %i : index
      %p = arith.mulf %a, %b : f32
      %m = arith.select %visible, %p, %cst0 : f32
      %r = arith.addf %o, %m : f32
      linalg.yield %r : f32
    }
    // becomes the same generic yielding `%o + %p`, then a generic over its
    // result yielding `select(index 2 <= index 1, %x, 0)`
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LineaVerifyExported : Pass<"linea-verify-exported", "::mlir::ModuleOp"> {
  let summary = "Fail where a Linea op, attribute or type is left in a hand-off";
  let description = [{
    The last step of `linea-export`: the module goes to a compiler that
    knows upstream MLIR only (IREE, torch-mlir, `mlir-opt`), so no op of
    Linea's dialects (`linea`, and the `tm_tensor` ops Linea reads from
    torch-mlir) and no attribute or type of Linea's may be left in it. The
    first one found is an error naming it and the way out; the module
    is otherwise unchanged.

    ```mlir
    %y = linea.presum %x : tensor<8xf32>
    // error: 'linea.presum' is left in the exported module: run
    // convert-linea-to-linalg before linea-verify-exported
    ```
  }];
}

#endif // LINEA_CONVERSION_PASSES_TD
