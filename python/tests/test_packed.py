"""Packed sequences (SPEC, third wave): `linea.presum ... offsets(%o)` sums
each segment [o_n, o_{n+1}) alone. Checked against the float64 oracle (which
sums each segment's slice by itself) through the reference lowering and the
optimizer, against the unpacked kernel run on each segment, with offsets as
index, i32 and i64 tensors; bad offsets stop the run with a one-line error;
the gradient against central finite differences."""

import subprocess
import zlib

import numpy as np
import pytest

import linea
from linea import LineaError, reference as ref
from linea.runner import build_dir
from gpu_cases import PACKED_PREFIX

TOLERANCE = 1e-4  # SPEC: relative L2 error for f32 against float64


def lengths_of(kind, length, rng):
    """Segment lengths that sum to `length`, in the shapes packing makes."""
    if kind == "one":
        return [length]
    if kind == "ones":  # every segment a single token
        return [1] * length
    if kind == "long_short":  # one long document and many short ones
        short = [int(s) for s in rng.integers(1, 4, size=length // 4)]
        while sum(short) >= length:
            short.pop()
        return [length - sum(short)] + short
    cuts = np.sort(rng.integers(0, length + 1, size=int(rng.integers(1, 6))))
    lengths = list(np.diff(np.concatenate([[0], cuts, [length]])))
    if kind == "empty":  # empty segments first, inside and last
        lengths = [0] + lengths[:1] + [0, 0] + lengths[1:] + [0]
    return [int(n) for n in lengths]


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def presum_program(shape, dynamic, offsets_type, exclusive, reverse, decay_rank):
    """@main(x, [a,] o) -> presum of x along its sequence dim with offsets o."""
    dims = ["?" if i in dynamic else str(n) for i, n in enumerate(shape)]
    x = f"tensor<{'x'.join(dims)}xf32>"
    o = f"tensor<?x{offsets_type}>"
    args = [f"%x: {x}"]
    decay = ""
    if decay_rank:
        a = f"tensor<{'x'.join(dims[:decay_rank])}xf32>"
        args.append(f"%a: {a}")
        decay = f" decay(%a : {a})"
    args.append(f"%o: {o}")
    flags = (" exclusive" if exclusive else "") + (" reverse" if reverse else "")
    return (f"func.func @main({', '.join(args)}) -> {x} {{\n"
            f"  %y = linea.presum %x{decay} offsets(%o){flags} : {x}, {o} -> {x}\n"
            f"  return %y : {x}\n}}\n")


def relative_error(got, want):
    scale = max(np.linalg.norm(want), 1e-30)
    return np.linalg.norm(np.asarray(got, np.float64) - want) / scale


# Seeded: every segment kind, direction and decay, static and dynamic L
# (prime, 1, not a multiple of the blocked scan's 64), several leading dims,
# and each offsets type.
KINDS = ["one", "ones", "long_short", "random", "empty"]
CASES = []
_rng = np.random.default_rng(36)
for k in range(20):
    batch = [[], [2], [2, 3]][k % 3]
    length = [1, 7, 131, 200, 64][k % 5]
    CASES.append(dict(kind=KINDS[(k // 2) % len(KINDS)], batch=batch, length=length,
                      width=int(_rng.integers(1, 6)), dynamic=k % 4 != 3,
                      offsets_type=["index", "i32", "i64"][k % 3],
                      exclusive=bool(k & 1), reverse=bool(k & 2),
                      decay=k % 5 == 2 or k % 7 == 0, no_optimize=k % 2 == 0))


def case_id(c):
    return (f"{c['kind']}-L={c['length']}-batch={c['batch']}-{c['offsets_type']}"
            + ("-dyn" if c["dynamic"] else "") + ("-excl" if c["exclusive"] else "")
            + ("-rev" if c["reverse"] else "") + ("-decay" if c["decay"] else "")
            + ("-reference" if c["no_optimize"] else "-optimized"))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_presum_against_oracle(case):
    rng = np.random.default_rng(zlib.crc32(case_id(case).encode()))
    shape = case["batch"] + [case["length"], case["width"]]
    seq = len(case["batch"])
    lengths = lengths_of(case["kind"], case["length"], rng)
    offsets = offsets_of(lengths)
    x = rng.standard_normal(shape).astype(np.float32)
    decay_rank = seq + 1 + int(rng.integers(0, 2)) if case["decay"] else 0
    inputs = [x]
    decay = None
    if decay_rank:
        # log-decays down to -20: exp(-20) ~ 2e-9 per step
        decay = (-20 * rng.random(shape[:decay_rank]) ** 3).astype(np.float32)
        inputs.append(decay)
    inputs.append(offsets.astype(np.int32 if case["offsets_type"] == "i32" else np.int64))
    program = presum_program(shape, {seq} if case["dynamic"] else set(),
                             case["offsets_type"], case["exclusive"], case["reverse"],
                             decay_rank)
    (got,) = linea.run(program, inputs, no_optimize=case["no_optimize"])
    want = ref.presum(x, seq, case["exclusive"], case["reverse"], decay, offsets)
    assert relative_error(got, want) <= TOLERANCE


def test_segments_never_read_each_other():
    """A segment's rows do not move when another segment's inputs do."""
    program = presum_program([40, 3], {0}, "index", True, False, 0)
    kernel = linea.compile(program)
    offsets = np.array([0, 9, 9, 23, 40])
    x = np.random.default_rng(1).standard_normal((40, 3)).astype(np.float32)
    before = kernel(x, offsets)
    x[9:23] += 1000.0
    after = kernel(x, offsets)
    np.testing.assert_array_equal(before[:9], after[:9])
    np.testing.assert_array_equal(before[23:], after[23:])
    assert not np.allclose(before[9:23], after[9:23])


def test_packed_matches_each_segment_alone():
    """The packed kernel and the unpacked one on each segment's rows."""
    shape, lengths = [2, 300, 4], [130, 1, 0, 64, 105]
    packed = linea.compile(presum_program(shape, {1}, "index", False, True, 0))
    alone = linea.compile(
        "func.func @main(%x: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {\n"
        "  %y = linea.presum %x reverse : tensor<2x?x4xf32>\n"
        "  return %y : tensor<2x?x4xf32>\n}\n")
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    offsets = offsets_of(lengths)
    got = packed(x, offsets)
    for start, end in zip(offsets, offsets[1:]):
        if end > start:
            np.testing.assert_allclose(got[:, start:end], alone(x[:, start:end]),
                                       rtol=1e-5, atol=1e-5)


def test_python_kernels_take_any_integer_offsets():
    """numpy int32 / int64 and torch integer tensors bind to tensor<?xindex>."""
    kernel = linea.compile(presum_program([10, 2], {0}, "index", False, False, 0))
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    want = ref.presum(x, 0, offsets=[0, 4, 10])
    for offsets in (np.array([0, 4, 10], np.int32), np.array([0, 4, 10], np.uint8)):
        np.testing.assert_allclose(kernel(x, offsets), want)
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(kernel(x, torch.tensor([0, 4, 10])), want)
    with pytest.raises(LineaError, match="argument 1: expected integers for an index tensor"):
        kernel(x, np.array([0.0, 4.0, 10.0]))


@pytest.mark.parametrize("offsets, message", [
    ([1, 4, 10], "'offsets' start at 1, not 0"),
    ([0, 4, 9], "'offsets' end at 9, but 'input' scanned dim is 10"),
    ([0, 6, 3, 10], "'offsets' decrease at entry 2: 3 after 6"),
    ([], "'offsets' has 0 entries, but N segments need N \\+ 1 >= 1"),
])
def test_bad_offsets_stop_the_run(offsets, message):
    program = presum_program([10, 2], {0}, "index", False, False, 0)
    x = np.ones((10, 2), np.float32)
    for no_optimize in (False, True):
        with pytest.raises(LineaError, match=message):
            linea.run(program, [x, np.array(offsets, np.int64)], no_optimize=no_optimize)


def test_gradient_against_finite_differences():
    """linea-differentiate: dx of an exclusive packed presum is the reversed
    packed presum of the cotangent (each segment's sum runs back alone)."""
    program = linea.differentiate(presum_program([2, 23, 3], {1}, "i64", True, False, 0))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 23, 3))
    dy = rng.standard_normal((2, 23, 3))
    offsets = offsets_of([5, 0, 1, 17])
    (dx,) = linea.run(program, [x.astype(np.float32), offsets, dy.astype(np.float32)],
                      entry="main_vjp")
    # The map is linear: the finite difference of <dy, y(x)> along each
    # basis direction is exact up to rounding, in float64.
    def objective(values):
        return np.sum(dy * ref.presum(values, 1, exclusive=True, offsets=offsets))
    want = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = 1e-3
        want[index] = (objective(x + step) - objective(x - step)) / 2e-3
    assert relative_error(dx, want) <= TOLERANCE


def test_oracle_sums_each_segment_alone():
    """The oracle itself, on numbers small enough to read."""
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(ref.presum(x, 0, offsets=[0, 2, 2, 5]), [1, 3, 3, 7, 12])
    np.testing.assert_array_equal(ref.presum(x, 0, exclusive=True, reverse=True,
                                             offsets=[0, 2, 5]), [2, 0, 9, 5, 0])
    for bad in ([1, 5], [0, 3], [0, 4, 2, 5], []):
        with pytest.raises(ValueError, match="offsets"):
            ref.presum(x, 0, offsets=bad)


def test_tiled_presum_keeps_each_segment(tmp_path):
    """Tiled by an upstream transform (batch by 2, columns by 2, partial tiles),
    every tile's presum takes the same offsets, then the optimizer runs."""
    from test_tiling import SCRIPT
    script = tmp_path / "tile.mlir"
    script.write_text(SCRIPT.format(op="presum", sizes="2, 2"))
    pipeline = (f"transform-preload-library{{transform-library-paths={script}}},"
                "transform-interpreter,linea-optimize")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 29, 5)).astype(np.float32)
    offsets = offsets_of([11, 0, 1, 17])
    program = presum_program([3, 29, 5], {1}, "i64", True, True, 0)
    (got,) = linea.run(program, [x, offsets], pipeline=pipeline)
    want = ref.presum(x, 1, exclusive=True, reverse=True, offsets=offsets)
    assert relative_error(got, want) <= TOLERANCE


