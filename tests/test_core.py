"""attn_lib.core against the plain-loop reference, plus the numerical edge cases the course promises."""

import math

import numpy as np
import pytest
import reference as ref

from attn_lib import additive_mask, causal_mask, scaled_dot_product_attention, softmax

TOL = {np.float64: 1e-12, np.float32: 1e-5}


def random_qkv(rng, batch, n_q, n_k, d_k, d_v, dtype=np.float64):
    q = rng.normal(size=(*batch, n_q, d_k)).astype(dtype)
    k = rng.normal(size=(*batch, n_k, d_k)).astype(dtype)
    v = rng.normal(size=(*batch, n_k, d_v)).astype(dtype)
    return q, k, v


# --- softmax --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_matches_reference(dtype):
    x = (np.random.default_rng(0).normal(size=(5, 7)) * 3).astype(dtype)
    got = softmax(x)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref.softmax(x), rtol=TOL[dtype], atol=TOL[dtype])


def test_softmax_along_other_axis_matches_reference():
    x = np.random.default_rng(1).normal(size=(4, 6))
    np.testing.assert_allclose(softmax(x, axis=0), np.array(ref.softmax(x.T)).T, rtol=1e-12, atol=1e-12)


def test_softmax_of_3d_input_is_row_by_row():
    x = np.random.default_rng(2).normal(size=(2, 3, 5))
    got = softmax(x)
    for b in range(2):
        np.testing.assert_allclose(got[b], ref.softmax(x[b]), rtol=1e-12, atol=1e-12)


def test_softmax_accepts_lists_and_ints():
    np.testing.assert_allclose(softmax([1, 2, 3]), ref.softmax([[1, 2, 3]])[0], rtol=1e-12)
    assert softmax([[1, 2], [3, 4]]).dtype == np.float64


