"""The GPU differential cases: Linea programs compiled with
`linea.compile(target="cuda")`, run on torch CUDA tensors and compared with
the float64 oracle. Plain Python (no pytest), so that the GPU check kit runs
them on a machine without pytest (`python3 gpu_cases.py`); test_gpu.py wraps
them for pytest.

Without a CUDA device each case still compiles its library (into
$LINEA_CACHE_DIR: that is how scripts/gpu-check.sh builds the kit here) and
then reports skipped.
"""

import os
import sys
import time

import numpy as np

import cases
import linea
import programs
from linea import reference

CHIP = os.environ.get("LINEA_GPU_CHIP", "sm_90a")

# Relative L2 error against float64 per precision of the contractions: f32 is
# SPEC's bound; f16 and bf16 round every MMA operand to 11 and 8 significant
# bits (unit roundoff 2^-11 and 2^-8), accumulate in f32, and are allowed
# about four units of roundoff on the result.
TOLERANCE = {"f32": programs.TOLERANCE, "f16": 2e-3, "bf16": 1.6e-2}


class Skip(Exception):
    """No CUDA device here: the case compiled and was not run."""


def gpu_cases():
    """(name, spec, precision): SPEC's edge cases at f32, and head dims that
    tile for tensor cores at every precision (L = 1, prime L, L % chunk != 0,
    long L, prefix 0 / j / L, gates down to -20, several leading dims)."""
    named = [(cases.case_id(c), c, "f32") for c in cases.edge_cases()]
    la = dict(op="linear_attention", batch=[2, 3], dk=64, dv=64)
    ga = dict(op="gated_linear_attention", batch=[2, 3], dk=64, dv=64)
    sa = dict(op="attention", batch=[2], dk=64, dv=64)
    wide = [
        dict(la, L=1, mask="causal"),
        dict(la, L=61, mask="causal", final=True),
        dict(la, L=1000, mask="causal", init=True, final=True),
        dict(la, L=4099, mask="causal"),
        dict(la, L=1000, mask="none", feature_map="elu_plus_one", normalize=True),
        dict(la, L=1000, mask="prefix", prefix=0, dyn_prefix=True),
        dict(la, L=1000, mask="prefix", prefix=333, dyn_prefix=True, dyn_L=True),
        dict(la, L=1000, mask="prefix", prefix=1000),
        dict(la, batch=[2], dk=128, dv=128, L=517, mask="causal"),
        # 132 sequences: on sm_90a the staged grids fill the SMs in wgmma's
        # tiles (the states 128 x 128, the outputs 64 x 128 split between
        # two warpgroups), the one-shot state's too.
        dict(la, batch=[4, 33], dk=128, dv=128, L=300, mask="causal"),
        dict(la, batch=[4, 33], L=256, mask="none"),
        dict(ga, L=61, mask="causal", final=True),
        dict(ga, L=1000, mask="causal", init=True),
        dict(ga, L=1000, mask="causal", scalar_gate=True, final=True),
        dict(ga, L=1000, mask="prefix", prefix=400, dyn_prefix=True),
        dict(ga, L=1000, mask="none", final=True),
        # Softmax attention: f32 in linea-tile-attention's blocks, f16 and
        # bf16 in the flash-attention kernel (L = 1, a remainder tile, Lq <
        # Lk and Lq > Lk, D = 128, dynamic sizes).
        dict(sa, batch=[2, 3], Lq=1, Lk=1, mask="causal"),
        dict(sa, batch=[2], Lq=1000, Lk=1000, dk=128, dv=128, mask="causal", dyn_L=True,
             dyn_batch=True),
        dict(sa, Lq=300, Lk=517, dv=32, mask="none", scale=0.2),
        dict(sa, Lq=517, Lk=300, dk=96, mask="causal"),
        # Heads of 48 and 80: the flash kernel's tiles staged by 16-byte loads.
        dict(sa, Lq=200, Lk=200, dk=48, dv=80, mask="causal"),
    ]
    for precision in ("f32", "f16", "bf16"):
        named += [(f"{precision}-{cases.case_id(c)}", c, precision) for c in wide]
    return named


def _options(precision):
    # f32 named, not left to the default (precision=auto takes a 16-bit
    # program's own type): these cases run on the CUDA cores.
    return {"precision": precision}


