"""Tests of the float64 oracle (python/linea/reference.py) itself.

The expected values in the hand-computed tests are worked out by hand from SPEC.md and
written as literal numbers (the working is in the comments); the property tests at the end
check identities the SPEC states (prefix(0) == causal, prefix(L) == none, final_state, ...).
"""

import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from linea import reference as ref  # noqa: E402

LOG_HALF = math.log(0.5)
LOG_3 = math.log(3.0)


def col(*xs):
    """A [L, 1] column from scalars: one feature per token."""
    return np.array(xs, dtype=np.float64)[:, None]


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b, dtype=np.float64), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# presum
# ----------------------------------------------------------------------------------------------
def test_presum_three_tokens_inclusive_forward():
    close(ref.presum(np.array([1.0, 2.0, 4.0])), [1, 3, 7])


def test_presum_three_tokens_exclusive_forward():
    close(ref.presum(np.array([1.0, 2.0, 4.0]), exclusive=True), [0, 1, 3])


def test_presum_three_tokens_inclusive_reverse():
    close(ref.presum(np.array([1.0, 2.0, 4.0]), reverse=True), [7, 6, 4])


def test_presum_three_tokens_exclusive_reverse():
    close(ref.presum(np.array([1.0, 2.0, 4.0]), exclusive=True, reverse=True), [6, 4, 0])


def test_presum_2d_along_dim0_explicit_and_default():
    x = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]])
    expected = [[1, 10], [3, 30], [7, 70]]
    close(ref.presum(x, dim=0), expected)
    close(ref.presum(x), expected)  # default dim = ndim - 2 = 0
    close(ref.presum(x, dim=0, exclusive=True, reverse=True), [[6, 60], [4, 40], [0, 0]])


def test_presum_2d_along_dim1():
    close(ref.presum(np.array([[1.0, 2.0, 4.0]]), dim=1), [[1, 3, 7]])


def test_presum_default_dim_is_sequence_dim_with_batch():
    x = np.array([[[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]]])  # [1, L=3, D=2]
    close(ref.presum(x, exclusive=True), [[[0, 0], [1, 10], [3, 30]]])


def test_decayed_presum_three_tokens_all_directions():
    # a = log(1/2), log(1/2), log(3): inclusive y = [1, 1/2 + 2, 3 * 5/2 + 4] = [1, 2.5, 11.5]
    x, a = np.array([1.0, 2.0, 4.0]), np.array([LOG_HALF, LOG_HALF, LOG_3])
    close(ref.presum(x, decay=a), [1, 2.5, 11.5])
    close(ref.presum(x, decay=a, exclusive=True), [0, 1, 2.5])
    # reversed: y_2 = 4, y_1 = 4/2 + 2 = 4, y_0 = 4/2 + 1 = 3
    close(ref.presum(x, decay=a, reverse=True), [3, 4, 4])
    close(ref.presum(x, decay=a, exclusive=True, reverse=True), [4, 4, 0])


def test_decayed_presum_broadcasts_over_trailing_dims():
    # x [N=2, 2, 2] along dim 0 with one decay per (step, row): row 0 halves, row 1 keeps
    x = np.arange(8.0).reshape(2, 2, 2)
    a = np.array([[0.0, 0.0], [LOG_HALF, 0.0]])
    close(ref.presum(x, dim=0, decay=a), [[[0, 1], [2, 3]], [[4, 5.5], [8, 10]]])
    with pytest.raises(ValueError):
        ref.presum(x, dim=1, decay=np.zeros(2))  # a rank-1 decay does not reach dim 1


def test_decayed_presum_with_zero_decay_is_presum():
    x = np.random.default_rng(0).standard_normal((3, 7, 4))
    for exclusive in (False, True):
        for reverse in (False, True):
            close(ref.presum(x, exclusive=exclusive, reverse=reverse, decay=np.zeros((3, 7))),
                  ref.presum(x, exclusive=exclusive, reverse=reverse))


# ----------------------------------------------------------------------------------------------
# linear_attention, hand cases
# ----------------------------------------------------------------------------------------------
# Shared scalar case: q = [1, 2], k = [3, 4], v = [5, 6]; k_t v_t = 15, 24.
Q2, K2, V2 = col(1, 2), col(3, 4), col(5, 6)


