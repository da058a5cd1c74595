"""Packed sequences (SPEC, third wave): `linea.presum ... offsets(%o)` sums
each segment [o_n, o_{n+1}) alone. Checked against the float64 oracle (which
sums each segment's slice by itself) through the reference lowering and the
optimizer, against the unpacked kernel run on each segment, with offsets as
index, i32 and i64 tensors; bad offsets stop the run with a one-line error;
the gradient against central finite differences."""

import zlib

import numpy as np
import pytest

import linea
from linea import LineaError, reference as ref

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
