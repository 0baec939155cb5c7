"""Issue 41, items 15 and 16: float16 RMSNorm and SiLU computed in float32, an exact cross-entropy.

Each test failed before its fix: rms_norm returned all zeros for a float16 row with any |x| >= 256 (x^2
overflowed float16), silu returned -0.0 for float16 x below -11.1 (exp(-x) overflowed), and the tiny model's
cross_entropy capped a token's loss at -log(finfo.tiny) (87.3 in float32 for a true 100).
"""

import math
import warnings

import numpy as np
import pytest

from attn_lib.block import rms_norm, rms_norm_unchecked, silu
from attn_lib.models.tiny_model import cross_entropy

F16 = np.float16


def float16_rows(seed=0, d=64):
    """float16 rows [6, d] whose largest |x| is 1, 255, 256, 1000, 30000 and 60000 (each row also has small x)."""
    rng = np.random.default_rng(seed)
    rows = []
    for top in (1.0, 255.0, 256.0, 1000.0, 30000.0, 60000.0):
        row = rng.uniform(-1.0, 1.0, d) * top * rng.uniform(0.0, 1.0, d)  # sizes from 0 to top
        row[rng.integers(d)] = top * rng.choice([-1.0, 1.0])
        rows.append(row)
    return np.array(rows).astype(F16)


def within_float16_ulps(got, expected, ulps=1):
    """|got - expected| <= ulps float16 spacings of the larger of the two, element by element."""
    got, expected = got.astype(np.float64), expected.astype(np.float64)
    larger = np.maximum(np.abs(got), np.abs(expected))
    spacing = 2.0 ** (np.floor(np.log2(np.maximum(larger, 2.0**-14))) - 10)  # 2^-24 among the subnormals
    return np.abs(got - expected) <= ulps * spacing


def hf_llama_rms_norm(hidden_states, weight, eps):
    """transformers' LlamaRMSNorm.forward, transcribed from torch to numpy (float16 weight, as a float16 model):

    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
    return self.weight * hidden_states.to(input_dtype)

    (T5LayerNorm is the same, with the variance of the float32 input.) It rounds to float16 twice, before and after
    the weight; attn_lib rounds once, so the two agree within one float16 ulp.
    """
    input_dtype = hidden_states.dtype
    h = hidden_states.astype(np.float32)
    variance = (h**2).mean(-1, keepdims=True)
    h = h * (np.float32(1) / np.sqrt(variance + np.float32(eps)))
    return weight * h.astype(input_dtype)


# --- item 16.1: rms_norm in float16 ---------------------------------------------------------------------


def test_float16_rms_norm_is_the_float32_result_rounded_once():
    x = float16_rows()
    gain = np.random.default_rng(1).uniform(0.5, 2.0, x.shape[-1]).astype(F16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning either
        got = rms_norm(x, gain, eps=1e-6)
    assert got.dtype == F16
    expected = rms_norm(x.astype(np.float32), gain.astype(np.float32), eps=1e-6).astype(F16)
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))  # bit for bit
    # and against float64, independently: within one float16 ulp (float32, then float16: a double rounding)
    x64, gain64 = x.astype(np.float64), gain.astype(np.float64)
    exact = x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + 1e-6) * gain64
    assert within_float16_ulps(got, exact).all()
    assert (np.abs(got).max(axis=-1) > 1).all()  # no row came out as zeros
    np.testing.assert_array_equal(rms_norm_unchecked(x, gain, 1e-6).view(np.uint16), got.view(np.uint16))


def test_float16_rms_norm_agrees_with_hugging_faces_llama_rms_norm():
    x = float16_rows(seed=2)
    weight = np.random.default_rng(3).uniform(0.5, 2.0, x.shape[-1]).astype(F16)
    for eps in (1e-6, 1e-5):
        hf = hf_llama_rms_norm(x, weight, eps)
        got = rms_norm(x, weight, eps=eps)
        assert hf.dtype == got.dtype == F16
        assert within_float16_ulps(got, hf).all(), np.abs(got.astype(float) - hf.astype(float)).max()


def test_float16_rms_norm_agrees_with_torch():
    torch = pytest.importorskip("torch")
    x = float16_rows(seed=4)
    weight = np.random.default_rng(5).uniform(0.5, 2.0, x.shape[-1]).astype(F16)
    h = torch.from_numpy(x).to(torch.float32)  # LlamaRMSNorm.forward, in torch itself
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    expected = (torch.from_numpy(weight) * h.to(torch.float16)).numpy()
    assert within_float16_ulps(rms_norm(x, weight, eps=1e-6), expected).all()