# ---------------------------------------------------------------------------
# linear_attention and gated_linear_attention with offsets: one state and one
# prefix length per segment
# ---------------------------------------------------------------------------

def attention_program(op, batch, length, dk, dv, dynamic, offsets_type, mask,
                      init, final, gate_rank=0, feature_map=None, normalize=False,
                      prefix_type="index"):
    """@main(q, k, v, [g,] [s0,] o, [js]) -> packed linear attention (and final states)."""
    seq = "?" if dynamic else str(length)
    lead = "".join(f"{b}x" for b in batch)
    qt, vt = f"tensor<{lead}{seq}x{dk}xf32>", f"tensor<{lead}{seq}x{dv}xf32>"
    st = f"tensor<?x{lead}{dk}x{dv}xf32>"
    ot, jt = f"tensor<?x{offsets_type}>", f"tensor<?x{prefix_type}>"
    args, types = ["%q", "%k", "%v"], [qt, qt, vt]
    if op == "gated":
        gt = qt if gate_rank == len(batch) + 2 else f"tensor<{lead}{seq}xf32>"
        args.append("%g")
        types.append(gt)
    operands = ", ".join(args)
    if init:
        args.append("%s0")
        types.append(st)
        operands += " init(%s0)"
    args.append("%o")
    types.append(ot)
    operands += " offsets(%o)"
    mask_text = mask
    if mask == "prefix":
        args.append("%js")
        types.append(jt)
        mask_text = "prefix(%js)"
    attributes = ""
    if feature_map:
        attributes += f" feature_map = {feature_map}"
    if normalize:
        attributes += " normalize"
    name = "linea.gated_linear_attention" if op == "gated" else "linea.linear_attention"
    return main_function(args, types, [vt] + ([st] if final else []),
                         f"{name} {operands} mask = {mask_text}{attributes}")


