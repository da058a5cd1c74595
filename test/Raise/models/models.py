"""The layers of the raise corpus, written the way model code writes them.

Each entry of CORPUS is a layer as a reader of the papers would write it in
PyTorch, the inputs it takes (a function of the sequence length L), whether
it is exported with a dynamic L, and what `linea-raise` must make of it:
the Linea ops (`raises`, in the order `--linea-raise` prints them) or, for a
near miss, nothing and the reason of its remark.

scripts/raise-corpus.py exports each to linalg-on-tensors through
torch-mlir's FX importer (test/Raise/models/<name>.mlir); the differential
test (python/tests/test_raise.py) runs those files with and without raising
against these same modules in float64. Plain torch only, so that both
torch 2.x (the exporter) and Debian's torch 1.13 (the tests) run it.
"""

import math

import numpy as np

import torch
import torch.nn.functional as F

B, H, D, DV = 2, 3, 8, 4
PREFIX = 5
TABLE = 16  # the static L of the corpus: the size of a mask buffer


def heads(L, d=D):
    return (B, H, L, d)


def qkv(L):
    return [heads(L), heads(L), heads(L, DV)]


def arange_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[:, None], i[None, :]  # rows i, columns t


# --- linear attention: masks as front ends write them ----------------------

class CausalTril(torch.nn.Module):
    """tril(Q K^T) V: the causal linear transformer without its feature map."""
    def forward(self, q, k, v):
        return torch.tril(q @ k.transpose(-1, -2)) @ v


class CausalMaskedFill(torch.nn.Module):
    def forward(self, q, k, v):
        L = q.shape[-2]
        mask = torch.ones(L, L, dtype=torch.bool).tril()
        return (q @ k.transpose(-1, -2)).masked_fill(~mask, 0.0) @ v


class CausalArangeMultiply(torch.nn.Module):
    """A 0/1 float mask from two aranges, multiplied in."""
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        return ((q @ k.transpose(-1, -2)) * (t <= i).float()) @ v


class CausalWhere(torch.nn.Module):
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        s = q @ k.transpose(-1, -2)
        return torch.where(i >= t, s, torch.zeros_like(s)) @ v


class Bidirectional(torch.nn.Module):
    """(Q K^T) V: no mask, the one-shot state."""
    def forward(self, q, k, v):
        return (q @ k.transpose(-1, -2)) @ v


class PrefixLM(torch.nn.Module):
    """The PrefixLM mask: the first PREFIX tokens see each other."""
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        visible = (t <= i) | (t < PREFIX)
        return (q @ k.transpose(-1, -2)).masked_fill(~visible, 0.0) @ v


class Scaled(torch.nn.Module):
    """Scalar factors on the query, the scores and the output."""
    def forward(self, q, k, v):
        s = (q * 0.125) @ k.transpose(-1, -2)
        return (torch.tril(s * 3.0) @ v) * 0.5


class NormalizedElu(torch.nn.Module):
    """Katharopoulos et al.: phi = elu + 1, divided by the masked row sum."""
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        return (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)


class NormalizedOtherEps(torch.nn.Module):
    """A normalizer with eps = 1e-3: not SPEC's, so two linear attentions."""
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        return (a @ v) / (a.sum(-1, keepdim=True) + 1e-3)


class Projected(torch.nn.Module):
    """A whole causal layer on [B, L, Dm]: projections, heads split by
    view + transpose, merged back, an output projection."""
    def __init__(self):
        super().__init__()
        dm = H * D
        # Weights in closed form: any torch version makes the same ones (the
        # exported file holds them as constants; the test recomputes them).
        n = torch.arange(dm * dm, dtype=torch.float64).reshape(dm, dm)
        self.wq, self.wk, self.wv, self.wo = (
            torch.nn.Parameter((torch.sin(n * c) / dm ** 0.5).float())
            for c in (0.37, 0.71, 1.13, 1.57))

    def forward(self, x):
        b, L, dm = x.shape
        split = lambda y: y.view(b, L, H, D).transpose(1, 2)
        q, k, v = split(x @ self.wq), split(x @ self.wk), split(x @ self.wv)
        o = torch.tril(q @ k.transpose(-1, -2)) @ v
        return o.transpose(1, 2).reshape(b, L, dm) @ self.wo


class HeadsLast(torch.nn.Module):
    """[B, L, H, D] tensors and einsum: the batch dims in another order."""
    def forward(self, q, k, v):
        s = torch.einsum("blhd,bmhd->bhlm", q, k)
        return torch.einsum("bhlm,bmhe->blhe", torch.tril(s), v)


