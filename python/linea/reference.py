"""Float64 numpy reference ("oracle") for the Linea ops.

Every function here is written from the math in /work/shared/SPEC.md (sections "Conventions"
and "Ops") and nothing else: no compiler code, no rewritten forms. It is meant to be read
line by line against the SPEC. Inputs are numpy arrays (or anything np.asarray accepts); they
are converted to float64, and every function accepts any number of leading batch dims, so a
sequence tensor is [B..., L, D].

The linear-attention ops are written as the state recurrence (a python loop over t that
carries S_t), not as a masked L x L quadratic form, so that they are an independent
formulation from the compiler's reference lowering.

Bad arguments (unknown enum value, prefix_length outside [0, L], L % l != 0, ...) raise
ValueError, mirroring the SPEC's verifier errors.
"""

import numpy as np

MASKS = ("none", "causal", "prefix")
FEATURE_MAPS = ("identity", "elu_plus_one", "relu")
NORMALIZE_EPS = 1e-6


def _f64(x):
    return np.asarray(x, dtype=np.float64)


# ----------------------------------------------------------------------------------------------
# linea.presum
# ----------------------------------------------------------------------------------------------
def segments(offsets, length):
    """The (start, end) rows of each packed segment: N + 1 offsets, the first 0, never
    decreasing, the last `length` (the SPEC's packed sequences)."""
    o = [int(v) for v in np.asarray(offsets).reshape(-1)]
    if not o or o[0] != 0 or o[-1] != length or any(b < a for a, b in zip(o, o[1:])):
        raise ValueError(f"offsets {o} are not N + 1 non-decreasing entries from 0 to {length}")
    return list(zip(o, o[1:]))


def presum(x, dim=None, exclusive=False, reverse=False, decay=None, offsets=None):
    """Prefix sum along `dim` (default: the sequence dim, x.ndim - 2; 0 for a 1-D x).

    inclusive: y_i = sum_{j <= i} x_j      exclusive: y_i = sum_{j < i} x_j (y_0 = 0)
    reverse:   y_i = sum_{j >= i} x_j      (or j > i when exclusive)

    With `offsets`, each segment [o_n, o_{n+1}) along `dim` is summed as if it were alone.

    With a log-space `decay` a (its shape: the leading dims of x, through `dim`), the running
    sum decays at every step: inclusive y_i = exp(a_i) y_{i-1} + x_i (walking from the end when
    reversed); exclusive y_i is the inclusive result one step earlier (0 at the start).
    """
    x = _f64(x)
    if dim is None:
        dim = x.ndim - 2 if x.ndim >= 2 else 0
    if offsets is not None:
        y = np.zeros_like(x)
        for start, end in segments(offsets, x.shape[dim]):
            rows = (slice(None),) * dim + (slice(start, end),)
            if end > start:
                y[rows] = presum(x[rows], dim, exclusive, reverse,
                                 None if decay is None else _f64(decay)[rows])
        return y
    if decay is not None:
        return _decayed_presum(x, dim, exclusive, reverse, _f64(decay))
    x = np.moveaxis(x, dim, 0)  # work along axis 0
    if reverse:
        x = x[::-1]
    y = np.cumsum(x, axis=0)  # y_i = sum_{j <= i} x_j
    if exclusive:  # y_i = sum_{j < i} x_j: shift down by one, y_0 = 0
        y = np.concatenate([np.zeros_like(y[:1]), y[:-1]], axis=0)
    if reverse:
        y = y[::-1]
    return np.ascontiguousarray(np.moveaxis(y, 0, dim))


def _decayed_presum(x, dim, exclusive, reverse, a):
    """The decayed running sum, one step at a time."""
    if a.ndim <= dim or a.ndim > x.ndim or a.shape != x.shape[:a.ndim]:
        raise ValueError(f"decay shape {a.shape} is not a leading part of {x.shape} through dim {dim}")
    a = np.broadcast_to(a.reshape(a.shape + (1,) * (x.ndim - a.ndim)), x.shape)
    x, a = np.moveaxis(x, dim, 0), np.moveaxis(a, dim, 0)
    y = np.zeros_like(x)
    running = np.zeros_like(x[0])
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for i in order:
        before = running
        running = np.exp(a[i]) * running + x[i]
        y[i] = before if exclusive else running
    return np.ascontiguousarray(np.moveaxis(y, 0, dim))


