"""Grouped-query attention against PyTorch: F.scaled_dot_product_attention(..., enable_gqa=True).

Skipped when torch is not installed; in CI (CI=true) a skip is a failure (conftest.py), so these run
there. PyTorch repeats each K/V head for its group of consecutive query heads (repeat_interleave),
as attn_lib.grouped does; its nn.Linear computes x @ W.T, so our w = W.T.
"""

import numpy as np
import pytest

from attn_lib import causal_mask, count_parameters
from attn_lib.grouped import grouped_attention, grouped_query_attention

torch = pytest.importorskip("torch")
F = torch.nn.functional


def t(array):
    return torch.from_numpy(np.ascontiguousarray(array))


@pytest.mark.parametrize(("n_heads", "n_kv_heads"), [(6, 2), (6, 3), (8, 1), (4, 4)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grouped_attention_matches_torch_enable_gqa(n_heads, n_kv_heads, causal, dtype):
    rng = np.random.default_rng(n_heads + 10 * n_kv_heads)
    batch, n, d_k, d_v = 2, 7, 5, 3  # all different
    q = rng.normal(size=(batch, n_heads, n, d_k)).astype(dtype)
    k = rng.normal(size=(batch, n_kv_heads, n, d_k)).astype(dtype)
    v = rng.normal(size=(batch, n_kv_heads, n, d_v)).astype(dtype)
    out, weights = grouped_attention(q, k, v, mask=causal_mask(n) if causal else None)
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=causal, enable_gqa=True).numpy()
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert out.dtype == dtype and out.shape == expected.shape == (batch, n_heads, n, d_v)
    np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)
    assert weights.shape == (batch, n_heads, n, n)


def test_grouped_attention_matches_torch_with_a_boolean_mask_per_head():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 6, 4, 3)), rng.normal(size=(2, 2, 5, 3)), rng.normal(size=(2, 2, 5, 4))
    mask = rng.random((2, 6, 4, 5)) < 0.7
    mask[..., 0] = True  # every row sees a key (PyTorch gives NaN for a row that sees none)
    out, _ = grouped_attention(q, k, v, mask=mask)
    expected = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(mask), enable_gqa=True).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


class TorchGQA(torch.nn.Module):
    """A grouped-query attention block as LLaMA-style code writes it: four nn.Linear, then enable_gqa."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.h, self.h_kv, self.d_k = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = torch.nn.Linear(d_model, d_model, bias=False, dtype=torch.float64)
        self.k_proj = torch.nn.Linear(d_model, n_kv_heads * self.d_k, bias=False, dtype=torch.float64)
        self.v_proj = torch.nn.Linear(d_model, n_kv_heads * self.d_k, bias=False, dtype=torch.float64)
        self.o_proj = torch.nn.Linear(d_model, d_model, bias=True, dtype=torch.float64)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.h, self.d_k).transpose(1, 2)  # (B, h, n, d_k)
        k = self.k_proj(x).view(b, n, self.h_kv, self.d_k).transpose(1, 2)  # (B, h_kv, n, d_k)
        v = self.v_proj(x).view(b, n, self.h_kv, self.d_k).transpose(1, 2)  # (B, h_kv, n, d_k)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)  # (B, h, n, d_k)
        return y.transpose(1, 2).reshape(b, n, self.h * self.d_k) @ self.o_proj.weight.T


@pytest.mark.parametrize(("n_heads", "n_kv_heads"), [(8, 2), (8, 1), (4, 4)])
def test_grouped_query_attention_matches_a_torch_block(n_heads, n_kv_heads):
    torch.manual_seed(0)
    d_model = 16
    block = TorchGQA(d_model, n_heads, n_kv_heads)
    ours = {
        "w_q": block.q_proj.weight.detach().numpy().T,
        "w_k": block.k_proj.weight.detach().numpy().T,  # [d_model, n_kv_heads * d_k]
        "w_v": block.v_proj.weight.detach().numpy().T,
        "w_o": block.o_proj.weight.detach().numpy().T,
    }
    x = np.random.default_rng(1).normal(size=(2, 6, d_model))
    out, _ = grouped_query_attention(x, **ours, n_heads=n_heads, n_kv_heads=n_kv_heads, mask=causal_mask(6))
    with torch.no_grad():
        expected = block(t(x)).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    # its parameters: the four weight matrices and the output projection's bias
    assert count_parameters(d_model, n_heads, bias="output", n_kv_heads=n_kv_heads) == sum(
        p.numel() for p in block.parameters()
    )


@pytest.mark.parametrize(("d_model", "n_heads"), [(768, 12), (60, 5)])
def test_bias_on_the_output_only_matches_llms_from_scratch_layout(d_model, n_heads):
    """LLMs-from-scratch's MultiHeadAttention: W_query, W_key, W_value with qkv_bias=False, out_proj with a bias."""
    layers = [torch.nn.Linear(d_model, d_model, bias=False) for _ in range(3)] + [torch.nn.Linear(d_model, d_model)]
    assert count_parameters(d_model, n_heads, bias="output") == sum(p.numel() for m in layers for p in m.parameters())