class CumulativeState(torch.nn.Module):
    """Causal linear attention the RNN way papers write it: the states
    S_i = sum_{t <= i} k_t^T v_t as a cumsum of outer products, o_i = q_i S_i."""
    def forward(self, q, k, v):
        states = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
        return torch.einsum("bhld,bhlde->bhle", q, states)


class GLAParallel(torch.nn.Module):
    """GLA's parallel form (Yang et al.): with b = cumsum(g) along L (one
    log-decay per key dim), tril((q exp(b)) (k exp(-b))^T) v."""
    def forward(self, q, k, v, g):
        b = torch.cumsum(g, dim=2)
        qd, kd = q * torch.exp(b), k * torch.exp(-b)
        return torch.tril(qd @ kd.transpose(-1, -2)) @ v


class RetNet(torch.nn.Module):
    """Retention (Sun et al.): ((Q K^T) .* D) V with D[i, t] = gamma^(i - t)
    for t <= i, one gamma per head."""
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        gamma = 1 - 2.0 ** (-5.0 - torch.arange(q.shape[1], dtype=q.dtype))
        decay = torch.where(t <= i, gamma[:, None, None] ** (i - t).to(q.dtype),
                            torch.zeros((), dtype=q.dtype))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


class DecayWindow(torch.nn.Module):
    """A decay under a sliding window: gamma^(i - t) for i - 4 < t <= i."""
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        decay = torch.where((t <= i) & (t > i - 4), 0.9 ** (i - t).to(q.dtype),
                            torch.zeros((), dtype=q.dtype))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


# --- other writing styles: positions as floats, gates as log-sums, RNN form ---

def float_positions(L, scale=1.0):
    """torch.arange(L, dtype=float): RetNet's parallel form as often written."""
    n = torch.arange(L, dtype=torch.float32) * scale
    return n[:, None] - n[None, :]


class FloatPositionsRetNet(torch.nn.Module):
    """Retention with float positions: diff = n_i - n_t of a float arange,
    the decay exp(diff * log(gamma)) where diff >= 0."""
    def forward(self, q, k, v):
        diff = float_positions(q.shape[-2])
        decay = torch.where(diff >= 0, torch.exp(diff * math.log(0.9)),
                            torch.zeros((), dtype=q.dtype))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


class FloatPositionsMask(torch.nn.Module):
    """A causal 0/1 mask from float positions, multiplied in."""
    def forward(self, q, k, v):
        return ((q @ k.transpose(-1, -2)) * (float_positions(q.shape[-2]) >= 0).float()) @ v


class FloatPositionsShifted(torch.nn.Module):
    """Near miss: float positions compared with 1, not 0 (t <= i - 1)."""
    def forward(self, q, k, v):
        keep = float_positions(q.shape[-2]) >= 1
        return (q @ k.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


class FloatPositionsInexact(torch.nn.Module):
    """Near miss: positions scaled by 2^21, exact in f32 only up to L = 5."""
    def forward(self, q, k, v):
        keep = float_positions(q.shape[-2], 2.0 ** 21) >= 0
        return (q @ k.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


class FloatPositionsSquareDecay(torch.nn.Module):
    """Near miss: exp(-0.1 (i - t)^2), a decay that is not a power."""
    def forward(self, q, k, v):
        diff = float_positions(q.shape[-2])
        decay = torch.where(diff >= 0, torch.exp(diff * diff * -0.1),
                            torch.zeros((), dtype=q.dtype))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


class EinsumCausal(torch.nn.Module):
    """Causal linear attention in einsum, [B, H, L, D] tensors."""
    def forward(self, q, k, v):
        s = torch.einsum("bhld,bhmd->bhlm", q, k)
        return torch.einsum("bhlm,bhme->bhle", torch.tril(s), v)


class CumulativeOuterMatmul(torch.nn.Module):
    """The states as a cumsum of outer products, read by a batched matmul:
    o_i = (q_i[None, :] @ S_i)[0]."""
    def forward(self, q, k, v):
        states = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
        return (q.unsqueeze(-2) @ states).squeeze(-2)


class CumulativeNormalized(torch.nn.Module):
    """The normalized causal layer the RNN way: elu + 1 features, numerator
    q . cumsum(k^T v), denominator q . cumsum(k)."""
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        states = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
        numerator = torch.einsum("bhld,bhlde->bhle", q, states)
        denominator = (q * torch.cumsum(k, dim=2)).sum(-1, keepdim=True)
        return numerator / (denominator + 1e-6)


class CumulativeFeatureMap(torch.nn.Module):
    """The cumsum of outer products with elu + 1 features, the keys' used
    once (fused into the outer product by the raise's normalization)."""
    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        states = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)
        return (q.unsqueeze(-2) @ states).squeeze(-2)


class LogGateGLA(torch.nn.Module):
    """GLA on [B, L, Dm] as models write it: x @ W projections split into
    heads after the product, log-sigmoid gates summed along the sequence,
    q exp(G) and k exp(-G), tril, heads merged and projected. (As written
    it overflows once the gates' sum passes -88 in f32; raised, it cannot.)"""
    def __init__(self):
        super().__init__()
        dm = H * D
        self.wq, self.wk, self.wv, self.wg, self.wo = (
            closed_form_weight(dm, dm, c) for c in (0.37, 0.71, 1.13, 0.53, 1.57))

    def forward(self, x):
        b, L, dm = x.shape
        split = lambda y: y.view(b, L, H, D).transpose(1, 2)
        q, k, v = split(x @ self.wq), split(x @ self.wk), split(x @ self.wv)
        # fla's GLA normalizes its log-gates by 16 (gate_logit_normalizer).
        G = torch.cumsum(F.logsigmoid(split(x @ self.wg) + 4.0) / 16, dim=2)
        o = torch.tril((q * torch.exp(G)) @ (k * torch.exp(-G)).transpose(-1, -2)) @ v
        return o.transpose(1, 2).reshape(b, L, dm) @ self.wo


# --- masks given as tables (registered buffers) -------------------------------

def closed_form_weight(rows, cols, c):
    """A weight any torch version makes the same (the exported file holds it
    as a constant; the test recomputes it)."""
    n = torch.arange(rows * cols, dtype=torch.float64).reshape(rows, cols)
    return torch.nn.Parameter((torch.sin(n * c) / cols ** 0.5).float())


class CausalBufferMask(torch.nn.Module):
    """A registered 0/1 float buffer multiplied in."""
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(TABLE, TABLE)))

    def forward(self, q, k, v):
        return ((q @ k.transpose(-1, -2)) * self.mask) @ v


