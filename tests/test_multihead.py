"""attn_lib.multihead against the plain-loop reference; the parameter count against its formula."""

import numpy as np
import pytest
import reference as ref

from attn_lib import (
    additive_mask,
    causal_mask,
    count_parameters,
    init_multi_head_weights,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    split_heads,
)

TOL = {np.float64: 1e-12, np.float32: 1e-5}


def random_weights(rng, d_model, dtype=np.float64):
    return [(rng.normal(size=(d_model, d_model)) / np.sqrt(d_model)).astype(dtype) for _ in range(4)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("masked", [False, True])
def test_multi_head_attention_matches_reference(dtype, masked):
    rng = np.random.default_rng(0)
    n, n_heads, d_k = 5, 3, 2  # all different, d_model = 6
    x = rng.normal(size=(n, n_heads * d_k)).astype(dtype)
    weights = random_weights(rng, n_heads * d_k, dtype)
    mask = causal_mask(n) if masked else None
    out, w = multi_head_attention(x, *weights, n_heads, mask=mask)
    assert out.dtype == dtype and w.dtype == dtype
    assert out.shape == (n, n_heads * d_k) and w.shape == (n_heads, n, n)
    ref_out, ref_w = ref.multi_head_attention(x, *weights, n_heads, mask=mask)
    np.testing.assert_allclose(out, ref_out, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(w, ref_w, rtol=TOL[dtype], atol=TOL[dtype])
    if masked:
        assert (w[:, ~causal_mask(n)] == 0).all()


def test_multi_head_attention_batched_matches_reference_per_item():
    rng = np.random.default_rng(1)
    batch, n, n_heads, d_k = 2, 4, 2, 3
    x = rng.normal(size=(batch, n, n_heads * d_k))
    weights = random_weights(rng, n_heads * d_k)
    mask = rng.random((n, n)) < 0.6
    out, w = multi_head_attention(x, *weights, n_heads, mask=mask)
    assert out.shape == (batch, n, n_heads * d_k) and w.shape == (batch, n_heads, n, n)
    for b in range(batch):
        ref_out, ref_w = ref.multi_head_attention(x[b], *weights, n_heads, mask=mask)
        np.testing.assert_allclose(out[b], ref_out, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(w[b], ref_w, rtol=1e-12, atol=1e-12)


def test_per_head_masks_broadcast_over_heads():
    rng = np.random.default_rng(2)
    n, n_heads, d_k = 4, 2, 3
    x = rng.normal(size=(n, n_heads * d_k))
    weights = random_weights(rng, n_heads * d_k)
    per_head = np.stack([causal_mask(n), np.ones((n, n), dtype=bool)])  # [h, n, n]: head 0 causal, head 1 not
    _, w = multi_head_attention(x, *weights, n_heads, mask=per_head)
    _, w_causal = multi_head_attention(x, *weights, n_heads, mask=causal_mask(n))
    _, w_open = multi_head_attention(x, *weights, n_heads)
    np.testing.assert_array_equal(w[0], w_causal[0])
    np.testing.assert_array_equal(w[1], w_open[1])


def test_each_head_is_scaled_by_its_own_d_k_not_d_model():
    rng = np.random.default_rng(3)
    n, n_heads, d_k = 3, 4, 5
    d_model = n_heads * d_k
    x = rng.normal(size=(n, d_model))
    w_q, w_k, w_v, w_o = random_weights(rng, d_model)
    _, w = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads)
    q, k = x @ w_q[:, :d_k], x @ w_k[:, :d_k]  # head 0
    scores = q @ k.T
    np.testing.assert_allclose(w[0], ref.softmax(scores / np.sqrt(d_k)), rtol=1e-12)
    assert not np.allclose(w[0], ref.softmax(scores / np.sqrt(d_model)))


@pytest.mark.parametrize("kind", ["bool", "additive"])
def test_fully_masked_row_gives_zero_weights_and_output_in_every_head(kind):
    rng = np.random.default_rng(4)
    n, n_heads, d_k = 4, 2, 3
    x = rng.normal(size=(n, n_heads * d_k))
    weights = random_weights(rng, n_heads * d_k)
    bool_mask = causal_mask(n)
    bool_mask[2] = False  # padding makes query 2 see nothing
    mask = bool_mask if kind == "bool" else additive_mask(bool_mask)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out, w = multi_head_attention(x, *weights, n_heads, mask=mask)
    assert not np.isnan(out).any() and not np.isnan(w).any()
    assert (w[:, 2] == 0).all()
    assert (out[2] == 0).all()
    np.testing.assert_allclose(w[:, [0, 1, 3]].sum(axis=-1), 1.0, rtol=1e-12)


def test_multi_head_attention_accepts_lists():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4))
    weights = random_weights(rng, 4)
    out, w = multi_head_attention(x.tolist(), *(m.tolist() for m in weights), 2)
    ref_out, ref_w = ref.multi_head_attention(x, *weights, 2)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-12)


# --- split / merge -----------------------------------------------------------------------------------


def test_split_heads_gives_head_i_the_columns_i_dk_to_i_plus_1_dk():
    batch, n, n_heads, d_k = 2, 3, 4, 5
    x = np.arange(batch * n * n_heads * d_k, dtype=float).reshape(batch, n, n_heads * d_k)
    heads = split_heads(x, n_heads)
    assert heads.shape == (batch, n_heads, n, d_k)
    for b in range(batch):
        for i in range(n_heads):
            for t in range(n):
                assert heads[b, i, t].tolist() == x[b, t, i * d_k : (i + 1) * d_k].tolist()
    np.testing.assert_array_equal(merge_heads(heads), x)


