"""attn_lib.multihead.cross_attention (notebook 09): queries from one sequence, keys and values from another.

Checked against the plain-loop reference (every head, n_q != n_k), against multi_head_attention when the two
sequences are one, against PyTorch's nn.MultiheadAttention with a key padding mask, and for its input errors.
"""

import numpy as np
import pytest
import reference as ref

from attn_lib import causal_mask, multi_head_attention
from attn_lib.multihead import cross_attention


def weights(rng, d_model):
    return [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]


@pytest.mark.parametrize("masked", [False, True])
def test_cross_attention_matches_the_loop_reference(masked):
    rng = np.random.default_rng(0)
    n_q, n_k, n_heads, d_k = 4, 6, 3, 2  # every size different, d_model = 6
    x, memory = rng.normal(size=(n_q, n_heads * d_k)), rng.normal(size=(n_k, n_heads * d_k))
    w = weights(rng, n_heads * d_k)
    mask = np.arange(n_k)[None, :] < 4 if masked else None  # [1, n_k]: the last two source tokens are padding
    out, attn = cross_attention(x, memory, *w, n_heads, mask=mask)
    assert out.shape == (n_q, n_heads * d_k) and attn.shape == (n_heads, n_q, n_k)
    ref_out, ref_w = ref.multi_head_attention(
        x, *w, n_heads, mask=None if mask is None else np.broadcast_to(mask, (n_q, n_k)), memory=memory
    )
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(attn, ref_w, rtol=1e-12, atol=1e-12)
    if masked:
        assert (attn[..., 4:] == 0).all() and np.allclose(attn.sum(-1), 1)


def test_with_memory_equal_to_x_it_is_self_attention():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 5, 8))  # [B, n, d_model]
    w = weights(rng, 8)
    for mask in (None, causal_mask(5)):
        a = cross_attention(x, x, *w, 2, mask=mask)
        b = multi_head_attention(x, *w, 2, mask=mask)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-13, atol=1e-13)


def test_batch_with_one_padding_mask_per_sentence():
    rng = np.random.default_rng(2)
    B, n_q, n_k, d = 3, 4, 5, 6
    x, memory = rng.normal(size=(B, n_q, d)), rng.normal(size=(B, n_k, d))
    w = weights(rng, d)
    lengths = np.array([5, 3, 1])
    mask = (np.arange(n_k)[None, :] < lengths[:, None])[:, None, None, :]  # [B, 1, 1, n_k]
    out, attn = cross_attention(x, memory, *w, 2, mask=mask)
    assert attn.shape == (B, 2, n_q, n_k)
    for b in range(B):  # each sentence alone, its padding cut off, gives the same
        alone, attn_alone = cross_attention(x[b], memory[b, : lengths[b]], *w, 2)
        np.testing.assert_allclose(out[b], alone, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(attn[b, :, :, : lengths[b]], attn_alone, rtol=1e-12, atol=1e-12)
        assert (attn[b, :, :, lengths[b] :] == 0).all()


def test_cross_attention_matches_torch_with_a_key_padding_mask():
    torch = pytest.importorskip("torch")
    B, n_q, n_k, d, h = 2, 3, 5, 12, 3
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True, dtype=torch.float64)
    in_proj = mha.in_proj_weight.detach().numpy()
    w = (in_proj[:d].T, in_proj[d : 2 * d].T, in_proj[2 * d :].T, mha.out_proj.weight.detach().numpy().T)
    rng = np.random.default_rng(3)
    x, memory = rng.normal(size=(B, n_q, d)), rng.normal(size=(B, n_k, d))
    padding = np.array([[False] * 5, [False, False, False, True, True]])  # torch: True = a padding key
    out, attn = cross_attention(x, memory, *w, h, mask=~padding[:, None, None, :])
    with torch.no_grad():
        expected, expected_w = mha(
            torch.from_numpy(x), torch.from_numpy(memory), torch.from_numpy(memory),
            key_padding_mask=torch.from_numpy(padding), need_weights=True, average_attn_weights=False,
        )  # fmt: skip
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(attn, expected_w.numpy(), rtol=1e-10, atol=1e-12)


def test_bad_inputs_are_named():
    rng = np.random.default_rng(4)
    x, memory, w = rng.normal(size=(2, 4, 6)), rng.normal(size=(3, 5, 6)), weights(rng, 6)
    with pytest.raises(ValueError, match="leading .batch. axes of x .* and memory"):
        cross_attention(x, memory, *w, 2)
    with pytest.raises(ValueError, match="memory has d_model=4"):
        cross_attention(x, rng.normal(size=(2, 5, 4)), *w, 2)
    with pytest.raises(ValueError, match="memory has no tokens"):
        cross_attention(x, np.zeros((2, 0, 6)), *w, 2)
    with pytest.raises(ValueError, match="ambiguous"):
        cross_attention(x, memory[:2], *w, 2, mask=np.ones((2, 4, 5), dtype=bool))  # [B, n_q, n_k]: lines up with heads
    with pytest.raises(TypeError, match="memory"):
        cross_attention(x, None, *w, 2)