class PrefixBufferMaskBool(torch.nn.Module):
    """A boolean PrefixLM buffer, masked_fill'd."""
    def __init__(self):
        super().__init__()
        i, t = arange_mask(TABLE)
        self.register_buffer("visible", (t <= i) | (t < PREFIX))

    def forward(self, q, k, v):
        return (q @ k.transpose(-1, -2)).masked_fill(~self.visible, 0.0) @ v


class CausalBufferBoolSliced(torch.nn.Module):
    """nanoGPT's way with a bool buffer: a causal mask of the longest length,
    sliced to the sequence's (`mask[:L, :L]`), inverted and masked_fill'd."""
    def __init__(self):
        super().__init__()
        i, t = arange_mask(2 * TABLE)
        self.register_buffer("causal", t <= i)

    def forward(self, q, k, v):
        n = q.shape[-2]
        return (q @ k.transpose(-1, -2)).masked_fill(~self.causal[:n, :n], 0.0) @ v


class BandBufferMask(torch.nn.Module):
    """A buffer of a band four wide: a table, but not a Linea mask."""
    def __init__(self):
        super().__init__()
        i, t = arange_mask(TABLE)
        self.register_buffer("band", ((t <= i) & (t > i - 4)).float())

    def forward(self, q, k, v):
        return ((q @ k.transpose(-1, -2)) * self.band) @ v


class SoftmaxBufferMask(torch.nn.Module):
    """nanoGPT's causal attention: a [1, 1, n, n] buffer of lower-triangle
    ones longer than L, sliced to L, -inf where it is zero."""
    def __init__(self):
        super().__init__()
        n = 2 * TABLE
        self.register_buffer("bias", torch.tril(torch.ones(n, n)).view(1, 1, n, n))

    def forward(self, q, k, v):
        L = q.shape[-2]
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(k.shape[-1]))
        att = att.masked_fill(self.bias[:, :, :L, :L] == 0, float("-inf"))
        return F.softmax(att, dim=-1) @ v


class SoftmaxAdditiveBuffer(torch.nn.Module):
    """An additive float buffer: 0 on and below the diagonal, -inf above."""
    def __init__(self):
        super().__init__()
        i, t = arange_mask(TABLE)
        bias = torch.zeros(TABLE, TABLE).masked_fill(t > i, float("-inf"))
        self.register_buffer("bias", bias)

    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-1, -2) * 0.5 + self.bias, dim=-1) @ v


# --- seed 002: a loop over segments ------------------------------------------

SEGMENT = 4


