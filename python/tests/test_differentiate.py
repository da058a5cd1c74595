"""linea-differentiate: the `@f_vjp` gradient functions against two
independent oracles, the float64 reference under central finite differences
and a torch float64 oracle under autograd, optimized and unoptimized.

Every case builds a forward program (the differential suites' builders),
differentiates it with linea-opt, runs `main_vjp` through linea-run on the
forward inputs and random cotangents, and checks the gradient of every
floating-point argument."""

import pathlib

import numpy as np
import pytest

import linea
from linea import reference as ref

import cases
import programs

torch = pytest.importorskip("torch")

TOLERANCE = 1e-4  # SPEC: relative error for f32 against float64


def differentiate(program):
    return linea.differentiate(program)


# ---------------------------------------------------------------------------
# The cases: the differential suites' presum and linear-attention cases
# ---------------------------------------------------------------------------
def grad_cases():
    la = dict(op="linear_attention", batch=[2], dk=4, dv=3)
    chosen = [s for s in cases.edge_cases() + cases.random_cases(cases.SEED + 14)[:110]
              + cases.random_cases(cases.SEED + 14)[110:160]
              + cases.random_cases(cases.SEED + 14)[160:175]
              + cases.random_cases(cases.SEED + 14)[185:205]
              if s["op"] in ("linear_attention", "attention", "fold", "folded_attention",
                             "gated_linear_attention", "presum")]
    # With one key dim, normalize makes o independent of q but for the 1e-6
    # in the denominator: dq is ~1e-5 of the other gradients, all f32
    # cancellation, so no relative test of it means anything.
    chosen = [s for s in chosen if not (s.get("normalize") and s["dk"] == 1)]
    # decayed presums at a dynamic length of 1 and long, every direction
    chosen += [dict(op="presum", shape=[2, 1, 3], dim=1, decay_rank=2, dynamic=[1],
                    exclusive=True),
               dict(op="presum", shape=[2, 1, 3], dim=1, decay_rank=3, dynamic=[1],
                    reverse=True),
               dict(op="presum", shape=[3, 300, 4], dim=1, decay_rank=3, exclusive=True,
                    reverse=True, dynamic=[1]),
               dict(op="presum", shape=[2, 300, 4], decay_rank=2)]
    # scalar-gated causal with gates down to -20, states, dynamic sizes
    ga = dict(op="gated_linear_attention", batch=[2], dk=4, dv=3, scalar_gate=True,
              mask="causal")
    chosen += [dict(ga, L=1, init=True, final=True),
               dict(ga, L=13, init=True, final=True, scale=0.5),
               dict(ga, batch=[2, 3], L=31, final=True, dyn_L=True, dyn_batch=True),
               dict(ga, L=100, init=True),
               dict(ga, L=17, mask="prefix", prefix=0, init=True, final=True)]
    # per-key-dim gates: two leading dims with a dynamic prefix, long L
    gd = dict(op="gated_linear_attention", batch=[2, 3], dk=4, dv=3)
    chosen += [dict(gd, L=37, mask="prefix", prefix=11, dyn_prefix=True, init=True,
                    final=True, dyn_batch=True, scale=0.5),
               dict(gd, batch=[2], L=13, mask="prefix", prefix=5, final=True),
               dict(gd, batch=[2], L=400, mask="causal", init=True, final=True, dyn_L=True)]
    # every mask with a final state's cotangent, and the transposed prefix
    # at a dynamic j of 0 and L
    chosen += [dict(la, L=13, mask="causal", init=True, final=True, scale=0.5),
               dict(la, L=17, mask="prefix", prefix=5, init=True, final=True,
                    feature_map="elu_plus_one"),
               dict(la, L=17, mask="prefix", prefix=0, dyn_prefix=True, final=True),
               dict(la, L=17, mask="prefix", prefix=17, dyn_prefix=True, final=True,
                    dyn_L=True),
               dict(la, L=64, mask="prefix", prefix=23, dyn_prefix=True,
                    feature_map="elu_plus_one", normalize=True, final=True),
               dict(la, batch=[2, 3], L=29, mask="causal", feature_map="relu",
                    normalize=False, init=True, final=True, dyn_batch=True)]
    return chosen


CASES = grad_cases()


def arguments(spec):
    """(name, differentiable) for each argument of the forward program."""
    if spec["op"] == "presum":
        return [("x", True)] + ([("a", True)] if spec.get("decay_rank") else [])
    if spec["op"] == "attention":
        return [("q", True), ("k", True), ("v", True)]
    if spec["op"] == "fold":
        return [("x", True), ("m0", True)]
    if spec["op"] == "folded_attention":
        return [(name, True) for name in ("x", "m0", "wq", "wk", "wv", "wo")]
    names = [("q", True), ("k", True), ("v", True)]
    if spec["op"] == "gated_linear_attention":
        names.append(("g", True))
    if spec.get("init"):
        names.append(("s0", True))
    if spec["mask"] == "prefix" and spec.get("dyn_prefix"):
        names.append(("j", False))
    return names


