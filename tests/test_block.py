"""attn_lib.block: layer norm, the feed-forward network and one transformer block, against loops and PyTorch.

The PyTorch comparison copies the block's weights into torch.nn.TransformerEncoderLayer (dropout 0,
batch_first=True) and compares outputs: float32 within 1e-5, float64 within 1e-12 (1e-6 with GELU,
whose erf is a fit good to 1e-7). PyTorch stores a
Linear's weight transposed (y = x W^T + b), and nn.MultiheadAttention keeps W_Q, W_K, W_V stacked in
in_proj_weight [3 d_model, d_model]; its boolean attn_mask means True = may NOT attend (ours: may).
The torch tests skip where torch is missing and fail in CI (conftest.py), like test_torch_crosscheck.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import causal_mask, count_parameters, multi_head_attention
from attn_lib.block import (
    BLOCK_PARAMS,
    feed_forward,
    gelu,
    init_block_params,
    layer_norm,
    relu,
    rms_norm,
    silu,
    swiglu,
    transformer_block,
)
from attn_lib.models.minilm import bert


def random_params(d_model, n_heads, d_ff, seed, dtype=np.float64):
    """A block whose every parameter is random (biases, gammas and betas included), so none can be skipped."""
    params = init_block_params(d_model, n_heads, d_ff, seed=seed)
    rng = np.random.default_rng(seed + 100)
    for name in ("b_q", "b_k", "b_v", "b_o", "b_1", "b_2", "ln1_beta", "ln2_beta"):
        params[name] = 0.1 * rng.standard_normal(params[name].shape)
    for name in ("ln1_gamma", "ln2_gamma"):
        params[name] = 1 + 0.2 * rng.standard_normal(params[name].shape)
    return {name: value.astype(dtype) for name, value in params.items()}


# --- layer norm -----------------------------------------------------------------------------------


def test_layer_norm_matches_a_loop_spec_per_token():
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=(2, 3, 5))  # [B, n, d], sizes all different
    gamma, beta = rng.normal(size=5), rng.normal(size=5)
    got = layer_norm(x, gamma, beta, eps=1e-5)
    for index in np.ndindex(2, 3):
        row = [float(v) for v in x[index]]
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        spec = [(v - mean) / math.sqrt(var + 1e-5) * g + b for v, g, b in zip(row, gamma, beta, strict=True)]
        np.testing.assert_allclose(got[index], spec, rtol=1e-12)


def test_layer_norm_gives_each_token_mean_0_and_variance_1_before_gamma_and_beta():
    x = np.random.default_rng(1).normal(5.0, 3.0, size=(4, 6))
    y = layer_norm(x, np.ones(6), np.zeros(6), eps=1e-12)
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1, rtol=1e-9)
    assert not np.allclose(y.mean(axis=0), 0)  # the features (columns) are not normalised


def test_layer_norm_of_a_constant_row_is_beta_not_nan():
    beta = np.arange(4.0)
    np.testing.assert_array_equal(layer_norm(np.full((2, 4), 7.0), np.ones(4), beta), np.stack([beta, beta]))


def test_layer_norm_keeps_float32():
    x = np.ones((2, 3), dtype=np.float32)
    assert layer_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32)).dtype == np.float32


# --- the feed-forward network -----------------------------------------------------------------------


def test_feed_forward_treats_every_position_alone():
    rng = np.random.default_rng(2)
    p = init_block_params(6, 2, d_ff=10, seed=2)
    x = rng.normal(size=(3, 4, 6))  # [B, n, d_model]
    together = feed_forward(x, p["w_1"], p["b_1"], p["w_2"], p["b_2"])
    for b, i in np.ndindex(3, 4):
        alone = feed_forward(x[b, i : i + 1], p["w_1"], p["b_1"], p["w_2"], p["b_2"])
        np.testing.assert_allclose(together[b, i], alone[0], rtol=1e-12)


def test_feed_forward_is_activation_of_the_first_layer_then_the_second():
    rng = np.random.default_rng(3)
    x, w_1, b_1, w_2, b_2 = (
        rng.normal(size=(5, 4)),
        rng.normal(size=(4, 7)),
        rng.normal(size=7),
        rng.normal(size=(7, 4)),
        rng.normal(size=4),
    )
    for name, act in (("gelu", gelu), ("relu", relu)):
        np.testing.assert_allclose(feed_forward(x, w_1, b_1, w_2, b_2, name), act(x @ w_1 + b_1) @ w_2 + b_2)
    assert (relu(np.array([-1.0, 0.0, 2.0])) == [0, 0, 2]).all()


def test_bert_uses_the_block_functions():
    """Moved, not copied: bert.py's layer norm, GELU and feed-forward are these very functions."""
    assert bert.layer_norm is layer_norm and bert.gelu is gelu and bert.feed_forward is feed_forward