def test_linear_attention_two_token_causal_identity():
    # S_0 = 15, S_1 = 15 + 24 = 39;  o = [1*15, 2*39]
    o, s = ref.linear_attention(Q2, K2, V2, mask="causal")
    close(o, [[15], [78]])
    close(s, [[39]])


def test_linear_attention_two_token_none_identity():
    # every row sees S = 39: o = [39, 78]
    o, s = ref.linear_attention(Q2, K2, V2, mask="none")
    close(o, [[39], [78]])
    close(s, [[39]])


def test_linear_attention_scale_multiplies_output():
    o, s = ref.linear_attention(Q2, K2, V2, mask="causal", scale=0.5)
    close(o, [[7.5], [39]])
    close(s, [[39]])  # the state is not scaled


def test_linear_attention_two_token_causal_vector_keys():
    # Dk = 2, Dv = 1: k0^T v0 = [[1], [2]], k1^T v1 = [[30], [40]]
    # S_0 = [[1], [2]], S_1 = [[31], [42]]; o_0 = [1, 0] @ S_0 = 1, o_1 = [0, 1] @ S_1 = 42
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 2.0], [3.0, 4.0]])
    v = np.array([[1.0], [10.0]])
    o, s = ref.linear_attention(q, k, v, mask="causal")
    close(o, [[1], [42]])
    close(s, [[31], [42]])


# Three tokens: q = [1, 2, 3], k = [1, 2, 3], v = [1, 10, 100]; k_t v_t = 1, 20, 300
# S_0 = 1, S_1 = 21, S_2 = 321.
Q3, K3, V3 = col(1, 2, 3), col(1, 2, 3), col(1, 10, 100)


def test_linear_attention_prefix1_three_tokens():
    # prefix(1): row 0 uses S_0 = 1 (the one-token prefix), rows 1, 2 use S_1, S_2
    o, s = ref.linear_attention(Q3, K3, V3, mask="prefix", prefix_length=1)
    close(o, [[1 * 1], [2 * 21], [3 * 321]])
    close(s, [[321]])


def test_linear_attention_prefix2_three_tokens():
    # prefix(2): rows 0, 1 use S_1 = 21, row 2 uses S_2 = 321
    o, s = ref.linear_attention(Q3, K3, V3, mask="prefix", prefix_length=2)
    close(o, [[1 * 21], [2 * 21], [3 * 321]])
    close(s, [[321]])


def test_linear_attention_normalize_two_token_causal():
    # z_0 = 3, z_1 = 3 + 4 = 7;  o_0 = 15 / (1*3 + 1e-6), o_1 = 78 / (2*7 + 1e-6)
    o, _ = ref.linear_attention(Q2, K2, V2, mask="causal", normalize=True)
    close(o, [[15 / 3.000001], [78 / 14.000001]])


def test_linear_attention_normalize_two_token_none():
    # z = 7 for every row: o_0 = 39 / (7 + 1e-6), o_1 = 78 / (14 + 1e-6)
    o, _ = ref.linear_attention(Q2, K2, V2, mask="none", normalize=True)
    close(o, [[39 / 7.000001], [78 / 14.000001]])


def test_linear_attention_normalize_vector_keys():
    # q0 = [1, 1], k0 = [1, 2], v0 = [6]: S_0 = [[6], [12]], o = 18; z_0 = [1, 2], den = 3 + 1e-6
    o, _ = ref.linear_attention(np.array([[1.0, 1.0]]), np.array([[1.0, 2.0]]), np.array([[6.0]]),
                                mask="causal", normalize=True)
    close(o, [[18 / 3.000001]])


def test_feature_map_values():
    x = np.array([-1.0, 0.0, 2.0])
    close(ref.feature_map_fn("elu_plus_one")(x), [math.exp(-1.0), 1.0, 3.0])  # elu(-1)+1 = e^-1
    close(ref.feature_map_fn("relu")(x), [0.0, 0.0, 2.0])
    close(ref.feature_map_fn("identity")(x), [-1.0, 0.0, 2.0])


def test_linear_attention_elu_plus_one_single_token():
    # phi(q) = elu(-1) + 1 = e^-1, phi(k) = elu(2) + 1 = 3, v = 1: o = 3 e^-1
    o, s = ref.linear_attention(col(-1), col(2), col(1), mask="causal", feature_map="elu_plus_one")
    close(o, [[3 * math.exp(-1.0)]])
    close(s, [[3]])