def numpy_forward(spec):
    """The float64 reference as a function of the forward inputs."""
    if spec["op"] == "presum":
        return lambda x, a=None: [ref.presum(x, dim=spec.get("dim"),
                                             exclusive=spec.get("exclusive", False),
                                             reverse=spec.get("reverse", False), decay=a)]
    if spec["op"] == "attention":
        return lambda q, k, v: [ref.attention(q, k, v, mask=spec["mask"],
                                              scale=spec.get("scale"))]
    if spec["op"] == "fold":
        return lambda x, m: list(ref.fold(x, m, spec["l"], programs.fold_body(spec)))
    if spec["op"] == "folded_attention":
        return lambda x, m, *ws: list(ref.folded_attention(
            x, m, *ws, segment_length=spec["l"], num_heads=spec["heads"]))
    if spec["op"] == "gated_linear_attention":
        def gated(q, k, v, g, *rest):
            s0 = rest[0] if spec.get("init") else None
            o, fs = ref.gated_linear_attention(
                q, k, v, g, mask=spec["mask"], prefix_length=spec.get("prefix"),
                scale=spec.get("scale", 1.0), initial_state=s0)
            return [o] + ([fs] if spec.get("final") else [])
        return gated

    def forward(q, k, v, *rest):
        rest = list(rest)
        s0 = rest.pop(0) if spec.get("init") else None
        o, fs = ref.linear_attention(
            q, k, v, mask=spec["mask"], prefix_length=spec.get("prefix"),
            feature_map=spec.get("feature_map", "identity"),
            scale=spec.get("scale", 1.0), normalize=spec.get("normalize", False),
            initial_state=s0)
        return [o] + ([fs] if spec.get("final") else [])
    return forward


def torch_forward(spec):
    """An independent float64 oracle in torch: the quadratic (masked scores)
    form of linear attention, cumsum/flip for presum."""
    if spec["op"] == "presum":
        def presum(x, a=None):
            dim = spec.get("dim")
            dim = (x.dim() - 2 if x.dim() >= 2 else 0) if dim is None else dim
            if a is not None:
                return [decayed_presum(x, a, dim, spec.get("exclusive", False),
                                       spec.get("reverse", False))]
            if spec.get("reverse"):
                x = x.flip(dim)
            y = x.cumsum(dim)
            if spec.get("exclusive"):
                y = y - x
            return [y.flip(dim) if spec.get("reverse") else y]
        return presum
    if spec["op"] == "attention":
        return torch_attention(spec)
    if spec["op"] in ("fold", "folded_attention"):
        return torch_fold(spec)
    if spec["op"] == "gated_linear_attention":
        return torch_gated(spec)

    phi = {"identity": lambda x: x,
           "elu_plus_one": lambda x: torch.nn.functional.elu(x) + 1.0,
           "relu": torch.relu}[spec.get("feature_map", "identity")]

    def forward(q, k, v, *rest):
        rest = list(rest)
        s0 = rest.pop(0) if spec.get("init") else None
        L = q.shape[-2]
        i = torch.arange(L)[:, None]
        t = torch.arange(L)[None, :]
        if spec["mask"] == "none":
            visible = torch.ones(L, L, dtype=torch.bool)
        elif spec["mask"] == "causal":
            visible = t <= i
        else:
            visible = (t < spec["prefix"]) | (t <= i)
        Q, K = phi(q), phi(k)
        scores = (Q @ K.transpose(-1, -2)) * visible
        num = scores @ v
        if s0 is not None:
            num = num + Q @ s0
        if spec.get("normalize"):
            out = num / (scores.sum(-1, keepdim=True) + 1e-6)
        else:
            out = num
        out = spec.get("scale", 1.0) * out
        final = K.transpose(-1, -2) @ v
        if s0 is not None:
            final = final + s0
        return [out] + ([final] if spec.get("final") else [])
    return forward


def decayed_presum(x, a, dim, exclusive, reverse):
    """The recurrence itself, step by step: inclusive y_i = exp(a_i) y_prev +
    x_i; exclusive y_i = the inclusive y_prev (0 first)."""
    xs, decays = x.movedim(dim, 0), a.movedim(dim, 0)
    while decays.dim() < xs.dim():  # broadcast over the dims after a's
        decays = decays.unsqueeze(-1)
    length = xs.shape[0]
    order = range(length - 1, -1, -1) if reverse else range(length)
    running = torch.zeros_like(xs[0])
    rows = [None] * length
    for i in order:
        before = running
        running = torch.exp(decays[i]) * running + xs[i]
        rows[i] = before if exclusive else running
    return torch.stack(rows).movedim(0, dim)


def torch_gated(spec):
    """The recurrence step by step, one decay per token or per key dim; rows
    before a prefix length j read the state after row j - 1 (none: j = L)."""
    def forward(q, k, v, g, *rest):
        s0 = rest[0] if spec.get("init") else None
        state = s0 if s0 is not None else torch.zeros(
            q.shape[:-2] + (q.shape[-1], v.shape[-1]), dtype=torch.float64)
        L = q.shape[-2]
        j = {"causal": 0, "none": L}.get(spec["mask"], min(max(spec.get("prefix", 0), 0), L))
        states = []
        for t in range(L):
            if spec.get("scalar_gate"):
                decay = torch.exp(g[..., t])[..., None, None]
            else:
                decay = torch.exp(g[..., t, :])[..., :, None]
            state = decay * state + k[..., t, :, None] * v[..., t, None, :]
            states.append(state)
        rows = [(q[..., t, None, :] @ states[max(t, j - 1)])[..., 0, :] for t in range(L)]
        out = spec.get("scale", 1.0) * torch.stack(rows, -2)
        return [out] + ([state] if spec.get("final") else [])
    return forward


