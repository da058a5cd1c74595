"""Softmax attention as flash-attention blocks (linea-flash-attention,
linea-expand-flash-attention): 8 warps per 128 query rows, scores and
probabilities in mma.sync registers, row statistics by warp shuffles, keys
and values staged by cp.async (16-bit operands) or element by element (f32
operands under precision=bf16). Run through the CPU emulation of the
launches (ldmatrix, mma.sync, shuffles from PTX's lane layouts) against
the float64 oracle on the operands as rounded, and lowered for sm_90a."""

import re
import subprocess

import numpy as np
import pytest

import linea
from linea import reference as ref
from linea.runner import build_dir

import gpu_cases
from test_gpu_emulation import rounded

# bf16 probabilities into P V (8 mantissa bits) over f32 accumulation; f16
# keeps 11.
TOLERANCE = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-2}


def program(batch, lq, lk, d, dv, mask, dynamic, element, scale=None):
    """@main rounding its f32 arguments to `element` (linea-run binds f32),
    the op on them, its result widened back to f32."""
    lead = "".join(f"{b}x" for b in batch)
    rows, keys = ("?", "?") if dynamic else (str(lq), str(lk))

    def t(n, width, e):
        return f"tensor<{lead}{n}x{width}x{e}>"
    shapes = {"q": (rows, d), "k": (keys, d), "v": (keys, dv)}
    args = ", ".join(f"%{n}32: {t(*shapes[n], 'f32')}" for n in "qkv")
    body = ""
    for n in "qkv":
        if element == "f32":
            body += f"  %{n} = arith.addf %{n}32, %{n}32 : {t(*shapes[n], 'f32')}\n"
        else:
            body += (f"  %{n} = arith.truncf %{n}32 : {t(*shapes[n], 'f32')} "
                     f"to {t(*shapes[n], element)}\n")
    scale_text = f" scale = {scale}" if scale else ""
    types = ", ".join(t(*shapes[n], element) for n in "qkv")
    out = t(rows, dv, element)
    body += (f"  %o = linea.attention %q, %k, %v mask = {mask}{scale_text} : {types} -> {out}\n")
    if element != "f32":
        body += f"  %w = arith.extf %o : {out} to {t(rows, dv, 'f32')}\n"
    else:
        body += "  %w = arith.addf %o, %o : " + out + "\n"
    return f"func.func @main({args}) -> {t(rows, dv, 'f32')} {{\n{body}  return %w : {t(rows, dv, 'f32')}\n}}\n"


# (batch dims, Lq, Lk, d, dv, mask, dynamic sizes, element, scale): L = 1,
# prime L with two batch dims, D = 128 with a remainder tile and Lq < Lk
# (the queries are the last Lq positions), Lq > Lk under a causal mask (the
# first rows see no key), no mask with several key tiles per block and a
# scale, f16, f32 operands rounded when staged (precision=bf16), D = 96.
CASES = [
    ([2], 1, 1, 32, 32, "causal", True, "bf16", None),
    ([2, 3], 67, 67, 64, 32, "causal", True, "bf16", None),
    ([1], 130, 131, 128, 128, "causal", False, "bf16", None),
    ([2], 200, 70, 64, 64, "causal", True, "bf16", None),
    ([2], 129, 257, 96, 64, "none", False, "f16", 0.25),
    ([1], 256, 250, 64, 128, "none", True, "f32", None),
    ([1], 150, 150, 32, 96, "causal", False, "f32", None),
    # Heads of 16, 48, 80 and 112: tiles not whole rounds of the threads,
    # staged by 16-byte loads (the last round by the threads that have a
    # line), no cp.async.
    ([2], 133, 133, 16, 48, "causal", True, "bf16", None),
    ([1], 70, 200, 80, 112, "none", False, "f16", None),
    ([2], 129, 129, 48, 16, "causal", False, "f32", None),
]