# ----------------------------------------------------------------------------------------------
# linea.linear_attention / linea.gated_linear_attention
# ----------------------------------------------------------------------------------------------
def feature_map_fn(name):
    """phi: identity, elu_plus_one (elu(x) + 1), relu."""
    if name == "identity":
        return lambda x: x
    if name == "elu_plus_one":  # elu(x) = x for x > 0, exp(x) - 1 otherwise
        return lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))) + 1.0
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    raise ValueError(f"unknown feature_map {name!r}; expected one of {FEATURE_MAPS}")


def _state_row_of(L, mask, prefix_length):
    """For each output row i, the token t whose post-update state S_t row i reads.

    none: S_{L-1} (all tokens); causal: S_i; prefix(j): S_{j-1} for i < j, S_i for i >= j.
    """
    i = np.arange(L)
    if mask == "none":
        return np.full(L, L - 1)
    if mask == "causal":
        return i
    if mask == "prefix":
        if prefix_length is None:
            raise ValueError("mask 'prefix' needs prefix_length")
        j = int(prefix_length)
        if not 0 <= j <= L:
            raise ValueError(f"prefix_length {j} outside [0, L] with L = {L}")
        return np.where(i < j, j - 1, i)
    raise ValueError(f"unknown mask {mask!r}; expected one of {MASKS}")


def _segmentwise(op, sequences, offsets, prefix_length, initial_state, **attributes):
    """A packed linear-attention op: `op` on each segment [o_n, o_{n+1}) of the sequence
    dim (axis -2 of q, k, v; the gate's own sequence axis) alone, from initial state n
    (of [N, B..., Dk, Dv]) with prefix length n; returns (o, final states [N, ...])."""
    q = sequences[0]
    L = q.shape[-2]
    spans = segments(offsets, L)
    if prefix_length is not None and len(np.asarray(prefix_length).reshape(-1)) != len(spans):
        raise ValueError(f"{len(np.asarray(prefix_length).reshape(-1))} prefix lengths for "
                         f"{len(spans)} segments")
    if initial_state is not None and len(initial_state) != len(spans):
        raise ValueError(f"{len(initial_state)} initial states for {len(spans)} segments")
    outputs, states = [], []
    for n, (start, end) in enumerate(spans):
        rows = [x[..., start:end, :] if x.ndim == q.ndim else x[..., start:end]
                for x in sequences]
        j = None if prefix_length is None else int(np.asarray(prefix_length).reshape(-1)[n])
        s0 = None if initial_state is None else initial_state[n]
        o, state = op(*rows, prefix_length=j, initial_state=s0, **attributes)
        outputs.append(o)
        states.append(state)
    Dk, Dv = q.shape[-1], sequences[2].shape[-1]
    batch = np.broadcast_shapes(*[x.shape[:q.ndim - 2] for x in sequences])
    final = np.stack(states) if states else np.zeros((0,) + batch + (Dk, Dv))
    return np.concatenate(outputs, axis=-2) if outputs else np.zeros(batch + (0, Dv)), final


def linear_attention(q, k, v, mask="none", prefix_length=None, feature_map="identity",
                     scale=1.0, normalize=False, initial_state=None, offsets=None):
    """o_i = scale * phi(q_i) @ S(i), returns (o [B..., L, Dv], final_state [B..., Dk, Dv]).

    Recurrence: S_t = S_{t-1} + phi(k_t)^T v_t with S_{-1} = S0 (zero when absent), and
      none: S(i) = S_{L-1};  causal: S(i) = S_i;  prefix(j): S(i) = S_{j-1} if i < j else S_i.
    normalize: divide row i by phi(q_i) . z(i) + 1e-6, z_t = z_{t-1} + phi(k_t) over the same t.
    final_state = S_{L-1} (= S0 + sum_{t < L} phi(k_t)^T v_t) in every mode.
    With `offsets` (N + 1 of them), each segment is computed alone: `initial_state` and
    the final states are [N, B..., Dk, Dv] and `prefix_length` has one length per segment.
    """
    q, k, v = _f64(q), _f64(k), _f64(v)
    if offsets is not None:
        return _segmentwise(linear_attention, [q, k, v], offsets, prefix_length,
                            initial_state, mask=mask, feature_map=feature_map,
                            scale=scale, normalize=normalize)
    if normalize and initial_state is not None:
        raise ValueError("normalize together with initial_state is not allowed")
    phi = feature_map_fn(feature_map)
    phi_q, phi_k = phi(q), phi(k)
    L, Dk, Dv = q.shape[-2], q.shape[-1], v.shape[-1]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    state_row = _state_row_of(L, mask, prefix_length)

    S = np.zeros(batch + (Dk, Dv)) if initial_state is None else _f64(initial_state) + 0.0
    S = np.broadcast_to(S, batch + (Dk, Dv)).copy()
    z = np.zeros(batch + (Dk,))
    o = np.zeros(batch + (L, Dv))
    for t in range(L):
        S = S + phi_k[..., t, :, None] * v[..., t, None, :]  # S_t = S_{t-1} + phi(k_t)^T v_t
        z = z + phi_k[..., t, :]                              # z_t = z_{t-1} + phi(k_t)
        rows = np.nonzero(state_row == t)[0]                  # rows that read S_t
        if rows.size == 0:
            continue
        out = scale * (phi_q[..., rows, :] @ S)
        if normalize:
            den = np.sum(phi_q[..., rows, :] * z[..., None, :], axis=-1) + NORMALIZE_EPS
            out = out / den[..., None]
        o[..., rows, :] = out
    return o, S