def build(index):
    """The case's program, inputs, expectations and compiled library."""
    name, spec, precision = gpu_cases()[index]
    program, inputs, expected = programs.build(spec, seed=1000 + index)
    library = linea.compile_library(program, target="cuda", chip=CHIP, **_options(precision))
    return program, inputs, expected, library


def _torch_with_gpu():
    try:
        import torch
    except ImportError:
        raise Skip("no torch") from None
    if not torch.cuda.is_available():
        raise Skip("no CUDA device; the library is compiled")
    return torch


def run_case(index):
    """Compiles case `index`, runs it on the GPU and asserts it matches the
    oracle within its precision's tolerance; raises Skip without a GPU."""
    name, spec, precision = gpu_cases()[index]
    _, inputs, expected, library = build(index)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    args = [torch.from_numpy(a.astype(np.float32)).cuda() if isinstance(a, np.ndarray) else a
            for a in inputs]
    got = kernel(*args)
    got = list(got) if isinstance(got, tuple) else [got]
    torch.cuda.synchronize()
    assert len(got) == len(expected)
    for k, (g, want) in enumerate(zip(got, expected)):
        assert g.device.type == "cuda", f"result {k} on {g.device}"
        g = g.double().cpu().numpy()
        assert g.shape == want.shape, f"result {k}: {g.shape} vs {want.shape}"
        assert np.all(np.isfinite(g)), f"result {k} has non-finite values"
        err = reference.rel_l2(g, want)
        assert err <= TOLERANCE[precision], \
            f"result {k}: rel. L2 error {err:.3g} > {TOLERANCE[precision]:.3g} ({precision})"


CHECKED = """func.func @main(%q: tensor<?x64xf32>, %k: tensor<?x64xf32>, %v: tensor<?x64xf32>)
    -> tensor<?x64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = causal
      : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32> -> tensor<?x64xf32>
  return %o : tensor<?x64xf32>
}
"""