def case_id(c):
    batch, lq, lk, d, dv, mask, dynamic, element, scale = c
    return (f"{mask}-{element}-batch={batch}-Lq={lq}-Lk={lk}-d={d}x{dv}"
            + ("-dyn" if dynamic else "") + ("-scaled" if scale else ""))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_flash_attention_against_oracle(case):
    batch, lq, lk, d, dv, mask, dynamic, element, scale = case
    rng = np.random.default_rng(lq * 1000 + lk + d)
    # Scores spread wide (q times 3): the running max moves between tiles.
    q = 3 * rng.standard_normal(batch + [lq, d])
    k = rng.standard_normal(batch + [lk, d])
    v = rng.standard_normal(batch + [lk, dv])
    if element == "f32":
        # The program doubles each operand, and its output.
        operands = [x.astype(np.float32) for x in (q, k, v)]
        want = 2 * ref.attention(*(2 * rounded(x, "bf16") for x in (q, k, v)), mask, scale)
        precision = " precision=bf16"
    else:
        operands = [rounded(x, element).astype(np.float32) for x in (q, k, v)]
        want = ref.attention(*(rounded(x, element) for x in (q, k, v)), mask, scale)
        precision = ""
    text = program(batch, lq, lk, d, dv, mask, dynamic, element, scale)
    (got,) = linea.run(text, operands,
                       pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a{precision}}}")
    got = np.asarray(got, np.float64)
    assert np.isfinite(got).all()
    error = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert error <= TOLERANCE[element], error


def lowered(text, options="chip=sm_90a format=isa"):
    done = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", f"--linea-lower-to-nvvm={options}"],
        input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_flash_kernel_is_taken_and_named():
    """A bf16 op is one launch of the flash kernel (named after it, 8
    warps, its blocks per SM stated: one at heads of 128), with mma.sync, ldmatrix, shuffles and
    cp.async; an f32 op without a 16-bit precision, and a head size flash
    attention does not take, stay for linea-tile-attention's blocks."""
    ptx = lowered(program([2, 4], 4096, 4096, 128, 128, "causal", False, "bf16"))
    # The three roundings (one launch: siblings), the op, the widening.
    assert ptx.count("gpu.launch_func") == 3
    assert "@linea_attention_flash_fwd" in ptx
    for instruction in ("mma.sync.aligned.m16n8k16", "ldmatrix.sync", "shfl.sync.bfly",
                        "cp.async.cg.shared.global", ".minnctapersm 1", "ex2.approx"):
        assert instruction in ptx, instruction
    assert "linea_attention_fwd" not in ptx
    # Value heads of 64: a lane's 32 accumulators leave room for two blocks
    # per SM in 128 registers.
    assert ".minnctapersm 2" in lowered(program([2], 256, 256, 64, 64, "causal", False, "bf16"))
    exact = lowered(program([2], 256, 256, 64, 64, "causal", False, "f32"))
    assert "flash" not in exact and "@linea_attention_fwd" in exact
    narrow = lowered(program([2], 256, 256, 8, 8, "causal", False, "bf16"))
    assert "flash" not in narrow and "@linea_attention_fwd" in narrow
    # Heads of 48: the flash kernel, its tiles staged by 16-byte loads.
    odd = lowered(program([2], 256, 256, 48, 48, "causal", False, "bf16"))
    assert "@linea_attention_flash_fwd" in odd and "cp.async" not in odd


@pytest.mark.parametrize("element", ["bf16", "f32"])
def test_operands_off_the_lines(element):
    """A query buffer that does not start on a 16-byte line (a view 2 or 4
    bytes into an allocation, as a caller's tensor with a storage offset
    may be) sends the block down its element-by-element staging, run-time
    checked: the same result."""
    t, m = f"tensor<2x150x64x{element}>", f"memref<2x150x64x{element}>"
    f32 = "tensor<2x150x64xf32>"
    width = 2 if element == "bf16" else 4
    rounding = "".join(
        f"  %{n} = arith.truncf %{n}32 : {f32} to {t}\n" if element == "bf16"
        else f"  %{n} = arith.addf %{n}32, %{n}32 : {f32}\n" for n in "qkv")
    widen = (f"  %w = arith.extf %o : {t} to {f32}\n" if element == "bf16"
             else f"  %w = arith.addf %o, %o : {f32}\n")
    text = f"""func.func @main(%q32: {f32}, %k32: {f32}, %v32: {f32}) -> {f32} {{
{rounding}  %bytes = memref.alloc() {{alignment = 64 : i64}} : memref<{2 * 150 * 64 * width + width}xi8>
  %shift = arith.constant {width} : index
  %shifted = memref.view %bytes[%shift][] : memref<{2 * 150 * 64 * width + width}xi8> to {m}
  %qb = bufferization.to_buffer %q read_only : {t} to {m}
  memref.copy %qb, %shifted : {m} to {m}
  %q4 = bufferization.to_tensor %shifted restrict : {m} to {t}
  %o = linea.attention %q4, %k, %v mask = causal : {t}, {t}, {t} -> {t}
{widen}  return %w : {f32}
}}
"""
    rng = np.random.default_rng(width)
    q, k, v = (rng.standard_normal((2, 150, 64)) for _ in range(3))
    scale = 1 if element == "bf16" else 2  # the f32 program doubles operands and output
    want = scale * ref.attention(*(scale * rounded(x, "bf16") for x in (q, k, v)), "causal")
    precision = "" if element == "bf16" else " precision=bf16"
    (got,) = linea.run(text, [rounded(x, "bf16").astype(np.float32) for x in (q, k, v)],
                       pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a{precision}}}")
    error = np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want)
    assert error <= TOLERANCE["bf16"], error