def test_linear_attention_relu_two_tokens():
    # phi(k) = [0, 4], v = [1, 1]: S_0 = 0, S_1 = 4; phi(q) = [0, 2]: o = [0, 8]
    o, s = ref.linear_attention(col(-1, 2), col(-3, 4), col(1, 1), mask="causal", feature_map="relu")
    close(o, [[0], [8]])
    close(s, [[4]])


def test_linear_attention_initial_state_causal_and_none():
    # S0 = 100: causal S_0 = 115, S_1 = 139 -> o = [115, 278]; none: S = 139 -> o = [139, 278]
    s0 = np.array([[100.0]])
    o, s = ref.linear_attention(Q2, K2, V2, mask="causal", initial_state=s0)
    close(o, [[115], [278]])
    close(s, [[139]])
    o, s = ref.linear_attention(Q2, K2, V2, mask="none", initial_state=s0)
    close(o, [[139], [278]])
    close(s, [[139]])


def test_linear_attention_initial_state_prefix():
    # S0 = 1000, prefix(2) on the 3-token case: rows 0, 1 use 1021, row 2 uses 1321
    o, s = ref.linear_attention(Q3, K3, V3, mask="prefix", prefix_length=2,
                                initial_state=np.array([[1000.0]]))
    close(o, [[1021], [2042], [3963]])
    close(s, [[1321]])


# ----------------------------------------------------------------------------------------------
# gated_linear_attention, hand cases
# ----------------------------------------------------------------------------------------------
def test_gated_two_token_scalar_gate_half():
    # S_0 = 0.5*0 + 15 = 15, S_1 = 0.5*15 + 24 = 31.5;  o = [1*15, 2*31.5]
    g = np.array([LOG_HALF, LOG_HALF])  # [L]: one scalar per token
    o, s = ref.gated_linear_attention(Q2, K2, V2, g)
    close(o, [[15], [63]])
    close(s, [[31.5]])


def test_gated_two_token_scalar_gate_with_initial_state():
    # S0 = 4: S_0 = 2 + 15 = 17, S_1 = 8.5 + 24 = 32.5;  o = [17, 65]
    g = np.array([LOG_HALF, LOG_HALF])
    o, s = ref.gated_linear_attention(Q2, K2, V2, g, initial_state=np.array([[4.0]]))
    close(o, [[17], [65]])
    close(s, [[32.5]])


def test_gated_per_key_dim_gate():
    # Dk = 2, g_t = [log 0.5, 0]; k_t = [1, 1]; v = [2, 4]
    # S_0 = [[2], [2]], S_1 = [[0.5*2 + 4], [2 + 4]] = [[5], [6]]; q_t = [1, 10]: o = [22, 65]
    q = np.array([[1.0, 10.0], [1.0, 10.0]])
    k = np.array([[1.0, 1.0], [1.0, 1.0]])
    v = np.array([[2.0], [4.0]])
    g = np.array([[LOG_HALF, 0.0], [LOG_HALF, 0.0]])
    o, s = ref.gated_linear_attention(q, k, v, g)
    close(o, [[22], [65]])
    close(s, [[5], [6]])


# Gated three tokens, gate 1/2: q = k = 1, v = [4, 8, 16]
# S_0 = 4, S_1 = 2 + 8 = 10, S_2 = 5 + 16 = 21.
def test_gated_three_token_causal():
    o, s = ref.gated_linear_attention(col(1, 1, 1), col(1, 1, 1), col(4, 8, 16), np.full(3, LOG_HALF))
    close(o, [[4], [10], [21]])
    close(s, [[21]])


def test_gated_prefix2_three_tokens():
    # prefix(2): rows 0, 1 use S_1 = 10, row 2 uses S_2 = 21
    o, s = ref.gated_linear_attention(col(1, 1, 1), col(1, 1, 1), col(4, 8, 16), np.full(3, LOG_HALF),
                                      mask="prefix", prefix_length=2)
    close(o, [[10], [10], [21]])
    close(s, [[21]])


def test_gated_prefix3_is_all_bidirectional():
    o, s = ref.gated_linear_attention(col(1, 1, 1), col(1, 1, 1), col(4, 8, 16), np.full(3, LOG_HALF),
                                      mask="prefix", prefix_length=3)
    close(o, [[21], [21], [21]])
    close(s, [[21]])


