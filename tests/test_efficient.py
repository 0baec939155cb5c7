"""Efficient attention (attn_lib.efficient and core's blocked path) gives the same numbers as the formula."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_lib.core as core
from attn_lib import causal_mask, scaled_dot_product_attention
from attn_lib.efficient import KVCache, blocked_attention_with_weights, tiled_attention

FAST = settings(deadline=None, max_examples=30)
TOL = {np.float64: 1e-12, np.float32: 1e-5}

seeds = st.integers(0, 2**32 - 1)
dtypes = st.sampled_from([np.float64, np.float32])


def distinct(count, low=1, high=9):
    """`count` different sizes, so that a swapped axis cannot pass."""
    return st.lists(st.integers(low, high), min_size=count, max_size=count, unique=True)


def plain_attention(q, k, v, mask=None):
    """softmax(Q K^T / sqrt(d_k) + M) V written plainly with numpy (bool mask; no fully masked row)."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def causal_rect(n_q, n_k):
    """The mask `tiled_attention(causal=True)` means: query i is position n_k - n_q + i of the sequence."""
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def close(actual, expected, dtype):
    np.testing.assert_allclose(actual, expected, rtol=TOL[dtype], atol=TOL[dtype])


# --- tiled attention with an online softmax -----------------------------------------------------------


@FAST
@given(distinct(5), st.integers(1, 12), st.integers(1, 12), st.booleans(), st.booleans(), dtypes, seeds)
def test_tiled_equals_scaled_dot_product_attention(dims, block_q, block_k, causal, use_mask, dtype, seed):
    heads, n_q, n_k, d_k, d_v = dims
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(2, heads, n_q, d_k)).astype(dtype)
    k = rng.normal(size=(heads, n_k, d_k)).astype(dtype)  # batch dims broadcast, as in core
    v = rng.normal(size=(1, n_k, d_v)).astype(dtype)
    mask = rng.random((heads, n_q, n_k)) < 0.7 if use_mask else None
    full = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    expected, _ = scaled_dot_product_attention(q, k, v, mask=full & causal_rect(n_q, n_k) if causal else mask)
    actual = tiled_attention(q, k, v, mask=mask, causal=causal, block_q=block_q, block_k=block_k)
    assert actual.dtype == dtype and actual.shape == expected.shape == (2, heads, n_q, d_v)
    close(actual, expected, dtype)


@FAST
@given(distinct(3, high=20), st.integers(1, 7), dtypes, seeds)
def test_tiled_float_mask_and_scale(dims, block, dtype, seed):
    n_q, n_k, d_k = dims
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(n, d_k)).astype(dtype) for n in (n_q, n_k, n_k))
    mask = np.where(rng.random((n_q, n_k)) < 0.8, rng.normal(size=(n_q, n_k)), -np.inf)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=mask, scale=0.3)
    close(tiled_attention(q, k, v, mask=mask, scale=0.3, block_q=block, block_k=block + 2), expected, dtype)


def test_tiled_row_without_visible_key_gives_zeros_not_nan():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(5, 4)), rng.normal(size=(7, 4)), rng.normal(size=(7, 3))
    mask = rng.random((5, 7)) < 0.5
    mask[2] = False
    out = tiled_attention(q, k, v, mask=mask, block_q=2, block_k=3)
    assert np.all(out[2] == 0) and np.isfinite(out).all()
    close(out, scaled_dot_product_attention(q, k, v, mask=mask)[0], np.float64)
    # more queries than keys with causal=True: the first queries see no key at all
    out = tiled_attention(rng.normal(size=(9, 4)), k, v, causal=True, block_k=2)
    assert np.all(out[:2] == 0) and np.all(out[2:] != 0)


@settings(deadline=None, max_examples=15)
@given(st.integers(2, 40), st.integers(1, 9), seeds)
def test_tiled_causal_output_ignores_the_future(n, block, seed):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(n, 6)) for _ in range(3))
    t = int(rng.integers(1, n))
    k2, v2 = k.copy(), v.copy()
    k2[t:], v2[t:] = rng.normal(size=(n - t, 6)) * 5, rng.normal(size=(n - t, 6)) * 5
    a = tiled_attention(q, k, v, causal=True, block_q=block, block_k=block)
    b = tiled_attention(q, k2, v2, causal=True, block_q=block, block_k=block)
    np.testing.assert_array_equal(a[:t], b[:t])
    assert not np.allclose(a[t:], b[t:])


def test_tiled_long_sequence_float32():
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(2, 700, 16)).astype(np.float32) for _ in range(3))
    expected, _ = plain_attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), causal_mask(700))
    actual = tiled_attention(q, k, v, causal=True, block_q=96, block_k=160)
    assert actual.dtype == np.float32
    close(actual, expected, np.float32)