# --- one block --------------------------------------------------------------------------------------


def test_pre_norm_block_is_the_two_residual_steps():
    rng = np.random.default_rng(4)
    d_model, h = 8, 2
    p = random_params(d_model, h, 12, seed=4)
    x = rng.normal(size=(2, 5, d_model))
    mask = causal_mask(5)
    out, weights = transformer_block(x, p, h, mask=mask)
    attn, expected_weights = multi_head_attention(
        layer_norm(x, p["ln1_gamma"], p["ln1_beta"], 1e-5), p["w_q"], p["w_k"], p["w_v"], p["w_o"], h, mask=mask,
        b_q=p["b_q"], b_k=p["b_k"], b_v=p["b_v"], b_o=p["b_o"],
    )  # fmt: skip
    a = x + attn
    y = a + feed_forward(layer_norm(a, p["ln2_gamma"], p["ln2_beta"], 1e-5), p["w_1"], p["b_1"], p["w_2"], p["b_2"])
    np.testing.assert_allclose(out, y, rtol=1e-12)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12)
    assert out.shape == x.shape and weights.shape == (2, h, 5, 5)


def test_with_silent_sublayers_pre_norm_is_the_identity_and_post_norm_a_layer_norm():
    """The residual path: if attention and the feed-forward add nothing, a pre-norm block passes x through."""
    p = init_block_params(6, 3, seed=5)
    p["w_o"], p["w_2"] = np.zeros((6, 6)), np.zeros((24, 6))
    x = np.random.default_rng(5).normal(size=(4, 6))
    np.testing.assert_array_equal(transformer_block(x, p, 3)[0], x)
    post, _ = transformer_block(x, p, 3, norm_first=False)
    once = layer_norm(x, np.ones(6), np.zeros(6), 1e-5)
    np.testing.assert_allclose(post, layer_norm(once, np.ones(6), np.zeros(6), 1e-5))


def test_block_parameter_count_of_gpt2_small():
    """GPT-2 Small's block (d_model 768, d_ff 3072, biases everywhere): 7,087,872 numbers, two thirds in the FFN."""
    p = init_block_params(768, 12, 3072, seed=0)
    total = sum(value.size for value in p.values())
    assert total == 7_087_872
    assert sum(p[name].size for name in ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")) == count_parameters(
        768, 12, bias=True
    )
    assert sum(p[name].size for name in ("w_1", "b_1", "w_2", "b_2")) == 4_722_432


def test_init_block_params_names_shapes_and_starting_values():
    p = init_block_params(8, 2, seed=1)
    assert tuple(p) == BLOCK_PARAMS
    assert p["w_1"].shape == (8, 32) and p["w_2"].shape == (32, 8) and p["b_1"].shape == (32,)
    assert (p["ln1_gamma"] == 1).all() and (p["b_q"] == 0).all() and (p["ln2_beta"] == 0).all()
    assert not np.array_equal(p["w_q"], init_block_params(8, 2, seed=2)["w_q"])