def torch_attention(spec):
    """Softmax attention, the causal queries the last Lq positions; a query
    that sees no key gives a zero row."""
    def forward(q, k, v):
        lq, lk = q.shape[-2], k.shape[-2]
        scale = spec.get("scale") or 1.0 / np.sqrt(q.shape[-1])
        scores = scale * (q @ k.transpose(-1, -2))
        if spec["mask"] == "causal":
            visible = torch.arange(lk)[None, :] <= torch.arange(lq)[:, None] + (lk - lq)
        else:
            visible = torch.ones(lq, lk, dtype=torch.bool)
        top = scores.masked_fill(~visible, -1e30).amax(-1, keepdim=True).detach()
        top = torch.where(top < -1e29, torch.zeros_like(top), top)  # rows seeing no key
        e = torch.exp((scores - top).masked_fill(~visible, 0.0)) * visible
        z = e.sum(-1, keepdim=True)
        return [(e / torch.where(z > 0, z, torch.ones_like(z))) @ v]
    return forward


def torch_fold(spec):
    """The segments one after another, autograd through all of them; the
    body is fold_case's attention layers or folded attention's heads."""
    def attend(q, k, v, mask, scale=None):
        return torch_attention(dict(mask=mask, scale=scale))(q, k, v)[0]

    def folded_body(wq, wk, wv, wo):
        dh = wq.shape[0] // spec["heads"]

        def body(w):
            q, k, v = w @ wq, w @ wk, w @ wv
            heads = [attend(q[..., h * dh:(h + 1) * dh], k[..., h * dh:(h + 1) * dh],
                            v[..., h * dh:(h + 1) * dh], "causal")
                     for h in range(spec["heads"])]
            return torch.cat(heads, -1) @ wo
        return body

    def forward(x, m, *weights):
        body = (folded_body(*weights) if weights
                else programs.fold_body(spec, attention=attend))
        l, rows = spec["l"], []
        for s in range(x.shape[-2] // l):
            m = body(torch.cat([m, x[..., s * l:(s + 1) * l, :]], -2))[..., l:, :]
            rows.append(m)
        return [torch.cat(rows, -2), m]
    return forward


def torch_gradients(spec, inputs, cotangents):
    wanted = [flag for _, flag in arguments(spec)]
    tensors = [torch.tensor(x, dtype=torch.float64, requires_grad=True) if flag else x
               for x, flag in zip(inputs, wanted)]
    outputs = torch_forward(spec)(*tensors)
    loss = sum((o * torch.tensor(c, dtype=torch.float64)).sum()
               for o, c in zip(outputs, cotangents))
    leaves = [t for t, flag in zip(tensors, wanted) if flag]
    if not loss.requires_grad:  # a result that ignores its inputs (exclusive, L = 1)
        return [np.zeros(t.shape) for t in leaves]
    grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    return [np.zeros(t.shape) if g is None else g.numpy()
            for t, g in zip([t for t, f in zip(tensors, wanted) if f], grads)]


def directional_derivatives(spec, inputs, cotangents, directions, h=1e-5):
    """Central differences of <cotangents, f(x)> along each input's direction."""
    forward = numpy_forward(spec)
    diffs = [k for k, (_, flag) in enumerate(arguments(spec)) if flag]

    def loss(x):
        return sum(float(np.sum(o * c)) for o, c in zip(forward(*x), cotangents))

    result = []
    for k, e in zip(diffs, directions):
        plus, minus = list(inputs), list(inputs)
        plus[k] = inputs[k] + h * e
        minus[k] = inputs[k] - h * e
        result.append((loss(plus) - loss(minus)) / (2 * h))
    return result


def run_gradients(spec, seed, no_optimize=False):
    program, inputs, expected = programs.build(spec, seed=seed)
    rng = np.random.default_rng(seed + 1)
    cotangents = [rng.standard_normal(e.shape) for e in expected]
    got = linea.run(differentiate(program), inputs + cotangents, entry="main_vjp",
                    no_optimize=no_optimize)
    return got, inputs, cotangents


def assert_close_to_torch(got, want):
    """Each gradient within TOLERANCE (relative L2) of torch's; returns the
    bound below which a gradient counts as zero."""
    # a gradient that is zero in exact arithmetic (softmax over one key; dg
    # of one token with no initial state, q.dq - k.dk + <dF, F>) comes out
    # as f32 rounding of the other gradients' size; one below f32's range
    # (dS0 decayed by gates down to -20 over many rows, ~1e-50) as 0
    zero_bound = 1e-5 * max([1.0] + [float(np.linalg.norm(w)) for w in want])
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"gradient {k}: {g.shape} vs {w.shape}"
        assert np.all(np.isfinite(g)), f"gradient {k} has non-finite values"
        scale = np.linalg.norm(w)
        if scale > zero_bound:
            err = ref.rel_l2(g, w)
            assert err <= TOLERANCE, f"gradient {k}: rel. L2 error {err:.3g} vs torch"
        else:
            assert np.abs(g).max() <= zero_bound, f"gradient {k} should be zero"
    return zero_bound


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[cases.case_id(c) for c in CASES])
def test_gradients_against_oracles(index):
    spec = CASES[index]
    seed = cases.SEED * 31 + index
    got, inputs, cotangents = run_gradients(spec, seed)
    diffs = [x for x, (_, flag) in zip(inputs, arguments(spec)) if flag]
    assert len(got) == len(diffs)

    # torch float64 autograd: the whole gradient
    want = torch_gradients(spec, inputs, cotangents)
    zero_bound = assert_close_to_torch(got, want)

    # finite differences of the float64 reference along random directions
    rng = np.random.default_rng(seed + 2)
    directions = [rng.standard_normal(x.shape) for x in diffs]
    if spec.get("feature_map") == "relu":
        # relu has a kink at 0: move q and k only where x is off it
        for k in (0, 1):
            directions[k] = np.where(np.abs(diffs[k]) > 1e-3, directions[k], 0.0)
    fd = directional_derivatives(spec, inputs, cotangents, directions)
    for k, (g, w, e, d) in enumerate(zip(got, want, directions, fd)):
        ad = float(np.sum(g.astype(np.float64) * e))
        # relative to |g| |e|; a gradient that is zero is held to the zero
        # test's bound instead
        bound = TOLERANCE * np.linalg.norm(e) * max(np.linalg.norm(g), np.linalg.norm(w),
                                                    zero_bound / TOLERANCE)
        assert abs(ad - d) <= bound, f"gradient {k}: <g, e> = {ad:.8g}, FD {d:.8g}"