# ----------------------------------------------------------------------------------------------
# attention, hand cases: scores 0 and log 3 give softmax [1/4, 3/4]
# ----------------------------------------------------------------------------------------------
K_ATT = col(0.0, LOG_3)
V_ATT = np.array([[1.0, 0.0], [5.0, 8.0]])  # [1/4, 3/4] @ V = [1/4 + 15/4, 6] = [4, 6]


def test_attention_2x2_none():
    o = ref.attention(col(1, 1), K_ATT, V_ATT, mask="none", scale=1.0)
    close(o, [[4, 6], [4, 6]])


def test_attention_2x2_causal():
    # row 0 sees key 0 only -> v_0; row 1 sees both -> [4, 6]
    o = ref.attention(col(1, 1), K_ATT, V_ATT, mask="causal", scale=1.0)
    close(o, [[1, 0], [4, 6]])


def test_attention_default_scale_is_inverse_sqrt_dk():
    # Dk = 4 -> scale 1/2; q = [2, 0, 0, 0] so scores = [0, log 3]
    q = np.array([[2.0, 0, 0, 0], [2.0, 0, 0, 0]])
    k = np.array([[0.0, 0, 0, 0], [LOG_3, 0, 0, 0]])
    close(ref.attention(q, k, V_ATT, mask="causal"), [[1, 0], [4, 6]])


def test_attention_causal_fewer_queries_than_keys():
    # Lq = 2, Lk = 3: query i sees t <= i + 1. Row 0: keys 0, 1 -> [1/4, 3/4] @ [1, 5] = 4;
    # row 1: scores [0, log 3, 0] -> [1, 3, 1]/5 @ [1, 5, 9] = 25/5 = 5
    o = ref.attention(col(1, 1), col(0, LOG_3, 0), col(1, 5, 9), mask="causal", scale=1.0)
    close(o, [[4], [5]])


def test_attention_causal_single_query_sees_all_keys():
    close(ref.attention(col(1), K_ATT, V_ATT, mask="causal", scale=1.0), [[4, 6]])


def test_attention_causal_more_queries_than_keys_empty_row_is_zero():
    # Lq = 3, Lk = 2: query i sees t <= i - 1. Row 0 sees nothing -> zeros; row 1 -> v_0; row 2 -> [4, 6]
    o = ref.attention(col(1, 1, 1), K_ATT, V_ATT, mask="causal", scale=1.0)
    close(o, [[0, 0], [1, 0], [4, 6]])


def test_attention_huge_scores_stay_finite():
    # scores 1e6 and 999000: softmax is [1, e^-1000] = [1, 0] -> o = v_0
    o = ref.attention(col(1000), col(1000, 999), V_ATT, mask="none", scale=1.0)
    assert np.all(np.isfinite(o))
    close(o, [[1, 0]])


# ----------------------------------------------------------------------------------------------
# fold / folded_attention, hand cases
# ----------------------------------------------------------------------------------------------
def test_fold_doubling_body_two_segments_of_one():
    # l = 1, x = [1, 2], M = [10]
    # s = 0: W = [10, 1] -> R = [20, 2]: y_0 = 2, M = 2;  s = 1: W = [2, 2] -> R = [4, 4]: y_1 = 4, M = 4
    y, m = ref.fold(col(1, 2), col(10), 1, lambda w: 2 * w)
    close(y, [[2], [4]])
    close(m, [[4]])


def test_fold_doubling_body_two_segments_of_two():
    # l = 2, x = [1, 2, 3, 4], M = [0, 0]
    # s = 0: W = [0, 0, 1, 2] -> R = [0, 0, 2, 4]: y = [2, 4], M = [2, 4]
    # s = 1: W = [2, 4, 3, 4] -> R = [4, 8, 6, 8]: y = [6, 8], M = [6, 8]
    y, m = ref.fold(col(1, 2, 3, 4), col(0, 0), 2, lambda w: 2 * w)
    close(y, [[2], [4], [6], [8]])
    close(m, [[6], [8]])