def main_function(args, types, results, op_text):
    """`@main(args: types) -> results` returning the results of one op."""
    values = ", ".join(["%y", "%s"][:len(results)])
    signature = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
    return (f"func.func @main({signature}) -> ({', '.join(results)}) {{\n"
            f"  {values} = {op_text}\n"
            f"      : {', '.join(types)} -> {', '.join(results)}\n"
            f"  return {values} : {', '.join(results)}\n}}\n")


# Seeded: both ops, every mask, every segment kind (one, single tokens, empty
# ones, one long and many short), L = 1, prime, not a multiple of a chunk
# (64), several leading dims, per-token and per-key-dim gates down to -20,
# prefix lengths 0, j and len per segment, states in and out, each offsets
# type, dynamic and static L, the optimizer and the reference lowering.
ATTENTION_CASES = []
_rng = np.random.default_rng(3636)
for k in range(16):
    op = "gated" if k % 2 else "linear"
    batch = [[], [2], [2, 3]][k % 3]
    ATTENTION_CASES.append(dict(
        op=op, kind=KINDS[(k // 2) % len(KINDS)], batch=batch,
        length=[1, 7, 131, 200][k % 4] if k % 5 != 4 else 67,
        dk=int(_rng.integers(1, 9)), dv=int(_rng.integers(1, 9)),
        mask=["causal", "prefix", "none"][k % 3] if k != 13 else "prefix",
        dynamic=k % 4 != 3, offsets_type=["index", "i32", "i64"][k % 3],
        init=k % 3 != 0, final=k % 4 != 1,
        gate_rank=len(batch) + 1 + (k // 2) % 2 if op == "gated" else 0,
        normalize=op == "linear" and k % 3 == 0 and k % 4 == 2,
        feature_map="elu_plus_one" if op == "linear" and k % 5 == 2 else None,
        no_optimize=k % 4 == 2))


def attention_id(c):
    return (f"{c['op']}-{c['mask']}-{c['kind']}-L={c['length']}-batch={c['batch']}"
            f"-{c['offsets_type']}" + ("-dyn" if c["dynamic"] else "")
            + ("-init" if c["init"] else "") + ("-final" if c["final"] else "")
            + (f"-gate{c['gate_rank']}" if c["gate_rank"] else "")
            + ("-normalize" if c["normalize"] else "")
            + ("-elu" if c["feature_map"] else "")
            + ("-reference" if c["no_optimize"] else "-optimized"))


def attention_inputs(case, rng):
    """The program's inputs and the oracle's arguments for one case."""
    batch, length = case["batch"], case["length"]
    lengths = lengths_of(case["kind"], length, rng)
    offsets = offsets_of(lengths)
    q = rng.standard_normal(batch + [length, case["dk"]]).astype(np.float32)
    k = rng.standard_normal(batch + [length, case["dk"]]).astype(np.float32)
    v = rng.standard_normal(batch + [length, case["dv"]]).astype(np.float32)
    inputs, oracle = [q, k, v], dict(mask=case["mask"], offsets=offsets)
    if case["op"] == "gated":
        shape = batch + [length] + ([case["dk"]] if case["gate_rank"] == len(batch) + 2 else [])
        gate = (-20 * rng.random(shape) ** 3).astype(np.float32)  # log-decays down to -20
        inputs.append(gate)
    if case["init"]:
        s0 = rng.standard_normal([len(lengths)] + batch + [case["dk"], case["dv"]])
        inputs.append(s0.astype(np.float32))
        oracle["initial_state"] = inputs[-1]
    inputs.append(offsets.astype(np.int32 if case["offsets_type"] == "i32" else np.int64))
    if case["mask"] == "prefix":
        # 0, the whole segment, or a length between, per segment
        js = np.array([[0, n, int(rng.integers(0, n + 1))][i % 3] for i, n in enumerate(lengths)],
                      np.int64)
        inputs.append(js)
        oracle["prefix_length"] = js
    if case["op"] == "linear":
        oracle.update(feature_map=case["feature_map"] or "identity",
                      normalize=case["normalize"])
    return inputs, oracle


def check_attention_case(case, seed, **run_options):
    """Runs the case's program (linea.run with `run_options`) on seeded
    inputs and compares its output and final states with the oracle's."""
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    if case["normalize"]:
        case = dict(case, init=False)  # (normalize takes no initial state)
    inputs, oracle = attention_inputs(case, rng)
    program = attention_program(case["op"], case["batch"], case["length"], case["dk"],
                                case["dv"], case["dynamic"], case["offsets_type"],
                                case["mask"], case["init"], case["final"], case["gate_rank"],
                                case["feature_map"], case["normalize"])
    got = linea.run(program, inputs, **run_options)
    if case["op"] == "gated":
        want = ref.gated_linear_attention(*inputs[:4], **oracle)
    else:
        want = ref.linear_attention(*inputs[:3], **oracle)
    assert relative_error(got[0], want[0]) <= TOLERANCE
    if case["final"]:
        assert got[1].shape == want[1].shape
        assert relative_error(got[1], want[1]) <= TOLERANCE


@pytest.mark.parametrize("case", ATTENTION_CASES,
                         ids=[attention_id(c) for c in ATTENTION_CASES])
def test_linear_attention_against_oracle(case):
    check_attention_case(case, attention_id(case), no_optimize=case["no_optimize"])


# The hand-off (linea-export, issue 61) writes the segments one after
# another, an scf.for carrying the outputs (IREE crashes on a top-level
# scf.forall), with the CPU's forms and with the GPU's.
@pytest.mark.parametrize("pipeline", ["linea-export", "linea-export{target=gpu}"])
@pytest.mark.parametrize("case", ATTENTION_CASES[::2],
                         ids=[attention_id(c) for c in ATTENTION_CASES[::2]])
def test_hand_off_against_oracle(case, pipeline):
    check_attention_case(case, attention_id(case), pipeline=pipeline)


# Normalized PrefixLM ops (none among ATTENTION_CASES): the normalizer
# becomes a ones column of the packed values before the segments split.
NORMALIZED_PREFIX_CASES = [
    dict(op="linear", kind=kind, batch=batch, length=length, dk=dk, dv=dv, mask="prefix",
         dynamic=dynamic, offsets_type=offsets_type, init=False, final=final, gate_rank=0,
         normalize=True, feature_map="elu_plus_one", no_optimize=no_optimize)
    for kind, batch, length, dk, dv, dynamic, offsets_type, final, no_optimize in [
        ("empty", [2], 131, 5, 3, True, "i64", True, False),
        ("ones", [], 7, 2, 4, False, "index", False, False),
        ("long_short", [2, 3], 200, 8, 8, True, "i32", True, False),
        ("random", [2], 67, 3, 1, False, "i64", True, True),
        ("one", [], 1, 4, 2, True, "index", True, False),
    ]]


@pytest.mark.parametrize("case", NORMALIZED_PREFIX_CASES,
                         ids=[attention_id(c) for c in NORMALIZED_PREFIX_CASES])
def test_normalized_prefix_against_oracle(case):
    check_attention_case(case, attention_id(case), no_optimize=case["no_optimize"])


def test_packed_attention_matches_each_segment_alone():
    """The packed gated kernel (chunked per segment) and the unpacked one on
    each segment's rows, state and prefix length."""
    lengths = [130, 1, 0, 64, 105]
    packed = linea.compile(attention_program("gated", [2], 300, 8, 4, True, "index",
                                             "prefix", True, True, gate_rank=2))
    alone = linea.compile(
        "func.func @main(%q: tensor<2x?x8xf32>, %k: tensor<2x?x8xf32>, %v: tensor<2x?x4xf32>,\n"
        "                %g: tensor<2x?xf32>, %s0: tensor<2x8x4xf32>, %j: index)\n"
        "    -> (tensor<2x?x4xf32>, tensor<2x8x4xf32>) {\n"
        "  %y, %s = linea.gated_linear_attention %q, %k, %v, %g init(%s0) mask = prefix(%j)\n"
        "      : tensor<2x?x8xf32>, tensor<2x?x8xf32>, tensor<2x?x4xf32>, tensor<2x?xf32>,\n"
        "        tensor<2x8x4xf32> -> tensor<2x?x4xf32>, tensor<2x8x4xf32>\n"
        "  return %y, %s : tensor<2x?x4xf32>, tensor<2x8x4xf32>\n}\n")
    rng = np.random.default_rng(4)
    q, k = (rng.standard_normal((2, 300, 8)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((2, 300, 4)).astype(np.float32)
    g = (-3 * rng.random((2, 300))).astype(np.float32)
    s0 = rng.standard_normal((5, 2, 8, 4)).astype(np.float32)
    offsets, js = offsets_of(lengths), np.array([17, 1, 0, 64, 0])
    y, s = packed(q, k, v, g, s0, offsets, js)
    for n, (start, end) in enumerate(zip(offsets, offsets[1:])):
        if end == start:  # an empty segment passes its state through
            np.testing.assert_array_equal(s[n], s0[n])
            continue
        rows = slice(start, end)
        y_n, s_n = alone(q[:, rows], k[:, rows], v[:, rows], g[:, rows], s0[n], int(js[n]))
        np.testing.assert_allclose(y[:, rows], y_n, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(s[n], s_n, rtol=1e-5, atol=1e-5)


def test_tiled_packed_attention_keeps_each_segment(tmp_path):
    """Tiled by an upstream transform (batch by 2 with a partial tile, value
    columns by 2): every tile takes the offsets and prefix lengths whole and
    its tile of the per-segment states [N, B..., Dk, Dv]; then the optimizer
    runs."""
    from test_tiling import SCRIPT
    script = tmp_path / "tile.mlir"
    script.write_text(SCRIPT.format(op="gated_linear_attention", sizes="2, 2"))
    pipeline = (f"transform-preload-library{{transform-library-paths={script}}},"
                "transform-interpreter,linea-optimize")
    rng = np.random.default_rng(6)
    lengths = [11, 0, 1, 17]
    q, k = (rng.standard_normal((3, 29, 5)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((3, 29, 4)).astype(np.float32)
    g = (-20 * rng.random((3, 29)) ** 3).astype(np.float32)
    s0 = rng.standard_normal((4, 3, 5, 4)).astype(np.float32)
    offsets, js = offsets_of(lengths), np.array([3, 0, 1, 17])
    program = attention_program("gated", [3], 29, 5, 4, True, "i64", "prefix", True, True,
                                gate_rank=2)
    y, s = linea.run(program, [q, k, v, g, s0, offsets, js], pipeline=pipeline)
    want_y, want_s = ref.gated_linear_attention(q, k, v, g, "prefix", js, initial_state=s0,
                                                offsets=offsets)
    assert relative_error(y, want_y) <= TOLERANCE
    assert relative_error(s, want_s) <= TOLERANCE


@pytest.mark.parametrize("states, offsets, js, message", [
    (3, [0, 4, 10], [1, 2], "'initial_state' dim 0 3 does not match the 2 segments of 'offsets'"),
    (2, [0, 4, 10], [1, 2, 0], "'prefix lengths' count 3 does not match the 2 segments"),
    (2, [0, 4, 10], [1, 7], "prefix length 7 of segment 1 is outside \\[0, 6\\]"),
    (2, [0, 4, 10], [-1, 0], "prefix length -1 of segment 0 is outside \\[0, 4\\]"),
    (2, [0, 11, 10], [1, 0], "'offsets' decrease at entry 2: 10 after 11"),
])
def test_bad_segments_stop_the_run(states, offsets, js, message):
    program = attention_program("linear", [], 10, 3, 2, True, "index", "prefix", True, True)
    x = np.ones((10, 3), np.float32)
    inputs = [x, x, x[:, :2], np.ones((states, 3, 2), np.float32),
              np.array(offsets, np.int64), np.array(js, np.int64)]
    for no_optimize in (False, True):
        with pytest.raises(LineaError, match=message):
            linea.run(program, inputs, no_optimize=no_optimize)


def test_attention_oracle_computes_each_segment_alone():
    """The oracle itself against its unpacked self on each segment."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((9, 2)) for _ in range(3))
    s0 = rng.standard_normal((3, 2, 2))
    o, s = ref.linear_attention(q, k, v, "prefix", [2, 0, 3], initial_state=s0,
                                offsets=[0, 4, 4, 9])
    o0, f0 = ref.linear_attention(q[:4], k[:4], v[:4], "prefix", 2, initial_state=s0[0])
    o2, f2 = ref.linear_attention(q[4:], k[4:], v[4:], "prefix", 3, initial_state=s0[2])
    np.testing.assert_allclose(o, np.concatenate([o0, o2]))
    np.testing.assert_allclose(s, np.stack([f0, s0[1], f2]))


# ---------------------------------------------------------------------------
# softmax attention with offsets: each segment's queries see its keys only
# ---------------------------------------------------------------------------

def softmax_program(batch, length, d, dv, dynamic, offsets_type, mask, scale=None):
    seq = "?" if dynamic else str(length)
    lead = "".join(f"{b}x" for b in batch)
    qt, vt = f"tensor<{lead}{seq}x{d}xf32>", f"tensor<{lead}{seq}x{dv}xf32>"
    ot = f"tensor<?x{offsets_type}>"
    scale_text = f" scale = {scale}" if scale else ""
    return main_function(["%q", "%k", "%v", "%o"], [qt, qt, vt, ot], [vt],
                         f"linea.attention %q, %k, %v offsets(%o) mask = {mask}{scale_text}")


# Seeded: both masks, every segment kind, L = 1, prime, past one 64-key tile
# (200), several leading dims, each offsets type, both pipelines.
SOFTMAX_CASES = []
_rng = np.random.default_rng(3637)
for k in range(10):
    SOFTMAX_CASES.append(dict(
        kind=KINDS[k % len(KINDS)], batch=[[], [2], [2, 3]][k % 3],
        length=[1, 7, 131, 200, 67][k % 5], d=int(_rng.integers(1, 9)),
        dv=int(_rng.integers(1, 9)), mask=["causal", "none"][(k // 2) % 2],
        dynamic=k % 4 != 3, offsets_type=["index", "i32", "i64"][k % 3],
        scale=0.25 if k % 3 == 1 else None, no_optimize=k % 4 == 2))


def softmax_id(c):
    return (f"{c['mask']}-{c['kind']}-L={c['length']}-batch={c['batch']}-{c['offsets_type']}"
            + ("-dyn" if c["dynamic"] else "") + ("-scaled" if c["scale"] else "")
            + ("-reference" if c["no_optimize"] else "-optimized"))


@pytest.mark.parametrize("case", SOFTMAX_CASES, ids=[softmax_id(c) for c in SOFTMAX_CASES])
def test_softmax_attention_against_oracle(case):
    rng = np.random.default_rng(zlib.crc32(softmax_id(case).encode()))
    batch, length = case["batch"], case["length"]
    offsets = offsets_of(lengths_of(case["kind"], length, rng))
    q, k = (rng.standard_normal(batch + [length, case["d"]]).astype(np.float32)
            for _ in range(2))
    v = rng.standard_normal(batch + [length, case["dv"]]).astype(np.float32)
    program = softmax_program(batch, length, case["d"], case["dv"], case["dynamic"],
                              case["offsets_type"], case["mask"], case["scale"])
    o = offsets.astype(np.int32 if case["offsets_type"] == "i32" else np.int64)
    (got,) = linea.run(program, [q, k, v, o], no_optimize=case["no_optimize"])
    want = ref.attention(q, k, v, case["mask"], case["scale"], offsets=offsets)
    assert relative_error(got, want) <= TOLERANCE


def test_bad_softmax_offsets_stop_the_run():
    program = softmax_program([], 10, 3, 2, True, "index", "causal")
    x = np.ones((10, 3), np.float32)
    with pytest.raises(LineaError, match="'offsets' end at 9, but 'query' sequence length is 10"):
        linea.run(program, [x, x, x[:, :2], np.array([0, 4, 9])])


# ---------------------------------------------------------------------------
# Gradients of packed ops: each segment's adjoint alone
# ---------------------------------------------------------------------------

def finite_difference_gradients(objective, arrays, step=1e-3):
    """Central differences of `objective` (float64) along every entry of each array."""
    grads = []
    for which, array in enumerate(arrays):
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            def at(delta):
                moved = [a.copy() for a in arrays]
                moved[which][index] += delta
                return objective(*moved)
            grad[index] = (at(step) - at(-step)) / (2 * step)
        grads.append(grad)
    return grads


# Small and seeded: every packed op, with empty and one-token segments, a
# prefix per segment, states in and out, gates to -20.
GRADIENT_CASES = [
    dict(op="linear", mask="prefix", init=True, final=True, gate_rank=0),
    dict(op="linear", mask="causal", init=False, final=False, gate_rank=0,
         normalize=True, feature_map="elu_plus_one"),
    dict(op="gated", mask="causal", init=True, final=True, gate_rank=1),
    dict(op="gated", mask="prefix", init=False, final=True, gate_rank=2),
    dict(op="softmax", mask="causal"),
    dict(op="presum", decay=True),
]


def gradient_id(c):
    return "-".join(str(v) for v in c.values())


# The per-key-dim gated case's gradient made for the GPU too, run with
# blocks and threads emulated (each segment's rule inside its own block, its
# rows in order there).
GRADIENT_TARGETS = [(c, "cpu") for c in GRADIENT_CASES] + [(GRADIENT_CASES[3], "gpu")]


@pytest.mark.parametrize("case,target", GRADIENT_TARGETS,
                         ids=[f"{gradient_id(c)}-{t}" for c, t in GRADIENT_TARGETS])
def test_packed_gradients_against_finite_differences(case, target):
    rng = np.random.default_rng(zlib.crc32(gradient_id(case).encode()))
    lengths, dk, dv = [5, 0, 1, 6], 3, 2
    length = sum(lengths)
    offsets = offsets_of(lengths)
    if case["op"] == "presum":
        source = presum_program([length, dv], {0}, "index", True, False, 1)
        x = rng.standard_normal((length, dv))
        a = -20 * rng.random(length) ** 3
        floats, ints = [x, a], [offsets]
        def forward(x, a):
            return [ref.presum(x, 0, exclusive=True, decay=a, offsets=offsets)]
    elif case["op"] == "softmax":
        source = softmax_program([], length, dk, dv, True, "index", case["mask"])
        q, k = (rng.standard_normal((length, dk)) for _ in range(2))
        v = rng.standard_normal((length, dv))
        floats, ints = [q, k, v], [offsets]
        def forward(q, k, v):
            return [ref.attention(q, k, v, case["mask"], offsets=offsets)]
    else:
        gated = case["op"] == "gated"
        source = attention_program(case["op"], [], length, dk, dv, True, "index", case["mask"],
                                   case["init"], case["final"], case["gate_rank"],
                                   case.get("feature_map"), case.get("normalize", False))
        q, k = (rng.standard_normal((length, dk)) for _ in range(2))
        v = rng.standard_normal((length, dv))
        floats = [q, k, v]
        if gated:
            shape = (length, dk) if case["gate_rank"] == 2 else (length,)
            floats.append(-20 * rng.random(shape) ** 3)
        if case["init"]:
            floats.append(rng.standard_normal((len(lengths), dk, dv)))
        js = np.array([2, 0, 1, 6])
        ints = [offsets] + ([js] if case["mask"] == "prefix" else [])
        def forward(*arrays):
            oracle = dict(mask=case["mask"], offsets=offsets)
            if case["init"]:
                oracle["initial_state"] = arrays[-1]
            if case["mask"] == "prefix":
                oracle["prefix_length"] = js
            if gated:
                y, s = ref.gated_linear_attention(*arrays[:4], **oracle)
            else:
                y, s = ref.linear_attention(
                    *arrays[:3], feature_map=case.get("feature_map") or "identity",
                    normalize=case.get("normalize", False), **oracle)
            return [y, s] if case["final"] else [y]
    cotangents = [rng.standard_normal(y.shape) for y in forward(*floats)]
    program = linea.differentiate(source, target=target)
    # @main_vjp(args..., d_results...) -> d of every float argument
    args = [f.astype(np.float32) for f in floats] + ints
    got = linea.run(program, args + [c.astype(np.float32) for c in cotangents],
                    entry="main_vjp",
                    pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}" if target == "gpu" else None)
    def objective(*arrays):
        return sum(np.sum(c * y) for c, y in zip(cotangents, forward(*arrays)))
    want = finite_difference_gradients(objective, floats)
    for name, g, w in zip("abcdefg", got, want):
        assert relative_error(g, w) <= TOLERANCE, name


# ---------------------------------------------------------------------------
# On the GPU: one block per segment of each sequence, run by the emulation
# ---------------------------------------------------------------------------

GPU_EMULATION = "linea-gpu-mapped-to-cpu{chip=sm_90a}"


GPU_CASES = ATTENTION_CASES + [c for c in NORMALIZED_PREFIX_CASES if not c["no_optimize"]]


def slow_on_gpu_blocks(case):
    """The case as a parameter; the gated one of 200 tokens in one segment
    runs three to four minutes on the emulation (a slow case: see
    conftest.py)."""
    if attention_id(case).startswith("gated-causal-ones-L=200"):
        return pytest.param(case, marks=pytest.mark.slow)
    return case


@pytest.mark.parametrize("case", [slow_on_gpu_blocks(c) for c in GPU_CASES],
                         ids=[attention_id(c) for c in GPU_CASES])
def test_packed_attention_on_gpu_blocks(case):
    """The GPU code of a packed op (each segment of each sequence one block
    running its chunk loop, its one-shot state (over chunks where the rows
    need a copy: gated, normalized, feature-mapped) or a prefix's both, the
    offsets read in the kernel, the run-time checks on a staged copy of
    them) against the oracle, through the CPU emulation of its launches."""
    check_attention_case(case, "gpu" + attention_id(case), pipeline=GPU_EMULATION)


def test_packed_attention_on_gpu_tensor_cores():
    """With precision=bf16 each block's chunk contractions run on the
    emulated mma.sync: a packed gated op with 64-wide heads (segments
    shorter than, equal to and longer than a chunk, an empty one) against
    the oracle, within bf16's compute error."""
    rng = np.random.default_rng(36)
    lengths = [1, 64, 0, 150, 40]
    offsets = offsets_of(lengths)
    q, k, v = (rng.standard_normal((2, 255, 64)).astype(np.float32) for _ in range(3))
    g = (-20 * rng.random((2, 255, 64)) ** 4).astype(np.float32)
    program = attention_program("gated", [2], 255, 64, 64, True, "index", "causal",
                                False, False, 3)
    (got,) = linea.run(program, [q, k, v, g, offsets.astype(np.int64)],
                       pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a precision=bf16}")
    want = ref.gated_linear_attention(q, k, v, g, mask="causal", offsets=offsets)[0]
    assert relative_error(got, want) <= 1e-2  # bf16 operands, f32 accumulation


def test_packed_prefix_past_shared_memory():
    """A packed, normalized PrefixLM layer at D = 64 needs 230912 bytes of
    temporaries per segment: an A100 (sm_80, 166912 bytes of shared
    memory) runs its segments as a host loop around kernels, whose reads of
    the offsets and prefix lengths are the host's (of a staged copy). It
    compiled to an error before; now the emulation of the sm_80 code
    matches the oracle, empty and one-token segments and prefixes 0, j and
    L included, as the sm_90a code (one block per segment) does."""
    source = PACKED_PREFIX  # the kit's case, which runs it on a GPU
    lowered = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", "--linea-lower-to-nvvm=chip=sm_80 format=isa",
         "-o", "/dev/null"], input=source, capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    assert "sequence loop stays on the host" in lowered.stderr
    rng = np.random.default_rng(37)
    lengths = [1, 0, 63, 64, 200, 130]
    offsets = offsets_of(lengths)
    js = np.array([[0, n, n // 3][i % 3] for i, n in enumerate(lengths)])
    q, k, v = (rng.standard_normal((2, int(offsets[-1]), 64)).astype(np.float32)
               for _ in range(3))
    want = ref.linear_attention(q, k, v, mask="prefix", prefix_length=js,
                                feature_map="elu_plus_one", normalize=True, offsets=offsets)
    for chip in ("sm_80", "sm_90a"):
        got = linea.run(source, [q, k, v, offsets.astype(np.int64), js.astype(np.int64)],
                        pipeline=f"linea-gpu-mapped-to-cpu{{chip={chip}}}")
        for g, w in zip(got, want):
            assert relative_error(g, w) <= TOLERANCE, chip


# (op, mask, gate rank, feature map, normalize, dynamic L)
GPU_BIDIRECTIONAL = [
    ("linear", "prefix", 0, None, False, True),
    ("linear", "prefix", 0, None, False, False),
    ("gated", "prefix", 3, None, False, True),
    ("gated", "none", 2, None, False, True),
    ("linear", "prefix", 0, "elu_plus_one", False, True),
    ("linear", "none", 0, "elu_plus_one", True, True),
    ("linear", "none", 0, "relu", False, False),
]


@pytest.mark.parametrize("op, mask, gate_rank, feature_map, normalize, dynamic",
                         GPU_BIDIRECTIONAL)
def test_bidirectional_segments_on_gpu_blocks(op, mask, gate_rank, feature_map, normalize,
                                              dynamic):
    """Per-segment prefixes and bidirectional segments on the GPU: each
    (segment, sequence) block runs its prefix's one-shot state (over padded
    chunks where its rows need a copy: a gate, a feature map, the
    normalizer) and the rest's chunk loop, from initial state n to final
    state n: empty segments, length 1, prefix 0, the whole segment and
    between, segments past a chunk, gates to -20, against the oracle
    through the emulation."""
    rng = np.random.default_rng(137 + gate_rank)
    lengths = [0, 1, 70, 200, 5, 0, 130, 1]
    js = np.array([0, 1, 0, 77, 5, 0, 129, 0], np.int64)
    offsets = offsets_of(lengths)
    L = int(offsets[-1])
    q, k = (rng.standard_normal((2, L, 8)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((2, L, 6)).astype(np.float32)
    inputs = [q, k, v]
    if op == "gated":
        shape = (2, L, 8) if gate_rank == 3 else (2, L)
        inputs.append((-20 * rng.random(shape) ** 3).astype(np.float32))
    init = not normalize
    if init:
        inputs.append(rng.standard_normal((len(lengths), 2, 8, 6)).astype(np.float32))
    inputs.append(offsets)
    if mask == "prefix":
        inputs.append(js.astype(np.int32))
    program = attention_program(op, [2], L, 8, 6, dynamic, "i64", mask, init, True, gate_rank,
                                feature_map, normalize, prefix_type="i32")
    got = linea.run(program, inputs, pipeline=GPU_EMULATION)
    oracle = dict(mask=mask, offsets=offsets, initial_state=inputs[4 if op == "gated" else 3]
                  if init else None)
    if mask == "prefix":
        oracle["prefix_length"] = js
    if op == "gated":
        want = ref.gated_linear_attention(*inputs[:4], **oracle)
    else:
        want = ref.linear_attention(*inputs[:3], feature_map=feature_map or "identity",
                                    normalize=normalize, **oracle)
    assert relative_error(got[0], want[0]) <= TOLERANCE
    assert relative_error(got[1], want[1]) <= TOLERANCE


# (mask, batch dims, segment lengths, dynamic L, scale, head sizes)
GPU_SOFTMAX = [
    ("causal", [2], [0, 1, 70, 200, 5, 0, 130, 1], True, None, (8, 6)),
    ("none", [2], [0, 1, 70, 200, 5, 0, 130, 1], False, 0.25, (8, 6)),
    ("causal", [2, 3], [64, 128, 65], True, None, (5, 3)),
    ("none", [], [7], True, None, (64, 64)),
    ("causal", [], [1] * 9, False, None, (3, 2)),
]


@pytest.mark.parametrize("mask, batch, lengths, dynamic, scale, heads", GPU_SOFTMAX)
def test_softmax_segments_on_gpu_blocks(mask, batch, lengths, dynamic, scale, heads):
    """Softmax attention over packed segments on the GPU: each (segment,
    sequence) block runs query tiles of 64 rows over the key tiles each
    sees, both padded (segments empty, of one token, shorter than, equal to
    and past a tile; one segment; several batch dims), against the oracle
    through the emulation. Scores spread wide (q times 3) so that the
    running max moves between tiles."""
    rng = np.random.default_rng(zlib.crc32(f"{mask}{lengths}".encode()))
    offsets = offsets_of(lengths)
    L, (d, dv) = int(offsets[-1]), heads
    q = 3 * rng.standard_normal(batch + [L, d]).astype(np.float32)
    k = rng.standard_normal(batch + [L, d]).astype(np.float32)
    v = rng.standard_normal(batch + [L, dv]).astype(np.float32)
    program = softmax_program(batch, L, d, dv, dynamic, "i64", mask, scale)
    (got,) = linea.run(program, [q, k, v, offsets], pipeline=GPU_EMULATION)
    want = ref.attention(q, k, v, mask, scale, offsets=offsets)
    assert relative_error(got, want) <= TOLERANCE


@pytest.mark.parametrize("kind, decayed", [("random", False), ("empty", True), ("ones", False)])
def test_packed_presum_on_gpu_blocks(kind, decayed):
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    offsets = offsets_of(lengths_of(kind, 97, rng))
    x = rng.standard_normal((2, 97, 5)).astype(np.float32)
    decay = (-20 * rng.random((2, 97)) ** 3).astype(np.float32) if decayed else None
    inputs = [x] + ([decay] if decayed else []) + [offsets.astype(np.int64)]
    program = presum_program([2, 97, 5], {1}, "i64", True, False, 2 if decayed else 0)
    (got,) = linea.run(program, inputs, pipeline=GPU_EMULATION)
    want = ref.presum(x, 1, True, False, decay, offsets)
    assert relative_error(got, want) <= TOLERANCE


def lower_to_nvvm(program):
    return subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", "--linea-lower-to-nvvm=chip=sm_90a "
         "format=isa report=1"], input=program, capture_output=True, text=True)


def test_packed_gpu_code_is_two_launches_whatever_the_segments():
    """A packed gated op with states in and out: one launch copies the
    offsets for the host's checks, one runs every (segment, sequence) block;
    no host loop (whose kernels the report would count per trip)."""
    lowered = lower_to_nvvm(attention_program("gated", [2, 3], 0, 8, 4, True, "index",
                                              "causal", True, True, 3))
    assert lowered.returncode == 0, lowered.stderr
    assert lowered.stdout.count("gpu.launch_func") == 2
    assert "host loop" not in lowered.stderr and "stays on the host" not in lowered.stderr


def test_packed_softmax_gpu_code_is_two_launches_whatever_the_segments():
    """Softmax attention: the offsets copied once for the host's checks,
    then every (segment, sequence) block, its query and key tile loops
    inside; no host loop over key tiles or segments."""
    lowered = lower_to_nvvm(softmax_program([2, 3], 0, 8, 4, True, "index", "causal"))
    assert lowered.returncode == 0, lowered.stderr
    assert lowered.stdout.count("gpu.launch_func") == 2
    assert "host loop" not in lowered.stderr and "stays on the host" not in lowered.stderr


def test_packed_prefix_gpu_code_is_two_launches_whatever_the_segments():
    """Per-segment prefixes: the offsets and the prefix lengths copied once
    for the host's checks (one launch: the two copies are independent),
    then every (segment, sequence) block, its prefix part and its causal
    part in one program; no host loop."""
    lowered = lower_to_nvvm(attention_program("linear", [2, 3], 0, 8, 4, True, "index",
                                              "prefix", True, True))
    assert lowered.returncode == 0, lowered.stderr
    assert lowered.stdout.count("gpu.launch_func") == 2
    assert "host loop" not in lowered.stderr and "stays on the host" not in lowered.stderr


def test_normalized_prefix_gpu_code_has_no_host_loop():
    """A normalized op with per-segment prefixes: the ones column is
    appended to the packed values once, on the device, and every (segment,
    sequence) block runs its unnormalized prefix op; the division follows.
    Four launches, none in a host loop: the staged offsets and prefix
    lengths (one launch, linea-map-to-gpu's sibling kernels), the values
    with the column beside them (one kernel writing each element once,
    linea-padded-writes), the blocks, and the division beside the final
    states without the column (siblings again)."""
    lowered = lower_to_nvvm(attention_program("linear", [2], 0, 4, 4, True, "index", "prefix",
                                              False, True, feature_map="elu_plus_one",
                                              normalize=True))
    assert lowered.returncode == 0, lowered.stderr
    assert "host loop" not in lowered.stderr and "stays on the host" not in lowered.stderr
    assert lowered.stdout.count("gpu.launch_func") == 4


def test_too_many_dims_for_gpu_segment_blocks():
    """Each segment of each sequence is one block named by a linear block
    dim per loop: ten batch dims and the segments are one too many."""
    lowered = lower_to_nvvm(attention_program("linear", [1] * 10, 0, 4, 4, True, "index",
                                              "causal", False, False))
    assert lowered.returncode == 1
    assert "has 10 dims before its sequence dim" in lowered.stderr, lowered.stderr
    assert "more than the 10 linear GPU block dims" in lowered.stderr