# --- core's blocked path for long inputs ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("masked", [False, True])
def test_core_blocked_path_equals_plain_formula(dtype, masked):
    n_q, n_k = 515, 523
    assert n_q * n_k > core.BLOCKED_MIN_SCORES  # the long-input path is the one under test
    rng = np.random.default_rng(2)
    q = rng.normal(size=(3, n_q, 8)).astype(dtype)
    k = rng.normal(size=(n_k, 8)).astype(dtype)
    v = rng.normal(size=(3, n_k, 5)).astype(dtype)
    mask = causal_rect(n_q, n_k) if masked else None
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    wide = [x.astype(np.float64) for x in (q, k, v)]
    expected_output, expected_weights = plain_attention(*wide, mask)
    assert output.dtype == weights.dtype == dtype
    assert output.shape == (3, n_q, 5) and weights.shape == (3, n_q, n_k)
    close(output, expected_output, dtype)
    close(weights, expected_weights, dtype)


def test_core_blocked_path_float_mask_and_fully_masked_row(monkeypatch):
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 7, 3)), rng.normal(size=(2, 7, 4))
    mask = np.where(rng.random((6, 7)) < 0.7, rng.normal(size=(6, 7)), -np.inf)
    mask[4] = -np.inf
    plain = scaled_dot_product_attention(q, k, v, mask=mask)
    monkeypatch.setattr(core, "BLOCKED_MIN_SCORES", 0)  # force the blocked path on a small input
    monkeypatch.setattr(core, "_BLOCK_BYTES", 3 * 7 * 8)  # three rows per block: blocks that don't divide 6
    blocked = scaled_dot_product_attention(q, k, v, mask=mask)
    for a, b in zip(blocked, plain, strict=True):
        close(a, b, np.float64)
    assert np.all(blocked[1][:, 4] == 0) and np.all(blocked[0][:, 4] == 0)


@FAST
@given(distinct(5), st.integers(1, 200), st.booleans(), dtypes, seeds)
def test_blocked_with_weights_equals_scaled_dot_product_attention(dims, block_bytes, use_mask, dtype, seed):
    heads, n_q, n_k, d_k, d_v = dims
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(heads, n_q, d_k)).astype(dtype)
    k, v = rng.normal(size=(n_k, d_k)).astype(dtype), rng.normal(size=(heads, n_k, d_v)).astype(dtype)
    mask = rng.random((n_q, n_k)) < 0.6 if use_mask else None
    expected = scaled_dot_product_attention(q, k, v, mask=mask)
    actual = blocked_attention_with_weights(q, k, v, mask=mask, block_bytes=block_bytes)
    for a, b in zip(actual, expected, strict=True):
        assert a.dtype == dtype and a.shape == b.shape
        close(a, b, dtype)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_blocked_path_reports_overflow_like_the_plain_path():
    q = np.full((520, 4), 1e30, dtype=np.float32)
    with pytest.raises(ValueError, match="overflowed float32"):
        scaled_dot_product_attention(q, q, q)  # 520 * 520 scores: the blocked path
    with pytest.raises(ValueError, match="overflowed float32"):
        tiled_attention(q, q, q)


def test_huge_but_orthogonal_inputs_are_checked_and_accepted():
    # |q| and |k| are huge, so the cheap bound cannot rule out an overflow and every score is checked,
    # but q lives in coordinate 0 and k in coordinate 1: every score is exactly 0, uniform weights
    q, k = np.zeros((520, 2), dtype=np.float32), np.zeros((510, 2), dtype=np.float32)
    q[:, 0], k[:, 1] = 1e30, -1e30
    v = np.random.default_rng(4).normal(size=(510, 3)).astype(np.float32)
    output, weights = scaled_dot_product_attention(q, k, v)  # 520 * 510 scores: the blocked path
    close(weights, np.full((520, 510), 1 / 510), np.float32)
    close(output, np.broadcast_to(v.mean(axis=0), (520, 3)), np.float32)
    close(tiled_attention(q, k, v, block_q=100, block_k=64), output, np.float32)


# --- KV cache -------------------------------------------------------------------------------------------