def test_fold_cumulative_body_carries_memory():
    # body = inclusive presum over the window; l = 1, x = [1, 2], M = [10]
    # s = 0: W = [10, 1] -> R = [10, 11]: y_0 = 11, M = 11;  s = 1: W = [11, 2] -> R = [11, 13]
    y, m = ref.fold(col(1, 2), col(10), 1, lambda w: np.cumsum(w, axis=-2))
    close(y, [[11], [13]])
    close(m, [[13]])


def test_folded_attention_uniform_single_head():
    # wq = wk = 0 -> every score 0 -> causal uniform average; wv = wo = 1; l = 1, x = [2, 4], M = [0]
    # s = 0: W = [0, 2] -> R = [0, 1]: y_0 = 1, M = 1;  s = 1: W = [1, 4] -> R = [1, 2.5]
    z, one = np.zeros((1, 1)), np.ones((1, 1))
    y, m = ref.folded_attention(col(2, 4), col(0), z, z, one, one, segment_length=1, num_heads=1)
    close(y, [[1], [2.5]])
    close(m, [[2.5]])


def test_folded_attention_output_projection_on_the_right():
    # D = 2, one head, uniform attention, wv = I, wo swaps the columns. l = 1, M = [[0, 0]]
    # s = 0: W = [[0, 0], [2, 10]]: A_1 = [1, 5], R_1 = [5, 1];  M = [5, 1]
    # s = 1: W = [[5, 1], [4, 20]]: A_1 = [4.5, 10.5], R_1 = [10.5, 4.5]
    z, eye, swap = np.zeros((2, 2)), np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])
    y, m = ref.folded_attention(np.array([[2.0, 10.0], [4.0, 20.0]]), np.zeros((1, 2)),
                                z, z, eye, swap, segment_length=1, num_heads=1)
    close(y, [[5, 1], [10.5, 4.5]])
    close(m, [[10.5, 4.5]])


def test_folded_attention_two_heads_split_contiguous_columns():
    # D = 2, h = 2, dh = 1 (scale 1). M = [[0, 2]], x = [[1, 8]] -> W = [[0, 2], [1, 8]].
    # Q = W wq = [[0, 0], [1, 0]], K = W wk = [[0, 0], [log 3, 0]], V = W.
    # head 0 (column 0), row 1: scores [0, log 3] -> [1/4, 3/4] @ [0, 1] = 3/4
    # head 1 (column 1), row 1: scores [0, 0]     -> [1/2, 1/2] @ [2, 8] = 5
    wq = np.array([[1.0, 0.0], [0.0, 0.0]])
    wk = np.array([[LOG_3, 0.0], [0.0, 0.0]])
    y, m = ref.folded_attention(np.array([[1.0, 8.0]]), np.array([[0.0, 2.0]]),
                                wq, wk, np.eye(2), np.eye(2), segment_length=1, num_heads=2)
    close(y, [[0.75, 5]])
    close(m, [[0.75, 5]])


# ----------------------------------------------------------------------------------------------
# rel_l2
# ----------------------------------------------------------------------------------------------
def test_rel_l2_values():
    assert ref.rel_l2(np.array([3.0, 4.0]), np.array([3.0, 4.0])) == 0.0
    assert ref.rel_l2(np.array([3.0, 0.0]), np.array([0.0, 4.0])) == pytest.approx(5 / 4)
    assert ref.rel_l2(np.array([3.0, 4.0]), np.zeros(2)) == pytest.approx(5.0)  # ||ref|| = 0


# ----------------------------------------------------------------------------------------------
# error cases (the SPEC's verifier errors)
# ----------------------------------------------------------------------------------------------
def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        ref.linear_attention(Q2, K2, V2, mask="prefix", prefix_length=3)
    with pytest.raises(ValueError):
        ref.linear_attention(Q2, K2, V2, mask="sliding")
    with pytest.raises(ValueError):
        ref.linear_attention(Q2, K2, V2, feature_map="gelu")
    with pytest.raises(ValueError):
        ref.linear_attention(Q2, K2, V2, normalize=True, initial_state=np.zeros((1, 1)))
    with pytest.raises(ValueError):
        ref.fold(col(1, 2, 3), col(0, 0), 2, lambda w: w)