@pytest.mark.parametrize("lq,lk,mask", [(0, 0, "causal"), (5, 0, "none"), (0, 7, "none")],
                         ids=["no-rows-no-keys", "rows-no-keys", "keys-no-rows"])
def test_empty_sequences(lq, lk, mask):
    """Dynamic sizes of 0: no query tile is no block (and no launch on a
    GPU); rows that see no key are zeros."""
    rng = np.random.default_rng(lq + lk)
    q, k, v = (rng.standard_normal((2, n, 64)).astype(np.float32) for n in (lq, lk, lk))
    (got,) = linea.run(program([2], lq, lk, 64, 64, mask, True, "bf16"), [q, k, v],
                       pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}")
    got = np.asarray(got)
    assert got.shape == (2, lq, 64)
    assert np.all(got == 0)


def test_every_dim_dynamic():
    """Batch and lengths dynamic (as a model exported with every dim
    dynamic): f32 operands under precision=bf16 through the flash kernel,
    its grid counted from the run-time sizes."""
    import programs
    spec = dict(op="attention", batch=[3], Lq=130, Lk=130, dk=64, dv=64, mask="causal",
                dyn_L=True, dyn_batch=True)
    program_text, inputs, expected = programs.build(spec, seed=11)
    assert "tensor<?x?x64xf32>" in program_text
    (got,) = linea.run(program_text, inputs,
                       pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a precision=bf16}")
    error = ref.rel_l2(np.asarray(got, np.float64), expected[0])
    assert error <= TOLERANCE["bf16"], error


def packed_program(batch, d, dv, mask, offsets_type, element):
    """@main(q, k, v, offsets) rounding q, k, v to `element` (f32: doubled),
    the packed op on them (queries and keys packed alike), its result
    widened back to f32 (f32: doubled)."""
    lead = "".join(f"{b}x" for b in batch)

    def t(width, e):
        return f"tensor<{lead}?x{width}x{e}>"
    widths = {"q": d, "k": d, "v": dv}
    args = ", ".join(f"%{n}32: {t(widths[n], 'f32')}" for n in "qkv")
    body = ""
    for n in "qkv":
        f32 = t(widths[n], "f32")
        body += (f"  %{n} = arith.addf %{n}32, %{n}32 : {f32}\n" if element == "f32" else
                 f"  %{n} = arith.truncf %{n}32 : {f32} to {t(widths[n], element)}\n")
    types = ", ".join(t(widths[n], element) for n in "qkv")
    out, wide = t(dv, element), t(dv, "f32")
    offsets = f"tensor<?x{offsets_type}>"
    body += (f"  %o = linea.attention %q, %k, %v offsets(%offs) mask = {mask} : "
             f"{types}, {offsets} -> {out}\n")
    body += (f"  %w = arith.addf %o, %o : {out}\n" if element == "f32" else
             f"  %w = arith.extf %o : {out} to {wide}\n")
    return (f"func.func @main({args}, %offs: {offsets}) -> {wide} {{\n{body}"
            f"  return %w : {wide}\n}}\n")


