"""Random Linea programs for the differential suites.

Each `*_case` function turns a small spec (a dict of shapes and attributes)
into MLIR text, random inputs, and the float64 expectations from
`linea.reference`, so a test only runs the program and compares.
"""

import re
import subprocess

import numpy as np

from linea import reference as ref
from linea.runner import build_dir

TOLERANCE = 1e-4  # SPEC: relative L2 error for f32 against float64


def bf16(x):
    """`x` rounded to bf16 (round to nearest even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def ttype(shape, dynamic=()):
    dims = ["?" if i in dynamic else str(s) for i, s in enumerate(shape)]
    return "tensor<" + "x".join(dims + ["f32"]) + ">"


def seq_dynamic(spec, rank):
    """The dims printed as `?` for a [B..., L, D] operand of `rank`."""
    dyn = set()
    if spec.get("dyn_L"):
        dyn.add(rank - 2)
    if spec.get("dyn_batch") and rank > 2:
        dyn.add(0)
    return dyn


def state_dynamic(spec, rank):
    return {0} if spec.get("dyn_batch") and rank > 2 else set()


def gate_values(rng, shape):
    """Log-decays in [-20, 0], many near 0, a few down to -20."""
    return -20.0 * rng.uniform(0.0, 1.0, shape) ** 3


def function(args, results, body):
    params = ", ".join(f"%{name}: {t}" for name, t in args)
    rets = ", ".join(t for _, t in results)
    names = ", ".join(f"%{n}" for n, _ in results)
    return (f"func.func @main({params}) -> ({rets}) {{\n{body}\n"
            f"  return {names} : {rets}\n}}\n")


def mask_spec(spec):
    if spec["mask"] != "prefix":
        return spec["mask"]
    return "prefix(%j)" if spec.get("dyn_prefix") else f"prefix({spec['prefix']})"


# ---------------------------------------------------------------------------
# presum
# ---------------------------------------------------------------------------
def presum_case(spec, rng):
    shape = spec["shape"]
    dyn = set(spec.get("dynamic", ()))
    t = ttype(shape, dyn)
    attrs = ""
    if spec.get("dim") is not None:
        attrs += f" dim = {spec['dim']}"
    if spec.get("exclusive"):
        attrs += " exclusive"
    if spec.get("reverse"):
        attrs += " reverse"
    x = rng.standard_normal(shape)
    args, inputs, decay, decay_operand = [("x", t)], [x], None, ""
    if spec.get("decay_rank"):
        # The decay covers the leading dims of x; gates down to -20.
        rank = spec["decay_rank"]
        td = ttype(shape[:rank], {d for d in dyn if d < rank})
        decay = gate_values(rng, shape[:rank])
        args.append(("a", td))
        inputs.append(decay)
        decay_operand = f" decay(%a : {td})"
    body = f"  %y = linea.presum %x{decay_operand}{attrs} : {t}"
    want = ref.presum(x, dim=spec.get("dim"), exclusive=spec.get("exclusive", False),
                      reverse=spec.get("reverse", False), decay=decay)
    return function(args, [("y", t)], body), inputs, [want]


# ---------------------------------------------------------------------------
# linear_attention
# ---------------------------------------------------------------------------
def add_state_and_prefix(spec, rng, sshape, ts, args, inputs):
    """The optional initial state and dynamic prefix operands; returns S0."""
    s0 = None
    if spec.get("init"):
        s0 = rng.standard_normal(sshape)
        args.append(("s0", ts))
        inputs.append(s0)
    if spec["mask"] == "prefix" and spec.get("dyn_prefix"):
        args.append(("j", "index"))
        inputs.append(spec["prefix"])
    return s0


def linear_attention_case(spec, rng):
    batch, L, dk, dv = spec["batch"], spec["L"], spec["dk"], spec["dv"]
    qshape, vshape, sshape = batch + [L, dk], batch + [L, dv], batch + [dk, dv]
    tq = ttype(qshape, seq_dynamic(spec, len(qshape)))
    tv = ttype(vshape, seq_dynamic(spec, len(vshape)))
    ts = ttype(sshape, state_dynamic(spec, len(sshape)))
    q, k, v = (rng.standard_normal(s) for s in (qshape, qshape, vshape))
    args, inputs = [("q", tq), ("k", tq), ("v", tv)], [q, k, v]
    s0 = add_state_and_prefix(spec, rng, sshape, ts, args, inputs)
    results = [("o", tv)] + ([("s", ts)] if spec.get("final") else [])
    attrs = f"mask = {mask_spec(spec)}"
    if spec.get("feature_map", "identity") != "identity":
        attrs += f" feature_map = {spec['feature_map']}"
    if spec.get("scale", 1.0) != 1.0:
        attrs += f" scale = {spec['scale']!r}"
    if spec.get("normalize"):
        attrs += " normalize"
    init = " init(%s0)" if s0 is not None else ""
    operand_types = ", ".join([tq, tq, tv] + ([ts] if s0 is not None else []))
    body = (f"  %o{', %s' if spec.get('final') else ''} = linea.linear_attention "
            f"%q, %k, %v{init} {attrs} : {operand_types} -> "
            f"{', '.join(t for _, t in results)}")
    o, fs = ref.linear_attention(
        q, k, v, mask=spec["mask"], prefix_length=spec.get("prefix"),
        feature_map=spec.get("feature_map", "identity"), scale=spec.get("scale", 1.0),
        normalize=spec.get("normalize", False), initial_state=s0)
    want = [o] + ([fs] if spec.get("final") else [])
    return function(args, results, body), inputs, want


def sixteen_bit_program(batch, L, dk, dv, gated, mask, element="f16", dynamic_L=False):
    """@main rounding its f32 arguments to `element` (bf16 or f16: linea-run
    binds f32) and running linear or gated linear attention on them, so the
    op reads 16-bit buffers made in the program; the result widened back to
    f32."""
    seq = "?" if dynamic_L else str(L)

    def t(d, e=element):
        return "tensor<" + "x".join([str(b) for b in batch] + [seq, str(d), e]) + ">"
    names = ["q", "k", "v"] + (["g"] if gated else [])
    widths = [dk, dk, dv] + ([dk] if gated else [])
    args = ", ".join(f"%{n}32: {t(w, 'f32')}" for n, w in zip(names, widths))
    body = "".join(f"  %{n} = arith.truncf %{n}32 : {t(w, 'f32')} to {t(w)}\n"
                   for n, w in zip(names, widths))
    op = "gated_linear_attention" if gated else "linear_attention"
    operands = ", ".join(f"%{n}" for n in names)
    types = ", ".join(t(w) for w in widths)
    return (f"func.func @main({args}) -> {t(dv, 'f32')} {{\n{body}"
            f"  %o = linea.{op} {operands} mask = {mask} : {types} -> {t(dv)}\n"
            f"  %w = arith.extf %o : {t(dv)} to {t(dv, 'f32')}\n"
            f"  return %w : {t(dv, 'f32')}\n}}\n")


# ---------------------------------------------------------------------------
# gated_linear_attention
# ---------------------------------------------------------------------------
def gated_case(spec, rng):
    batch, L, dk, dv = spec["batch"], spec["L"], spec["dk"], spec["dv"]
    qshape, vshape, sshape = batch + [L, dk], batch + [L, dv], batch + [dk, dv]
    gshape = batch + [L] if spec.get("scalar_gate") else qshape
    tq = ttype(qshape, seq_dynamic(spec, len(qshape)))
    tv = ttype(vshape, seq_dynamic(spec, len(vshape)))
    ts = ttype(sshape, state_dynamic(spec, len(sshape)))
    gdyn = seq_dynamic(spec, len(qshape))
    if spec.get("scalar_gate"):  # [B..., L]: L is the last dim
        gdyn = {d if d != len(qshape) - 2 else len(gshape) - 1 for d in gdyn}
    tg = ttype(gshape, gdyn)
    q, k, v = (rng.standard_normal(s) for s in (qshape, qshape, vshape))
    g = gate_values(rng, gshape)
    args, inputs = [("q", tq), ("k", tq), ("v", tv), ("g", tg)], [q, k, v, g]
    s0 = add_state_and_prefix(spec, rng, sshape, ts, args, inputs)
    results = [("o", tv)] + ([("s", ts)] if spec.get("final") else [])
    attrs = f"mask = {mask_spec(spec)}"
    if spec.get("scale", 1.0) != 1.0:
        attrs += f" scale = {spec['scale']!r}"
    init = " init(%s0)" if s0 is not None else ""
    operand_types = ", ".join([tq, tq, tv, tg] + ([ts] if s0 is not None else []))
    body = (f"  %o{', %s' if spec.get('final') else ''} = linea.gated_linear_attention "
            f"%q, %k, %v, %g{init} {attrs} : {operand_types} -> "
            f"{', '.join(t for _, t in results)}")
    o, fs = ref.gated_linear_attention(
        q, k, v, g, mask=spec["mask"], prefix_length=spec.get("prefix"),
        scale=spec.get("scale", 1.0), initial_state=s0)
    want = [o] + ([fs] if spec.get("final") else [])
    return function(args, results, body), inputs, want


# ---------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------
def attention_case(spec, rng):
    batch, lq, lk, dk, dv = spec["batch"], spec["Lq"], spec["Lk"], spec["dk"], spec["dv"]
    shapes = [batch + [lq, dk], batch + [lk, dk], batch + [lk, dv], batch + [lq, dv]]
    types = [ttype(s, seq_dynamic(spec, len(s))) for s in shapes]
    q, k, v = (rng.standard_normal(s) for s in shapes[:3])
    attrs = f"mask = {spec['mask']}"
    if spec.get("scale") is not None:
        attrs += f" scale = {spec['scale']!r}"
    body = (f"  %o = linea.attention %q, %k, %v {attrs} : "
            f"{types[0]}, {types[1]}, {types[2]} -> {types[3]}")
    want = ref.attention(q, k, v, mask=spec["mask"], scale=spec.get("scale"))
    args = [("q", types[0]), ("k", types[1]), ("v", types[2])]
    return function(args, [("o", types[3])], body), [q, k, v], [want]


# ---------------------------------------------------------------------------
# fold and folded_attention
# ---------------------------------------------------------------------------
def fold_body(spec, attention=ref.attention):
    """The body fold_case writes, given an attention(q, k, v, mask, scale)."""
    def body(w):
        a = attention(w, w, w, mask="causal")
        if spec.get("layers", 1) == 2:
            a = attention(a, a, w, mask="none", scale=0.5)
        return a
    return body


def fold_case(spec, rng):
    """A fold whose body is one or two softmax attention layers."""
    batch, L, l, d = spec["batch"], spec["L"], spec["l"], spec["d"]
    xshape, mshape, wshape = batch + [L, d], batch + [l, d], batch + [2 * l, d]
    tx = ttype(xshape, seq_dynamic(spec, len(xshape)))
    tm = ttype(mshape, state_dynamic(spec, len(mshape)))
    tw = ttype(wshape, state_dynamic(spec, len(wshape)))
    x, m = rng.standard_normal(xshape), rng.standard_normal(mshape)
    lines = [f"  %y, %m = linea.fold %x, %m0 segment_length = {l} : {tx}, {tm} {{",
             f"  ^bb0(%w: {tw}):",
             f"    %a = linea.attention %w, %w, %w mask = causal : {tw}, {tw}, {tw} -> {tw}"]
    last = "%a"
    if spec.get("layers", 1) == 2:
        lines.append(f"    %b = linea.attention %a, %a, %w mask = none scale = 0.5 : "
                     f"{tw}, {tw}, {tw} -> {tw}")
        last = "%b"
    lines += [f"    linea.yield {last} : {tw}", "  }"]
    y, mem = ref.fold(x, m, l, fold_body(spec))
    program = function([("x", tx), ("m0", tm)], [("y", tx), ("m", tm)], "\n".join(lines))
    return program, [x, m], [y, mem]


def folded_attention_case(spec, rng):
    batch, L, l, d, h = spec["batch"], spec["L"], spec["l"], spec["d"], spec["heads"]
    xshape, mshape = batch + [L, d], batch + [l, d]
    tx = ttype(xshape, seq_dynamic(spec, len(xshape)))
    tm = ttype(mshape, state_dynamic(spec, len(mshape)))
    tw = ttype([d, d])
    x, m = rng.standard_normal(xshape), rng.standard_normal(mshape)
    ws = [rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(4)]
    body = (f"  %y, %m = linea.folded_attention %x, %m0 weights(%wq, %wk, %wv, %wo) "
            f"segment_length = {l} num_heads = {h} : {tx}, {tm}, {tw}, {tw}, {tw}, {tw}")
    y, mem = ref.folded_attention(x, m, *ws, segment_length=l, num_heads=h)
    args = [("x", tx), ("m0", tm)] + [(n, tw) for n in ("wq", "wk", "wv", "wo")]
    return function(args, [("y", tx), ("m", tm)], body), [x, m] + ws, [y, mem]


BUILDERS = {
    "presum": presum_case,
    "linear_attention": linear_attention_case,
    "gated_linear_attention": gated_case,
    "attention": attention_case,
    "fold": fold_case,
    "folded_attention": folded_attention_case,
}


def assert_matches(got, expected):
    """Every result has the expected shape, is finite and is within SPEC's
    tolerance of the float64 oracle."""
    assert len(got) == len(expected)
    for k, (g, want) in enumerate(zip(got, expected)):
        assert g.shape == want.shape, f"result {k}: {g.shape} vs {want.shape}"
        assert np.all(np.isfinite(g)), f"result {k} has non-finite values"
        err = ref.rel_l2(g, want)
        assert err <= TOLERANCE, f"result {k}: rel. L2 error {err:.3g}"


def build(spec, seed):
    rng = np.random.default_rng(seed)
    return BUILDERS[spec["op"]](spec, rng)


def lower_to_nvvm(text, options):
    """linea-lower-to-nvvm{options} of `text`: (its output, its remarks);
    asserts that it succeeded."""
    done = subprocess.run([str(build_dir() / "bin" / "linea-opt"), "-",
                           f"--linea-lower-to-nvvm={options}"],
                          input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def kernel_names(text, options="chip=sm_90a format=isa"):
    """The names of the kernels linea-lower-to-nvvm makes of `text`, in
    program order."""
    output, _ = lower_to_nvvm(text, options)
    return [line.split("@")[1].split()[0] for line in output.splitlines()
            if line.lstrip().startswith("gpu.binary @")]


def launch_count(text, options="chip=sm_90a format=isa report=1"):
    """How many kernel launches the functions of `text` make, one call each,
    by linea-lower-to-nvvm's kernel report: host loops' trip counts
    multiplied in; None where a loop's trip count is not static."""
    _, remarks = lower_to_nvvm(text, options)
    total = 0
    for line in remarks.splitlines():
        if "kernel @" not in line:
            continue
        if "unknown trip count" in line:
            return None
        times = re.search(r"launched (\d+) times", line)
        total += int(times.group(1)) if times else 1
    return total


