"""Model IR's ops around the kernels through linea-vectorize-elementwise:
a causal softmax built from linalg.index (row maxima, exps, row sums, a
division), sums down the rows, a boolean mask and a row scale broadcast
along its row, each against numpy in float64. Innermost sizes of one, a
prime under the tile, multiples of 8, 16 and 32 over it (tiles of part of
a row) and sizes no tile divides (left to loops), several leading dims,
static and dynamic."""

import numpy as np
import pytest

from linea import reference as ref
from linea import run

TOLERANCE = 1e-4
PIPELINE = "linea-optimize,linea-lower-to-cpu"


def tensor(shape, dynamic):
    return "tensor<" + "x".join("?" if dynamic else str(s) for s in shape) + "xf32>"


def empty_like(name, value, shape, dynamic, rank=None):
    """`%name = tensor.empty` of `value`'s first `rank` dims."""
    rank = len(shape) if rank is None else rank
    dims = [f"%{name}_d{k}" for k in range(rank)] if dynamic else []
    text = "".join(f"  %{name}_c{k} = arith.constant {k} : index\n"
                   f"  %{name}_d{k} = tensor.dim %{value}, %{name}_c{k} : {tensor(shape, dynamic)}\n"
                   for k in range(rank)) if dynamic else ""
    return text + f"  %{name} = tensor.empty({', '.join(dims)}) : {tensor(shape[:rank], dynamic)}\n"


def causal_softmax(shape, dynamic):
    """softmax over the last dim of scores [.., L, L] with key j hidden from
    query i past i: five generics as a front end writes them."""
    n = len(shape)
    dims = ", ".join(f"d{k}" for k in range(n))
    full = f"affine_map<({dims}) -> ({dims})>"
    row = f"affine_map<({dims}) -> ({', '.join(f'd{k}' for k in range(n - 1))})>"
    par, red = '"parallel"', '"reduction"'
    all_par = ", ".join([par] * n)
    reduce_last = ", ".join([par] * (n - 1) + [red])
    t, r = tensor(shape, dynamic), tensor(shape[:-1], dynamic)
    return (
        f"func.func @main(%s: {t}) -> {t} {{\n"
        "  %neginf = arith.constant 0xFF800000 : f32\n"
        "  %zero = arith.constant 0.0 : f32\n"
        + empty_like("e", "s", shape, dynamic) + empty_like("r", "s", shape, dynamic, n - 1) +
        f"  %minit = linalg.fill ins(%neginf : f32) outs(%r : {r}) -> {r}\n"
        f"  %sinit = linalg.fill ins(%zero : f32) outs(%r : {r}) -> {r}\n"
        f"  %masked = linalg.generic {{indexing_maps = [{full}, {full}], iterator_types = [{all_par}]}}"
        f" ins(%s : {t}) outs(%e : {t}) {{\n"
        "  ^bb0(%x: f32, %o: f32):\n"
        f"    %i = linalg.index {n - 2} : index\n"
        f"    %j = linalg.index {n - 1} : index\n"
        "    %visible = arith.cmpi sle, %j, %i : index\n"
        "    %y = arith.select %visible, %x, %neginf : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {t}\n"
        f"  %max = linalg.generic {{indexing_maps = [{full}, {row}], iterator_types = [{reduce_last}]}}"
        f" ins(%masked : {t}) outs(%minit : {r}) {{\n"
        "  ^bb0(%x: f32, %m: f32):\n"
        "    %y = arith.maximumf %x, %m : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {r}\n"
        f"  %p = linalg.generic {{indexing_maps = [{full}, {row}, {full}], iterator_types = [{all_par}]}}"
        f" ins(%masked, %max : {t}, {r}) outs(%e : {t}) {{\n"
        "  ^bb0(%x: f32, %m: f32, %o: f32):\n"
        "    %d = arith.subf %x, %m : f32\n"
        "    %y = math.exp %d : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {t}\n"
        f"  %sum = linalg.generic {{indexing_maps = [{full}, {row}], iterator_types = [{reduce_last}]}}"
        f" ins(%p : {t}) outs(%sinit : {r}) {{\n"
        "  ^bb0(%x: f32, %a: f32):\n"
        "    %y = arith.addf %x, %a : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {r}\n"
        f"  %out = linalg.generic {{indexing_maps = [{full}, {row}, {full}], iterator_types = [{all_par}]}}"
        f" ins(%p, %sum : {t}, {r}) outs(%e : {t}) {{\n"
        "  ^bb0(%x: f32, %a: f32, %o: f32):\n"
        "    %y = arith.divf %x, %a : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {t}\n"
        f"  return %out : {t}\n}}\n")