def gated_linear_attention(q, k, v, g, mask="causal", prefix_length=None, scale=1.0,
                           initial_state=None, offsets=None):
    """Gated (decaying) linear attention, returns (o [B..., L, Dv], final_state [B..., Dk, Dv]).

    g is [B..., L, Dk] (per key dim) or [B..., L] (one scalar per token), log-space, g <= 0.
      S_t = diag(exp(g_t)) S_{t-1} + k_t^T v_t with S_{-1} = S0;
      causal: o_t = scale * q_t @ S_t;  prefix(j): o_i = scale * q_i @ S_{j-1} for i < j,
      o_i = scale * q_i @ S_i for i >= j;  none: prefix(L), every row reads S_{L-1}
      (Linea's extension: the bidirectional head linea-split-prefix makes).
      final_state = S_{L-1}.
    No feature map, no normalize (the SPEC gives the gated op neither).
    `offsets`: packed segments, as for linear_attention.
    """
    q, k, v, g = _f64(q), _f64(k), _f64(v), _f64(g)
    if offsets is not None:
        return _segmentwise(gated_linear_attention, [q, k, v, g], offsets, prefix_length,
                            initial_state, mask=mask, scale=scale)
    L, Dk, Dv = q.shape[-2], q.shape[-1], v.shape[-1]
    if g.ndim == q.ndim - 1:  # scalar gate per token: [B..., L] -> [B..., L, 1]
        g = g[..., None]
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], g.shape[:-2])
    state_row = _state_row_of(L, mask, prefix_length)

    S = np.zeros(batch + (Dk, Dv)) if initial_state is None else _f64(initial_state) + 0.0
    S = np.broadcast_to(S, batch + (Dk, Dv)).copy()
    o = np.zeros(batch + (L, Dv))
    for t in range(L):
        decay = np.exp(g[..., t, :])[..., :, None]             # diag(exp(g_t)) as a column scale
        S = decay * S + k[..., t, :, None] * v[..., t, None, :]  # S_t = diag(exp g_t) S_{t-1} + k_t^T v_t
        rows = np.nonzero(state_row == t)[0]                   # rows that read S_t
        if rows.size:
            o[..., rows, :] = scale * (q[..., rows, :] @ S)
    return o, S