# The body of gelu(v + c) + res (erf form), shared by the projection
# epilogue programs.
GELU_RESIDUAL_BODY = """\
  ^bb0(%v: f32, %c: f32, %res: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %d = arith.divf %s, %root2 : f32
    %er = math.erf %d : f32
    %e1 = arith.addf %er, %one : f32
    %h = arith.mulf %e1, %half : f32
    %g = arith.mulf %s, %h : f32
    %out = arith.addf %g, %res : f32
    linalg.yield %out : f32
"""


def projection_epilogue_program(k, n):
    """@main(x [?, k], w [n, k], b [n], r [?, n]) = gelu(x w^T + b) + r, the
    contraction a generic as a model's Linear is after generalization."""
    return f"""
#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(i, e) -> (i, e)>
#bias = affine_map<(i, e) -> (e)>
func.func @main(%x: tensor<?x{k}xf32>, %w: tensor<{n}x{k}xf32>, %b: tensor<{n}xf32>,
                %r: tensor<?x{n}xf32>) -> tensor<?x{n}xf32> {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %root2 = arith.constant 1.41421354 : f32
  %l = tensor.dim %x, %c0 : tensor<?x{k}xf32>
  %e = tensor.empty(%l) : tensor<?x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x{n}xf32>) -> tensor<?x{n}xf32>
  %p = linalg.generic {{indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x, %w : tensor<?x{k}xf32>, tensor<{n}x{k}xf32>) outs(%f : tensor<?x{n}xf32>) {{
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }} -> tensor<?x{n}xf32>
  %y = linalg.generic {{indexing_maps = [#rows, #bias, #rows, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%p, %b, %r : tensor<?x{n}xf32>, tensor<{n}xf32>, tensor<?x{n}xf32>) outs(%p : tensor<?x{n}xf32>) {{
{GELU_RESIDUAL_BODY}  }} -> tensor<?x{n}xf32>
  return %y : tensor<?x{n}xf32>
}}
"""


