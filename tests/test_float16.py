"""float16 through every attention path agrees with float64 to float16 precision (issue 13, items 1 and 14).

The reference is computed in float64 from the *same* float16 inputs, so the only error left is the
rounding of the result: a float16 result is right when it is within one float16 spacing (ulp) of
the float64 value. Accumulating in float16 instead gives inf (a sum past 65504) or 0 (a sum of
70,000 weights that overflows), or errors several times larger than PyTorch's
(test_torch_crosscheck.py compares the two).
"""

import numpy as np
import pytest

import attn_lib.core as core
from attn_lib import multi_head_attention, scaled_dot_product_attention, softmax
from attn_lib.efficient import KVCache, blocked_attention_with_weights, tiled_attention


def assert_float16_close(got, reference):
    """`got` is float16 and within one float16 spacing of the float64 `reference`, everywhere."""
    assert got.dtype == np.float16 and got.shape == reference.shape
    assert np.isfinite(got).all()
    ulp = np.spacing(np.abs(reference).astype(np.float16)).astype(np.float64)  # >= 2^-24 even at 0
    error = np.abs(got.astype(np.float64) - reference)
    worst = np.unravel_index(np.argmax(error / ulp), error.shape)
    assert (error <= ulp).all(), f"at {worst}: got {got[worst]}, float64 gives {reference[worst]}"


def float64_attention(q, k, v, mask=None):
    """The float64 result for the float16 inputs: plain numpy, written out here."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def issue_inputs(n_q=4, n_k=2048, d=64, seed=0, q_scale=0.05):
    """The issue's reproduction: q = 0.05 N(0, 1), k = N(0, 1), v = 40 + N(0, 1), all float16."""
    rng = np.random.default_rng(seed)
    q = (q_scale * rng.standard_normal((n_q, d))).astype(np.float16)
    k = rng.standard_normal((n_k, d)).astype(np.float16)
    v = (40 + rng.standard_normal((n_k, d))).astype(np.float16)
    return q, k, v


def kv_cache_outputs(q, k, v):
    """Each query attends over every stored key, one decoding step at a time."""
    cache = KVCache(k.shape[-2], d_k=k.shape[-1], d_v=v.shape[-1], dtype=np.float16)
    cache.append(k, v)
    return np.stack([cache.attend(q_t) for q_t in q])


PATHS = {
    "scaled_dot_product_attention": lambda q, k, v: scaled_dot_product_attention(q, k, v)[0],
    "blocked (core's path for long inputs)": lambda q, k, v: blocked_attention_with_weights(q, k, v, block_bytes=4096)[
        0
    ],
    "tiled_attention": lambda q, k, v: tiled_attention(q, k, v),
    "KVCache": kv_cache_outputs,
}


@pytest.mark.parametrize("path", list(PATHS))
def test_the_issues_float16_input_gives_about_40_on_every_path(path):
    q, k, v = issue_inputs()
    expected, _ = float64_attention(q, k, v)
    assert_float16_close(PATHS[path](q, k, v), expected)


@pytest.mark.parametrize("path", list(PATHS))
def test_seventy_thousand_keys_in_float16(path):
    """Nearly equal scores: a float16 sum of 70,000 terms near 1 overflows, and every weight (1.4e-5) became 0."""
    q, k, v = issue_inputs(n_q=3, n_k=70_000, d=8, seed=1, q_scale=1e-3)
    expected, _ = float64_attention(q, k, v)
    assert_float16_close(PATHS[path](q, k, v), expected)


@pytest.mark.parametrize("n_q", [1, 4])  # 1 x 70,000 scores take the short path, 4 x 70,000 the blocked one
def test_seventy_thousand_keys_weights_in_float16(n_q):
    q, k, v = issue_inputs(n_q=n_q, n_k=70_000, d=8, seed=2, q_scale=1e-3)
    assert (n_q * 70_000 > core.BLOCKED_MIN_SCORES) == (n_q == 4)
    out, w = scaled_dot_product_attention(q, k, v)
    expected_out, expected_w = float64_attention(q, k, v)
    assert_float16_close(out, expected_out)
    assert_float16_close(w, expected_w)


def test_softmax_of_seventy_thousand_zeros_in_float16():
    got = softmax(np.zeros(70_000, np.float16))
    assert_float16_close(got, np.full(70_000, 1 / 70_000))


def test_float16_softmax_of_large_logits():
    x = np.array([[60000.0, 59990.0, -60000.0]], dtype=np.float16)
    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max())
    assert_float16_close(softmax(x), e / e.sum())


@pytest.mark.parametrize("path", ["sdpa", "tiled", "kv"])
def test_float16_with_a_causal_mask_and_scores_beyond_float16(path):
    """Scores of about 1e5 overflow float16 but not float32: no error, and the right numbers."""
    rng = np.random.default_rng(3)
    q = (150 * rng.standard_normal((6, 16))).astype(np.float16)
    k = (250 * rng.standard_normal((6, 16))).astype(np.float16)
    v = rng.standard_normal((6, 5)).astype(np.float16)
    mask = np.tril(np.ones((6, 6), dtype=bool))
    expected, _ = float64_attention(q, k, v, mask)
    assert np.abs(q.astype(np.float64) @ k.T.astype(np.float64) / 4).max() > 65504
    if path == "sdpa":
        got = scaled_dot_product_attention(q, k, v, mask=mask)[0]
    elif path == "tiled":
        got = tiled_attention(q, k, v, causal=True, block_q=4, block_k=2)
    else:
        cache = KVCache(6, d_k=16, d_v=5, dtype=np.float16)
        got = np.stack([cache.decode_step(q[t], k[t], v[t]) for t in range(6)])
    assert_float16_close(got, expected)


def test_float16_multi_head_attention():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 5, 12)).astype(np.float16)
    w = [(rng.standard_normal((12, 12)) / np.sqrt(12)).astype(np.float16) for _ in range(4)]
    out, weights = multi_head_attention(x, *w, 3)
    expected_out, expected_weights = multi_head_attention(x.astype(np.float64), *(m.astype(np.float64) for m in w), 3)
    assert_float16_close(out, expected_out)
    assert_float16_close(weights, expected_weights)


def test_float16_multi_head_output_that_does_not_fit_float16_is_an_error():
    x = np.ones((2, 4), np.float16)
    eye = np.eye(4, dtype=np.float16)
    with pytest.raises(ValueError, match=r"the output heads @ w_o holds 1\.2e\+05 .* overflows float16 .* rescale w_o"):
        multi_head_attention(x, eye, eye, eye * 200, np.full((4, 4), 150, np.float16), 1)


def test_float32_and_float64_are_still_computed_in_their_own_dtype():
    q, k, v = issue_inputs(n_q=3, n_k=50, d=8)
    for dtype in (np.float32, np.float64):
        out, w = scaled_dot_product_attention(q.astype(dtype), k.astype(dtype), v.astype(dtype))
        assert out.dtype == w.dtype == dtype
        assert tiled_attention(q.astype(dtype), k.astype(dtype), v.astype(dtype)).dtype == dtype
