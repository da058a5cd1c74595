"""The tensor-core GPU code checked on the CPU: linea-gpu-mapped-to-cpu with
precision=bf16|f16 compiles what linea-lower-to-nvvm would (16-bit
temporaries, ldmatrix, mma.sync, cp.async, staged slices with barriers) and
runs it with each GPU block's threads on an OpenMP team, the warp
instructions emulated from PTX's fragment layouts
(linea-emulate-gpu-threads, runtime/LineaGpuEmulation.cpp).

The operands are rounded to 16 bits by the program itself (linea-run binds
f32), the oracle gets the same rounded values in float64, and the result
is rounded once to 16 bits: tolerances are a few of that rounding's ulps
(a wrong fragment layout or address is off by O(1))."""

import subprocess

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir

import cases
import programs

# rel. L2 of the 16-bit result against the oracle: rounding the output
# alone costs ~1.2e-3 (bf16) and ~1.5e-4 (f16).
TOLERANCE = {"bf16": 8e-3, "f16": 2e-3}


def rounded(x, element):
    """`x` rounded to bf16 / f16 (round to nearest even), back in float64."""
    if element == "f16":
        return x.astype(np.float16).astype(np.float64)
    return programs.bf16(x).astype(np.float64)


def check(batch, L, dk, dv, gated, mask="causal", prefix=None, element="bf16",
          options="form=chunk_parallel chunk-size=64", dynamic_L=False, seed=0, chip="sm_90a",
          precision=None):
    rng = np.random.default_rng(seed)
    shape = batch + [L]
    q, k = (rounded(rng.standard_normal(shape + [dk]), element) for _ in range(2))
    v = rounded(rng.standard_normal(shape + [dv]), element)
    inputs = [q, k, v]
    if gated:  # log-decays down to -20, many near 0
        inputs.append(rounded(-20.0 * rng.uniform(0, 1, shape + [dk]) ** 4, element))
    op = ref.gated_linear_attention if gated else ref.linear_attention
    want = op(*inputs, mask=mask, prefix_length=prefix)[0]
    text = mask if mask != "prefix" else f"prefix({prefix})"
    # The op's own 16-bit type unless told (precision=auto, the default).
    precision = f"precision={precision} " if precision else ""
    pipeline = f"linea-gpu-mapped-to-cpu{{chip={chip} {precision}{options}}}"
    got = linea.run(programs.sixteen_bit_program(batch, L, dk, dv, gated, text, element, dynamic_L),
                    [x.astype(np.float32) for x in inputs], pipeline=pipeline)
    got = got[0] if isinstance(got, (list, tuple)) else got
    error = ref.rel_l2(np.asarray(got, np.float64), want)
    assert error <= TOLERANCE[element], error


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
@pytest.mark.parametrize("L", [1, 17, 64, 203])
def test_chunk_parallel_bf16(gated, L):
    """The chunk blocks (ldmatrix from their bf16 temporaries, cp.async
    copies of q, k, v, the masked scores on tensor cores): L = 1, prime,
    one whole chunk, and a remainder chunk."""
    check([2], L, 64, 32, gated, seed=L)


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_small_chunks_and_leading_dims(gated):
    """Chunks of 16 rows, two leading dims."""
    check([2, 3], 50, 16, 16, gated, options="form=chunk_parallel chunk-size=16",
          precision="bf16")


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_head_dim_128(gated):
    """D = 128 (fla's shapes): the chunk block's shared memory above 48 KiB."""
    check([1], 130, 128, 128, gated, seed=128)


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_f16(gated):
    check([2], 203, 32, 16, gated, element="f16",
          options="form=chunk_parallel chunk-size=32")


@pytest.mark.parametrize("options", ["", "form=chunk_parallel chunk-size=64"],
                         ids=["auto", "chunk-parallel"])
@pytest.mark.parametrize("mask,prefix", [("none", None), ("prefix", 0), ("prefix", 64),
                                         ("prefix", 192)])
