"""attn_lib against PyTorch (skipped when torch is not installed; CI installs it).

Conventions to translate: torch multiplies by the transpose (x @ W.T), so our w_q is a transposed
slice of torch's in_proj_weight; F.scaled_dot_product_attention's boolean mask means True = may
attend (like ours), but nn.MultiheadAttention's boolean attn_mask means True = may NOT attend.
"""

import numpy as np
import pytest

from attn_lib import additive_mask, causal_mask, count_parameters, multi_head_attention, scaled_dot_product_attention

torch = pytest.importorskip("torch")
F = torch.nn.functional


def t(array):
    return torch.from_numpy(np.ascontiguousarray(array))


def torch_weights(q, k, mask=None, scale=None):
    """softmax(Q K^T * scale + M) computed in torch, for comparing weights (F.sdpa returns only outputs)."""
    q, k = t(q), t(k)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        mask = t(mask)
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    return torch.softmax(scores, dim=-1).numpy()


@pytest.fixture
def qkv():
    rng = np.random.default_rng(0)
    batch, heads, n_q, n_k, d_k, d_v = 2, 3, 4, 5, 6, 7
    q = rng.normal(size=(batch, heads, n_q, d_k))
    k = rng.normal(size=(batch, heads, n_k, d_k))
    v = rng.normal(size=(batch, heads, n_k, d_v))
    return q, k, v, rng


@pytest.mark.parametrize("scale", [None, 0.3])
def test_sdpa_matches_torch_without_mask(qkv, scale):
    q, k, v, _ = qkv
    out, w = scaled_dot_product_attention(q, k, v, scale=scale)
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), scale=scale).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, torch_weights(q, k, scale=scale), rtol=1e-10, atol=1e-12)


def test_sdpa_matches_torch_with_bool_mask(qkv):
    q, k, v, rng = qkv
    mask = rng.random((2, 1, 4, 5)) < 0.6  # broadcast over heads
    mask[..., 0] = True  # no fully masked row (torch gives NaN there; attn_lib gives 0)
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(mask)).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, torch_weights(q, k, mask), rtol=1e-10, atol=1e-12)


def test_sdpa_matches_torch_with_float_mask(qkv):
    q, k, v, rng = qkv
    mask = rng.normal(size=(4, 5))  # an arbitrary additive bias, plus a few -inf
    mask[1, 3] = mask[2, 0] = -np.inf
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(mask)).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, torch_weights(q, k, mask), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sdpa_matches_torch_is_causal(dtype):
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(3, 6, d)).astype(dtype) for d in (4, 4, 5))
    tol = 1e-10 if dtype == np.float64 else 1e-5
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True).numpy()
    for mask in (causal_mask(6), additive_mask(causal_mask(6))):
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
        assert out.dtype == dtype
        np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)
        np.testing.assert_allclose(w, torch_weights(q, k, causal_mask(6)), rtol=tol, atol=tol)


# --- nn.MultiheadAttention ----------------------------------------------------------------------------


def torch_mha_and_our_weights(d_model, n_heads, seed):
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    mha.eval()
    in_proj = mha.in_proj_weight.detach().numpy()  # [3 d_model, d_model]: W_q, W_k, W_v stacked, used as x @ W.T
    ours = {
        "w_q": in_proj[:d_model].T,
        "w_k": in_proj[d_model : 2 * d_model].T,
        "w_v": in_proj[2 * d_model :].T,
        "w_o": mha.out_proj.weight.detach().numpy().T,
    }
    return mha, ours


@pytest.mark.parametrize("causal", [False, True])
def test_multi_head_attention_matches_torch(causal):
    batch, n, d_model, n_heads = 2, 5, 12, 3  # d_k = 4, all sizes different
    mha, ours = torch_mha_and_our_weights(d_model, n_heads, seed=0)
    x = np.random.default_rng(2).normal(size=(batch, n, d_model))
    mask = causal_mask(n) if causal else None
    out, w = multi_head_attention(x, **ours, n_heads=n_heads, mask=mask)
    with torch.no_grad():
        expected, expected_w = mha(
            t(x),
            t(x),
            t(x),
            attn_mask=None if mask is None else t(~mask),  # torch: True = NOT allowed
            need_weights=True,
            average_attn_weights=False,
        )
    assert expected_w.shape == w.shape == (batch, n_heads, n, n)
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, expected_w.numpy(), rtol=1e-10, atol=1e-12)


def test_multi_head_attention_matches_torch_with_float_mask():
    batch, n, d_model, n_heads = 3, 4, 10, 2
    mha, ours = torch_mha_and_our_weights(d_model, n_heads, seed=1)
    x = np.random.default_rng(3).normal(size=(batch, n, d_model))
    mask = additive_mask(causal_mask(n)) + np.random.default_rng(4).normal(size=(n, n))
    out, w = multi_head_attention(x, **ours, n_heads=n_heads, mask=mask)
    with torch.no_grad():
        expected, expected_w = mha(t(x), t(x), t(x), attn_mask=t(mask), average_attn_weights=False)
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, expected_w.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("d_model", "n_heads"), [(768, 12), (512, 8), (768, 1), (60, 5), (12, 3)])
@pytest.mark.parametrize("bias", [False, True])
def test_count_parameters_matches_torch(d_model, n_heads, bias):
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=bias, batch_first=True)
    assert count_parameters(d_model, n_heads, bias=bias) == sum(p.numel() for p in mha.parameters())


# --- float16: attn_lib's error against PyTorch's CPU kernel, on the same inputs (issue 13, item 14) --------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float16_error_is_within_twice_pytorchs(seed):
    """PyTorch's CPU SDPA upcasts float16 internally; attn_lib must be as accurate, within a factor of 2."""
    from attn_lib.efficient import KVCache, blocked_attention_with_weights, tiled_attention

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((256, 32)).astype(np.float16) for _ in range(3))  # n = 256, d = 32
    reference, _ = scaled_dot_product_attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    torch_out = F.scaled_dot_product_attention(t(q), t(k), t(v))
    assert torch_out.dtype == torch.float16
    torch_error = np.abs(torch_out.numpy().astype(np.float64) - reference).max()
    cache = KVCache(256, d_k=32, dtype=np.float16)
    cache.append(k, v)
    ours = {
        "scaled_dot_product_attention": scaled_dot_product_attention(q, k, v)[0],
        "blocked": blocked_attention_with_weights(q, k, v, block_bytes=4096)[0],
        "tiled_attention": tiled_attention(q, k, v, block_q=64, block_k=64),
        "KVCache": np.stack([cache.attend(q_t) for q_t in q]),
    }
    for path, out in ours.items():
        assert out.dtype == np.float16
        error = np.abs(out.astype(np.float64) - reference).max()
        assert error <= 2 * torch_error, f"{path}: max error {error:.2e}, PyTorch's {torch_error:.2e}"