def batched_projection_epilogue_program(k, n):
    """@main(x [?, ?, k], w [n, k], b [n], r [?, ?, n]) = gelu(x w^T + b) + r
    as torch-mlir writes a Linear over [B, L, k] with B and L dynamic: the
    zeros filled into [B, L, n] and collapsed to the contraction's init, its
    result expanded back, the bias, GELU and residual add over [B, L, n]."""
    return f"""
#a = affine_map<(i, e, t) -> (i, t)>
#m = affine_map<(i, e, t) -> (e, t)>
#o = affine_map<(i, e, t) -> (i, e)>
#rows = affine_map<(b, l, e) -> (b, l, e)>
#bias = affine_map<(b, l, e) -> (e)>
func.func @main(%x: tensor<?x?x{k}xf32>, %w: tensor<{n}x{k}xf32>, %b: tensor<{n}xf32>,
                %r: tensor<?x?x{n}xf32>) -> tensor<?x?x{n}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %root2 = arith.constant 1.41421354 : f32
  %bs = tensor.dim %x, %c0 : tensor<?x?x{k}xf32>
  %ls = tensor.dim %x, %c1 : tensor<?x?x{k}xf32>
  %e = tensor.empty(%bs, %ls) : tensor<?x?x{n}xf32>
  %f = linalg.generic {{indexing_maps = [#rows], iterator_types = ["parallel", "parallel", "parallel"]}}
      outs(%e : tensor<?x?x{n}xf32>) {{
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  }} -> tensor<?x?x{n}xf32>
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x{k}xf32> into tensor<?x{k}xf32>
  %f2 = tensor.collapse_shape %f [[0, 1], [2]] : tensor<?x?x{n}xf32> into tensor<?x{n}xf32>
  %p = linalg.generic {{indexing_maps = [#a, #m, #o], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x2, %w : tensor<?x{k}xf32>, tensor<{n}x{k}xf32>) outs(%f2 : tensor<?x{n}xf32>) {{
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %q = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }} -> tensor<?x{n}xf32>
  %p3 = tensor.expand_shape %p [[0, 1], [2]] output_shape [%bs, %ls, {n}] : tensor<?x{n}xf32> into tensor<?x?x{n}xf32>
  %y = linalg.generic {{indexing_maps = [#rows, #bias, #rows, #rows], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%p3, %b, %r : tensor<?x?x{n}xf32>, tensor<{n}xf32>, tensor<?x?x{n}xf32>) outs(%p3 : tensor<?x?x{n}xf32>) {{
{GELU_RESIDUAL_BODY}  }} -> tensor<?x?x{n}xf32>
  return %y : tensor<?x?x{n}xf32>
}}
"""