# The optimized backward pass equals the unoptimized one (a third of the cases).
UNOPTIMIZED = list(range(0, len(CASES), 3))


@pytest.mark.parametrize("index", UNOPTIMIZED, ids=[cases.case_id(CASES[i]) for i in UNOPTIMIZED])
def test_optimized_matches_unoptimized(index):
    spec = CASES[index]
    seed = cases.SEED * 31 + index
    optimized, _, _ = run_gradients(spec, seed)
    plain, _, _ = run_gradients(spec, seed, no_optimize=True)
    for g, p in zip(optimized, plain):
        assert ref.rel_l2(g, p) <= TOLERANCE or np.allclose(g, p, atol=1e-6)


def test_cases_cover_the_edges():
    assert any(s.get("L") == 1 for s in CASES if s["op"] == "linear_attention")
    assert any(s.get("dyn_L") for s in CASES)
    assert any(s.get("dyn_prefix") and s.get("prefix") == 0 for s in CASES)
    assert any(s.get("dyn_prefix") and s.get("prefix") == s.get("L") for s in CASES)
    assert any(s.get("normalize") for s in CASES)
    assert any(s.get("init") and s.get("final") for s in CASES)
    assert {s.get("feature_map", "identity") for s in CASES
            if s["op"] == "linear_attention"} == {"identity", "elu_plus_one", "relu"}
    assert any(s["op"] == "presum" and s.get("reverse") and s.get("exclusive") for s in CASES)
    decayed = [s for s in CASES if s["op"] == "presum" and s.get("decay_rank")]
    assert any(s.get("exclusive") for s in decayed) and any(s.get("reverse") for s in decayed)
    assert any(s.get("dynamic") for s in decayed) and any(s["shape"][s.get("dim", 0)] == 1
                                                         for s in decayed)
    gated = [s for s in CASES if s["op"] == "gated_linear_attention"]
    assert any(s.get("init") and s.get("final") for s in gated)
    assert any(s.get("dyn_L") for s in gated) and any(s.get("L") == 1 for s in gated)
    for scalar in (True, False):
        masks = {(s["mask"], s.get("prefix"), bool(s.get("dyn_prefix"))) for s in gated
                 if bool(s.get("scalar_gate")) == scalar}
        assert {"causal", "none", "prefix"} <= {m for m, _, _ in masks}
    per_dim = [s for s in gated if not s.get("scalar_gate")]
    assert any(s.get("dyn_prefix") and s["prefix"] == 0 for s in per_dim)
    assert any(s.get("dyn_prefix") and s["prefix"] == s["L"] for s in per_dim)
    assert any(s["mask"] == "prefix" and 0 < s["prefix"] < s["L"] for s in per_dim)
    assert any(len(s["batch"]) == 2 for s in per_dim) and any(s["L"] >= 257 for s in per_dim)
    attention = [s for s in CASES if s["op"] == "attention"]
    assert any(s["Lq"] > s["Lk"] and s["mask"] == "causal" for s in attention)
    assert any(s["Lq"] < s["Lk"] and s["mask"] == "causal" for s in attention)
    assert any(s.get("dyn_L") for s in attention)
    folds = [s for s in CASES if s["op"] == "fold"]
    assert any(s["L"] == s["l"] for s in folds) and any(s["l"] == 1 for s in folds)
    assert any(s.get("dyn_L") and s.get("dyn_batch") for s in folds)
    assert any(s.get("layers") == 2 for s in folds)
    folded = [s for s in CASES if s["op"] == "folded_attention"]
    assert any(s.get("dyn_L") for s in folded) and any(s["heads"] > 1 for s in folded)


