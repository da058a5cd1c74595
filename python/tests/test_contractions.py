"""Model IR's contractions through the CPU kernels (linea-vectorize-
contractions): named matmuls, batched and transposed forms, matvec and
contractions with an initial C, at sizes the register tiles do not divide
(1, primes, fewer rows than a tile, a reduction longer than one cache
block), static and dynamic, on one thread and two (a projection's row tiles
are spread over threads), each against numpy in float64."""

import itertools
import random

import numpy as np
import pytest

from linea import reference as ref
from linea import run

TOLERANCE = 1e-4
SEED = 33


def tensor(shape, dynamic):
    return "tensor<" + "x".join("?" if dynamic else str(s) for s in shape) + "xf32>"


def operand_shapes(kind, m, k, n, batch):
    """The shapes of A, B and C of each kind: C[m, n] = sum_k A * B."""
    return {
        "matmul": ((m, k), (k, n), (m, n)),
        "matmul_accumulate": ((m, k), (k, n), (m, n)),
        "matmul_transpose_a": ((k, m), (k, n), (m, n)),
        "matmul_transpose_b": ((m, k), (n, k), (m, n)),
        "batch_matmul": ((batch, m, k), (batch, k, n), (batch, m, n)),
        "matvec": ((m, k), (k,), (m,)),
    }[kind]


MAPS = {
    "matmul_transpose_a": "[affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, "
                          "affine_map<(m, n, k) -> (m, n)>]",
    "matmul_transpose_b": "[affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, "
                          "affine_map<(m, n, k) -> (m, n)>]",
}


def program(kind, shapes, dynamic):
    """`main(A, B[, C0]) -> C` as torch-mlir writes it: a zero-filled empty C
    (sized from A and B where dynamic), or C0 accumulated into."""
    a, b, c = (tensor(s, dynamic) for s in shapes)
    named = {"batch_matmul": "linalg.batch_matmul", "matvec": "linalg.matvec"}.get(
        kind, "linalg.matmul")
    maps = f" indexing_maps = {MAPS[kind]}" if kind in MAPS else ""
    if kind == "matmul_accumulate":
        return (f"func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{\n"
                f"  %r = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
                f"  return %r : {c}\n}}\n")
    sizes = ""
    if dynamic:
        # C's dims come from A's and B's: which operand holds each.
        sources = {"matmul": [("a", 0), ("b", 1)], "matmul_transpose_a": [("a", 1), ("b", 1)],
                   "matmul_transpose_b": [("a", 0), ("b", 0)],
                   "batch_matmul": [("a", 0), ("a", 1), ("b", 2)], "matvec": [("a", 0)]}[kind]
        dims = []
        for i, (operand, d) in enumerate(sources):
            sizes += (f"  %i{i} = arith.constant {d} : index\n"
                      f"  %d{i} = tensor.dim %{operand}, %i{i} : {a if operand == 'a' else b}\n")
            dims.append(f"%d{i}")
        sizes += f"  %e = tensor.empty({', '.join(dims)}) : {c}\n"
    else:
        sizes = f"  %e = tensor.empty() : {c}\n"
    return (f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %zero = arith.constant 0.0 : f32\n{sizes}"
            f"  %f = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}\n"
            f"  %r = {named}{maps} ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}\n"
            f"  return %r : {c}\n}}\n")


def expected(kind, arrays):
    a, b = (x.astype(np.float64) for x in arrays[:2])
    if kind == "matmul_transpose_a":
        a = a.T
    if kind == "matmul_transpose_b":
        b = b.T
    product = a @ b
    return product + arrays[2] if kind == "matmul_accumulate" else product


KINDS = ("matmul", "matmul_accumulate", "matmul_transpose_a", "matmul_transpose_b",
         "batch_matmul", "matvec")
# Rows: one, fewer than a tile, primes past a tile, a multiple of 16; the
# reduction: one step, a prime, longer than one 256-step block; columns: one,
# part of a vector, past two vectors of 16.
SIZES = list(itertools.product((1, 13, 29, 64), (1, 17, 300), (1, 5, 37)))


def cases():
    rng = random.Random(SEED)
    chosen = []
    for kind in KINDS:
        for m, k, n in rng.sample(SIZES, 4):
            chosen.append((kind, m, k, n, rng.choice((False, True)), rng.choice((1, 2))))
    # The edges every kind must pass: a 1 x 1 x 1 product, dynamic, and a
    # projection-like shape on two threads.
    for kind in KINDS:
        chosen.append((kind, 1, 1, 1, True, 1))
        chosen.append((kind, 61, 300, 37, False, 2))
    return chosen


CASES = cases()


@pytest.mark.parametrize("kind,m,k,n,dynamic,threads", CASES,
                         ids=[f"{c[0]}-{c[1]}x{c[2]}x{c[3]}-{'dyn' if c[4] else 'static'}-t{c[5]}"
                              for c in CASES])