@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_bidirectional_and_prefix(gated, mask, prefix, options):
    """The one-shot state of a bidirectional region (staged grids: slices
    copied to shared memory between barriers) and the split prefix, with
    prefix 0, j and L."""
    check([2], 192, 32, 32, gated, mask=mask, prefix=prefix, options=options,
          seed=prefix or 1)


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_prefix_off_the_tiles(gated):
    """A prefix and a length no tile divides: the forms' other paths."""
    check([2], 150, 32, 32, gated, mask="prefix", prefix=37, options="", seed=37)


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_cost_model_choice(gated):
    """Whatever form the cost model picks for the GPU at a longer L."""
    check([2], 1024, 64, 64, gated, options="", seed=3)


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_grids_of_one_block(gated):
    """One sequence at D = 32 on an A100: the one-shot state's grid is a
    single block (its unit block dim once folded by the canonicalizer with
    the mapping, which left the grid's barriers and mma.sync on the host)."""
    check([1], 320, 32, 32, gated, mask="none", element="f16", options="", chip="sm_80",
          seed=320)


def test_dynamic_length():
    check([2], 97, 32, 32, True, dynamic_L=True, seed=97)


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("L", [1, 97, 128])
def test_dynamic_chunk_count_on_tensor_cores(L, chip):
    """The plain chunk-parallel form over a dynamic L: its grids over
    (sequence, chunk) have a dynamic chunk count, a batch dim the grid
    counts at run time (they ran on scalar grids before): L = 1, prime,
    whole chunks, against the oracle; the lowered program calls the
    emulated tensor cores."""
    check([2], L, 32, 32, False, dynamic_L=True, seed=L, chip=chip)
    text = programs.sixteen_bit_program([2], L, 32, 32, False, "causal", "bf16", True)
    ir = lowered(text, f"--linea-gpu-mapped-to-cpu=chip={chip} form=chunk_parallel chunk-size=64")
    assert "linea_gpu_emu_mma_m16n8k16" in ir or "linea_gpu_emu_wgmma" in ir


def lowered(text, pipeline):
    """`text` through linea-opt with `pipeline` (a pass pipeline option)."""
    return subprocess.run([str(build_dir() / "bin" / "linea-opt"), "-", pipeline], input=text,
                          capture_output=True, text=True, check=True).stdout


def f32_program(batch, L, dk, dv, gated, mask):
    """@main running linear or gated linear attention on f32 tensors (the
    tensor cores then narrow each staged element)."""
    def t(d):
        return "tensor<" + "x".join(str(x) for x in batch + [L, d]) + "xf32>"
    names, widths = ["q", "k", "v", "g"][:3 + gated], [dk, dk, dv, dk][:3 + gated]
    op = "gated_linear_attention" if gated else "linear_attention"
    return (f"func.func @main({', '.join(f'%{n}: {t(w)}' for n, w in zip(names, widths))})"
            f" -> {t(dv)} {{\n  %o = linea.{op} {', '.join('%' + n for n in names)} mask = {mask}"
            f" : {', '.join(t(w) for w in widths)} -> {t(dv)}\n  return %o : {t(dv)}\n}}\n")


@pytest.mark.parametrize("precision", ["", "precision=bf16 "], ids=["auto", "bf16"])
def test_tensor_cores_are_emulated(precision):
    """The checks above run the tensor-core code, not a fallback: the
    lowered program calls the warp emulation, with the op's own bf16 by
    default (precision=auto) as with precision=bf16; with precision=f32
    it does not."""
    text = programs.sixteen_bit_program([2], 203, 64, 32, True, "causal", "bf16")

    def lowered(options):
        return subprocess.run(
            [str(build_dir() / "bin" / "linea-opt"), "-",
             f"--linea-gpu-mapped-to-cpu=chip=sm_90a {options}form=chunk_parallel chunk-size=64"],
            input=text, capture_output=True, text=True, check=True).stdout
    on_tensor_cores = lowered(precision)
    for call in ("linea_gpu_emu_mma_m16n8k16", "linea_gpu_emu_ldmatrix", "omp_get_thread_num"):
        assert f"llvm.call @{call}" in on_tensor_cores, call
    assert "linea_gpu_emu_mma" not in lowered("precision=f32 ")