def test_bad_input_is_named():
    p = init_block_params(6, 2, seed=0)
    x = np.zeros((3, 6))
    with pytest.raises(ValueError, match="gamma has shape"):
        layer_norm(x, np.ones(5), np.zeros(6))
    with pytest.raises(ValueError, match="eps must be a small positive number"):
        layer_norm(x, np.ones(6), np.zeros(6), eps=0)
    with pytest.raises(ValueError, match=r"w_1 \(6, 24\) and w_2 \(6, 24\) do not fit"):
        feed_forward(x, p["w_1"], p["b_1"], p["w_1"], p["b_2"])
    with pytest.raises(ValueError, match="activation must be one of"):
        transformer_block(x, p, 2, activation="swish")
    with pytest.raises(ValueError, match="params is missing ln2_gamma"):
        transformer_block(x, {k: v for k, v in p.items() if k != "ln2_gamma"}, 2)
    with pytest.raises(TypeError, match="params must be a dict"):
        transformer_block(x, None, 2)
    with pytest.raises(ValueError, match="n_heads=4 does not divide d_model=6"):
        transformer_block(x, p, 4)
    with pytest.raises(TypeError, match="norm_first must be True"):
        transformer_block(x, p, 2, norm_first="pre")
    with pytest.raises(ValueError, match="x contains NaN"):
        transformer_block(np.full((3, 6), np.nan), p, 2)


@settings(deadline=None, max_examples=25)
@given(st.integers(1, 3), st.integers(1, 6), st.sampled_from([(4, 1), (6, 2), (6, 3), (8, 4)]), st.booleans())
def test_block_on_random_shapes_is_the_same_for_every_sentence_of_a_batch(batch, n, dims, norm_first):
    d_model, h = dims
    p = random_params(d_model, h, 2 * d_model + 1, seed=n)
    x = np.random.default_rng(batch * 10 + n).normal(size=(batch, n, d_model))
    out, weights = transformer_block(x, p, h, norm_first=norm_first)
    assert out.shape == x.shape and weights.shape == (batch, h, n, n)
    for b in range(batch):
        np.testing.assert_allclose(transformer_block(x[b], p, h, norm_first=norm_first)[0], out[b], rtol=1e-10)


# --- against PyTorch --------------------------------------------------------------------------------


def torch_layer(params, n_heads, norm_first, activation, eps, dtype):
    """torch.nn.TransformerEncoderLayer with `params` copied in (Linear weights transposed)."""
    torch = pytest.importorskip("torch")
    d_model, d_ff = params["w_1"].shape
    layer = torch.nn.TransformerEncoderLayer(
        d_model, n_heads, dim_feedforward=d_ff, dropout=0.0, activation=activation, layer_norm_eps=eps,
        batch_first=True, norm_first=norm_first, dtype=dtype,
    )  # fmt: skip

    def put(tensor, value):
        assert tuple(tensor.shape) == value.shape
        tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))

    with torch.no_grad():
        attn = layer.self_attn
        put(attn.in_proj_weight, np.concatenate([params["w_q"].T, params["w_k"].T, params["w_v"].T]))
        put(attn.in_proj_bias, np.concatenate([params["b_q"], params["b_k"], params["b_v"]]))
        put(attn.out_proj.weight, params["w_o"].T)
        put(attn.out_proj.bias, params["b_o"])
        put(layer.linear1.weight, params["w_1"].T)
        put(layer.linear1.bias, params["b_1"])
        put(layer.linear2.weight, params["w_2"].T)
        put(layer.linear2.bias, params["b_2"])
        put(layer.norm1.weight, params["ln1_gamma"])
        put(layer.norm1.bias, params["ln1_beta"])
        put(layer.norm2.weight, params["ln2_gamma"])
        put(layer.norm2.bias, params["ln2_beta"])
    return layer.eval()


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("activation", ["gelu", "relu"])
@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("causal", [False, True])
def test_block_matches_torch_transformer_encoder_layer(norm_first, activation, dtype, tol, causal):
    torch = pytest.importorskip("torch")
    batch, n, d_model, h, d_ff = 2, 5, 12, 3, 20  # sizes all different
    params = random_params(d_model, h, d_ff, seed=7, dtype=dtype)
    x = np.random.default_rng(7).normal(size=(batch, n, d_model)).astype(dtype)
    mask = causal_mask(n) if causal else None
    out, _ = transformer_block(x, params, h, mask=mask, norm_first=norm_first, activation=activation, eps=1e-5)
    assert out.dtype == dtype
    layer = torch_layer(params, h, norm_first, activation, 1e-5, getattr(torch, np.dtype(dtype).name))
    torch_mask = None if mask is None else torch.from_numpy(~mask)  # torch: True = may NOT attend
    with torch.no_grad():
        expected = layer(torch.from_numpy(x), src_mask=torch_mask).numpy()
    if dtype == np.float64 and activation == "gelu":
        tol = 1e-6  # our erf is a fit good to 1e-7 (block.erf); float32 rounding hides that at 1e-5
    np.testing.assert_allclose(out, expected, rtol=0, atol=tol)


