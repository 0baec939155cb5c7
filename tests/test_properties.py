"""Hypothesis property tests over random shapes whose named dimensions all differ (a swapped axis cannot pass)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_lib import (
    causal_mask,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)

FAST = settings(deadline=None, max_examples=25)

seeds = st.integers(0, 2**32 - 1)


def distinct(count, low=1, high=7):
    """`count` different sizes, e.g. (batch, n_q, n_k, d_k, d_v)."""
    return st.lists(st.integers(low, high), min_size=count, max_size=count, unique=True)


def attention_inputs(rng, batch, n_q, n_k, d_k, d_v):
    q = rng.normal(size=(batch, n_q, d_k))
    k = rng.normal(size=(batch, n_k, d_k))
    v = rng.normal(size=(batch, n_k, d_v))
    return q, k, v


# --- softmax ------------------------------------------------------------------------------------------

logits = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
    elements=st.floats(-50, 50, allow_nan=False),
)


@FAST
@given(x=logits)
def test_softmax_rows_are_distributions(x):
    w = softmax(x)
    assert w.shape == x.shape
    assert (w >= 0).all() and (w <= 1).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@FAST
@given(x=logits, data=st.data())
def test_softmax_ignores_a_constant_added_to_a_row(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    row_shape = np.take(x, [0], axis=axis).shape  # one constant per row along `axis`
    shifts = data.draw(hnp.arrays(np.float64, row_shape, elements=st.floats(-1e3, 1e3)), label="shifts")
    np.testing.assert_allclose(softmax(x + shifts, axis=axis), softmax(x, axis=axis), rtol=1e-9, atol=1e-12)


# --- scaled dot-product attention -----------------------------------------------------------------------


@FAST
@given(dims=distinct(5), seed=seeds)
def test_attention_shapes_and_rows_sum_to_one(dims, seed):
    batch, n_q, n_k, d_k, d_v = dims
    out, w = scaled_dot_product_attention(*attention_inputs(np.random.default_rng(seed), *dims))
    assert out.shape == (batch, n_q, d_v)
    assert w.shape == (batch, n_q, n_k)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@FAST
@given(dims=distinct(5), seed=seeds)
def test_masked_weights_are_exactly_zero(dims, seed):
    rng = np.random.default_rng(seed)
    batch, n_q, n_k, d_k, d_v = dims
    mask = rng.random((batch, n_q, n_k)) < 0.5
    _, w = scaled_dot_product_attention(*attention_inputs(rng, *dims), mask=mask)
    assert (w[~mask] == 0).all()
    seen = mask.any(axis=-1)  # rows with at least one visible key sum to 1, the others are all 0
    np.testing.assert_allclose(w.sum(axis=-1)[seen], 1.0, rtol=1e-12)
    assert (w.sum(axis=-1)[~seen] == 0).all()


@FAST
@given(dims=distinct(5), seed=seeds, use_mask=st.booleans())
def test_permuting_keys_and_values_together_changes_nothing(dims, seed, use_mask):
    rng = np.random.default_rng(seed)
    batch, n_q, n_k, d_k, d_v = dims
    q, k, v = attention_inputs(rng, *dims)
    mask = rng.random((n_q, n_k)) < 0.7 if use_mask else None
    perm = rng.permutation(n_k)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    out_p, w_p = scaled_dot_product_attention(q, k[:, perm], v[:, perm], mask=None if mask is None else mask[:, perm])
    np.testing.assert_allclose(out_p, out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_p, w[..., perm], rtol=1e-10, atol=1e-12)


@FAST
@given(dims=distinct(3, low=2, high=8), seed=seeds, data=st.data())
def test_causal_mask_makes_earlier_outputs_independent_of_later_tokens(dims, seed, data):
    batch, n, d = dims
    rng = np.random.default_rng(seed)
    t = data.draw(st.integers(1, n - 1), label="first changed position")  # something later always changes
    x = rng.normal(size=(batch, n, d))
    changed = x.copy()
    changed[:, t:] = rng.normal(size=(batch, n - t, d))
    out, w = scaled_dot_product_attention(x, x, x, mask=causal_mask(n))
    out_c, w_c = scaled_dot_product_attention(changed, changed, changed, mask=causal_mask(n))
    np.testing.assert_array_equal(out_c[:, :t], out[:, :t])
    np.testing.assert_array_equal(w_c[:, :t], w[:, :t])
    assert not np.allclose(out_c[:, t:], out[:, t:])  # the change did reach the later positions


# --- multi-head attention ------------------------------------------------------------------------------


def mha_inputs(rng, batch, n, n_heads, d_k):
    d_model = n_heads * d_k
    x = rng.normal(size=(batch, n, d_model))
    w_q, w_k, w_v, w_o = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4))
    return x, w_q, w_k, w_v, w_o


@FAST
@given(dims=distinct(3), seed=seeds)
def test_one_head_with_identity_output_is_single_head_attention(dims, seed):
    batch, n, d_model = dims
    x, w_q, w_k, w_v, _ = mha_inputs(np.random.default_rng(seed), batch, n, 1, d_model)
    out, w = multi_head_attention(x, w_q, w_k, w_v, np.eye(d_model), 1)
    expected_out, expected_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(out, expected_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w[:, 0], expected_w, rtol=1e-10, atol=1e-12)


@FAST
@given(dims=distinct(4, high=6), seed=seeds, causal=st.booleans())
def test_loop_over_heads_equals_vectorised(dims, seed, causal):
    batch, n, n_heads, d_k = dims
    x, w_q, w_k, w_v, w_o = mha_inputs(np.random.default_rng(seed), batch, n, n_heads, d_k)
    mask = causal_mask(n) if causal else None
    out, w = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=mask)
    assert out.shape == (batch, n, n_heads * d_k) and w.shape == (batch, n_heads, n, n)
    head_outputs = []
    for i in range(n_heads):
        cols = slice(i * d_k, (i + 1) * d_k)
        head_out, head_w = scaled_dot_product_attention(x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols], mask=mask)
        np.testing.assert_allclose(w[:, i], head_w, rtol=1e-10, atol=1e-12)
        head_outputs.append(head_out)
    np.testing.assert_allclose(out, np.concatenate(head_outputs, axis=-1) @ w_o, rtol=1e-10, atol=1e-12)


@FAST
@given(dims=distinct(4, low=2, high=8), seed=seeds, data=st.data())
def test_multi_head_causal_outputs_ignore_later_tokens(dims, seed, data):
    batch, n, n_heads, d_k = dims
    rng = np.random.default_rng(seed)
    x, w_q, w_k, w_v, w_o = mha_inputs(rng, batch, n, n_heads, d_k)
    t = data.draw(st.integers(1, n - 1), label="first changed position")  # something later always changes
    changed = x.copy()
    changed[:, t:] = rng.normal(size=changed[:, t:].shape)
    out, _ = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=causal_mask(n))
    out_c, _ = multi_head_attention(changed, w_q, w_k, w_v, w_o, n_heads, mask=causal_mask(n))
    np.testing.assert_array_equal(out_c[:, :t], out[:, :t])


@FAST
@given(dims=distinct(4, high=6), seed=seeds)
def test_split_merge_round_trip_and_head_columns(dims, seed):
    batch, n, n_heads, d_k = dims
    x = np.random.default_rng(seed).normal(size=(batch, n, n_heads * d_k))
    heads = split_heads(x, n_heads)
    assert heads.shape == (batch, n_heads, n, d_k)
    for i in range(n_heads):
        np.testing.assert_array_equal(heads[:, i], x[..., i * d_k : (i + 1) * d_k])
    np.testing.assert_array_equal(merge_heads(heads), x)