@pytest.mark.slow
@pytest.mark.parametrize("gated", [False, pytest.param(True, marks=pytest.mark.exhaustive)],
                         ids=["plain", "gated"])
def test_fla_shape(gated):
    """fla's smallest benchmark shape, (B, T, H, D) = (8, 1024, 8, 64), as
    linea-lower-to-nvvm compiles it for an H100 at bf16 (the cost model's
    form): every kernel the GPU would run, on the CPU (plain about 15 s;
    gated about 115 s, its chunk loop one emulated block per sequence, 64
    of them, since the cost model's block estimate of stop 45)."""
    check([8, 8], 1024, 64, 64, gated, options="", seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
def test_long_shape_kernels(gated):
    """The kernels of fla's long shapes at D = 128 ((1, 8192, 96, 128),
    (2, 16384, 16, 128): the same launches, the 121 KiB rows block among
    them) on a shorter sequence, (B, T, H, D) = (1, 2048, 2, 128)."""
    check([1, 2], 2048, 128, 128, gated, options="", seed=7)


# Every fourth seeded differential case (all ops: presum, linear and gated
# attention with every mask, softmax attention, fold, folded attention; f32
# tensors) with the contractions on emulated bf16 tensor cores: operands
# rounded to bf16 on the way in, so about 3e-3 at most (measured over all
# cases), not SPEC's 1e-4.
DIFFERENTIAL = cases.all_cases()[::4]
BF16_COMPUTE = 1e-2


@pytest.mark.parametrize("index", range(len(DIFFERENTIAL)),
                         ids=[cases.case_id(c) for c in DIFFERENTIAL])
def test_differential_on_tensor_cores(index):
    spec = DIFFERENTIAL[index]
    program, inputs, expected = programs.build(spec, seed=4 * index)
    got = linea.run(program, inputs,
                    pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a precision=bf16}")
    got = got if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(expected)
    for k, (g, want) in enumerate(zip(got, expected)):
        error = ref.rel_l2(np.asarray(g, np.float64), want)
        assert error <= BF16_COMPUTE, f"result {k}: {error:.3g}"


# sm_90a's warpgroup MMA: the staged grids whose sizes are multiples of 64
# (and whose output fills the GPU's 132 SMs, hence 4 x 33 sequences here)
# run wgmma m64nNk16, both operands read from the block's shared buffer in
# the 128-byte swizzle through matrix descriptors, which the emulation
# decodes as the PTX ISA defines them (not as Linea builds them). Between
# them the cases take every operand orientation (K^T V: both read
# transposed; Q S and P V: A as stored, B transposed; the masked scores
# Q K^T: both as stored), tiles of 128 x 128 (two warpgroups of 64 rows,
# V's 128 columns two 64-wide blocks of shared memory), 64 x 128 (two
# warpgroups of 64 columns, or one of 128 with 128-thread blocks), 128 x 64
# and 64 x 64 (one), output chains, remainder chunks and a prime L, a
# prefix, f16, and operands staged by cp.async lines (16-bit tensors) or
# element by element (f32 tensors, below). The causal cases take chunks of
# 128, whose rows are grids (a block per chunk of 64 would hold them), and
# their 132 sequences the state pass (so their K^T V is the one-shot
# cases').
SEQUENCES = [4, 33]
WGMMA_CASES = {
    "oneshot": dict(L=64, dk=64, dv=128, mask="none"),
    "gated-oneshot": dict(L=64, dk=64, dv=64, mask="none", gated=True),
    "prefix": dict(L=131, dk=64, dv=64, mask="prefix", prefix=64, options=""),
    "chunks": dict(L=128, dk=128, dv=128, mask="causal",
                   options="form=chunk_parallel chunk-size=128"),
    "chunks-one-warpgroup": dict(L=128, dk=128, dv=128, mask="causal",
                                 options="form=chunk_parallel chunk-size=128 block-size=128"),
    "chunks-128-rows": dict(L=131, dk=64, dv=64, mask="causal",
                            options="form=chunk_parallel chunk-size=128"),
    "f16": dict(L=200, dk=64, dv=64, mask="causal", element="f16",
                options="form=chunk_parallel chunk-size=128"),
}


@pytest.mark.parametrize("name", list(WGMMA_CASES))
def test_warpgroup_mma(name):
    case = dict(WGMMA_CASES[name])
    options = case.pop("options", "")
    element = case.get("element", "bf16")
    gated = case.pop("gated", False)
    text = programs.sixteen_bit_program(SEQUENCES, case["L"], case["dk"], case["dv"], gated,
                                        case["mask"] if case["mask"] != "prefix"
                                        else f"prefix({case['prefix']})", element)
    ir = lowered(text, f"--linea-gpu-mapped-to-cpu=chip=sm_90a precision={element} {options}")
    assert "llvm.call @linea_gpu_emu_wgmma" in ir
    check(SEQUENCES, case["L"], case["dk"], case["dv"], gated, mask=case["mask"],
          prefix=case.get("prefix"), element=element, options=options, seed=len(name))


@pytest.mark.parametrize("gated,mask,options", [
    (False, "none", ""), (False, "causal", "form=chunk_parallel chunk-size=128"),
    (True, "none", "")], ids=["oneshot", "chunk-parallel", "gated-oneshot"])
def test_warpgroup_mma_on_f32_tensors(gated, mask, options):
    """f32 tensors on bf16 warpgroup MMA: every staged element narrowed on
    its way to shared memory (no cp.async). (The gated causal forms keep
    their contractions in per-chunk blocks, on mma.sync; the plain one's
    chunks of 128 are grids.)"""
    rng = np.random.default_rng(11)
    batch, L, dk, dv = SEQUENCES, 128, 64, 64
    inputs = [rounded(rng.standard_normal(batch + [L, d]), "bf16") for d in (dk, dk, dv)]
    if gated:
        inputs.append(rounded(-20.0 * rng.uniform(0, 1, batch + [L, dk]) ** 4, "bf16"))
    text = f32_program(batch, L, dk, dv, gated, mask)
    ir = lowered(text, f"--linea-gpu-mapped-to-cpu=chip=sm_90a precision=bf16 {options}")
    assert "llvm.call @linea_gpu_emu_wgmma" in ir
    want = (ref.gated_linear_attention if gated else ref.linear_attention)(*inputs, mask=mask)[0]
    got = linea.run(text, [x.astype(np.float32) for x in inputs],
                    pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a precision=bf16 {options}}}")
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert ref.rel_l2(np.asarray(got, np.float64), want) <= BF16_COMPUTE