def run_errors():
    """Bad calls raise LineaError on the GPU as on the CPU: a failed run-time
    check (no kernel runs), a CPU tensor, a wrong dtype."""
    library = linea.compile_library(CHECKED, target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    q = torch.randn(10, 64, device="cuda")
    k = torch.randn(11, 64, device="cuda")
    for args, message in [((q, k, q), "'key' sequence length 11 does not match 'query' "
                                      "sequence length 10"),
                          ((q.cpu(), q, q), "expected a torch CUDA tensor"),
                          ((q.double(), q, q), "expected dtype float32")]:
        try:
            kernel(*args)
        except linea.LineaError as error:
            assert message in str(error), f"{message!r} not in {error}"
        else:
            raise AssertionError(f"no LineaError for {message!r}")


def run_stream():
    """The kernel runs on torch's current stream: inputs written by torch on
    a side stream just before the call are the ones it reads."""
    library = linea.compile_library(CHECKED, target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    rng = np.random.default_rng(3)
    host = rng.standard_normal((777, 64)).astype(np.float32)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        q = torch.zeros(777, 64, device="cuda")
        q.copy_(torch.from_numpy(host).pin_memory(), non_blocking=True)
        o = kernel(q, q, q)
        o = o * 1.0  # torch work after the kernel, same stream
    side.synchronize()
    want, _ = reference.linear_attention(host.astype(np.float64), host.astype(np.float64),
                                         host.astype(np.float64), mask="causal")
    err = reference.rel_l2(o.double().cpu().numpy(), want)
    assert err <= programs.TOLERANCE, f"rel. L2 error {err:.3g}"


PACKED = """func.func @main(%q: tensor<2x?x64xf32>, %k: tensor<2x?x64xf32>, %v: tensor<2x?x64xf32>,
                %g: tensor<2x?x64xf32>, %s0: tensor<?x2x64x64xf32>, %o: tensor<?xindex>)
    -> (tensor<2x?x64xf32>, tensor<?x2x64x64xf32>) {
  %y, %s = linea.gated_linear_attention %q, %k, %v, %g init(%s0) offsets(%o) mask = causal
      : tensor<2x?x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32>,
        tensor<?x2x64x64xf32>, tensor<?xindex> -> tensor<2x?x64xf32>, tensor<?x2x64x64xf32>
  return %y, %s : tensor<2x?x64xf32>, tensor<?x2x64x64xf32>
}
"""


def run_packed():
    """Packed documents: each segment of each sequence one block of one
    launch, from its initial state to its final state (segments of 1, 0,
    below, at and past a chunk, gates down to -20), against the oracle; then
    offsets that do not end at L stop the call with the run-time check's
    LineaError, read by the host from its staged copy."""
    library = linea.compile_library(PACKED, target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    rng = np.random.default_rng(36)
    offsets = np.cumsum([0, 1, 0, 63, 64, 200, 700])
    length, n = int(offsets[-1]), len(offsets) - 1
    q, k, v = (rng.standard_normal((2, length, 64)) for _ in range(3))
    g = -20.0 * rng.random((2, length, 64)) ** 4
    s0 = rng.standard_normal((n, 2, 64, 64))
    cuda = [torch.from_numpy(a.astype(np.float32)).cuda() for a in (q, k, v, g, s0)]
    o = torch.from_numpy(offsets.astype(np.int64)).cuda()
    got = kernel(*cuda, o)
    torch.cuda.synchronize()
    want = reference.gated_linear_attention(q, k, v, g, mask="causal", initial_state=s0,
                                            offsets=offsets)
    for k_, (result, expected) in enumerate(zip(got, want)):
        err = reference.rel_l2(result.double().cpu().numpy(), expected)
        assert err <= programs.TOLERANCE, f"result {k_}: rel. L2 error {err:.3g}"
    bad = o.clone()
    bad[-1] -= 1
    try:
        kernel(*cuda, bad)
    except linea.LineaError as error:
        assert "'offsets' end at" in str(error), str(error)
    else:
        raise AssertionError("no LineaError for offsets that end before L")


PACKED_PREFIX = """func.func @main(%q: tensor<2x?x64xf32>, %k: tensor<2x?x64xf32>,
                %v: tensor<2x?x64xf32>, %o: tensor<?xindex>, %js: tensor<?xindex>)
    -> (tensor<2x?x64xf32>, tensor<?x2x64x64xf32>) {
  %y, %s = linea.linear_attention %q, %k, %v offsets(%o) mask = prefix(%js)
      feature_map = elu_plus_one normalize
      : tensor<2x?x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32>, tensor<?xindex>,
        tensor<?xindex> -> tensor<2x?x64xf32>, tensor<?x2x64x64xf32>
  return %y, %s : tensor<2x?x64xf32>, tensor<?x2x64x64xf32>
}
"""


def run_packed_prefix():
    """Packed documents with a prefix length each (0, the whole segment, one
    between) and a normalizer: the normalizer's ones column is appended to
    the packed values once, then each (segment, sequence) block runs its
    unnormalized prefix op; rows and final states against the oracle."""
    library = linea.compile_library(PACKED_PREFIX, target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    rng = np.random.default_rng(37)
    lengths = [1, 0, 63, 64, 200, 700]
    offsets = np.cumsum([0] + lengths)
    js = np.array([[0, n, n // 3][i % 3] for i, n in enumerate(lengths)])
    length = int(offsets[-1])
    q, k, v = (rng.standard_normal((2, length, 64)) for _ in range(3))
    cuda = [torch.from_numpy(a.astype(np.float32)).cuda() for a in (q, k, v)]
    index = [torch.from_numpy(a.astype(np.int64)).cuda() for a in (offsets, js)]
    got = kernel(*cuda, *index)
    torch.cuda.synchronize()
    want = reference.linear_attention(q, k, v, mask="prefix", prefix_length=js,
                                      feature_map="elu_plus_one", normalize=True,
                                      offsets=offsets)
    for k_, (result, expected) in enumerate(zip(got, want)):
        err = reference.rel_l2(result.double().cpu().numpy(), expected)
        assert err <= programs.TOLERANCE, f"result {k_}: rel. L2 error {err:.3g}"


PACKED_SOFTMAX = """func.func @main(%q: tensor<2x?x128xbf16>, %k: tensor<2x?x128xbf16>,
                %v: tensor<2x?x128xbf16>, %o: tensor<?xindex>) -> tensor<2x?x128xbf16> {
  %y = linea.attention %q, %k, %v offsets(%o) mask = causal
      : tensor<2x?x128xbf16>, tensor<2x?x128xbf16>, tensor<2x?x128xbf16>, tensor<?xindex>
        -> tensor<2x?x128xbf16>
  return %y : tensor<2x?x128xbf16>
}
"""


def run_packed_softmax():
    """Packed causal softmax attention, bf16 tensors in and out: one flash
    launch whose blocks find their segment's tile by binary search over the
    offsets (segments of 1, 0, 127, 128, 129 and 700 rows, an empty one
    last), against the oracle on the operands as rounded."""
    library = linea.compile_library(PACKED_SOFTMAX, target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    rng = np.random.default_rng(38)
    offsets = np.cumsum([0, 1, 0, 127, 128, 129, 700, 0])
    length = int(offsets[-1])
    bf = [torch.from_numpy(3 * rng.standard_normal((2, length, 128)).astype(np.float32))
          .cuda().bfloat16() for _ in range(3)]
    got = kernel(*bf, torch.from_numpy(offsets.astype(np.int64)).cuda())
    torch.cuda.synchronize()
    want = reference.attention(*(x.double().cpu().numpy() for x in bf), "causal",
                               offsets=offsets)
    err = reference.rel_l2(got.double().cpu().numpy(), want)
    assert got.dtype == torch.bfloat16 and err <= 1e-2, f"rel. L2 error {err:.3g}"


def heads_program(length, heads, d, source="bf16", element="bf16", named=True):
    """@main(x [L, 3 H D] of `source`): q, k, v split into heads by
    transposes ([L, H, D] -> [H, L, D]; linalg.transpose if `named`, else
    generics as torch-mlir writes them), rounded to `element` where that
    differs, causal attention, the heads merged back ([H, L, D] -> [L, H,
    D]) and widened back to `source`."""
    rows, split = f"tensor<{length}x{heads}x{d}x{element}>", f"tensor<{heads}x{length}x{d}x{element}>"
    stored_rows = f"tensor<{length}x{heads}x{d}x{source}>"
    flat = f"tensor<{length}x{heads * d}x{source}>"
    body = ""
    for i, n in enumerate("qkv"):
        body += (f"  %{n}s = tensor.extract_slice %x[0, {i * heads * d}] [{length}, {heads * d}] "
                 f"[1, 1] : tensor<{length}x{3 * heads * d}x{source}> to {flat}\n"
                 f"  %{n}e = tensor.expand_shape %{n}s [[0], [1, 2]] output_shape "
                 f"[{length}, {heads}, {d}] : {flat} into {stored_rows}\n")
        rounded = f"%{n}e"
        if element != source:
            body += f"  %{n}r = arith.truncf %{n}e : {stored_rows} to {rows}\n"
            rounded = f"%{n}r"
        body += (f"  %{n}0 = tensor.empty() : {split}\n"
                 + _swap(f"%{n}", rounded, f"%{n}0", rows, split, element, named))
    body += (f"  %o = linea.attention %q, %k, %v mask = causal : {split}, {split}, {split} "
             f"-> {split}\n  %m0 = tensor.empty() : {rows}\n"
             + _swap("%m", "%o", "%m0", split, rows, element, named))
    result = "%m"
    if element != source:
        body += f"  %w = arith.extf %m : {rows} to {stored_rows}\n"
        result = "%w"
    return (f"func.func @main(%x: tensor<{length}x{3 * heads * d}x{source}>) -> {stored_rows} {{\n"
            f"{body}  return {result} : {stored_rows}\n}}\n")


def _swap(result, source, init, source_type, result_type, element, named):
    """`result` = `source` with its first two dims swapped."""
    if named:
        return (f"  {result} = linalg.transpose ins({source} : {source_type}) "
                f"outs({init} : {result_type}) permutation = [1, 0, 2]\n")
    return (f"  {result} = linalg.generic {{indexing_maps = [affine_map<(a, b, c) -> (b, a, c)>, "
            f"affine_map<(a, b, c) -> (a, b, c)>], iterator_types = [\"parallel\", \"parallel\", "
            f"\"parallel\"]}} ins({source} : {source_type}) outs({init} : {result_type}) {{\n"
            f"  ^bb0(%in: {element}, %out: {element}):\n    linalg.yield %in : {element}\n"
            f"  }} -> {result_type}\n")


def run_flash_heads():
    """Heads split from a projection's rows and merged back, bf16 in and
    out: the flash kernel reads q, k and v through transposed views of the
    rows (3 H D apart) and writes the merged rows, no copy between; against
    the oracle on the heads."""
    length, heads, d = 333, 4, 64
    library = linea.compile_library(heads_program(length, heads, d), target="cuda", chip=CHIP)
    torch = _torch_with_gpu()
    kernel = linea.Kernel(library)
    rng = np.random.default_rng(39)
    x = torch.from_numpy(rng.standard_normal((length, 3 * heads * d)).astype(np.float32))
    x = x.cuda().bfloat16()
    got = kernel(x)
    torch.cuda.synchronize()
    rows = x.double().cpu().numpy().reshape(length, 3, heads, d)
    want = reference.attention(*(rows[:, i].transpose(1, 0, 2) for i in range(3)), "causal")
    err = reference.rel_l2(got.double().cpu().numpy(), want.transpose(1, 0, 2))
    assert got.dtype == torch.bfloat16 and err <= 1e-2, f"rel. L2 error {err:.3g}"


def run_row_reductions():
    """A LayerNorm (its variance in f64, as torch-mlir writes it) over 4099
    rows of 256 and a softmax over rows of 37 and of 6 (fewer lanes a row):
    one launch each, lanes of a warp sharing a row, against float64."""
    layer_norm = linea.compile_library(programs.layer_norm_program(256), target="cuda",
                                       chip=CHIP)
    softmaxes = {c: linea.compile_library(programs.softmax_program(c), target="cuda", chip=CHIP)
                 for c in (37, 6)}
    torch = _torch_with_gpu()
    rng = np.random.default_rng(40)
    x, w, b = 3 + rng.standard_normal((4099, 256)), rng.standard_normal(256), rng.standard_normal(256)
    args = [torch.from_numpy(a.astype(np.float32)).cuda() for a in (x, w, b)]
    got = linea.Kernel(layer_norm)(*args)
    torch.cuda.synchronize()
    want = programs.layer_norm(*(a.double().cpu().numpy() for a in args))
    err = reference.rel_l2(got.double().cpu().numpy(), want)
    assert err <= 1e-5, f"LayerNorm: rel. L2 error {err:.3g}"
    for c, library in softmaxes.items():
        x = torch.from_numpy((4 * rng.standard_normal((1000, c))).astype(np.float32)).cuda()
        y, row_max = linea.Kernel(library)(x)
        torch.cuda.synchronize()
        err = reference.rel_l2(y.double().cpu().numpy(), programs.softmax(x.cpu().numpy()))
        assert err <= 1e-6, f"softmax over {c}: rel. L2 error {err:.3g}"
        assert torch.equal(row_max, x.max(-1).values), f"softmax over {c}: row maxima"


def main(argv=None):
    """Runs every case (with `--only WORD...`, those whose names hold one
    of the words: a short run for compute-sanitizer); prints one line per
    case and `N passed, N failed`."""
    argv = sys.argv[1:] if argv is None else argv
    only = argv[1:] if argv[:1] == ["--only"] else []
    checks = [(f"case {name}", lambda i=i: run_case(i))
              for i, (name, _, _) in enumerate(gpu_cases())]
    checks += [("errors", run_errors), ("stream", run_stream), ("packed", run_packed),
               ("packed prefix", run_packed_prefix), ("packed softmax", run_packed_softmax),
               ("flash heads", run_flash_heads), ("row reductions", run_row_reductions)]
    if only:
        checks = [(name, check) for name, check in checks if any(w in name for w in only)]
    passed = failed = skipped = 0
    for name, check in checks:
        start = time.perf_counter()
        try:
            check()
            passed += 1
            status = "PASS"
        except Skip as why:
            skipped += 1
            status = f"SKIP ({why})"
        except Exception as error:  # noqa: BLE001 - report every failure
            failed += 1
            status = f"FAIL {type(error).__name__}: {str(error).splitlines()[0][:300]}"
        print(f"{status} {name} ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