def projection_epilogue(x, w, b, r):
    """The oracle of projection_epilogue_program, in float64."""
    from math import erf
    s = np.asarray(x, np.float64) @ np.asarray(w, np.float64).T + b
    return s * 0.5 * (1 + np.vectorize(erf)(s / np.sqrt(2))) + r


# Row reductions (linea-row-reductions): a normalization's linalg ops over the
# rows of a [R, C] tensor, R dynamic, as torch-mlir writes them.

def layer_norm_program(c):
    """torch-mlir's LayerNorm: the mean in f32, the variance in f64."""
    return f"""
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#column = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<?x{c}xf32>, %w: tensor<{c}xf32>, %b: tensor<{c}xf32>) -> tensor<?x{c}xf32> {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %zero64 = arith.constant 0.0 : f64
  %n = arith.constant {float(c)} : f32
  %n64 = arith.constant {float(c)} : f64
  %eps = arith.constant 1.0e-5 : f32
  %r = tensor.dim %x, %c0 : tensor<?x{c}xf32>
  %e1 = tensor.empty(%r) : tensor<?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {{indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<?x{c}xf32>) outs(%s0 : tensor<?xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<?xf32>
  %e2 = tensor.empty(%r) : tensor<?xf64>
  %q0 = linalg.fill ins(%zero64 : f64) outs(%e2 : tensor<?xf64>) -> tensor<?xf64>
  %squares = linalg.generic {{indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x, %sum : tensor<?x{c}xf32>, tensor<?xf32>) outs(%q0 : tensor<?xf64>) {{
  ^bb0(%a: f32, %s: f32, %acc: f64):
    %mean = arith.divf %s, %n : f32
    %a64 = arith.extf %a : f32 to f64
    %m64 = arith.extf %mean : f32 to f64
    %d = arith.subf %a64, %m64 : f64
    %d2 = arith.mulf %d, %d : f64
    %t = arith.addf %d2, %acc : f64
    linalg.yield %t : f64
  }} -> tensor<?xf64>
  %e3 = tensor.empty(%r) : tensor<?x{c}xf32>
  %y = linalg.generic {{indexing_maps = [#rows, #row, #row, #column, #column, #rows],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%x, %sum, %squares, %w, %b : tensor<?x{c}xf32>, tensor<?xf32>, tensor<?xf64>, tensor<{c}xf32>, tensor<{c}xf32>)
      outs(%e3 : tensor<?x{c}xf32>) {{
  ^bb0(%a: f32, %s: f32, %q: f64, %g: f32, %h: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var64 = arith.divf %q, %n64 : f64
    %var = arith.truncf %var64 : f64 to f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %nd = arith.mulf %d, %rs : f32
    %sc = arith.mulf %nd, %g : f32
    %sh = arith.addf %sc, %h : f32
    linalg.yield %sh : f32
  }} -> tensor<?x{c}xf32>
  return %y : tensor<?x{c}xf32>
}}
"""