@FAST
@given(distinct(4, high=12), st.integers(0, 5), dtypes, seeds)
def test_kv_cache_decoding_equals_full_causal_attention(dims, prompt, dtype, seed):
    heads, n, d_k, d_v = dims
    prompt = min(prompt, n)
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(heads, n, d)).astype(dtype) for d in (d_k, d_k, d_v))
    expected, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    cache = KVCache(capacity=n + 2, d_k=d_k, d_v=d_v, batch_shape=(heads,), dtype=dtype)
    outputs = []
    if prompt:  # the prompt's tokens in one call, causally masked among themselves
        cache.append(k[:, :prompt], v[:, :prompt])
        outputs.append(cache.attend(q[:, :prompt]))
    for t in range(prompt, n):  # then one token per step
        step = cache.decode_step(q[:, t], k[:, t], v[:, t])
        assert step.shape == (heads, d_v) and step.dtype == dtype
        outputs.append(step[:, None, :])
    assert cache.length == n
    actual = np.concatenate(outputs, axis=-2)
    assert actual.dtype == dtype
    close(actual, expected, dtype)


def test_kv_cache_keeps_float32_and_casts_float64_input():
    cache = KVCache(4, d_k=3)
    out = cache.decode_step(np.ones(3), np.ones(3), np.arange(3.0))
    assert cache.keys.dtype == out.dtype == np.float32
    np.testing.assert_array_equal(out, np.arange(3.0, dtype=np.float32))  # one key: weight 1 on its value


# --- bad input ------------------------------------------------------------------------------------------


def test_tiled_bad_input_messages():
    q, k, v = np.ones((4, 3)), np.ones((5, 3)), np.ones((5, 2))
    with pytest.raises(ValueError, match="block_q=0 must be a positive integer"):
        tiled_attention(q, k, v, block_q=0)
    with pytest.raises(TypeError, match="block_k must be a positive integer, got float 2.5"):
        tiled_attention(q, k, v, block_k=2.5)
    with pytest.raises(TypeError, match="causal must be True or False"):
        tiled_attention(q, k, v, causal="yes")
    with pytest.raises(ValueError, match="q has d_k=3 but k has d_k=2"):
        tiled_attention(q, np.ones((5, 2)), v)
    with pytest.raises(ValueError, match=r"mask of shape \(4, 4\) does not broadcast"):
        tiled_attention(q, k, v, mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="k contains NaN"):
        tiled_attention(q, np.full((5, 3), np.nan), v)
    with pytest.raises(ValueError, match="scale=-1"):
        tiled_attention(q, k, v, scale=-1)
    with pytest.raises(ValueError, match="block_bytes=0 must be a positive integer"):
        blocked_attention_with_weights(q, k, v, block_bytes=0)


def test_kv_cache_bad_input_messages():
    with pytest.raises(ValueError, match="capacity=0 must be a positive integer"):
        KVCache(0, d_k=4)
    with pytest.raises(TypeError, match="dtype must be a floating dtype"):
        KVCache(3, d_k=4, dtype=np.int32)
    cache = KVCache(2, d_k=4, d_v=3, batch_shape=(5,))
    with pytest.raises(ValueError, match="the cache is empty"):
        cache.attend(np.ones((5, 4)))
    with pytest.raises(ValueError, match=r"k_t must have shape .* batch_shape \(5,\) and d=4, got shape \(5, 3\)"):
        cache.append(np.ones((5, 3)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="k_t holds 2 tokens but v_t holds 1"):
        cache.append(np.ones((5, 2, 4)), np.ones((5, 1, 3)))
    cache.append(np.ones((5, 2, 4)), np.ones((5, 2, 3)))
    with pytest.raises(ValueError, match="holds 2 of capacity=2 positions and cannot take 1 more"):
        cache.append(np.ones((5, 4)), np.ones((5, 3)))
    with pytest.raises(ValueError, match="q_t holds 3 queries but the cache holds only 2 tokens"):
        cache.attend(np.ones((5, 3, 4)))


# --- masks that only broadcast (size-1 or missing dimensions), with blocks smaller than n ----------------


@pytest.mark.parametrize("mask_shape", [(1, 9), (7, 1), (9,), (2, 1, 1, 9), (1, 3, 7, 9)])
@pytest.mark.parametrize("kind", ["bool", "float"])
def test_tiled_attention_accepts_every_broadcastable_mask(mask_shape, kind):
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, 3, 7, 4))  # batch 2, heads 3, n_q 7, d_k 4
    k = rng.standard_normal((2, 3, 9, 4))  # n_k 9
    v = rng.standard_normal((2, 3, 9, 5))  # d_v 5
    allowed = rng.random(mask_shape) < 0.7
    mask = allowed if kind == "bool" else np.where(allowed, 0.0, -1e4) + 0.1 * rng.standard_normal(mask_shape)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=mask)
    for block_q, block_k in [(2, 2), (3, 4), (7, 9)]:
        got = tiled_attention(q, k, v, mask=mask, block_q=block_q, block_k=block_k)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_a_float_mask_that_overflows_the_scores_is_an_error():
    q = k = v = np.full((1, 2, 2), 7e153)  # scores about 6.9e307: finite
    mask = np.array([[1.5e308, 0.0], [0.0, 0.0]])  # finite too, but the sum overflows
    with pytest.raises(ValueError, match=r"scores \+ mask overflowed to \+inf"):
        scaled_dot_product_attention(q, k, v, mask=mask)
    with pytest.raises(ValueError, match=r"scores \+ mask overflowed to \+inf"):
        tiled_attention(q, k, v, mask=mask, block_q=1, block_k=1)
    with pytest.raises(ValueError, match=r"scores \+ mask overflowed to \+inf"):
        blocked_attention_with_weights(q, k, v, mask=mask, block_bytes=8)