# ---------------------------------------------------------------------------
# The shipped examples
# ---------------------------------------------------------------------------
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_SPECS = {
    "causal": dict(op="linear_attention", batch=[4], L=1000, dk=32, dv=32, mask="causal",
                   scale=0.125, init=True, final=True),
    "prefixlm": dict(op="linear_attention", batch=[2, 4], L=384, dk=32, dv=32,
                     mask="prefix", prefix=96, feature_map="elu_plus_one", normalize=True),
    "folded": dict(op="folded_attention", batch=[2], L=256, l=16, d=32, heads=4),
    "gated": dict(op="gated_linear_attention", batch=[3, 2], L=160, dk=16, dv=24,
                  mask="prefix", prefix=40, dyn_prefix=True, init=True, final=True,
                  scale=0.25),
}
EXAMPLE_ENTRIES = {"causal": "causal_layer_vjp", "prefixlm": "prefixlm_layer_vjp",
                   "folded": "folded_layer_vjp", "gated": "gated_layer_vjp"}


def example_inputs(spec, rng):
    if spec["op"] == "gated_linear_attention":  # per-key-dim gates down to -20
        b, L, dk, dv = spec["batch"], spec["L"], spec["dk"], spec["dv"]
        q, k = rng.standard_normal(b + [L, dk]), rng.standard_normal(b + [L, dk])
        g = -rng.uniform(0.0, 1.0, b + [L, dk]) ** 4 * 20.0
        v, s0 = rng.standard_normal(b + [L, dv]), rng.standard_normal(b + [dk, dv])
        return ([q, k, v, g, s0, spec["prefix"]],
                [rng.standard_normal(b + [L, dv]), rng.standard_normal(b + [dk, dv])])
    if spec["op"] == "folded_attention":
        b, L, l, d = spec["batch"], spec["L"], spec["l"], spec["d"]
        weights = [rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(4)]
        return ([rng.standard_normal(b + [L, d]), rng.standard_normal(b + [l, d])] + weights,
                [rng.standard_normal(b + [L, d]), rng.standard_normal(b + [l, d])])
    b, L, dk, dv = spec["batch"], spec["L"], spec["dk"], spec["dv"]
    shapes = [b + [L, dk], b + [L, dk], b + [L, dv]]
    if spec.get("init"):
        shapes.append(b + [dk, dv])
    outputs = [b + [L, dv]] + ([b + [dk, dv]] if spec.get("final") else [])
    return ([rng.standard_normal(s) for s in shapes],
            [rng.standard_normal(s) for s in outputs])


@pytest.mark.parametrize("name,api", [("causal", "linea-run"), ("prefixlm", "compile"),
                                      ("folded", "linea-run"), ("gated", "linea-run")])
def test_examples(name, api):
    """linea-run --entry F_vjp and linea.compile(entry=F_vjp) run the
    gradient functions of the shipped examples; torch float64 agrees."""
    spec = EXAMPLE_SPECS[name]
    source = differentiate(EXAMPLES / f"{name}.mlir")
    entry = EXAMPLE_ENTRIES[name]
    assert f"func.func @{entry}(" in source
    inputs, cotangents = example_inputs(spec, np.random.default_rng(7))
    if api == "linea-run":
        got = linea.run(source, inputs + cotangents, entry=entry)
    else:
        kernel = linea.compile(source, entry=entry)
        got = kernel(*[np.asarray(x, dtype=np.float32) for x in inputs + cotangents])
        got = [np.asarray(g) for g in (got if isinstance(got, (list, tuple)) else [got])]
    want = torch_gradients(spec, inputs, cotangents)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert ref.rel_l2(g, w) <= TOLERANCE, f"gradient {k}: {ref.rel_l2(g, w):.3g}"


# ---------------------------------------------------------------------------
# A user's layer: the linalg and tensor rules
# ---------------------------------------------------------------------------
LAYER = """
func.func @main(%x: tensor<2x6x4xf32>, %w: tensor<4x4xf32>, %s: tensor<4xf32>, %h: tensor<2x3x4xf32>) -> (tensor<2x9x4xf32>, tensor<2x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, i, j, c) -> (b, i, c)>, affine_map<(b, i, j, c) -> (c, j)>, affine_map<(b, i, j, c) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x6x4xf32>, tensor<4x4xf32>) outs(%f : tensor<2x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x6x4xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %s : tensor<2x6x4xf32>, tensor<4xf32>) outs(%e : tensor<2x6x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %th = math.tanh %a : f32
    %sc = arith.mulf %th, %c : f32
    %ex = math.exp %sc : f32
    %d = arith.divf %ex, %c : f32
    %mx = arith.maximumf %d, %a : f32
    linalg.yield %mx : f32
  } -> tensor<2x6x4xf32>
  %y = linea.presum %t : tensor<2x6x4xf32>
  %sl = tensor.extract_slice %y[0, 1, 0] [2, 3, 4] [1, 1, 1] : tensor<2x6x4xf32> to tensor<2x3x4xf32>
  %cat = tensor.concat dim(1) %y, %sl : (tensor<2x6x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
  %ins = tensor.insert_slice %h into %t[0, 2, 0] [2, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> into tensor<2x6x4xf32>
  %flat = tensor.collapse_shape %ins [[0], [1, 2]] : tensor<2x6x4xf32> into tensor<2x24xf32>
  return %cat, %flat : tensor<2x9x4xf32>, tensor<2x24xf32>
}
"""