def softmax_program(c):
    """A softmax along each row, its row maxima returned too (stored by
    each row's first lane)."""
    return f"""
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<?x{c}xf32>) -> (tensor<?x{c}xf32>, tensor<?xf32>) {{
  %c0 = arith.constant 0 : index
  %low = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r = tensor.dim %x, %c0 : tensor<?x{c}xf32>
  %e1 = tensor.empty(%r) : tensor<?xf32>
  %m0 = linalg.fill ins(%low : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {{indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<?x{c}xf32>) outs(%m0 : tensor<?xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }} -> tensor<?xf32>
  %e2 = tensor.empty(%r) : tensor<?x{c}xf32>
  %ex = linalg.generic {{indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %max : tensor<?x{c}xf32>, tensor<?xf32>) outs(%e2 : tensor<?x{c}xf32>) {{
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }} -> tensor<?x{c}xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {{indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%ex : tensor<?x{c}xf32>) outs(%s0 : tensor<?xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<?xf32>
  %y = linalg.generic {{indexing_maps = [#rows, #row, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%ex, %sum : tensor<?x{c}xf32>, tensor<?xf32>) outs(%e2 : tensor<?x{c}xf32>) {{
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }} -> tensor<?x{c}xf32>
  return %y, %max : tensor<?x{c}xf32>, tensor<?xf32>
}}
"""


