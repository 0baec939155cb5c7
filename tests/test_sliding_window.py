"""Sliding-window attention: the mask, its composition with the causal mask, the receptive field over
layers, and tiled_attention(window=) skipping what the window excludes while staying exact."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_lib.efficient as efficient
from attn_lib import causal_mask, scaled_dot_product_attention
from attn_lib.efficient import tiled_attention
from attn_lib.sliding_window import receptive_field, receptive_field_mask, sliding_window_mask

FAST = settings(deadline=None, max_examples=40)
seeds = st.integers(0, 2**32 - 1)


def loop_window(n, window, causal=True):
    """The definition, one entry at a time: query i may see key j when 0 <= i - j < window (|i - j| < window)."""
    return np.array([[(0 <= i - j < window) if causal else abs(i - j) < window for j in range(n)] for i in range(n)])


# --- the mask ---------------------------------------------------------------------------------------


@given(st.integers(1, 30), st.integers(1, 35), st.booleans())
def test_the_mask_is_its_definition(n, window, causal):
    mask = sliding_window_mask(n, window, causal=causal)
    assert mask.dtype == bool and mask.shape == (n, n)
    np.testing.assert_array_equal(mask, loop_window(n, window, causal))


@given(st.integers(1, 30), st.integers(1, 35))
def test_the_window_contains_the_causal_mask_and_composes_with_it(n, window):
    mask = sliding_window_mask(n, window)
    np.testing.assert_array_equal(mask & causal_mask(n), mask)  # nothing in the future: & causal changes nothing
    np.testing.assert_array_equal(sliding_window_mask(n, window, causal=False) & causal_mask(n), mask)  # band & causal
    assert (mask.sum(axis=-1) == np.minimum(np.arange(1, n + 1), window)).all()  # query i sees min(i + 1, W) keys
    assert mask.diagonal().all()  # every query sees itself: no fully masked row


def test_extreme_windows():
    np.testing.assert_array_equal(sliding_window_mask(6, 6), causal_mask(6))
    np.testing.assert_array_equal(sliding_window_mask(6, 100), causal_mask(6))
    np.testing.assert_array_equal(sliding_window_mask(6, 1), np.eye(6, dtype=bool))
    assert sliding_window_mask(6, 6, causal=False).all()


def test_the_mask_composes_with_padding():
    padding = np.array([False, True, True, True, True])  # key 0 is padding
    mask = sliding_window_mask(5, 2) & padding
    assert not mask[:, 0].any() and not mask[0].any()  # query 0 sees nothing: its own key is padding
    out, weights = scaled_dot_product_attention(np.ones((5, 3)), np.ones((5, 3)), np.eye(5, 3), mask=mask)
    assert np.all(weights[0] == 0) and np.all(out[0] == 0)  # a fully masked row: zeros, never NaN


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: sliding_window_mask(5, 0), ValueError, "window=0 must be a positive integer"),
        (lambda: sliding_window_mask(5, 2.5), TypeError, "window must be a positive integer, got float"),
        (lambda: sliding_window_mask(0, 2), ValueError, "n=0 must be a positive integer"),
        (lambda: sliding_window_mask(5, 2, causal="yes"), TypeError, "causal must be True or False"),
        (lambda: receptive_field_mask(np.ones((3, 4), bool), 2), ValueError, "mask must be a square boolean array"),
        (lambda: receptive_field_mask(np.ones((3, 3)), 2), ValueError, "mask must be a square boolean array"),
        (lambda: receptive_field_mask(causal_mask(3), 0), ValueError, "n_layers=0 must be a positive integer"),
        (lambda: receptive_field(0, 3), ValueError, "window=0 must be a positive integer"),
        (lambda: tiled_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), window=0), ValueError, "window=0"),
    ],
)
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- the receptive field over layers -----------------------------------------------------------------


def loop_reach(mask, n_layers):
    """Which inputs reach output i after n_layers, by walking the mask layer by layer (sets, no matrices)."""
    n = len(mask)
    reach = []
    for i in range(n):
        frontier = {i}
        for _ in range(n_layers):
            frontier = {j for p in frontier for j in range(n) if mask[p][j]}
        reach.append([j in frontier for j in range(n)])
    return np.array(reach)


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 24), st.integers(1, 8), st.integers(1, 5), st.booleans())
def test_the_composed_mask_is_the_walk_over_layers(n, window, n_layers, causal):
    mask = sliding_window_mask(n, window, causal=causal)
    np.testing.assert_array_equal(receptive_field_mask(mask, n_layers), loop_reach(mask, n_layers))


@pytest.mark.parametrize(("window", "n_layers"), [(4, 1), (4, 3), (2, 7), (1, 5), (16, 4), (4096, 1)])
def test_the_receptive_field_grows_by_window_minus_one_per_layer(window, n_layers):
    n = min(n_layers * (window - 1) + 10, 5000)
    reach = receptive_field_mask(sliding_window_mask(n, window), n_layers)
    last = reach[-1]
    assert last.sum() == receptive_field(window, n_layers) == n_layers * (window - 1) + 1
    assert last[n - 1 - n_layers * (window - 1) :].all() and not last[: n - 1 - n_layers * (window - 1)].any()
    assert receptive_field(window, n_layers) <= n_layers * window  # the round figure L x W overcounts by L - 1


def test_mistrals_numbers():
    """W = 4096 and 32 layers: L (W - 1) + 1 = 131,041 positions, "approximately 131K" in the Mistral 7B paper."""
    assert receptive_field(4096, 32) == 131_041 and 32 * 4096 == 131_072


# --- tiled attention with a window ----------------------------------------------------------------------


def distinct(count, low=1, high=40):
    return st.lists(st.integers(low, high), min_size=count, max_size=count, unique=True)


def rect_window(n_q, n_k, window, causal):
    """The mask tiled_attention(window=..., causal=...) means: query i sits at position n_k - n_q + i."""
    p = np.arange(n_k - n_q, n_k)[:, None]
    j = np.arange(n_k)
    return ((p - j >= 0) & (p - j < window)) if causal else (np.abs(p - j) < window)


@FAST
@given(distinct(2), st.integers(1, 20), st.integers(1, 9), st.integers(1, 9), st.booleans(), st.booleans(), seeds)
def test_tiled_with_a_window_equals_attention_with_the_mask(sizes, window, block_q, block_k, causal, extra, seed):
    n_q, n_k = sorted(sizes)  # the queries are the last n_q of n_k positions
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(2, n_q, 4)), rng.normal(size=(2, n_k, 4)), rng.normal(size=(2, n_k, 3))
    other = rng.random((n_q, n_k)) < 0.8 if extra else None  # e.g. padding, combined with the window
    mask = rect_window(n_q, n_k, window, causal) & (True if other is None else other)
    expected, _ = scaled_dot_product_attention(q, k, v, mask=mask)
    actual = tiled_attention(q, k, v, mask=other, causal=causal, window=window, block_q=block_q, block_k=block_k)
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_tiled_with_a_window_keeps_the_dtype(dtype):
    rng = np.random.default_rng(4)
    q, k, v = (rng.normal(size=(50, 8)).astype(dtype) for _ in range(3))
    expected, _ = scaled_dot_product_attention(q, k, v, mask=sliding_window_mask(50, 7))
    actual = tiled_attention(q, k, v, causal=True, window=7, block_q=8, block_k=16)
    assert actual.dtype == dtype
    np.testing.assert_allclose(actual, expected, atol=2e-3 if dtype == np.float16 else 1e-5)


def test_tiled_with_a_window_computes_only_the_blocks_inside_it(monkeypatch):
    """Count the score blocks: with W = 64 every query block of 32 reads at most 32 + 63 keys, not the whole past."""
    calls = []
    real = efficient._hidden_in_block

    def counting(p0, p1, j0, j1, causal, window, cache=None):
        calls.append((p0, p1, j0, j1))
        return real(p0, p1, j0, j1, causal, window, cache)

    monkeypatch.setattr(efficient, "_hidden_in_block", counting)
    n, window, bq, bk = 1024, 64, 32, 32
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(size=(n, 4)) for _ in range(3))
    tiled_attention(q, k, v, causal=True, window=window, block_q=bq, block_k=bk)
    windowed = sum(j1 - j0 for _, _, j0, j1 in calls) * bq  # scores computed
    for p0, _, j0, _ in calls:
        assert j0 >= p0 - window + 1  # no block starts before the window of its first query
    calls.clear()
    tiled_attention(q, k, v, causal=True, block_q=bq, block_k=bk)
    causal = sum(j1 - j0 for _, _, j0, j1 in calls) * bq
    assert windowed <= n * (window + bq - 1)  # at most W + block_q - 1 keys per query
    assert causal / windowed > 5  # n^2 / 2 against about n (W + block_q): 8.5x here


def test_the_two_sided_window_of_longformer_and_hugging_face_is_stated_and_holds():
    """Issue 27 item 15: |i - j| < W here; Longformer's attention_window=A is W = A/2 + 1, HF's two-sided S: S + 1."""
    doc = " ".join(sliding_window_mask.__doc__.split())
    assert "attention_window=A is window=A // 2 + 1" in doc and "sliding_window=S is window=S + 1" in doc
    n = 20
    i, j = np.arange(n)[:, None], np.arange(n)
    for a in (2, 4, 8):  # Longformer: attention_window // 2 keys on each side (its one_sided_attn_window_size)
        np.testing.assert_array_equal(sliding_window_mask(n, a // 2 + 1, causal=False), np.abs(i - j) <= a // 2)
    masking_utils = pytest.importorskip("transformers.masking_utils")
    for s in (1, 3, 6):
        overlay = masking_utils.sliding_window_bidirectional_overlay(s)
        theirs = np.array([[bool(overlay(0, 0, q, k)) for k in range(n)] for q in range(n)])
        np.testing.assert_array_equal(sliding_window_mask(n, s + 1, causal=False), theirs)
        causal_overlay = masking_utils.sliding_window_overlay(s)  # causal: the same W = S
        causal = np.array([[bool(causal_overlay(0, 0, q, k)) and k <= q for k in range(n)] for q in range(n)])
        np.testing.assert_array_equal(sliding_window_mask(n, s), causal)