def test_gated_none_is_prefix_of_whole_sequence():
    rng = np.random.default_rng(7)
    q, k, v = rand(rng, 2, 5, 3), rand(rng, 2, 5, 3), rand(rng, 2, 5, 4)
    g = -rng.random((2, 5, 3))
    o, s = ref.gated_linear_attention(q, k, v, g, mask="none")
    o_prefix, s_prefix = ref.gated_linear_attention(q, k, v, g, mask="prefix", prefix_length=5)
    np.testing.assert_array_equal(o, o_prefix)
    np.testing.assert_array_equal(s, s_prefix)
    # every row reads the decayed final state
    np.testing.assert_allclose(o, np.einsum("blk,bkv->blv", q, s))


# ----------------------------------------------------------------------------------------------
# property tests on random inputs
# ----------------------------------------------------------------------------------------------
def rand(rng, *shape):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("feature_map", ["identity", "elu_plus_one", "relu"])
@pytest.mark.parametrize("normalize", [False, True])
def test_linear_attention_prefix0_equals_causal_and_prefixL_equals_none(feature_map, normalize):
    rng = np.random.default_rng(0)
    q, k, v = rand(rng, 2, 7, 4), rand(rng, 2, 7, 4), rand(rng, 2, 7, 3)
    kw = dict(feature_map=feature_map, normalize=normalize, scale=0.7)
    o_p0, s_p0 = ref.linear_attention(q, k, v, mask="prefix", prefix_length=0, **kw)
    o_c, s_c = ref.linear_attention(q, k, v, mask="causal", **kw)
    o_pL, s_pL = ref.linear_attention(q, k, v, mask="prefix", prefix_length=7, **kw)
    o_n, s_n = ref.linear_attention(q, k, v, mask="none", **kw)
    close(o_p0, o_c)
    close(o_pL, o_n)
    close(s_p0, s_n)
    close(s_pL, s_n)


@pytest.mark.parametrize("mask,j", [("none", None), ("causal", None), ("prefix", 3)])
@pytest.mark.parametrize("feature_map", ["identity", "elu_plus_one", "relu"])
def test_linear_attention_final_state_is_s0_plus_phiK_T_V(mask, j, feature_map):
    rng = np.random.default_rng(1)
    q, k, v, s0 = rand(rng, 3, 6, 4), rand(rng, 3, 6, 4), rand(rng, 3, 6, 5), rand(rng, 3, 4, 5)
    _, s = ref.linear_attention(q, k, v, mask=mask, prefix_length=j, feature_map=feature_map,
                                initial_state=s0)
    phi_k = ref.feature_map_fn(feature_map)(k)
    close(s, s0 + np.swapaxes(phi_k, -1, -2) @ v)


def test_linear_attention_batch_dims_match_loop():
    rng = np.random.default_rng(2)
    q, k, v, s0 = rand(rng, 2, 3, 5, 4), rand(rng, 2, 3, 5, 4), rand(rng, 2, 3, 5, 2), rand(rng, 2, 3, 4, 2)
    o, s = ref.linear_attention(q, k, v, mask="prefix", prefix_length=2, feature_map="relu",
                                initial_state=s0)
    assert o.shape == (2, 3, 5, 2) and s.shape == (2, 3, 4, 2)
    for a in range(2):
        for b in range(3):
            o1, s1 = ref.linear_attention(q[a, b], k[a, b], v[a, b], mask="prefix", prefix_length=2,
                                          feature_map="relu", initial_state=s0[a, b])
            close(o[a, b], o1)
            close(s[a, b], s1)


@pytest.mark.parametrize("scalar_gate", [False, True])
def test_gated_batch_dims_match_loop(scalar_gate):
    rng = np.random.default_rng(3)
    q, k, v = rand(rng, 2, 3, 5, 4), rand(rng, 2, 3, 5, 4), rand(rng, 2, 3, 5, 2)
    g = -np.abs(rand(rng, 2, 3, 5) if scalar_gate else rand(rng, 2, 3, 5, 4))
    o, s = ref.gated_linear_attention(q, k, v, g, mask="prefix", prefix_length=3)
    for a in range(2):
        for b in range(3):
            o1, s1 = ref.gated_linear_attention(q[a, b], k[a, b], v[a, b], g[a, b],
                                                mask="prefix", prefix_length=3)
            close(o[a, b], o1)
            close(s[a, b], s1)