@pytest.mark.parametrize("mask, L, options", [
    ("causal", 203, "form=chunked chunk-size=64"),
    ("prefix", 203, "form=chunked chunk-size=64"),
    ("none", 256, "")])
def test_normalized_values_on_tensor_cores(mask, L, options):
    """A normalized op's values carry the ones column (64 + 1 = 65 columns):
    its contractions with them, ragged in their columns, still run on
    tensor cores (the chunk loop's P V, Q S and K^T V in a sequence block,
    the padded remainder chunk's too; the one-shot state and rows as
    grids), the last 16 x 8 tile reading zeros past column 65 and storing
    none of them: no contraction is left for the CUDA cores, and the result
    is within bf16 rounding of the oracle (a store past column 65 would
    land in the next row)."""
    spec = dict(op="linear_attention", batch=[2], L=L, dk=64, dv=64, mask=mask,
                feature_map="elu_plus_one", normalize=True)
    if mask == "prefix":
        spec["prefix"] = 64
    program, inputs, expected = programs.build(spec, seed=L + len(mask))
    pipeline = f"linea-gpu-mapped-to-cpu{{chip=sm_90a precision=bf16 {options}}}"
    done = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", f"--{pipeline.replace('{', '=')[:-1]}",
         "--mlir-print-ir-after=linea-contractions-to-mma", "-o", "/dev/null"],
        input=program, capture_output=True, text=True, check=True)
    left = [line for line in done.stderr.splitlines()
            if "linalg.generic" in line and '"reduction"' in line and "x65xf32" in line]
    assert not left, left
    got = linea.run(program, inputs, pipeline=pipeline)
    got = got if isinstance(got, (list, tuple)) else [got]
    for k, (g, want) in enumerate(zip(got, expected)):
        error = ref.rel_l2(np.asarray(g, np.float64), want)
        assert error <= BF16_COMPUTE, f"result {k}: {error:.3g}"