# ----------------------------------------------------------------------------------------------
# linea.attention
# ----------------------------------------------------------------------------------------------
def attention(q, k, v, mask="none", scale=None, offsets=None):
    """o = softmax(scale * q k^T + mask) v; scale defaults to 1/sqrt(Dk).

    Lq may differ from Lk; with causal, query i sees keys t <= i + (Lk - Lq). The row max is
    subtracted before exp. A row that sees no key (only possible when Lq > Lk with causal)
    outputs zeros (Linea's documented convention). With `offsets` (queries and keys packed
    alike), each segment's queries attend to its own keys only.
    """
    q, k, v = _f64(q), _f64(k), _f64(v)
    if offsets is not None:
        if q.shape[-2] != k.shape[-2]:
            raise ValueError("packed attention needs Lq = Lk")
        if scale is None:  # (the whole op's default, not a segment's)
            scale = 1.0 / np.sqrt(q.shape[-1])
        parts = [attention(q[..., a:b, :], k[..., a:b, :], v[..., a:b, :], mask, scale)
                 for a, b in segments(offsets, q.shape[-2])]
        return np.concatenate(parts, axis=-2) if parts else np.zeros(
            q.shape[:-1] + v.shape[-1:])
    Lq, Dk, Lk = q.shape[-2], q.shape[-1], k.shape[-2]
    if scale is None:
        scale = 1.0 / np.sqrt(Dk)
    s = scale * (q @ np.swapaxes(k, -1, -2))  # [B..., Lq, Lk]
    if mask == "causal":
        i = np.arange(Lq)[:, None]
        t = np.arange(Lk)[None, :]
        s = np.where(t <= i + (Lk - Lq), s, -np.inf)
    elif mask != "none":
        raise ValueError(f"unknown attention mask {mask!r}; expected 'none' or 'causal'")
    row_max = np.max(s, axis=-1, keepdims=True) if Lk > 0 else np.zeros(s.shape[:-1] + (1,))
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)  # a row with no visible key
    p = np.exp(s - row_max)                                  # masked entries: exp(-inf) = 0
    den = np.sum(p, axis=-1, keepdims=True)
    p = p / np.where(den > 0, den, 1.0)                      # empty row stays all zero
    return p @ v


# ----------------------------------------------------------------------------------------------
# linea.fold / linea.folded_attention
# ----------------------------------------------------------------------------------------------
def fold(x, memory, segment_length, body):
    """Folded context condensation, returns (y [B..., L, D], final_memory [B..., l, D]).

    for s in 0 .. L/l - 1:  W = concat(M, x[s*l:(s+1)*l]);  R = body(W);
                            y[s*l:(s+1)*l] = R[l:2l];  M = R[l:2l]
    """
    x, M = _f64(x), _f64(memory)
    l = int(segment_length)
    L = x.shape[-2]
    if l <= 0 or L % l != 0:
        raise ValueError(f"L = {L} is not a multiple of segment_length = {l}")
    if M.shape[-2] != l:
        raise ValueError(f"memory has {M.shape[-2]} rows, expected segment_length = {l}")
    y = np.zeros(np.broadcast_shapes(x.shape[:-2], M.shape[:-2]) + x.shape[-2:])
    for s in range(L // l):
        W = np.concatenate(np.broadcast_arrays(M, x[..., s * l:(s + 1) * l, :]), axis=-2)
        R = _f64(body(W))
        if R.shape != W.shape:
            raise ValueError(f"body returned shape {R.shape}, expected {W.shape}")
        y[..., s * l:(s + 1) * l, :] = R[..., l:2 * l, :]
        M = R[..., l:2 * l, :]
    return y, M


def folded_attention(x, memory, wq, wk, wv, wo, segment_length, num_heads):
    """fold whose body is one causal multi-head softmax attention layer over the window:

    Q = W wq, K = W wk, V = W wv; head h = columns h*dh:(h+1)*dh (dh = D / num_heads);
    A = concat_h attention(Q_h, K_h, V_h, causal) (default scale 1/sqrt(dh)); R = A wo.
    """
    wq, wk, wv, wo = _f64(wq), _f64(wk), _f64(wv), _f64(wo)
    D = wq.shape[0]
    if D % num_heads != 0:
        raise ValueError(f"D = {D} is not a multiple of num_heads = {num_heads}")
    dh = D // num_heads

    def body(W):
        Q, K, V = W @ wq, W @ wk, W @ wv
        heads = [attention(Q[..., h * dh:(h + 1) * dh], K[..., h * dh:(h + 1) * dh],
                           V[..., h * dh:(h + 1) * dh], mask="causal")
                 for h in range(num_heads)]
        A = np.concatenate(heads, axis=-1)
        return A @ wo

    return fold(x, memory, segment_length, body)


# ----------------------------------------------------------------------------------------------
# tolerance metric
# ----------------------------------------------------------------------------------------------
def rel_l2(out, ref):
    """||out - ref|| / ||ref|| in float64 (||out|| when ||ref|| == 0)."""
    out, ref = _f64(out).ravel(), _f64(ref).ravel()
    ref_norm = np.linalg.norm(ref)
    if ref_norm == 0:
        return float(np.linalg.norm(out))
    return float(np.linalg.norm(out - ref) / ref_norm)