def test_contraction_against_float64(kind, m, k, n, dynamic, threads):
    shapes = operand_shapes(kind, m, k, n, batch=3)
    rng = np.random.default_rng(hash((kind, m, k, n)) % (1 << 32))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes[:2]]
    if kind == "matmul_accumulate":
        arrays.append(rng.standard_normal(shapes[2]).astype(np.float32))
    pipeline = f"linea-optimize,linea-lower-to-cpu{{threads={threads}}}"
    (got,) = run(program(kind, shapes, dynamic), arrays, pipeline=pipeline, raising=False)
    want = expected(kind, arrays)
    assert got.shape == want.shape
    assert ref.rel_l2(got, want) <= TOLERANCE


@pytest.mark.parametrize("rows", (1, 3, 16))
def test_register_rows_option(rows):
    """Every tile height the pipeline option allows gives the same product
    (the halving tiles of the rows left over included)."""
    shapes = operand_shapes("matmul", 45, 19, 40, batch=1)
    rng = np.random.default_rng(rows)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes[:2]]
    pipeline = f"linea-optimize,linea-lower-to-cpu{{threads=2 register-rows={rows}}}"
    (got,) = run(program("matmul", shapes, False), arrays, pipeline=pipeline, raising=False)
    assert ref.rel_l2(got, expected("matmul", arrays)) <= TOLERANCE


# Contractions over grouped dims (linea-collapse-contraction-groups): the
# generic the raise leaves where a model views a projection as heads, and its
# relatives, each an einsum spec (one letter a dim; sizes by letter).
GROUPED = {
    # x @ W, viewed as heads: n is (h, d).
    "heads_after_projection": "mk,khd->mhd",
    # merged heads projected out over a batch of tokens: m is (b, l), k (h, d).
    "merged_heads_out": "blhd,hdn->bln",
    # the heads read transposed in the weights: (h, d) is no view of W, so
    # the op keeps its form (and must still be right).
    "heads_transposed_in_weights": "mk,kdh->mhd",
}
GROUPED_SIZES = {"m": 37, "k": 19, "h": 3, "d": 8, "b": 2, "l": 5, "n": 7}


def grouped_program(spec, dynamic):
    """`main(A, B) -> C` as one generic: C zero-filled, C += A * B."""
    inputs, output = spec.split("->")
    a_dims, b_dims = inputs.split(",")
    loops = list(dict.fromkeys(output + a_dims + b_dims))
    iterators = ", ".join('"parallel"' if d in output else '"reduction"' for d in loops)
    shape = {d: GROUPED_SIZES[d] for d in loops}

    def map_of(dims):
        return f"affine_map<({', '.join(loops)}) -> ({', '.join(dims)})>"

    def type_of(dims):
        return tensor([shape[d] for d in dims], dynamic)

    a, b, c = type_of(a_dims), type_of(b_dims), type_of(output)
    sizes = []
    for d in output:
        operand, dims, t = ("a", a_dims, a) if d in a_dims else ("b", b_dims, b)
        sizes.append((operand, dims.index(d), t))
    empty = "  %e = tensor.empty() : " + c + "\n"
    if dynamic:
        empty = "".join(f"  %i{i} = arith.constant {pos} : index\n"
                        f"  %d{i} = tensor.dim %{operand}, %i{i} : {t}\n"
                        for i, (operand, pos, t) in enumerate(sizes))
        empty += ("  %e = tensor.empty(" + ", ".join(f"%d{i}" for i in range(len(sizes)))
                  + ") : " + c + "\n")
    return (f"func.func @main(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %zero = arith.constant 0.0 : f32\n{empty}"
            f"  %f = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}\n"
            f"  %r = linalg.generic {{indexing_maps = [{map_of(a_dims)}, {map_of(b_dims)}, "
            f"{map_of(output)}], iterator_types = [{iterators}]}}\n"
            f"      ins(%a, %b : {a}, {b}) outs(%f : {c}) {{\n"
            f"  ^bb0(%x: f32, %y: f32, %o: f32):\n"
            f"    %p = arith.mulf %x, %y : f32\n"
            f"    %s = arith.addf %o, %p : f32\n"
            f"    linalg.yield %s : f32\n"
            f"  }} -> {c}\n"
            f"  return %r : {c}\n}}\n")


@pytest.mark.parametrize("dynamic,threads", ((False, 1), (True, 2)))
@pytest.mark.parametrize("name", sorted(GROUPED))
def test_grouped_contraction_against_float64(name, dynamic, threads):
    spec = GROUPED[name]
    inputs = spec.split("->")[0].split(",")
    rng = np.random.default_rng(len(name))
    arrays = [rng.standard_normal([GROUPED_SIZES[d] for d in dims]).astype(np.float32)
              for dims in inputs]
    pipeline = f"linea-optimize,linea-lower-to-cpu{{threads={threads}}}"
    (got,) = run(grouped_program(spec, dynamic), arrays, pipeline=pipeline, raising=False)
    want = np.einsum(spec, *(x.astype(np.float64) for x in arrays))
    assert got.shape == want.shape
    assert ref.rel_l2(got, want) <= TOLERANCE