def rms_norm_program(c):
    """An RMSNorm over [B, L, C], B and L dynamic: the rows are B x L; the
    reciprocal root an op of its own over [B, L]."""
    return f"""
#x = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r = affine_map<(d0, d1, d2) -> (d0, d1)>
#w = affine_map<(d0, d1, d2) -> (d2)>
#rr = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<?x?x{c}xf32>, %w: tensor<{c}xf32>) -> tensor<?x?x{c}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant {float(c)} : f32
  %eps = arith.constant 1.0e-6 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x{c}xf32>
  %l = tensor.dim %x, %c1 : tensor<?x?x{c}xf32>
  %e = tensor.empty(%b, %l) : tensor<?x?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {{indexing_maps = [#x, #r], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%x : tensor<?x?x{c}xf32>) outs(%s0 : tensor<?x?xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<?x?xf32>
  %root = linalg.generic {{indexing_maps = [#rr, #rr], iterator_types = ["parallel", "parallel"]}}
      ins(%sum : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {{
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %me = arith.addf %m, %eps : f32
    %rs = math.rsqrt %me : f32
    linalg.yield %rs : f32
  }} -> tensor<?x?xf32>
  %ye = tensor.empty(%b, %l) : tensor<?x?x{c}xf32>
  %y = linalg.generic {{indexing_maps = [#x, #r, #w, #x], iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%x, %root, %w : tensor<?x?x{c}xf32>, tensor<?x?xf32>, tensor<{c}xf32>)
      outs(%ye : tensor<?x?x{c}xf32>) {{
  ^bb0(%a: f32, %rs: f32, %g: f32, %o: f32):
    %s = arith.mulf %a, %rs : f32
    %t = arith.mulf %s, %g : f32
    linalg.yield %t : f32
  }} -> tensor<?x?x{c}xf32>
  return %y : tensor<?x?x{c}xf32>
}}
"""


def layer_norm(x, w, b):
    """The oracle of layer_norm_program, in float64."""
    x = np.asarray(x, np.float64)
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


def rms_norm(x, w):
    """The oracle of rms_norm_program, in float64."""
    x = np.asarray(x, np.float64)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w


def softmax(x):
    """The oracle of softmax_program's first result, in float64."""
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