def torch_layer(x, w, s, h):
    p = x @ w
    t = torch.maximum(torch.exp(torch.tanh(p) * s) / s, p)
    y = t.cumsum(1)
    cat = torch.cat([y, y[:, 1:4]], 1)
    inserted = t.clone()
    inserted[:, 2:5] = h
    return cat, inserted.reshape(2, 24)


@pytest.mark.parametrize("no_optimize", [False, True])
def test_user_layer(no_optimize):
    """A projection (a generic contraction), a per-column broadcast scale
    through tanh, exp, a division and a max, a presum, then a slice,
    concat, insert_slice and collapse_shape: every gradient against torch."""
    rng = np.random.default_rng(3)
    x, w, h = rng.standard_normal((2, 6, 4)), rng.standard_normal((4, 4)), rng.standard_normal((2, 3, 4))
    s = np.array([0.7, 1.3, -0.4, 2.0])
    dcat, dflat = rng.standard_normal((2, 9, 4)), rng.standard_normal((2, 24))
    got = linea.run(differentiate(LAYER), [x, w, s, h, dcat, dflat], entry="main_vjp",
                    no_optimize=no_optimize)
    leaves = [torch.tensor(a, requires_grad=True) for a in (x, w, s, h)]
    cat, flat = torch_layer(*leaves)
    loss = (cat * torch.tensor(dcat)).sum() + (flat * torch.tensor(dflat)).sum()
    want = torch.autograd.grad(loss, leaves)
    assert len(got) == 4
    for k, (g, wv) in enumerate(zip(got, want)):
        assert ref.rel_l2(g, wv.numpy()) <= TOLERANCE, f"gradient {k}"


SHIFTED = """
func.func @main(%x: tensor<9xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %head = tensor.extract_slice %x[0] [8] [1] : tensor<9xf32> to tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %head : tensor<9xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%next: f32, %this: f32, %o: f32):
    %p = arith.mulf %next, %this : f32
    linalg.yield %p : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
"""


def test_shifted_read():
    """y_i = x_(i+1) x_i: one operand read through a map that is not a
    projected permutation; its cotangent is written through the same map."""
    rng = np.random.default_rng(5)
    x, dy = rng.standard_normal(9), rng.standard_normal(8)
    [got] = linea.run(differentiate(SHIFTED), [x, dy], entry="main_vjp")
    leaf = torch.tensor(x, requires_grad=True)
    (leaf[1:] * leaf[:-1] * torch.tensor(dy)).sum().backward()
    assert ref.rel_l2(got, leaf.grad.numpy()) <= TOLERANCE


# An embedding's lookup (the table read at token ids inside the body) and a
# residual that reads the inputs too: y[b, t, j] = x[b, t, j] * table[id, j]^2.
LOOKUP = """
func.func @main(%x: tensor<?x?x3xf32>, %ids: tensor<?x?xi64>, %table: tensor<5x3xf32>)
    -> tensor<?x?x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %ids, %c0 : tensor<?x?xi64>
  %n = tensor.dim %ids, %c1 : tensor<?x?xi64>
  %e = tensor.empty(%b, %n) : tensor<?x?x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, t, j) -> (b, t, j)>,
                                        affine_map<(b, t, j) -> (b, t)>,
                                        affine_map<(b, t, j) -> (b, t, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %ids : tensor<?x?x3xf32>, tensor<?x?xi64>) outs(%e : tensor<?x?x3xf32>) {
  ^bb0(%a: f32, %id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 2 : index
    %w = tensor.extract %table[%row, %col] : tensor<5x3xf32>
    %w2 = arith.mulf %w, %w : f32
    %p = arith.mulf %a, %w2 : f32
    linalg.yield %p : f32
  } -> tensor<?x?x3xf32>
  return %y : tensor<?x?x3xf32>
}
"""


@pytest.mark.parametrize("batch,length", [(1, 1), (2, 7), (3, 64)])
def test_lookup_scatters_its_cotangent(batch, length):
    """The table's cotangent sums every point that read each row (ids
    repeat: every row is read several times at L = 64, the first id twice
    at any length), against torch float64 autograd; the inputs' as usual."""
    rng = np.random.default_rng(batch * 100 + length)
    ids = rng.integers(0, 5, (batch, length)).astype(np.int64)
    ids[-1, -1] = ids[0, 0]
    x = rng.standard_normal((batch, length, 3)).astype(np.float32)
    table = rng.standard_normal((5, 3)).astype(np.float32)
    dy = rng.standard_normal((batch, length, 3)).astype(np.float32)
    dx, dtable = linea.run(differentiate(LOOKUP), [x, ids, table, dy], entry="main_vjp")
    xs = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ts = torch.tensor(table, dtype=torch.float64, requires_grad=True)
    (xs * ts[torch.tensor(ids)] ** 2 * torch.tensor(dy, dtype=torch.float64)).sum().backward()
    assert ref.rel_l2(dx, xs.grad.numpy()) <= TOLERANCE
    assert ref.rel_l2(dtable, ts.grad.numpy()) <= TOLERANCE