class FoldedSegments(torch.nn.Module):
    """Seed 002's folded layer as a Python loop over segments of SEGMENT
    rows: a causal softmax attention layer (one head, closed-form
    projections) over [memory; segment], whose second half is both the
    segment's output and the next memory. torch.export unrolls the loop at
    the example's length; the raise makes it one linea.fold."""
    def __init__(self):
        super().__init__()
        dm = H * D
        self.wq, self.wk, self.wv, self.wo = (closed_form_weight(dm, dm, c)
                                              for c in (0.29, 0.53, 0.83, 1.31))
        self.memory = torch.nn.Parameter(closed_form_weight(SEGMENT, dm, 2.03).data[None])

    def layer(self, w):
        n = w.shape[1]
        q, k, v = w @ self.wq, w @ self.wk, w @ self.wv
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        return (torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1) @ v) @ self.wo

    def forward(self, x):
        b, L, dm = x.shape
        m = self.memory.expand(b, SEGMENT, dm)
        outputs = []
        for s in range(L // SEGMENT):
            m = self.layer(torch.cat([m, x[:, s * SEGMENT:(s + 1) * SEGMENT]], 1))[:, SEGMENT:]
            outputs.append(m)
        return torch.cat(outputs, 1)


# --- a model of several layers -----------------------------------------------

class LinearTransformerBlock(torch.nn.Module):
    """A pre-norm block of the causal linear transformer (Katharopoulos et
    al.): layer norm, one fused q/k/v projection split three ways, heads,
    elu + 1, normalized causal linear attention, an output projection, a
    residual, then a GELU MLP and its residual."""
    def __init__(self, seed):
        super().__init__()
        dm = H * D
        self.norm1, self.norm2 = torch.nn.LayerNorm(dm), torch.nn.LayerNorm(dm)
        self.wqkv = closed_form_weight(dm, 3 * dm, 0.37 + seed)
        self.wo = closed_form_weight(dm, dm, 0.71 + seed)
        self.w1 = closed_form_weight(dm, 2 * dm, 1.13 + seed)
        self.w2 = closed_form_weight(2 * dm, dm, 1.57 + seed)

    def forward(self, x):
        b, L, dm = x.shape
        split = lambda y: y.view(b, L, H, D).transpose(1, 2)
        q, k, v = (split(y) for y in (self.norm1(x) @ self.wqkv).split(dm, dim=-1))
        q, k = F.elu(q) + 1, F.elu(k) + 1
        a = torch.tril(q @ k.transpose(-1, -2))
        o = (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)
        x = x + o.transpose(1, 2).reshape(b, L, dm) @ self.wo
        return x + F.gelu(self.norm2(x) @ self.w1) @ self.w2


class LinearTransformer(torch.nn.Module):
    """Two blocks: the raise must find each layer's attention in one
    program, among everything else a model holds."""
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(LinearTransformerBlock(s) for s in range(2))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


# --- prefix sums ---------------------------------------------------------------

def seq(L, d=D):
    return [(B, L, d)]


class CumSum(torch.nn.Module):
    """Seed 000's causal layer: a prefix sum along the sequence."""
    def forward(self, x):
        return torch.cumsum(x, dim=1)


class ExclusiveCumSum(torch.nn.Module):
    """cumsum(x) - x is the exclusive prefix sum."""
    def forward(self, x):
        return torch.cumsum(x, dim=1) - x


class TrilOnesMatmul(torch.nn.Module):
    """A prefix sum as a product with a lower triangle of ones."""
    def forward(self, x):
        L = x.shape[1]
        return torch.tril(torch.ones(L, L, dtype=x.dtype)) @ x


class StrictUpperOnesMatmul(torch.nn.Module):
    """triu(ones, 1) @ x: the sum of the later rows (reverse, exclusive)."""
    def forward(self, x):
        L = x.shape[1]
        return torch.triu(torch.ones(L, L, dtype=x.dtype), diagonal=1) @ x


class ReverseCumSum(torch.nn.Module):
    """flip, cumsum, flip: the sum of the later rows."""
    def forward(self, x):
        return torch.flip(torch.cumsum(torch.flip(x, [1]), dim=1), [1])


class FlipOfCumSum(torch.nn.Module):
    """cumsum, then flip: a prefix sum read backwards, not a reverse one."""
    def forward(self, x):
        return torch.flip(torch.cumsum(x, dim=1), [1])


class CumProd(torch.nn.Module):
    """A scan that multiplies: runs as a loop, never a presum."""
    def forward(self, x):
        return torch.cumprod(x, dim=1)


# --- softmax attention -------------------------------------------------------

class SoftmaxCausal(torch.nn.Module):
    """softmax(Q K^T / sqrt(d) + causal -inf) V, written out."""
    def forward(self, q, k, v):
        L = q.shape[-2]
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        mask = torch.ones(L, L, dtype=torch.bool).tril()
        return torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1) @ v