def test_attention_and_fold_batch_dims_match_loop():
    rng = np.random.default_rng(4)
    q, k, v = rand(rng, 2, 3, 4, 4), rand(rng, 2, 3, 6, 4), rand(rng, 2, 3, 6, 2)
    o = ref.attention(q, k, v, mask="causal")
    x, mem = rand(rng, 2, 3, 6, 4), rand(rng, 2, 3, 2, 4)
    w = [rand(rng, 4, 4) for _ in range(4)]
    y, m = ref.folded_attention(x, mem, *w, segment_length=2, num_heads=2)
    for a in range(2):
        for b in range(3):
            close(o[a, b], ref.attention(q[a, b], k[a, b], v[a, b], mask="causal"))
            y1, m1 = ref.folded_attention(x[a, b], mem[a, b], *w, segment_length=2, num_heads=2)
            close(y[a, b], y1)
            close(m[a, b], m1)


@pytest.mark.parametrize("mask,j", [("causal", None), ("prefix", 0), ("prefix", 4), ("prefix", 6)])
@pytest.mark.parametrize("scalar_gate", [False, True])
def test_gated_with_zero_gate_equals_ungated(mask, j, scalar_gate):
    rng = np.random.default_rng(5)
    q, k, v, s0 = rand(rng, 2, 6, 3), rand(rng, 2, 6, 3), rand(rng, 2, 6, 4), rand(rng, 2, 3, 4)
    g = np.zeros((2, 6) if scalar_gate else (2, 6, 3))
    o_g, s_g = ref.gated_linear_attention(q, k, v, g, mask=mask, prefix_length=j, scale=0.3,
                                          initial_state=s0)
    o, s = ref.linear_attention(q, k, v, mask=mask, prefix_length=j, scale=0.3, initial_state=s0)
    close(o_g, o)
    close(s_g, s)


def test_gated_scalar_gate_equals_broadcast_per_dim_gate():
    rng = np.random.default_rng(6)
    q, k, v = rand(rng, 5, 3), rand(rng, 5, 3), rand(rng, 5, 2)
    g = -np.abs(rand(rng, 5))
    o1, s1 = ref.gated_linear_attention(q, k, v, g)
    o2, s2 = ref.gated_linear_attention(q, k, v, np.repeat(g[:, None], 3, axis=1))
    close(o1, o2)
    close(s1, s2)


def test_gated_prefix_state_matches_spec_one_matmul_form():
    # SPEC note: S_{j-1} = diag(exp(b_{j-1})) S0 + sum_{t<j} diag(exp(b_{j-1} - b_t)) k_t^T v_t, b = presum(g)
    rng = np.random.default_rng(7)
    L, j = 6, 4
    q, k, v, s0 = rand(rng, L, 3), rand(rng, L, 3), rand(rng, L, 2), rand(rng, 3, 2)
    g = -np.abs(rand(rng, L, 3))
    o, _ = ref.gated_linear_attention(q, k, v, g, mask="prefix", prefix_length=j, initial_state=s0)
    b = ref.presum(g)
    s_prefix = np.exp(b[j - 1])[:, None] * s0 + (np.exp(b[j - 1] - b[:j]) * k[:j]).T @ v[:j]
    close(o[:j], q[:j] @ s_prefix)


def test_gated_strong_decay_stays_finite():
    rng = np.random.default_rng(8)
    q, k, v = rand(rng, 64, 4), rand(rng, 64, 4), rand(rng, 64, 4)
    o, s = ref.gated_linear_attention(q, k, v, np.full((64, 4), -20.0), mask="prefix", prefix_length=32)
    assert np.all(np.isfinite(o)) and np.all(np.isfinite(s))
    # with exp(-20) ~ 2e-9 the state is essentially the last token's k^T v
    np.testing.assert_allclose(s, np.outer(k[-1], v[-1]), atol=1e-7)


def test_fold_equals_body_on_whole_sequence_for_rowwise_body():
    # a row-wise body does not mix rows, so folding it equals applying it to x directly
    rng = np.random.default_rng(9)
    x, mem = rand(rng, 2, 8, 3), rand(rng, 2, 2, 3)
    w = rand(rng, 3, 3)
    y, m = ref.fold(x, mem, 2, lambda win: np.tanh(win @ w))
    close(y, np.tanh(x @ w))
    close(m, np.tanh(x[:, -2:] @ w))