def test_torch_default_activation_is_relu_so_the_comparison_names_it():
    """Our default is the exact GELU (BERT's); PyTorch's layer defaults to ReLU: the two blocks differ unless told."""
    torch = pytest.importorskip("torch")
    params = random_params(8, 2, 16, seed=8, dtype=np.float32)
    x = np.random.default_rng(8).normal(size=(1, 4, 8)).astype(np.float32)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
    assert layer.activation is torch.nn.functional.relu  # PyTorch's default
    relu_torch = torch_layer(params, 2, True, "relu", 1e-5, torch.float32)
    with torch.no_grad():
        expected = relu_torch(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(transformer_block(x, params, 2, activation="relu")[0], expected, atol=1e-5)
    assert np.abs(transformer_block(x, params, 2)[0] - expected).max() > 1e-3  # GELU is not ReLU


# --- RMSNorm and SwiGLU (notebook 07's "what today's models use", notebook 14's real model) ---------


def test_rms_norm_matches_a_loop_spec_and_keeps_float32():
    rng = np.random.default_rng(20)
    x, gain = rng.normal(1.0, 2.0, (3, 4, 7)), rng.normal(1.0, 0.3, 7)  # sizes all different
    out = rms_norm(x, gain, eps=1e-6)
    for i, j in np.ndindex(3, 4):
        row = x[i, j]
        expected = [row[c] / math.sqrt(sum(v * v for v in row) / 7 + 1e-6) * gain[c] for c in range(7)]
        np.testing.assert_allclose(out[i, j], expected, rtol=1e-12)
    assert rms_norm(x.astype(np.float32), gain.astype(np.float32)).dtype == np.float32
    assert np.allclose(rms_norm(np.zeros((2, 7)), gain), 0)  # a zero token stays 0, not NaN (eps)


def test_rms_norm_is_layer_norm_of_a_zero_mean_vector():
    x = np.random.default_rng(21).normal(size=(5, 8))
    x -= x.mean(axis=-1, keepdims=True)  # mean 0: RMS = standard deviation
    np.testing.assert_allclose(rms_norm(x, np.ones(8), 1e-6), layer_norm(x, np.ones(8), np.zeros(8), 1e-6))


def test_swiglu_matches_a_loop_spec():
    rng = np.random.default_rng(22)
    d_model, d_ff = 6, 16
    x = rng.normal(size=(2, 5, d_model))
    w_gate, w_up, w_down = (
        rng.normal(size=(d_model, d_ff)),
        rng.normal(size=(d_model, d_ff)),
        rng.normal(size=(d_ff, d_model)),
    )
    out = swiglu(x, w_gate, w_up, w_down)
    for b, i in np.ndindex(2, 5):
        gate, up = x[b, i] @ w_gate, x[b, i] @ w_up
        hidden = [g / (1 + math.exp(-g)) * u for g, u in zip(gate, up, strict=True)]
        np.testing.assert_allclose(out[b, i], np.array(hidden) @ w_down, rtol=1e-10)
    assert np.isfinite(silu(np.array([-1000.0, 1000.0]))).all()  # the gate never overflows


def test_rms_norm_and_swiglu_bad_input_is_named():
    with pytest.raises(ValueError, match="gain has shape"):
        rms_norm(np.ones((2, 4)), np.ones(3))
    with pytest.raises(ValueError, match="eps must be"):
        rms_norm(np.ones((2, 4)), np.ones(4), eps=0)
    with pytest.raises(ValueError, match="w_gate .* do not fit x"):
        swiglu(np.ones((2, 4)), np.ones((4, 8)), np.ones((4, 8)), np.ones((4, 8)))


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_rms_norm_and_swiglu_match_torch(dtype, tol):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(23)
    d_model, d_ff = 8, 24
    x = rng.normal(size=(2, 5, d_model)).astype(dtype)
    gain = rng.normal(1.0, 0.2, d_model).astype(dtype)
    expected = F.rms_norm(torch.from_numpy(x), (d_model,), torch.from_numpy(gain), eps=1e-6).numpy()
    np.testing.assert_allclose(rms_norm(x, gain, eps=1e-6), expected, rtol=0, atol=tol)
    w_gate, w_up = rng.normal(size=(2, d_model, d_ff)).astype(dtype)
    w_down = rng.normal(size=(d_ff, d_model)).astype(dtype)
    t = torch.from_numpy
    expected = ((F.silu(t(x) @ t(w_gate)) * (t(x) @ t(w_up))) @ t(w_down)).numpy()
    got = swiglu(x, w_gate, w_up, w_down)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected, rtol=10 * tol, atol=10 * tol)