def test_float16_rms_norm_agrees_with_transformers_llama_rms_norm():
    torch = pytest.importorskip("torch")
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    x = float16_rows(seed=6)
    weight = np.random.default_rng(7).uniform(0.5, 2.0, x.shape[-1]).astype(F16)
    norm = llama.LlamaRMSNorm(x.shape[-1], eps=1e-5).to(torch.float16)  # Llama's eps, a float16 model
    with torch.no_grad():
        norm.weight.copy_(torch.from_numpy(weight))
        expected = norm(torch.from_numpy(x)).numpy()
    assert expected.dtype == F16
    assert within_float16_ulps(rms_norm(x, weight, eps=1e-5), expected).all()


@pytest.mark.parametrize(
    "dtype, top", [(np.float32, 1e20), (np.float32, 3e38), (np.float64, 1e160), (np.float64, 1e308)]
)
def test_rms_norm_of_a_row_whose_squares_overflow_is_not_zeros(dtype, top):
    x = np.array([[top, -top / 3, top / 7, 1.0], [1.0, 2.0, 3.0, 4.0]], dtype=dtype)
    gain = np.array([1.0, 2.0, 0.5, 1.0], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rms_norm(x, gain)
    rms = math.sqrt(sum((float(u) / top) ** 2 for u in x[0]) / 4)  # of x / top: eps is negligible here
    exact = [float(v) / top / rms * float(g) for v, g in zip(x[0], gain, strict=True)]
    np.testing.assert_allclose(got[0], exact, rtol=10 * np.finfo(dtype).eps)
    np.testing.assert_array_equal(got[1], (x[1] / np.sqrt((x[1] ** 2).mean() + 1e-6) * gain))  # the rest unchanged
    assert got.dtype == dtype


def test_rms_norm_names_a_float16_result_that_overflows():
    with pytest.raises(ValueError, match="rms_norm's result .* overflows float16.*gain is too large"):
        rms_norm(np.array([[1.0, 0.0]], F16), np.array([60000.0, 60000.0], F16))  # sqrt(2) * 60000 > 65504


# --- item 16.2: silu in float16 ------------------------------------------------------------------------


def test_float16_silu_is_the_float32_result_rounded_once_for_every_float16():
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(F16)
    x = x[np.isfinite(x)]  # all 63,488 finite float16 numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = silu(x)
    assert got.dtype == F16
    expected = silu(x.astype(np.float32)).astype(F16)
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))
    x64 = x.astype(np.float64)
    exact = x64 * np.exp(np.minimum(x64, 0)) / (np.exp(np.minimum(x64, 0)) + np.exp(np.minimum(-x64, 0)))
    assert within_float16_ulps(got, exact).all()
    assert silu(F16(-12.0)) < 0 and silu(F16(-17.0)) < 0  # SiLU(-12) = -7.4e-5, SiLU(-17) = -7.2e-7, not -0.0


@pytest.mark.parametrize("dtype, x", [(np.float32, -95.0), (np.float32, -100.0), (np.float64, -720.0)])
def test_silu_far_below_zero_is_x_exp_x_not_minus_zero(dtype, x):
    """Past the overflow of exp(-x) (x < -88.7 in float32, -709.8 in float64) SiLU still has a value the dtype holds."""
    exact = -math.exp(math.log(-x) + x)  # x e^x / (1 + e^x), and 1 + e^x is 1 here
    got = silu(np.array([x, 1.0], dtype=dtype))
    assert got.dtype == dtype and got[0] < 0
    assert abs(float(got[0]) - exact) <= np.spacing(dtype(-exact)), (got[0], exact)  # within one ulp (a subnormal's)
    assert got[1] == np.array([1.0], dtype) / (1 + np.exp(np.array([-1.0], dtype)))[0]  # elsewhere the same quotient


# --- item 15.3: the tiny model's cross-entropy -------------------------------------------------------


@pytest.mark.parametrize("dtype, loss", [(np.float32, 100.0), (np.float32, 1000.0), (np.float64, 1000.0)])
def test_cross_entropy_is_exact_for_a_very_wrong_prediction(dtype, loss):
    logits = np.array([[0.0, -loss, 1.0], [2.0, 1.0, 0.0]], dtype=dtype)  # sentence 0 puts p(target) near e^-loss
    target = np.array([1, 0])
    got, probs = cross_entropy(logits, target)
    # -log softmax, in float64 with log1p: log(e^0 + e^-loss + e^1) - (-loss)
    first = loss + 1.0 + math.log1p(math.exp(-1.0) + math.exp(-loss - 1.0))
    second = 2.0 + math.log1p(math.exp(-1.0) + math.exp(-2.0)) - 2.0
    assert got == pytest.approx((first + second) / 2, rel=10 * float(np.finfo(dtype).eps))
    assert probs.dtype == dtype and np.allclose(probs.sum(axis=-1), 1.0)