def test_lookup_gradient_gpu_form():
    """The same gradient compiled for the GPU: the scatter-add is one band
    of atomic adds (linea-map-to-gpu), run on the CPU with its blocks and
    threads emulated (linea-gpu-mapped-to-cpu), ids repeating."""
    rng = np.random.default_rng(11)
    ids = rng.integers(0, 5, (2, 300)).astype(np.int64)
    x = rng.standard_normal((2, 300, 3)).astype(np.float32)
    table = rng.standard_normal((5, 3)).astype(np.float32)
    dy = rng.standard_normal((2, 300, 3)).astype(np.float32)
    dx, dtable = linea.run(differentiate(LOOKUP), [x, ids, table, dy], entry="main_vjp",
                           pipeline="linea-gpu-mapped-to-cpu")
    xs = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ts = torch.tensor(table, dtype=torch.float64, requires_grad=True)
    (xs * ts[torch.tensor(ids)] ** 2 * torch.tensor(dy, dtype=torch.float64)).sum().backward()
    assert ref.rel_l2(dx, xs.grad.numpy()) <= TOLERANCE
    assert ref.rel_l2(dtable, ts.grad.numpy()) <= TOLERANCE


def bf16_linear_attention_program(L, d, gated=False):
    """@main(q, k, v[, g]: f32) = causal linear attention (gated: with a gate
    per key dim) on their bf16 roundings, the result widened back (linea-run
    binds f32; the casts as torch-mlir writes them, elementwise generics):
    its gradient runs the op's backward in bf16."""
    shape = f"1x2x{L}x{d}"

    def cast(name, source, src, dst, op):
        return (f"  %{name}e = tensor.empty() : tensor<{shape}x{dst}>\n"
                f"  %{name} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = "
                f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}}"
                f" ins(%{source} : tensor<{shape}x{src}>) outs(%{name}e : tensor<{shape}x{dst}>) {{\n"
                f"  ^bb0(%x: {src}, %y: {dst}):\n"
                f"    %c = arith.{op} %x : {src} to {dst}\n"
                f"    linalg.yield %c : {dst}\n  }} -> tensor<{shape}x{dst}>\n")
    t, w = f"tensor<{shape}xbf16>", f"tensor<{shape}xf32>"
    names = "qkvg" if gated else "qkv"
    narrow = "".join(cast(n, n + "32", "f32", "bf16", "truncf") for n in names)
    args = ", ".join(f"%{n}32: {w}" for n in names)
    op = (f"  %o = linea.gated_linear_attention %q, %k, %v, %g mask = causal : "
          f"{t}, {t}, {t}, {t} -> {t}\n" if gated else
          f"  %o = linea.linear_attention %q, %k, %v mask = causal : {t}, {t}, {t} -> {t}\n")
    return ("#id = affine_map<(a, b, c, d) -> (a, b, c, d)>\n"
            f"func.func @main({args}) -> {w} {{\n{narrow}{op}"
            + cast("o32", "o", "bf16", "f32", "extf") +
            f"  return %o32 : {w}\n}}\n")


@pytest.mark.parametrize("L", [17, 100])
def test_bf16_linear_attention_gradient_gpu_form(L):
    """The gradient of a bf16 causal linear attention compiled for the GPU
    (its reversed sequences written as bf16, each op's zero first state of
    its own), run with its blocks and threads emulated, against torch
    float64 autograd on the same bf16 values: within bf16 rounding."""
    rng = np.random.default_rng(L)
    q, k, v, dy = (programs.bf16(rng.standard_normal((1, 2, L, 32)) / 2) for _ in range(4))
    got = linea.run(differentiate(bf16_linear_attention_program(L, 32)), [q, k, v, dy],
                    entry="main_vjp", pipeline="linea-gpu-mapped-to-cpu{chip=sm_90a}")
    leaves = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (q, k, v)]
    scores = torch.tril(leaves[0] @ leaves[1].transpose(-1, -2))
    ((scores @ leaves[2]) * torch.tensor(dy, dtype=torch.float64)).sum().backward()
    for mine, leaf in zip(got, leaves):
        assert ref.rel_l2(mine, leaf.grad.numpy()) <= 8e-3


GPU_EMULATION = "linea-gpu-mapped-to-cpu{chip=sm_90a}"