def causal_softmax_expected(scores):
    s = scores.astype(np.float64)
    length = s.shape[-1]
    s = np.where(np.tril(np.ones((s.shape[-2], length), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


SOFTMAX = [((1, 1), False), ((13, 13), False), ((2, 64, 64), False), ((3, 96, 96), False),
           ((2, 3, 67, 67), False), ((100, 100), False), ((2, 70, 70), True), ((5, 5), True)]


@pytest.mark.parametrize("shape,dynamic", SOFTMAX,
                         ids=[f"{'x'.join(map(str, s))}-{'dyn' if d else 'static'}"
                              for s, d in SOFTMAX])
def test_causal_softmax_against_float64(shape, dynamic):
    rng = np.random.default_rng(sum(shape) * 7 + dynamic)
    scores = (3 * rng.standard_normal(shape)).astype(np.float32)
    (got,) = run(causal_softmax(shape, dynamic), [scores], pipeline=PIPELINE, raising=False)
    assert ref.rel_l2(got, causal_softmax_expected(scores)) <= TOLERANCE


COLUMNS = [(1, 1), (10, 12), (7, 48), (9, 128), (4, 100), (31, 256)]


@pytest.mark.parametrize("rows,width", COLUMNS, ids=[f"{r}x{w}" for r, w in COLUMNS])
def test_sums_down_the_rows(rows, width):
    """A reduction over the outer dim: each tile adds a row into the sums."""
    t, s = tensor((rows, width), False), tensor((width,), False)
    program = (
        f"func.func @main(%x: {t}) -> {s} {{\n"
        "  %zero = arith.constant 0.0 : f32\n"
        f"  %e = tensor.empty() : {s}\n"
        f"  %init = linalg.fill ins(%zero : f32) outs(%e : {s}) -> {s}\n"
        "  %sum = linalg.generic {indexing_maps = [affine_map<(t, d) -> (t, d)>, "
        "affine_map<(t, d) -> (d)>], iterator_types = [\"reduction\", \"parallel\"]}"
        f" ins(%x : {t}) outs(%init : {s}) {{\n"
        "  ^bb0(%a: f32, %b: f32):\n"
        "    %y = arith.addf %a, %b : f32\n"
        "    linalg.yield %y : f32\n"
        f"  }} -> {s}\n"
        f"  return %sum : {s}\n}}\n")
    x = np.random.default_rng(rows * width).standard_normal((rows, width)).astype(np.float32)
    (got,) = run(program, [x], pipeline=PIPELINE, raising=False)
    assert ref.rel_l2(got, x.astype(np.float64).sum(axis=0)) <= TOLERANCE


@pytest.mark.parametrize("length", [12, 64])
def test_boolean_mask_constant(length):
    """A band mask as an i1 constant (one byte per element in memory, where
    a vector of i1 is packed bits) selecting scores, scaled per row."""
    band = np.tril(np.ones((length, length), bool)) & ~np.tril(np.ones((length, length), bool), -3)
    bits = ", ".join("[" + ", ".join("true" if b else "false" for b in row) + "]" for row in band)
    t = tensor((2, length, length), False)
    m = f"tensor<{length}x{length}xi1>"
    r = tensor((2, length), False)
    program = (
        f"func.func @main(%s: {t}, %scale: {r}) -> {t} {{\n"
        "  %zero = arith.constant 0.0 : f32\n"
        f"  %mask = arith.constant dense<[{bits}]> : {m}\n"
        f"  %e = tensor.empty() : {t}\n"
        "  %out = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (i, j)>, "
        "affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, "
        "affine_map<(b, i, j) -> (b, i, j)>], iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}"
        f" ins(%mask, %s, %scale : {m}, {t}, {r}) outs(%e : {t}) {{\n"
        "  ^bb0(%keep: i1, %x: f32, %c: f32, %o: f32):\n"
        "    %y = arith.mulf %x, %c : f32\n"
        "    %z = arith.select %keep, %y, %zero : f32\n"
        "    linalg.yield %z : f32\n"
        f"  }} -> {t}\n"
        f"  return %out : {t}\n}}\n")
    rng = np.random.default_rng(length)
    s = rng.standard_normal((2, length, length)).astype(np.float32)
    scale = rng.standard_normal((2, length)).astype(np.float32)
    (got,) = run(program, [s, scale], pipeline=PIPELINE, raising=False)
    want = np.where(band, s.astype(np.float64) * scale[:, :, None], 0.0)
    assert ref.rel_l2(got, want) <= TOLERANCE