# (segment kind, batch dims, L, d, dv, mask, offsets type, element): one
# segment past two query tiles; single tokens (131 segments: the blocks'
# binary search runs 8 steps, and most tiles have no rows); empty segments
# first, inside and last; one long document and many short; L = 1; f32
# operands rounded (precision=bf16) with two batch dims.
PACKED_CASES = [
    ("one", [2], 300, 64, 64, "causal", "i32", "bf16"),
    ("ones", [1], 131, 32, 32, "causal", "index", "bf16"),
    ("empty", [2], 257, 128, 64, "none", "i64", "f16"),
    ("long_short", [1], 400, 64, 128, "causal", "i64", "bf16"),
    ("one", [2], 1, 32, 32, "causal", "index", "bf16"),
    ("cuts", [2, 2], 200, 96, 32, "none", "i32", "f32"),
]


def packed_id(c):
    kind, batch, length, d, dv, mask, offsets_type, element = c
    return f"{mask}-{element}-{kind}-batch={batch}-L={length}-d={d}x{dv}-{offsets_type}"


@pytest.mark.parametrize("case", PACKED_CASES, ids=[packed_id(c) for c in PACKED_CASES])
def test_packed_sequences_against_oracle(case):
    """Packed sequences (offsets) in one flash launch: each block finds
    its segment's tile by binary search over the offsets, and its queries
    see that segment's keys only."""
    from test_packed import lengths_of, offsets_of
    kind, batch, length, d, dv, mask, offsets_type, element = case
    rng = np.random.default_rng(length * 7 + d + dv)
    offsets = offsets_of(lengths_of(kind, length, rng))
    q = 3 * rng.standard_normal(batch + [length, d])
    k = rng.standard_normal(batch + [length, d])
    v = rng.standard_normal(batch + [length, dv])
    if element == "f32":
        operands = [x.astype(np.float32) for x in (q, k, v)]
        want = 2 * ref.attention(*(2 * rounded(x, "bf16") for x in (q, k, v)), mask,
                                 offsets=offsets)
        precision = " precision=bf16"
    else:
        operands = [rounded(x, element).astype(np.float32) for x in (q, k, v)]
        want = ref.attention(*(rounded(x, element) for x in (q, k, v)), mask, offsets=offsets)
        precision = ""
    o = offsets.astype(np.int32 if offsets_type == "i32" else np.int64)
    text = packed_program(batch, d, dv, mask, offsets_type, element)
    assert "@linea_attention_flash_fwd" in lowered(text, "chip=sm_90a format=isa" + precision)
    (got,) = linea.run(text, operands + [o],
                       pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a{precision}}}")
    got = np.asarray(got, np.float64)
    assert np.isfinite(got).all()
    error = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert error <= TOLERANCE[element], error


@pytest.mark.parametrize("element,named", [("bf16", False), ("f32", True)],
                         ids=["bf16-generic", "f32-named"])
def test_heads_split_and_merged_in_place(element, named):
    """Heads split from a projection's rows and merged back (a model's
    attention block): the kernel reads q, k and v through transposed views
    of the rows (strided, 3 H D apart) and writes the merged rows, so no
    launch copies a transpose; against the oracle on the heads."""
    length, heads, d = 150, 3, 64
    text = gpu_cases.heads_program(length, heads, d, "f32", element, named)
    precision = "" if element == "bf16" else " precision=bf16"
    done = subprocess.run(
        [str(build_dir() / "bin" / "linea-opt"), "-", "-o", "/dev/null",
         f"--linea-lower-to-nvvm=chip=sm_90a report=1{precision}"],
        input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # Each launch by the source line it computes.
    launches = {int(line): name for line, name in
                re.findall(r"<stdin>:(\d+):\d+: remark: kernel @(\w+):", done.stderr)}
    lines = text.splitlines()
    transposes = {n + 1 for n, line in enumerate(lines)
                  if "linalg.transpose" in line or "linalg.generic" in line}
    attention = next(n + 1 for n, line in enumerate(lines) if "linea.attention" in line)
    assert launches[attention] == "linea_attention_flash_fwd", launches
    assert not transposes & set(launches), launches
    rng = np.random.default_rng(5)
    x = rng.standard_normal((length, 3 * heads * d))
    x[:, :heads * d] *= 3  # queries spread wide: the running max moves
    q, k, v = (rounded(x[:, i * heads * d:(i + 1) * heads * d], "bf16")
               .reshape(length, heads, d).transpose(1, 0, 2) for i in range(3))
    want = ref.attention(q, k, v, "causal").transpose(1, 0, 2)
    (got,) = linea.run(text, [rounded(x, "bf16").astype(np.float32)],
                       pipeline=f"linea-gpu-mapped-to-cpu{{chip=sm_90a{precision}}}")
    error = np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want)
    assert error <= TOLERANCE["bf16"], error