def test_bf16_gla_gradient_gpu_form():
    """The gradient of a bf16 gated linear attention (a gate per key dim,
    down to -20) made and compiled for the GPU, its blocks and threads
    emulated, against torch float64 autograd on the same bf16 values: within
    bf16 rounding (its states and chunk sums are f32)."""
    L, d = 70, 16
    rng = np.random.default_rng(L)
    q, k, v, dy = (programs.bf16(rng.standard_normal((1, 2, L, d)) / 2) for _ in range(4))
    g = programs.bf16(programs.gate_values(rng, (1, 2, L, d)))
    got = linea.run(linea.differentiate(bf16_linear_attention_program(L, d, gated=True),
                                        target="gpu"),
                    [q, k, v, g, dy], entry="main_vjp", pipeline=GPU_EMULATION)
    leaves = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (q, k, v, g)]
    [out] = torch_gated(dict(mask="causal"))(*leaves)
    (out * torch.tensor(dy, dtype=torch.float64)).sum().backward()
    for mine, leaf in zip(got, leaves):
        assert ref.rel_l2(mine, leaf.grad.numpy()) <= 8e-3
PER_KEY = dict(op="gated_linear_attention", batch=[2], dk=8, dv=5)


@pytest.mark.parametrize("spec", [
    dict(PER_KEY, L=1, mask="causal", init=True, final=True),
    dict(PER_KEY, L=131, mask="causal", final=True, dyn_L=True),
    dict(PER_KEY, batch=[2, 3], L=67, mask="prefix", prefix=13, dyn_prefix=True, init=True,
         final=True, dyn_batch=True),
    dict(PER_KEY, L=29, mask="prefix", prefix=0, dyn_prefix=True, final=True),
    dict(PER_KEY, L=29, mask="prefix", prefix=29, dyn_prefix=True, init=True, final=True),
    dict(PER_KEY, L=70, mask="prefix", prefix=5, scalar_gate=True, init=True, final=True),
], ids=["causal-L1", "causal-L131-dynamic", "prefix13-of-67", "prefix0-dynamic",
        "prefixL-dynamic", "scalar-gate-prefix5"])
def test_per_key_gate_gradient_gpu_form(spec):
    """The gradient of a gated linear attention with a gate per key dim
    (down to -20), made for the GPU (its value-side reads in chunks of 64
    rows, each chunk's rows a GPU block of its own: 131 rows are three
    chunks, the last of 3) and compiled for it, run
    with its blocks and threads emulated: torch float64 autograd agrees. A
    dynamic prefix of 0 and of L (no rows after it: zero chunks), and a
    scalar gate under a prefix, which takes the same path."""
    program, inputs, expected = programs.build(spec, seed=5)
    rng = np.random.default_rng(6)
    cotangents = [rng.standard_normal(e.shape) for e in expected]
    got = linea.run(linea.differentiate(program, target="gpu"), inputs + cotangents,
                    entry="main_vjp", pipeline=GPU_EMULATION)
    assert_close_to_torch(got, torch_gradients(spec, inputs, cotangents))


def test_per_key_gate_gradient_gpu_grid_form():
    """The same gradient for a GPU whose blocks hold 48 KiB of shared memory
    (sm_75, planned by linea.differentiate's chip): one chunk's rows at key
    and value widths of 32 do not fit a block, so every chunk's rows run at
    once on grids (no sequence block), and torch float64 autograd agrees. A
    chip for the CPU, or an unknown target, is an error."""
    spec = dict(PER_KEY, dk=32, dv=32, L=131, mask="causal", final=True, dyn_L=True)
    program, inputs, expected = programs.build(spec, seed=5)
    rng = np.random.default_rng(6)
    cotangents = [rng.standard_normal(e.shape) for e in expected]
    gradient = linea.differentiate(program, target="gpu", chip="sm_75")
    assert "scf.forall" not in gradient
    got = linea.run(gradient, inputs + cotangents, entry="main_vjp",
                    pipeline="linea-gpu-mapped-to-cpu{chip=sm_75}")
    assert_close_to_torch(got, torch_gradients(spec, inputs, cotangents))
    with pytest.raises(linea.LineaError, match="names a GPU"):
        linea.differentiate(program, target="cpu", chip="sm_75")
    with pytest.raises(linea.LineaError, match="unknown target 'tpu'"):
        linea.differentiate(program, target="tpu")


def test_per_key_gate_launches_do_not_grow_with_length():
    """On the GPU the per-key-dim gated op and its gradient launch the same
    kernels at L = 200 and at L = 2000, none from a loop over the rows: the
    backward's value-side reads are chunked, and the forward (its recomputed
    copy and dv's op too) does not take the recurrence, a host loop of four
    launches a row, at a short length (the cost model counts them)."""
    def launches(L):
        spec = dict(PER_KEY, L=L, mask="causal", init=True, final=True)
        program, _, _ = programs.build(spec, seed=1)
        return (programs.launch_count(program),
                programs.launch_count(linea.differentiate(program, target="gpu")))
    short, long = launches(200), launches(2000)
    assert None not in short and short == long


def test_per_key_gate_backward_kernels_are_named():
    """The chunked reads' kernels are named after what they compute, through
    linea.differentiate's text (its locations kept): gla_backward_dq and
    gla_backward_dk, beside the gated ops' own stages."""
    program, _, _ = programs.build(dict(PER_KEY, L=100, mask="causal"), seed=1)
    names = programs.kernel_names(linea.differentiate(program, target="gpu"))
    for what in ("dq", "dk"):
        assert any(n.startswith(f"linea_gla_backward_{what}") for n in names), names
    assert any(n.startswith("linea_gla_chunk_outputs") for n in names), names