class SdpaCausal(torch.nn.Module):
    """torch's fused attention (torch >= 2.0); where it is missing (the
    tests' torch 1.13 computes the reference) the same math written out."""
    def forward(self, q, k, v):
        if hasattr(F, "scaled_dot_product_attention"):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return SoftmaxCausal()(q, k, v)


class SoftmaxBidirectional(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.softmax((q @ k.transpose(-1, -2)) * 0.25, dim=-1) @ v


class SoftmaxWrongAxis(torch.nn.Module):
    """Normalized over the queries instead of the keys."""
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-1, -2), dim=-2) @ v


# --- packed documents: a block-diagonal mask of segment ids ----------------
#
# Training packs documents into one row and masks attention to each
# document with the ids of the tokens: `ids[i] == ids[t]`. Where the ids
# run in order (0 0 0 1 1 2 ...), that is the offsets form of SPEC; where
# they do not, the raise leaves the layer as written (a run-time test).

def sorted_ids(L, rng):
    """Document ids of a packed row: runs of random lengths, in order."""
    cuts = np.sort(rng.choice(np.arange(1, max(L, 2)), size=min(3, max(L - 1, 0)),
                              replace=False)) if L > 1 else np.array([], dtype=np.int64)
    return np.searchsorted(cuts, np.arange(L), side="right").astype(np.int64)


def interleaved_ids(L, rng):
    """Ids that come back (0 1 0 1 ...): no offsets describe them."""
    return (np.arange(L) % 2).astype(np.int64)


def segment_mask(ids):
    return ids[:, None] == ids[None, :]