@pytest.mark.parametrize("big", [1e4, -1e4])
def test_softmax_is_stable_at_large_logits(big):
    x = np.array([[big, big - 1.0, big - 2.0], [big, 0.0, -big]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # an overflow or 0/0 would raise
        got = softmax(x)
    assert np.isfinite(got).all()
    # exact values: shifting by the max does not change softmax
    e = np.exp([0.0, -1.0, -2.0])
    np.testing.assert_allclose(got[0], e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(got[1], ref.softmax(x[1:])[0], rtol=1e-12, atol=1e-300)
    # a naive softmax really does fail here (so the test checks something)
    with np.errstate(all="ignore"):
        naive = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)
    assert not np.isfinite(naive).all() or not np.allclose(naive, got)


def test_softmax_neg_inf_entries_get_zero_and_all_neg_inf_row_gives_zeros():
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    got = softmax(x)
    assert got[0, 1] == 0.0
    np.testing.assert_allclose(got[0], ref.softmax(x)[0], rtol=1e-12)
    assert (got[1] == 0).all()
    assert not np.isnan(got).any()


# --- masks ----------------------------------------------------------------------------------------


def test_causal_mask_is_lower_triangle_by_loops():
    n = 5
    mask = causal_mask(n)
    assert mask.dtype == bool and mask.shape == (n, n)
    for i in range(n):
        for j in range(n):
            assert mask[i, j] == (j <= i)


def test_additive_mask_is_zero_or_neg_inf():
    mask = np.array([[True, False, True], [False, False, True]])
    add = additive_mask(mask)
    assert add.dtype == np.float64
    for i, j in np.ndindex(mask.shape):
        assert add[i, j] == (0.0 if mask[i, j] else -math.inf)
    assert additive_mask(mask.tolist(), dtype=np.float32).dtype == np.float32


def test_bool_and_additive_masks_give_identical_attention():
    rng = np.random.default_rng(3)
    q, k, v = random_qkv(rng, (), 4, 5, 3, 2)
    mask = rng.random((4, 5)) < 0.6
    mask[:, 0] = True
    out_b, w_b = scaled_dot_product_attention(q, k, v, mask=mask)
    out_f, w_f = scaled_dot_product_attention(q, k, v, mask=additive_mask(mask))
    np.testing.assert_array_equal(w_b, w_f)
    np.testing.assert_array_equal(out_b, out_f)


# --- scaled dot-product attention against the reference --------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_attention_matches_reference_unmasked(dtype):
    q, k, v = random_qkv(np.random.default_rng(4), (), 3, 5, 4, 2, dtype)
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.dtype == dtype and w.dtype == dtype
    assert out.shape == (3, 2) and w.shape == (3, 5)
    ref_out, ref_w = ref.attention(q, k, v)
    np.testing.assert_allclose(out, ref_out, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(w, ref_w, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_attention_matches_reference_with_bool_mask(dtype):
    rng = np.random.default_rng(5)
    q, k, v = random_qkv(rng, (), 4, 6, 3, 5, dtype)
    mask = rng.random((4, 6)) < 0.5
    mask[2] = False  # one fully masked row
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.dtype == dtype and w.dtype == dtype
    ref_out, ref_w = ref.attention(q, k, v, mask=mask)
    np.testing.assert_allclose(out, ref_out, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(w, ref_w, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_attention_matches_reference_with_float_mask(dtype):
    rng = np.random.default_rng(6)
    q, k, v = random_qkv(rng, (), 5, 3, 4, 2, dtype)
    mask = rng.normal(size=(5, 3))  # a general additive bias (float64), not only 0 / -inf
    mask[1, 2] = -np.inf
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.dtype == dtype and w.dtype == dtype
    ref_out, ref_w = ref.attention(q, k, v, mask=mask.astype(dtype))
    np.testing.assert_allclose(out, ref_out, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_allclose(w, ref_w, rtol=TOL[dtype], atol=TOL[dtype])


def test_attention_matches_reference_with_scale():
    q, k, v = random_qkv(np.random.default_rng(7), (), 3, 4, 2, 5)
    out, w = scaled_dot_product_attention(q, k, v, scale=0.7)
    ref_out, ref_w = ref.attention(q, k, v, scale=0.7)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-12)


def test_attention_broadcasts_batch_dims_like_a_loop():
    rng = np.random.default_rng(8)
    q = rng.normal(size=(2, 3, 4, 5))  # [batch, heads, n_q, d_k]
    k = rng.normal(size=(1, 3, 6, 5))  # batch broadcast
    v = rng.normal(size=(2, 1, 6, 7))  # heads broadcast
    mask = rng.random((4, 6)) < 0.7  # one mask for all
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.shape == (2, 3, 4, 7) and w.shape == (2, 3, 4, 6)
    for b, h in np.ndindex(2, 3):
        ref_out, ref_w = ref.attention(q[b, h], k[0, h], v[b, 0], mask=mask)
        np.testing.assert_allclose(out[b, h], ref_out, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(w[b, h], ref_w, rtol=1e-12, atol=1e-12)


def test_attention_accepts_lists():
    q, k, v = [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    out, w = scaled_dot_product_attention(q, k, v, mask=[[True, True]])
    ref_out, ref_w = ref.attention(q, k, v)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12)


def test_default_scale_is_one_over_sqrt_d_k():
    q, k, v = random_qkv(np.random.default_rng(9), (), 2, 3, 16, 2)
    _, w_default = scaled_dot_product_attention(q, k, v)
    _, w_explicit = scaled_dot_product_attention(q, k, v, scale=1 / 4)
    _, w_unscaled = scaled_dot_product_attention(q, k, v, scale=1.0)
    np.testing.assert_allclose(w_default, w_explicit, rtol=1e-14)
    assert not np.allclose(w_default, w_unscaled)


# --- numerics: fully masked rows, the -1e9 pitfall, float16 ------------------------------------------


def _fully_masked_inputs():
    rng = np.random.default_rng(10)
    q, k, v = random_qkv(rng, (), 3, 4, 2, 5)
    bool_mask = np.ones((3, 4), dtype=bool)
    bool_mask[1] = False  # query 1 may see nothing (e.g. padding combined with a causal mask)
    return q, k, v, bool_mask


@pytest.mark.parametrize("kind", ["bool", "additive"])
def test_fully_masked_row_gives_zero_weights_and_zero_output(kind):
    q, k, v, bool_mask = _fully_masked_inputs()
    mask = bool_mask if kind == "bool" else additive_mask(bool_mask)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no 0/0 along the way
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert not np.isnan(out).any() and not np.isnan(w).any()
    assert (w[1] == 0).all() and (out[1] == 0).all()
    np.testing.assert_allclose(w[[0, 2]].sum(axis=-1), 1.0, rtol=1e-12)
    # the naive formula really gives NaN here
    with np.errstate(all="ignore"):
        scores = q @ k.T / np.sqrt(2) + additive_mask(bool_mask)
        naive = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    assert np.isnan(naive[1]).all()


def test_minus_1e9_masked_fill_gives_uniform_weights_on_a_fully_masked_row():
    """The pitfall: -1e9 written over the scores turns "see nothing" into "see everything equally"."""
    q, k, v, bool_mask = _fully_masked_inputs()
    scores = q @ k.T / np.sqrt(q.shape[-1])
    w = softmax(np.where(bool_mask, scores, -1e9))  # the common masked_fill(mask == 0, -1e9) form
    np.testing.assert_allclose(w[1], np.full(4, 1 / 4), rtol=1e-12)
    # with -inf the same row gets zero weights
    assert (softmax(np.where(bool_mask, scores, -np.inf))[1] == 0).all()


def test_minus_1e9_added_as_float_mask_never_gives_zero_weights():
    """Added to the scores (attn_lib's float-mask form), -1e9 is uniform in float32 and, in float64, leaves
    the row attending exactly as if it were not masked at all: either way the row sees everything."""
    q, k, v, bool_mask = _fully_masked_inputs()
    mask = np.where(bool_mask, 0.0, -1e9)
    # float32: s - 1e9 rounds to -1e9 for every |s| < 32 (float32 spacing at 1e9 is 64): uniform weights
    q32, k32, v32 = q.astype(np.float32), k.astype(np.float32), v.astype(np.float32)
    out, w = scaled_dot_product_attention(q32, k32, v32, mask=mask)
    np.testing.assert_array_equal(w[1], np.full(4, 0.25, dtype=np.float32))
    np.testing.assert_allclose(out[1], v32.mean(axis=0), rtol=1e-5, atol=1e-6)
    # float64: the shift by -1e9 cancels in the softmax: the unmasked weights come back
    _, w64 = scaled_dot_product_attention(q, k, v, mask=mask)
    _, w_unmasked = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w64[1], w_unmasked[1], rtol=1e-5)
    assert (w64[1] > 0).all()
    # on rows that do see something, -1e9 and -inf agree
    _, w_inf = scaled_dot_product_attention(q, k, v, mask=bool_mask)
    np.testing.assert_allclose(w64[[0, 2]], w_inf[[0, 2]], rtol=1e-12)


def test_minus_1e9_becomes_neg_inf_in_float16():
    with np.errstate(over="ignore"):
        assert np.float16(-1e9) == -np.inf
    assert np.isfinite(np.float32(-1e9))
    q, k, v, bool_mask = _fully_masked_inputs()
    q, k, v = q.astype(np.float16), k.astype(np.float16), v.astype(np.float16)
    with np.errstate(over="ignore"):  # the cast of -1e9 to float16 overflows, which is the point
        out, w = scaled_dot_product_attention(q, k, v, mask=np.where(bool_mask, 0.0, -1e9))
    assert w.dtype == np.float16 and out.dtype == np.float16
    # in float16 the -1e9 row is a true -inf row: zero weights (not uniform), and never NaN
    assert (w[1] == 0).all() and (out[1] == 0).all()
    assert not np.isnan(w).any()


def test_overflowing_scores_are_an_error_not_a_silent_mask():
    q = np.array([[1e200, 0.0]])
    k = np.array([[-1e200, 0.0], [1.0, 0.0]])  # q . k_0 overflows to -inf
    v = np.array([[1.0], [2.0]])
    with np.errstate(over="ignore"), pytest.raises(ValueError, match="overflowed"):
        scaled_dot_product_attention(q, k, v)


# --- the blocked path for long inputs gives the same results ------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mask_kind", [None, "bool", "float"])
def test_blocked_path_matches_reference(monkeypatch, dtype, mask_kind):
    """Long inputs take a block-by-block path; force it on small inputs and compare with the loops."""
    import attn_lib.core as core

    if not hasattr(core, "BLOCKED_MIN_SCORES"):
        pytest.skip("attn_lib.core has no blocked path")
    monkeypatch.setattr(core, "BLOCKED_MIN_SCORES", 0)
    rng = np.random.default_rng(11)
    q, k, v = random_qkv(rng, (2,), 4, 6, 3, 5, dtype)
    bool_mask = rng.random((4, 6)) < 0.5
    bool_mask[1] = False  # a fully masked row
    mask = {None: None, "bool": bool_mask, "float": additive_mask(bool_mask) + rng.normal(size=(4, 6))}[mask_kind]
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    assert out.dtype == dtype and w.dtype == dtype
    for b in range(2):
        ref_out, ref_w = ref.attention(q[b], k[b], v[b], mask=mask if mask_kind != "float" else mask.astype(dtype))
        np.testing.assert_allclose(out[b], ref_out, rtol=TOL[dtype], atol=TOL[dtype])
        np.testing.assert_allclose(w[b], ref_w, rtol=TOL[dtype], atol=TOL[dtype])


def test_softmax_of_extreme_opposite_logits_raises_no_floating_point_error():
    with np.errstate(over="raise", invalid="raise"):
        np.testing.assert_array_equal(softmax([1e308, -1e308]), [1.0, 0.0])


def test_additive_mask_of_a_ragged_list_names_the_mask():
    with pytest.raises(ValueError, match="mask must be a rectangular array"):
        additive_mask([[True, False], [True]])