@pytest.mark.parametrize("L, dynamic_L", [(4099, False), (203, True)], ids=["static", "dynamic"])
def test_normalized_sequence_block(L, dynamic_L):
    """A normalized causal linear attention (elu + 1) as a GPU sequence block:
    the feature map and the normalizer's ones column are applied chunk by
    chunk inside the block (the padded remainder chunk's too, L % 64 != 0),
    not to the whole sequence (at L = 4099, 525 KB of feature-mapped queries
    and keys), which no block could keep in shared memory. With a dynamic L
    the remainder's rows are padded to the chunk before the feature map (the
    padded keys zeroed again after it: elu + 1 maps 0 to 1), so no temporary
    has a dynamic size and the sequence loop runs on the device there too."""
    spec = dict(op="linear_attention", batch=[2], L=L, dk=16, dv=8, mask="causal",
                feature_map="elu_plus_one", normalize=True, dyn_L=dynamic_L)
    program, inputs, expected = programs.build(spec, seed=L)
    pipeline = "linea-gpu-mapped-to-cpu{chip=sm_90a form=chunked chunk-size=64}"
    report = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", "--linea-lower-to-nvvm=chip=sm_90a "
         "format=isa form=chunked chunk-size=64"], input=program, capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "sequence loop stays on the host" not in report.stderr, report.stderr
    programs.assert_matches(linea.run(program, inputs, pipeline=pipeline), expected)


def projection_program(batch, m, k, n):
    """@main: a projection as torch-mlir writes one, a named linalg.matmul
    (linalg.batch_matmul with a batch) into a zero fill, on f32 tensors."""
    def t(*dims):
        return "tensor<" + "x".join(str(d) for d in batch + list(dims)) + "xf32>"
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    return (f"func.func @main(%a: {t(m, k)}, %b: {t(k, n)}) -> {t(m, n)} {{\n"
            f"  %zero = arith.constant 0.0 : f32\n"
            f"  %e = tensor.empty() : {t(m, n)}\n"
            f"  %c = linalg.fill ins(%zero : f32) outs(%e : {t(m, n)}) -> {t(m, n)}\n"
            f"  %r = {op} ins(%a, %b : {t(m, k)}, {t(k, n)}) outs(%c : {t(m, n)}) -> {t(m, n)}\n"
            f"  return %r : {t(m, n)}\n}}\n")


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("batch", [[], [3]], ids=["matmul", "batch_matmul"])
def test_named_projection_on_tensor_cores(batch, chip):
    """A model's projection written as a named op goes to the tensor cores
    with precision=bf16, as Linea's own contractions do (it ran on a scalar
    grid before): mma.sync, or on sm_90a wgmma where the grid has blocks
    enough (these 4 to 12 blocks of 64 x 64 take mma.sync)."""
    m, k, n = 256, 128, 64
    text = projection_program(batch, m, k, n)
    ir = lowered(text, f"--linea-gpu-mapped-to-cpu=chip={chip} precision=bf16")
    assert ("llvm.call @linea_gpu_emu_mma_m16n8k16" in ir
            or "llvm.call @linea_gpu_emu_wgmma" in ir)
    pipeline = f"linea-gpu-mapped-to-cpu{{chip={chip} precision=bf16}}"
    rng = np.random.default_rng(len(batch))
    a = rounded(rng.standard_normal(batch + [m, k]), "bf16")
    b = rounded(rng.standard_normal(batch + [k, n]), "bf16")
    got = linea.run(text, [a.astype(np.float32), b.astype(np.float32)], pipeline=pipeline)
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert ref.rel_l2(np.asarray(got, np.float64), a @ b) <= TOLERANCE["bf16"]