# --- hardening (issue 13): atomic decoding steps, values that overflow the cache, shapes every path agrees on --


def test_a_decode_step_that_fails_stores_nothing_and_can_be_retried():
    rng = np.random.default_rng(7)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    expected, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(4))
    cache = KVCache(4, d_k=3, d_v=2, dtype=np.float64)
    outputs = [cache.decode_step(q[0], k[0], v[0])]
    for bad_call, message in [
        (lambda: cache.decode_step(np.ones(5), k[1], v[1]), "q_t must have shape"),  # q_t of the wrong width
        (lambda: cache.decode_step(q[1], k[1], v[1], scale=-1.0), "scale=-1.0"),
        (lambda: cache.decode_step(q[1], k[1], np.ones(3)), "v_t must have shape"),
        (lambda: cache.decode_step(np.full(3, 1e300), np.full(3, 1e10), v[1]), "overflowed"),  # fails in attend
    ]:
        with np.errstate(over="ignore"), pytest.raises(ValueError, match=message):
            bad_call()
        assert cache.length == 1
    outputs += [cache.decode_step(q[t], k[t], v[t]) for t in range(1, 4)]  # the retry stores the token once
    np.testing.assert_allclose(np.stack(outputs), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", ["append", "decode_step"])
def test_a_finite_value_that_overflows_the_cache_dtype_is_refused(method):
    cache = KVCache(3, d_k=2, dtype=np.float32)
    k_t, v_t = np.array([1.0, 2.0]), np.array([1e39, 0.0])  # finite in float64, inf in float32
    call = (lambda: cache.append(k_t, v_t)) if method == "append" else (lambda: cache.decode_step(k_t, k_t, v_t))
    with pytest.raises(
        ValueError, match=r"v_t holds 1e\+39 at index \(0,\), which overflows float32 .*dtype=np.float64"
    ):
        call()
    assert cache.length == 0 and np.isfinite(cache.values).all()
    with pytest.raises(ValueError, match=r"q_t holds -1e\+39 .* overflows float32"):
        cache.decode_step(np.array([-1e39, 0.0]), k_t, np.zeros(2))
    assert cache.length == 0


def test_kv_cache_dtype_must_be_a_floating_dtype_by_name():
    with pytest.raises(
        TypeError, match="dtype must be a floating dtype such as np.float32 or np.float64, got the string"
    ):
        KVCache(3, d_k=4, dtype="foo")


def test_tiled_accepts_values_with_a_larger_batch_than_queries_and_keys():
    rng = np.random.default_rng(8)
    q, k, v = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(5, 4, 6))  # v: [5, n_k, d_v]
    expected, _ = scaled_dot_product_attention(q, k, v)
    for causal in (False, True):
        reference = scaled_dot_product_attention(q, k, v, mask=causal_rect(3, 4) if causal else None)[0]
        actual = tiled_attention(q, k, v, causal=causal, block_q=2, block_k=3)
        assert actual.shape == expected.shape == (5, 3, 6)
        close(actual, reference, np.float64)


@pytest.mark.parametrize(
    ("q_shape", "k_shape", "v_shape"),
    [
        ((0, 2), (4, 2), (4, 3)),
        ((0, 3, 2), (4, 2), (4, 3)),
        ((2, 0, 2), (2, 4, 2), (4, 3)),
        ((3, 2), (0, 4, 2), (4, 3)),
    ],
)
def test_zero_queries_or_an_empty_batch_give_empty_results_on_every_path(q_shape, k_shape, v_shape):
    q, k, v = np.ones(q_shape, np.float32), np.ones(k_shape, np.float32), np.ones(v_shape, np.float32)
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.size == w.size == 0 and out.dtype == np.float32
    blocked_out, blocked_w = blocked_attention_with_weights(q, k, v, block_bytes=64)
    assert (blocked_out.shape, blocked_w.shape) == (out.shape, w.shape)
    for causal in (False, True):
        tiled = tiled_attention(q, k, v, causal=causal)
        assert tiled.shape == out.shape and tiled.dtype == np.float32