def test_heads_permuted_by_a_cycle():
    """A split that is a 3-cycle of the leading dims ([L, A, B, D] -> [A,
    B, L, D]) and its inverse merge: the read views take the split's
    permutation, the write view the merge's inverse (a swap would not
    tell them apart)."""
    rows, split = "tensor<70x2x5x32xbf16>", "tensor<2x5x70x32xbf16>"
    wide = "tensor<70x2x5x32xf32>"

    def named(result, source, init, source_type, result_type, permutation):
        return (f"  {result} = linalg.transpose ins({source} : {source_type}) outs({init} : "
                f"{result_type}) permutation = {permutation}\n")
    body = ""
    for n in "qkv":
        body += (f"  %{n}r = arith.truncf %{n}32 : {wide} to {rows}\n"
                 f"  %{n}0 = tensor.empty() : {split}\n"
                 + named(f"%{n}", f"%{n}r", f"%{n}0", rows, split, "[1, 2, 0, 3]"))
    body += (f"  %o = linea.attention %q, %k, %v mask = causal : {split}, {split}, {split} "
             f"-> {split}\n  %m0 = tensor.empty() : {rows}\n"
             + named("%m", "%o", "%m0", split, rows, "[2, 0, 1, 3]")
             + f"  %w = arith.extf %m : {rows} to {wide}\n")
    text = (f"func.func @main(%q32: {wide}, %k32: {wide}, %v32: {wide}) -> {wide} {{\n{body}"
            f"  return %w : {wide}\n}}\n")
    rng = np.random.default_rng(6)
    q, k, v = (rounded(scale * rng.standard_normal((70, 2, 5, 32)), "bf16")
               for scale in (3, 1, 1))
    want = ref.attention(*(x.transpose(1, 2, 0, 3) for x in (q, k, v)),
                         "causal").transpose(2, 0, 1, 3)
    (got,) = linea.run(text, [x.astype(np.float32) for x in (q, k, v)],
                       pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}")
    error = np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want)
    assert error <= TOLERANCE["bf16"], error


def test_heads_of_a_strided_slice():
    """Heads split from every other column of a buffer (a slice of
    stride 2): the run-time check finds rows that are not whole lines, and
    the block stages them element by element through the same view."""
    text = """func.func @main(%x32: tensor<64x2x128xf32>) -> tensor<2x64x64xf32> {
  %x = arith.truncf %x32 : tensor<64x2x128xf32> to tensor<64x2x128xbf16>
  %s = tensor.extract_slice %x[0, 0, 0] [64, 2, 64] [1, 1, 2] : tensor<64x2x128xbf16> to tensor<64x2x64xbf16>
  %e = tensor.empty() : tensor<2x64x64xbf16>
  %q = linalg.transpose ins(%s : tensor<64x2x64xbf16>) outs(%e : tensor<2x64x64xbf16>) permutation = [1, 0, 2]
  %o = linea.attention %q, %q, %q mask = causal : tensor<2x64x64xbf16>, tensor<2x64x64xbf16>, tensor<2x64x64xbf16> -> tensor<2x64x64xbf16>
  %w = arith.extf %o : tensor<2x64x64xbf16> to tensor<2x64x64xf32>
  return %w : tensor<2x64x64xf32>
}
"""
    assert "@linea_attention_flash_fwd" in lowered(text)
    x = rounded(np.random.default_rng(7).standard_normal((64, 2, 128)), "bf16")
    q = x[:, :, ::2].transpose(1, 0, 2)
    want = ref.attention(q, q, q, "causal")
    (got,) = linea.run(text, [x.astype(np.float32)], pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}")
    error = np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want)
    assert error <= TOLERANCE["bf16"], error