def dynamic_projection_program(k, n, stored):
    """@main: `x @ w` over a dynamic number of rows (a model's projection
    over its L tokens), x stored bf16 where `stored`; its result written
    into the first rows of a buffer of 64 more rows filled with 7, so a
    store past the last row shows."""
    def t(d, e="f32"):
        return f"tensor<?x{d}x{e}>"
    x, body = "%x", ""
    if stored:
        body = (f"  %x16 = arith.truncf %x : {t(k)} to {t(k, 'bf16')}\n"
                f"  %xw = arith.extf %x16 : {t(k, 'bf16')} to {t(k)}\n")
        x = "%xw"
    return (f"func.func @main(%x: {t(k)}, %w: tensor<{k}x{n}xf32>) -> {t(n)} {{\n{body}"
            f"  %zero = arith.constant 0.0 : f32\n  %seven = arith.constant 7.0 : f32\n"
            f"  %c0 = arith.constant 0 : index\n  %c64 = arith.constant 64 : index\n"
            f"  %m = tensor.dim %x, %c0 : {t(k)}\n  %m64 = arith.addi %m, %c64 : index\n"
            f"  %be = tensor.empty(%m64) : {t(n)}\n"
            f"  %big = linalg.fill ins(%seven : f32) outs(%be : {t(n)}) -> {t(n)}\n"
            f"  %e = tensor.empty(%m) : {t(n)}\n"
            f"  %c = linalg.fill ins(%zero : f32) outs(%e : {t(n)}) -> {t(n)}\n"
            f"  %r = linalg.matmul ins({x}, %w : {t(k)}, tensor<{k}x{n}xf32>) outs(%c : {t(n)}) -> {t(n)}\n"
            f"  %o = tensor.insert_slice %r into %big[0, 0] [%m, {n}] [1, 1] : {t(n)} into {t(n)}\n"
            f"  return %o : {t(n)}\n}}\n")


@pytest.mark.parametrize("chip,n", [("sm_90a", 512), ("sm_80", 128)])
@pytest.mark.parametrize("stored", [False, True], ids=["f32", "bf16_stored"])
def test_dynamic_projection_on_tensor_cores(chip, n, stored):
    """A projection over a dynamic L on tensor cores (wgmma, by TMA where x
    is stored bf16; mma.sync, by cp.async lines), one compile for every L:
    the last row tile partly past the end reads zeros there and stores
    nothing past the last row (the 7s after it stay)."""
    k = 128
    text = dynamic_projection_program(k, n, stored)
    pipeline = f"linea-gpu-mapped-to-cpu{{chip={chip} precision=bf16}}"
    ir = lowered(text, f"--{pipeline.replace('{', '=').rstrip('}')}")
    wanted = "@linea_gpu_emu_wgmma" if chip == "sm_90a" else "@linea_gpu_emu_mma_m16n8k16"
    assert f"llvm.call {wanted}" in ir
    if stored and chip == "sm_90a":
        assert "llvm.call @linea_gpu_emu_tma_load" in ir
    rng = np.random.default_rng(n + stored)
    w = rounded(rng.standard_normal([k, n]), "bf16")
    for m in (1, 127, 200):
        x = rounded(rng.standard_normal([m, k]), "bf16")
        got = linea.run(text, [x.astype(np.float32), w.astype(np.float32)], pipeline=pipeline)
        got = np.asarray(got[0] if isinstance(got, (list, tuple)) else got, np.float64)
        assert got.shape == (m + 64, n)
        assert ref.rel_l2(got[:m], x @ w) <= TOLERANCE["bf16"], m
        assert np.all(got[m:] == 7.0), m


# The per-sequence state pass (fla's chunk_fwd_h): where enough sequences
# fill the GPU, a plain causal op's entering states are one pass of a block
# per (sequence, 64 x 64 state tile) walking the chunks in order, instead
# of every chunk's local state and a scan of them. A description with two
# SMs makes a test's few sequences enough.
@pytest.fixture(scope="module")
def two_sms(tmp_path_factory):
    path = tmp_path_factory.mktemp("target") / "two-sms.json"
    path.write_text('{"target": "gpu", "parallelUnits": 2}')
    return path