# --- issue 27: layer norm and GELU on the inputs that used to go silently wrong --------------------


def test_layer_norm_of_float16_is_computed_in_float32():
    """float16 [0, 1000]: (x - mean)^2 = 250,000 overflows float16 (largest 65,504); PyTorch gives [-1, 1]."""
    x = np.array([[0.0, 1000.0]], np.float16)
    y = layer_norm(x, np.ones(2, np.float16), np.zeros(2, np.float16))
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, [[-1.0, 1.0]])


@pytest.mark.parametrize(
    "dtype, big", [(np.float64, 1e200), (np.float64, 1.7e308), (np.float32, 1e20), (np.float16, 6e4)]
)
def test_layer_norm_of_huge_values_is_rescaled_not_collapsed_to_beta(dtype, big):
    """(x - mean)^2 overflows to inf and (x - mean) / inf = 0 would return beta; the rows are rescaled instead."""
    x = np.array([[big, -big, 0.0, big / 2], [1.0, 2.0, 3.0, 4.0]], dtype)
    gamma, beta = np.array([1.0, 2.0, 0.5, 1.0], dtype), np.array([0.0, 1.0, 0.0, -1.0], dtype)
    y = layer_norm(x, gamma, beta)
    assert y.dtype == dtype and np.isfinite(y).all()
    unit = np.array([[1.0, -1.0, 0.0, 0.5], [1.0, 2.0, 3.0, 4.0]])  # the same rows, small: same normalised values
    expected = layer_norm(unit, gamma.astype(np.float64), beta.astype(np.float64), eps=1e-30)  # eps is negligible
    np.testing.assert_allclose(y[0], expected[0], rtol=2e-3 if dtype == np.float16 else 1e-6)
    np.testing.assert_array_equal(y[1], layer_norm(x[1:], gamma, beta)[0])  # a row that fits is computed as before