class PackedCausal(torch.nn.Module):
    """Causal linear attention within each packed document."""
    def forward(self, q, k, v, ids):
        i, t = arange_mask(q.shape[-2])
        keep = segment_mask(ids) & (t <= i)
        return (q @ k.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


class PackedBidirectional(torch.nn.Module):
    """Each document sees all of itself (an encoder over packed rows)."""
    def forward(self, q, k, v, ids):
        return ((q @ k.transpose(-1, -2)) * segment_mask(ids).float()) @ v


class PackedNormalized(torch.nn.Module):
    """The linear transformer's normalized causal attention, packed."""
    def forward(self, q, k, v, ids):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        i, t = arange_mask(q.shape[-2])
        a = (q @ k.transpose(-1, -2)).masked_fill(~(segment_mask(ids) & (t <= i)), 0.0)
        return (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)


class PackedGLA(torch.nn.Module):
    """GLA's parallel form over packed documents: within one, the decays
    exp(b_i - b_t) are the gates' own, whatever the documents before."""
    def forward(self, q, k, v, g, ids):
        b = torch.cumsum(g, dim=2)
        qd, kd = q * torch.exp(b), k * torch.exp(-b)
        i, t = arange_mask(q.shape[-2])
        keep = segment_mask(ids) & (t <= i)
        return (qd @ kd.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


class PackedRetNet(torch.nn.Module):
    """Retention within each packed document."""
    def forward(self, q, k, v, ids):
        i, t = arange_mask(q.shape[-2])
        gamma = 1 - 2.0 ** (-5.0 - torch.arange(q.shape[1], dtype=q.dtype))
        decay = torch.where(segment_mask(ids) & (t <= i),
                            gamma[:, None, None] ** (i - t).to(q.dtype),
                            torch.zeros((), dtype=q.dtype))
        return ((q @ k.transpose(-1, -2)) * decay) @ v


class PackedSoftmax(torch.nn.Module):
    """Causal softmax attention within each packed document."""
    def forward(self, q, k, v, ids):
        i, t = arange_mask(q.shape[-2])
        keep = segment_mask(ids) & (t <= i)
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        return torch.softmax(s.masked_fill(~keep, float("-inf")), dim=-1) @ v


class PackedPrefix(torch.nn.Module):
    """A prefix of global length inside documents: no per-document prefix
    equals it, so it stays as written."""
    def forward(self, q, k, v, ids):
        i, t = arange_mask(q.shape[-2])
        keep = segment_mask(ids) & ((t <= i) | (t < PREFIX))
        return (q @ k.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


class PackedPerRow(torch.nn.Module):
    """Ids per batch row: the rows of a batch have different offsets, which
    one offsets operand cannot say."""
    def forward(self, q, k, v, ids):
        keep = ids[:, None, :, None] == ids[:, None, None, :]
        return (q @ k.transpose(-1, -2)).masked_fill(~keep, 0.0) @ v


# --- near misses: must stay as written, and still run right ----------------

class StrictCausal(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.tril(q @ k.transpose(-1, -2), diagonal=-1) @ v


class ShiftedCausal(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.tril(q @ k.transpose(-1, -2), diagonal=1) @ v


class AntiCausal(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.triu(q @ k.transpose(-1, -2)) @ v


class SlidingWindow(torch.nn.Module):
    def forward(self, q, k, v):
        i, t = arange_mask(q.shape[-2])
        band = (t <= i) & (t > i - 4)
        return (q @ k.transpose(-1, -2)).masked_fill(~band, 0.0) @ v


class ArgumentMask(torch.nn.Module):
    def forward(self, q, k, v, m):
        return ((q @ k.transpose(-1, -2)) * m) @ v


class DataMask(torch.nn.Module):
    def forward(self, q, k, v):
        s = q @ k.transpose(-1, -2)
        return s.masked_fill(s < 0, 0.0) @ v


class TransposedScores(torch.nn.Module):
    """tril(A)^T V: the contraction runs over the rows of the mask."""
    def forward(self, q, k, v):
        return torch.tril(q @ k.transpose(-1, -2)).transpose(-1, -2) @ v


def entry(module, shapes, raises, dynamic=False, remark=None, L=16, ops=None, ids=None,
          dtype="float32", dynamic_batch=False):
    """`raises`: the raise remarks in order; `ops`: the Linea ops of the
    raised IR in order, where they are not the raises' (a fold absorbs the
    steps it replaced, and holds one of them); `ids`: for a packed layer,
    the makers `(L, rng) -> int64 array` of its last input, the first one
    the exporter's; `dtype`: the torch dtype name the layer is exported in
    (float16, bfloat16: a half-precision model); `dynamic_batch`: dim 0
    dynamic too, exported as `linea.from_torch` exports (its view repairs)."""
    return dict(module=module, shapes=shapes, raises=raises, dynamic=dynamic,
                remark=remark, L=L, ops=ops or [r.split(" ")[0] for r in raises],
                ids=ids, dtype=dtype, dynamic_batch=dynamic_batch)


class LinearTransformerOneBlock(LinearTransformerBlock):
    def __init__(self):
        super().__init__(0)


causal = ["linear_attention mask = causal"]
packed_causal = ["linear_attention mask = causal offsets"]
packed_ids = [sorted_ids, interleaved_ids]


def packed(L):
    return qkv(L) + [(L,)]


CORPUS = {
    "la_causal_tril": entry(CausalTril, qkv, causal),
    "la_causal_tril_dynamic": entry(CausalTril, qkv, causal, dynamic=True),
    "la_causal_tril_dynamic_batch1": entry(
        CausalTril, lambda L: [(1, H, L, D), (1, H, L, D), (1, H, L, DV)], causal, dynamic=True),
    # Half precision: torch-mlir widens 16-bit products into f32
    # accumulators and rounds each result back; the raised op rounds once.
    "la_causal_tril_f16": entry(CausalTril, qkv, causal, dtype="float16"),
    "la_causal_tril_bf16": entry(CausalTril, qkv, causal, dtype="bfloat16"),
    "la_prefix_dynamic_bf16": entry(PrefixLM, qkv, ["linear_attention mask = prefix("],
                                    dynamic=True, dtype="bfloat16"),
    # SPEC's eps 1e-6 is not an f16 number: the normalizer's rounded eps
    # makes it the exact two-op form (attention over its row sum + eps).
    "la_normalized_elu_f16": entry(NormalizedElu, qkv, ["linear_attention mask = causal"] * 2,
                                   dtype="float16"),
    "gla_retnet_f16": entry(RetNet, qkv, ["gated_linear_attention mask = causal"],
                            dtype="float16"),
    "sm_causal_f16": entry(SoftmaxCausal, qkv, ["attention mask = causal"], dtype="float16"),
    "sm_causal_bf16_dynamic": entry(SoftmaxCausal, qkv, ["attention mask = causal"],
                                    dynamic=True, dtype="bfloat16"),
    "la_causal_masked_fill": entry(CausalMaskedFill, qkv, causal),
    "la_causal_arange_multiply": entry(CausalArangeMultiply, qkv, causal),
    "la_causal_where": entry(CausalWhere, qkv, causal),
    "la_bidirectional": entry(Bidirectional, qkv, ["linear_attention mask = none"]),
    "la_prefix": entry(PrefixLM, qkv, [f"linear_attention mask = prefix({PREFIX})"]),
    "la_prefix_dynamic": entry(PrefixLM, qkv, ["linear_attention mask = prefix("], dynamic=True),
    "la_scaled": entry(Scaled, qkv, ["linear_attention mask = causal scale = 3"]),
    "la_normalized_elu": entry(NormalizedElu, qkv, ["linear_attention mask = causal normalize"]),
    "la_normalized_other_eps": entry(NormalizedOtherEps, qkv,
                                     ["linear_attention mask = causal",
                                      "linear_attention mask = causal"]),
    "la_projected": entry(Projected, lambda L: [(B, L, H * D)], causal),
    "la_heads_last": entry(HeadsLast, lambda L: [(B, L, H, D), (B, L, H, D), (B, L, H, DV)], causal),
    "la_causal_buffer": entry(CausalBufferMask, qkv, causal),
    "la_prefix_buffer_bool": entry(PrefixBufferMaskBool, qkv,
                                   [f"linear_attention mask = prefix({PREFIX})"]),
    "la_causal_buffer_bool_sliced": entry(CausalBufferBoolSliced, qkv, causal),
    "nm_band_buffer": entry(BandBufferMask, qkv, [], remark="mask is a 16 x 16 constant table"),
    "model_linear_transformer": entry(LinearTransformer, lambda L: [(B, L, H * D)],
                                      ["linear_attention mask = causal normalize"] * 2),
    # Every dim dynamic: the projections merge batch and length (`[B * L,
    # D]` rows), the heads batch and heads (`[B * H, L, D]`).
    "model_linear_transformer_dynamic_batch": entry(
        LinearTransformerOneBlock, lambda L: [(B, L, H * D)],
        ["linear_attention mask = causal normalize"], dynamic=True, dynamic_batch=True),
    "fold_segments": entry(FoldedSegments, lambda L: [(B, L, H * D)],
                           ["attention mask = causal"] * 4 + [f"fold segment_length = {SEGMENT}"],
                           ops=["fold", "attention", "yield"]),
    "la_cumulative_state": entry(CumulativeState, qkv, causal),
    "la_cumulative_state_dynamic": entry(CumulativeState, qkv, causal, dynamic=True),
    "gla_parallel_form": entry(GLAParallel, lambda L: qkv(L) + [heads(L)],
                               ["gated_linear_attention mask = causal"]),
    # A batch of one: the decayed queries and keys are read through the
    # collapse of that unit dim, which the raised op's operands drop.
    "gla_parallel_dynamic_batch1": entry(
        GLAParallel, lambda L: [(1, H, L, D), (1, H, L, D), (1, H, L, DV), (1, H, L, D)],
        ["gated_linear_attention mask = causal"], dynamic=True),
    "gla_retnet": entry(RetNet, qkv, ["gated_linear_attention mask = causal"]),
    "gla_retnet_dynamic": entry(RetNet, qkv, ["gated_linear_attention mask = causal"], dynamic=True),
    # Other writing styles (issue 59).
    "gla_float_positions": entry(FloatPositionsRetNet, qkv,
                                 ["gated_linear_attention mask = causal"]),
    "gla_float_positions_dynamic": entry(FloatPositionsRetNet, qkv,
                                         ["gated_linear_attention mask = causal"],
                                         dynamic=True),
    "la_float_positions_mask": entry(FloatPositionsMask, qkv, causal),
    "nm_float_positions_shifted": entry(FloatPositionsShifted, qkv, [],
                                        remark="mask is t < i: the diagonal is excluded"),
    "nm_float_positions_inexact": entry(
        FloatPositionsInexact, qkv, [],
        remark="mask is 2097152 * i + -2097152 * t + 0 >= 0: its float positions hold "
               "exact integers only up to length 9, not 16"),
    "nm_float_positions_square_decay": entry(FloatPositionsSquareDecay, qkv, [],
                                             remark="a factor of the product"),
    "la_einsum_causal": entry(EinsumCausal, qkv, causal),
    "la_cumulative_outer_matmul": entry(CumulativeOuterMatmul, qkv, causal),
    "la_einsum_causal_dynamic": entry(EinsumCausal, qkv, causal, dynamic=True),
    # A batch of one: the unit dims dropped around the states' cumsum.
    "la_cumulative_outer_matmul_dynamic_batch1": entry(
        CumulativeOuterMatmul, lambda L: [(1, H, L, D), (1, H, L, D), (1, H, L, DV)], causal,
        dynamic=True),
    "la_cumulative_normalized_dynamic": entry(CumulativeNormalized, qkv,
                                              ["presum dim = 2", "linear_attention mask = causal"],
                                              ops=["linear_attention", "presum"], dynamic=True),
    "la_cumulative_feature_map": entry(CumulativeFeatureMap, qkv, causal),
    "la_cumulative_feature_map_dynamic_batch1": entry(
        CumulativeFeatureMap, lambda L: [(1, H, L, D), (1, H, L, D), (1, H, L, DV)], causal,
        dynamic=True),
    "la_cumulative_normalized": entry(CumulativeNormalized, qkv,
                                      ["presum dim = 2", "linear_attention mask = causal"],
                                      ops=["linear_attention", "presum"]),
    "gla_log_gates_projected": entry(LogGateGLA, lambda L: [(B, L, H * D)],
                                     ["gated_linear_attention mask = causal",
                                      "presum dim = 2"],
                                     ops=["gated_linear_attention"]),
    "nm_decay_window": entry(DecayWindow, qkv, [], remark="mask is t <= i and t >= i - 3"),
    "ps_cumsum": entry(CumSum, seq, ["presum dim = 1"]),
    "ps_cumsum_dynamic": entry(CumSum, seq, ["presum dim = 1"], dynamic=True),
    "ps_cumsum_f16": entry(CumSum, seq, ["presum dim = 1"], dtype="float16"),
    "ps_cumsum_minus_x": entry(ExclusiveCumSum, seq, ["presum dim = 1 exclusive"]),
    "ps_tril_ones": entry(TrilOnesMatmul, seq, ["presum dim = 1"]),
    "ps_triu_ones_strict": entry(StrictUpperOnesMatmul, seq, ["presum dim = 1 exclusive reverse"]),
    "ps_flip_cumsum_flip": entry(ReverseCumSum, seq, ["presum dim = 1 reverse"]),
    "nm_flip_of_cumsum": entry(FlipOfCumSum, seq, ["presum dim = 1"],
                               remark="the cumsum between flips is not of one tensor"),
    "nm_cumprod": entry(CumProd, seq, [], remark="the scan does not add"),
    "sm_causal": entry(SoftmaxCausal, qkv, ["attention mask = causal"]),
    "sm_causal_dynamic": entry(SoftmaxCausal, qkv, ["attention mask = causal"], dynamic=True),
    "sm_sdpa_causal": entry(SdpaCausal, qkv, ["attention mask = causal"]),
    "sm_bidirectional": entry(SoftmaxBidirectional, qkv, ["attention mask = none scale = 0.25"]),
    "sm_causal_buffer_nanogpt": entry(SoftmaxBufferMask, qkv, ["attention mask = causal"]),
    "sm_additive_buffer": entry(SoftmaxAdditiveBuffer, qkv, ["attention mask = causal scale = 0.5"]),
    "nm_softmax_wrong_axis": entry(SoftmaxWrongAxis, qkv, [], remark="not a softmax over the keys"),
    "nm_strict_causal": entry(StrictCausal, qkv, [], remark="mask is t < i: the diagonal is excluded"),
    "nm_shifted_causal": entry(ShiftedCausal, qkv, [], remark="mask is t <= i + 1"),
    "nm_anticausal": entry(AntiCausal, qkv, [], remark="mask is t >= i"),
    "nm_sliding_window": entry(SlidingWindow, qkv, [], remark="mask is"),
    "nm_argument_mask": entry(ArgumentMask, lambda L: qkv(L) + [(L, L)], [],
                              remark="the scores are multiplied by"),
    "nm_data_mask": entry(DataMask, qkv, [], remark="the mask compares"),
    "nm_transposed_scores": entry(TransposedScores, qkv, [], remark="mask is"),
    "la_packed_causal": entry(PackedCausal, packed, packed_causal, ids=packed_ids),
    "la_packed_causal_dynamic": entry(PackedCausal, packed, packed_causal, dynamic=True,
                                      ids=packed_ids),
    "la_packed_bidirectional": entry(PackedBidirectional, packed,
                                     ["linear_attention mask = none offsets"], ids=packed_ids),
    "la_packed_normalized": entry(PackedNormalized, packed,
                                  ["linear_attention mask = causal normalize offsets"],
                                  ids=packed_ids),
    "gla_packed_parallel_form": entry(PackedGLA, lambda L: qkv(L) + [heads(L), (L,)],
                                      ["gated_linear_attention mask = causal offsets"],
                                      ids=packed_ids),
    "gla_packed_retnet": entry(PackedRetNet, packed,
                               ["gated_linear_attention mask = causal offsets"], ids=packed_ids),
    "sm_packed_causal": entry(PackedSoftmax, packed, ["attention mask = causal"],
                              ids=packed_ids),
    "sm_packed_causal_dynamic": entry(PackedSoftmax, packed, ["attention mask = causal"],
                                      dynamic=True, ids=packed_ids),
    "nm_packed_prefix": entry(PackedPrefix, packed, [], ids=packed_ids,
                              remark="within segments the mask is"),
    "nm_packed_per_row": entry(PackedPerRow, lambda L: qkv(L) + [(B, L)], [],
                               ids=[lambda L, rng: np.stack([sorted_ids(L, rng)] * B)],
                               remark="the mask compares"),
}