def scans_chunk_states(text, options):
    """Whether the chunk-parallel form of `text` scans its chunk states
    rather than making them in one pass: whether any op carries the scan
    stage's kernel name in its location."""
    done = subprocess.run([str(build_dir() / "bin" / "linea-opt"), "-",
                           f"--linea-optimize=target=gpu chip=sm_90a {options}",
                           "--mlir-print-debuginfo"],
                          input=text, capture_output=True, text=True, check=True)
    assert "_chunk_states" in done.stdout
    return "_state_scan" in done.stdout


STATE_PASS_CASES = {
    # (batch, L, dk, dv, element, dynamic L, options)
    "one-row": ([2], 1, 64, 64, "bf16", False, "chunk-size=64"),
    "prime-L": ([2], 203, 64, 64, "bf16", False, "chunk-size=64"),
    "tiles-2x2": ([1], 130, 128, 128, "bf16", False, "chunk-size=64"),
    "leading-dims": ([2, 3], 50, 16, 16, "bf16", False, "chunk-size=16"),
    "rows-as-grids": ([2], 131, 64, 64, "bf16", False, "chunk-size=128"),
    "dynamic-L": ([2], 150, 64, 64, "bf16", True, "chunk-size=64"),
    "f16": ([2], 100, 32, 16, "f16", False, "chunk-size=32"),
}


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
@pytest.mark.parametrize("name", list(STATE_PASS_CASES))
def test_state_pass(name, gated, two_sms):
    """The state pass, with the rows as blocks per chunk (or as grids, at
    C = 128): L = 1, a prime L, 2 x 2 state tiles at D = 128, several
    leading dims, a dynamic L, f16, gates per key down to -20; the
    entering states stored in the op's 16-bit type."""
    batch, L, dk, dv, element, dynamic_L, chunk = STATE_PASS_CASES[name]
    options = f"form=chunk_parallel {chunk} target-description={two_sms}"
    text = programs.sixteen_bit_program(batch, L, dk, dv, gated, "causal", element, dynamic_L)
    assert not scans_chunk_states(text, options)
    assert scans_chunk_states(text, f"form=chunk_parallel {chunk}")
    check(batch, L, dk, dv, gated, element=element, options=options, dynamic_L=dynamic_L,
          seed=L)


STATE_PASS_DIFFERENTIAL = [c for c in cases.all_cases()
                           if c["op"] in ("linear_attention", "gated_linear_attention")
                           and c["mask"] == "causal"]


@pytest.mark.parametrize("precision", ["bf16", "f32"])
@pytest.mark.parametrize("index", range(len(STATE_PASS_DIFFERENTIAL)),
                         ids=[cases.case_id(c) for c in STATE_PASS_DIFFERENTIAL])
def test_state_pass_differential(index, precision, two_sms):
    """Every seeded causal linear-attention and gated case (initial and
    final states, feature maps, the normalizer's ones column, scalar and
    per-key gates, dynamic batch and L, widths down to 1) through the state
    pass, in chunks of 16, on emulated bf16 tensor cores, and on the CUDA
    cores in f32 within SPEC's 1e-4."""
    spec = STATE_PASS_DIFFERENTIAL[index]
    program, inputs, expected = programs.build(spec, seed=index)
    options = (f"precision={precision} form=chunk_parallel chunk-size=16 "
               f"target-description={two_sms}")
    got = linea.run(program, inputs, pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a {options}}}")
    got = got if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(expected)
    tolerance = BF16_COMPUTE if precision == "bf16" else 1e-4
    for k, (g, want) in enumerate(zip(got, expected)):
        error = ref.rel_l2(np.asarray(g, np.float64), want)
        assert error <= tolerance, f"result {k}: {error:.3g}"


@pytest.mark.parametrize("gated", [False, True], ids=["plain", "gated"])
@pytest.mark.parametrize("prefix", [0, 64, 130])
def test_prefix_halves_through_the_state_pass(prefix, gated, two_sms):
    """PrefixLM with the causal tail through the state pass: each half of
    the bf16 output written as stored by the kernel that computes it (the
    one-shot rows into the first, the tail's blocks into the second), prefix
    0, j and L."""
    check([2], 130, 64, 64, gated, mask="prefix", prefix=prefix,
          options=f"target-description={two_sms}", seed=prefix + 5)