def test_merge_heads_concatenates_heads_side_by_side():
    n_heads, n, d_k = 3, 4, 2
    heads = np.random.default_rng(6).normal(size=(n_heads, n, d_k))
    merged = merge_heads(heads)
    assert merged.shape == (n, n_heads * d_k)
    np.testing.assert_array_equal(merged, np.concatenate(list(heads), axis=-1))


# --- init and parameter count -------------------------------------------------------------------------


def test_init_multi_head_weights_shapes_determinism_and_scale():
    d_model, n_heads = 64, 8
    first = init_multi_head_weights(d_model, n_heads, seed=3)
    again = init_multi_head_weights(d_model, n_heads, seed=3)
    other = init_multi_head_weights(d_model, n_heads, seed=4)
    assert set(first) == {"w_q", "w_k", "w_v", "w_o"}
    for name, w in first.items():
        assert w.shape == (d_model, d_model) and w.dtype == np.float64
        np.testing.assert_array_equal(w, again[name])
        assert not np.array_equal(w, other[name])
        assert abs(w.std() - 1 / np.sqrt(d_model)) < 0.1 / np.sqrt(d_model)  # N(0, 1/d_model)
    assert not np.array_equal(first["w_q"], first["w_k"])
    # the dict plugs straight into multi_head_attention
    x = np.random.default_rng(0).normal(size=(5, d_model))
    out, _ = multi_head_attention(x, **first, n_heads=n_heads)
    assert out.shape == (5, d_model)


def test_init_does_not_touch_the_global_numpy_seed():
    state = np.random.get_state()[1].copy()
    init_multi_head_weights(16, 4, seed=0)
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_count_parameters_for_the_article_example():
    d_model, h = 768, 12
    d_k = d_model // h
    assert count_parameters(d_model, h) == h * (3 * d_model * d_k) + d_model * d_model
    assert count_parameters(d_model, h, bias=True) == h * (3 * d_model * d_k) + d_model * d_model + 4 * d_model


@pytest.mark.parametrize("d_model", [768, 512, 60, 7])
def test_count_parameters_is_4_d_model_squared_for_every_divisor(d_model):
    divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
    for h in divisors:
        assert count_parameters(d_model, h) == 4 * d_model**2
        assert count_parameters(d_model, h, bias=True) == 4 * d_model**2 + 4 * d_model


def test_count_parameters_equals_the_size_of_the_weights():
    d_model, n_heads = 24, 4
    weights = init_multi_head_weights(d_model, n_heads)
    assert count_parameters(d_model, n_heads) == sum(w.size for w in weights.values())


def test_single_head_multi_head_equals_attention_with_identity_output():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 3))
    w_q, w_k, w_v, _ = random_weights(rng, 3)
    out, w = multi_head_attention(x, w_q, w_k, w_v, np.eye(3), 1)
    ref_out, ref_w = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w[0], ref_w, rtol=1e-12, atol=1e-12)


# --- hardening (issue 13): masks per sentence, overflow named by its step --------------------------------------


def test_a_mask_per_sentence_is_b_1_n_n_and_b_n_n_is_refused():
    rng = np.random.default_rng(5)
    batch, n, n_heads, d_k = 2, 3, 2, 2  # B == h: a [B, n, n] mask would silently apply to the heads
    x = rng.normal(size=(batch, n, n_heads * d_k))
    weights = random_weights(rng, n_heads * d_k)
    per_sentence = np.stack([np.ones((n, n), dtype=bool), causal_mask(n)])  # [B, n, n]
    with pytest.raises(ValueError, match=r"mask of shape \(2, 3, 3\) is ambiguous .*\[B, 1, n, n\]"):
        multi_head_attention(x, *weights, n_heads, mask=per_sentence)
    with pytest.raises(ValueError, match=r"mask of shape \(2, 3, 3\) is ambiguous"):
        multi_head_attention(x, *weights, 1, mask=per_sentence)  # B != h: refused all the same
    _, w = multi_head_attention(x, *weights, n_heads, mask=per_sentence[:, None])  # [B, 1, n, n]
    for b in range(batch):  # sentence b, every head, gets mask b
        _, w_b = multi_head_attention(x[b], *weights, n_heads, mask=per_sentence[b])
        np.testing.assert_array_equal(w[b], w_b)
    _, w_all = multi_head_attention(x, *weights, n_heads, mask=causal_mask(n))  # [n, n]: every sentence, every head
    assert (w_all[..., ~causal_mask(n)] == 0).all()


def test_an_overflowing_output_projection_is_an_error_naming_w_o():
    x = np.ones((2, 4), np.float32)
    w_v = np.diag([3e38, 3e38, -3e38, -3e38]).astype(np.float32)
    eye = np.eye(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"the output projection heads @ w_o overflowed float32"):
        multi_head_attention(x, eye, eye, w_v, np.ones((4, 4), np.float32), 1)


@pytest.mark.parametrize(
    ("scale_w_v", "message"),
    [
        (1.0, r"the scores \(x @ w_q\)\(x @ w_k\)\^T / sqrt\(d_k\) overflowed float64: x, w_q and w_k"),
        (1e200, r"the value projection x @ w_v overflowed float64"),
    ],
)
def test_an_overflow_inside_multi_head_attention_names_the_callers_arguments(scale_w_v, message):
    x = np.full((3, 4), 1e155)  # finite: the overflow comes from a step, not from x
    eye = np.eye(4)
    with np.errstate(over="ignore"), pytest.raises(ValueError, match=message) as info:
        multi_head_attention(x, eye, eye, eye * scale_w_v, eye, 2)
    assert "x contains" not in str(info.value) and "q @ k^T" not in str(info.value)