def test_layer_norm_matches_torch_on_large_and_float16_rows():
    """PyTorch's own layer_norm in each dtype (its float16 CPU kernel also computes in float32)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(27)
    for dtype, size, tol in ((np.float16, 300.0, 2e-3), (np.float32, 1e3, 1e-5), (np.float64, 1.0, 1e-12)):
        x = (size * rng.standard_normal((3, 4, 6))).astype(dtype)  # float16: (x - mean)^2 ~ 1e5 overflows there
        gamma, beta = rng.normal(1, 0.2, 6).astype(dtype), rng.normal(0, 0.1, 6).astype(dtype)
        tx, tg, tb = (torch.from_numpy(a) for a in (x, gamma, beta))
        expected = torch.nn.functional.layer_norm(tx, (6,), tg, tb, eps=1e-5).numpy()
        got = layer_norm(x, gamma, beta, eps=1e-5)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol)
    x16 = torch.tensor([[0.0, 1000.0]], dtype=torch.float16)
    np.testing.assert_array_equal(
        layer_norm(x16.numpy(), np.ones(2, np.float16), np.zeros(2, np.float16)),
        torch.nn.functional.layer_norm(x16, (2,)).numpy(),
    )  # [-1, 1] both


def test_layer_norm_default_eps_is_pytorchs():
    """The default eps is PyTorch's 1e-5 (BERT's 1e-12 is passed by attn_lib.models.minilm.bert, from the config)."""
    x = np.array([[1.0, 1.001, 0.999, 1.0]])  # a near-constant row (variance 5e-7): the eps matters here
    ones, zeros = np.ones(4), np.zeros(4)
    np.testing.assert_array_equal(layer_norm(x, ones, zeros), layer_norm(x, ones, zeros, eps=1e-5))
    np.testing.assert_allclose(layer_norm(x, ones, zeros)[0], [0, 0.31, -0.31, 0], atol=0.005)  # the docstring's
    np.testing.assert_allclose(layer_norm(x, ones, zeros, eps=1e-12)[0], [0, 1.41, -1.41, 0], atol=0.005)
    torch = pytest.importorskip("torch")
    expected = torch.nn.functional.layer_norm(torch.from_numpy(x), (4,)).numpy()  # PyTorch's default eps
    np.testing.assert_allclose(layer_norm(x, ones, zeros), expected, atol=1e-12)


def test_layer_norm_whose_result_overflows_names_gamma_and_beta():
    with pytest.raises(ValueError, match="gamma and beta"):
        layer_norm(np.array([[0.0, 1.0]], np.float16), np.array([6e4, 6e4], np.float16), np.array([0, 6e4], np.float16))
    with pytest.raises(ValueError, match="gamma and beta"):
        layer_norm(np.array([[0.0, 1.0]]), np.array([1e308, 1e308]), np.array([0, 1e308]))


def test_gelu_and_relu_take_integers_scalars_and_lists():
    """np.sqrt(2).astype(int64) was 1: gelu(1) gave 1 * Phi(1) with erf(1) instead of erf(1 / sqrt 2)."""
    got = gelu(np.arange(-3, 4))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, [x * 0.5 * (1 + math.erf(x / math.sqrt(2))) for x in range(-3, 4)], atol=1e-7)
    assert round(float(got[4]), 4) == 0.8413
    assert abs(float(gelu(1.0)) - 0.8413447) < 1e-6 and np.ndim(gelu(1.0)) == 0
    np.testing.assert_array_equal(relu([1.0, -2.0]), [1.0, 0.0])
    assert relu(3) == 3 and relu(np.arange(-2, 2)).dtype == np.float64
    assert gelu(np.ones(3, np.float32)).dtype == np.float32 and relu(np.ones(3, np.float16)).dtype == np.float16
    with pytest.raises(TypeError, match="x must be an array"):
        gelu("1.0")


def test_gelu_tanh_is_gpt2s_and_matches_torch():
    """GPT-2's gelu_new: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), up to 4.7e-4 from the exact GELU."""
    x = np.linspace(-6, 6, 2001)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    np.testing.assert_allclose(gelu(x, approximate="tanh"), tanh_form, rtol=0, atol=1e-15)
    assert 4e-4 < np.abs(gelu(x, approximate="tanh") - gelu(x)).max() < 5e-4
    with pytest.raises(ValueError, match="approximate must be"):
        gelu(x, approximate="fast")
    rng = np.random.default_rng(5)
    w_1, b_1, w_2, b_2 = rng.normal(size=(4, 7)), rng.normal(size=7), rng.normal(size=(7, 4)), rng.normal(size=4)
    np.testing.assert_allclose(
        feed_forward(x[:8].reshape(2, 4), w_1, b_1, w_2, b_2, "gelu_tanh"),
        gelu(x[:8].reshape(2, 4) @ w_1 + b_1, approximate="tanh") @ w_2 + b_2,
    )
    torch = pytest.importorskip("torch")
    for dtype, tol in ((np.float64, 1e-15), (np.float32, 1e-6)):
        expected = torch.nn.functional.gelu(torch.from_numpy(x.astype(dtype)), approximate="tanh").numpy()
        np.testing.assert_allclose(gelu(x.astype(dtype), approximate="tanh"), expected, rtol=0, atol=tol)


def test_init_block_params_names_a_bad_seed():
    with pytest.raises(ValueError, match="seed=-1 must be a non-negative integer"):
        init_block_params(8, 2, seed=-1)
    with pytest.raises(TypeError, match="seed must be a non-negative integer"):
        init_block_params(8, 2, seed=1.5)
