"""The transformer block around attention: residual connections, layer norm and the feed-forward network.

One pre-norm block, as in GPT-2 and most models since (PyTorch: ``norm_first=True``)::

    A = X + MultiHead(LayerNorm_1(X))        the residual path carries X around the sublayer unchanged
    Y = A + FFN(LayerNorm_2(A))              FFN(z) = act(z W_1 + b_1) W_2 + b_2, each position on its own

The original transformer (Vaswani et al. 2017) and BERT put each norm *after* the addition instead
(post-norm, ``norm_first=False``): A = LayerNorm_1(X + MultiHead(X)), Y = LayerNorm_2(A + FFN(A)).
Weights are stored for ``x @ w``, under the names `attn_lib.models.minilm.bert` uses (w_q, b_q, ..., ln1_gamma,
ln1_beta, w_1, b_1, w_2, b_2, ln2_gamma, ln2_beta). Every function keeps float32 as float32; float16 is
computed in float32 and rounded once at the end, like the rest of the package.
"""

import numbers

import numpy as np

from attn_lib._checks import (
    as_float_array,
    check_fits,
    check_heads_divide,
    check_positive_int,
    check_seed,
    describe_value,
    float_dtype,
    work_dtype,
)
from attn_lib.multihead import multi_head_attention

# erfc(z) ~ t exp(-z^2 + P(t)), t = 1 / (1 + z/2), z >= 0: a Chebyshev fit with relative error below
# 1.2e-7 (Numerical Recipes, "erfcc"); erf = 1 - erfc is then within 1e-7 of the exact value.
_ERFC_COEFFS = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip

#: The parameters of one block, as `init_block_params` makes them and `transformer_block` reads them.
BLOCK_PARAMS = (
    "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o",
    "ln1_gamma", "ln1_beta", "w_1", "b_1", "w_2", "b_2", "ln2_gamma", "ln2_beta",
)  # fmt: skip


def erf(x):
    """[...] -> [...]: the error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-s^2) ds, to within 1e-7.

    numpy has no erf; this is computed in float64 and returned in the dtype of `x` (a float).
    """
    x = np.asarray(x)
    z = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for c in reversed(_ERFC_COEFFS):  # Horner's rule
        poly = poly * t + c
    erfc = t * np.exp(-z * z + poly)  # erfc(|x|)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0).astype(dtype, copy=False)


def _as_float(x):
    """x (array, list or number) as a floating array: integers and Python numbers become float64."""
    return as_float_array(x, "x")


#: sqrt(2 / pi) and the cubic coefficient of GELU's tanh approximation (Hendrycks & Gimpel 2016).
_TANH_C, _TANH_A = np.sqrt(2.0 / np.pi), 0.044715


def gelu(x, approximate="none"):
    """[...] -> [...]: GELU(x) = x * Phi(x) = x/2 * (1 + erf(x / sqrt(2))), the exact (erf) form BERT uses.

    approximate="tanh": x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the approximation GPT-2 uses
    (Hugging Face's "gelu_new", PyTorch's gelu(approximate="tanh")); the two differ by up to 4.7e-4.
    Integers, lists and Python numbers are computed in float64; float16 in float32, rounded once.
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(
            f'approximate must be "none" (the exact erf form) or "tanh", got {describe_value(approximate)}'
        )
    x = _as_float(x)
    dtype, work = x.dtype, work_dtype(x.dtype)
    z = x.astype(work, copy=False)
    if approximate == "tanh":
        y = z * 0.5 * (1.0 + np.tanh(work.type(_TANH_C) * (z + work.type(_TANH_A) * z**3)))
    else:
        y = z * 0.5 * (1.0 + erf(z / np.sqrt(work.type(2.0))))
    return y.astype(dtype, copy=False)


def gelu_tanh(x):
    """[...] -> [...]: `gelu(x, approximate="tanh")`, GPT-2's GELU (feed_forward's activation="gelu_tanh")."""
    return gelu(x, approximate="tanh")


def relu(x):
    """[...] -> [...]: ReLU(x) = max(x, 0), the original transformer's activation (and PyTorch's default)."""
    x = _as_float(x)
    return np.maximum(x, 0).astype(x.dtype, copy=False)


ACTIVATIONS = {"gelu": gelu, "gelu_tanh": gelu_tanh, "relu": relu}


def _check_vector(value, name, size, what):
    value = as_float_array(value, name)
    if value.shape != (size,):
        raise ValueError(f"{name} has shape {value.shape}, but it must be [{what}] = ({size},) to match x")
    return value


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be a small positive number (it keeps a constant row from 0 / 0), got {eps!r}")
    return eps


def layer_norm(x, gamma, beta, eps=1e-5):
    """[..., d], [d], [d] -> [..., d]: normalise each vector to mean 0, variance 1, then scale and shift.

    LayerNorm(x) = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta, with the mean and the (biased)
    variance taken over the last axis: each token's own d features, never across tokens.

    eps defaults to 1e-5, PyTorch's and most models' value. BERT (and all-MiniLM-L6-v2) use 1e-12:
    `attn_lib.models.minilm.bert` passes the model's own. On a near-constant row the two differ a lot: the
    row [1, 1.001, 0.999, 1] (variance 5e-7) becomes [0, 1.41, -1.41, 0] with 1e-12, [0, 0.31, -0.31, 0]
    with 1e-5. Pass the eps of the model you port.
    float16 is computed in float32 and rounded once. A row so large that (x - mean)^2 overflows is
    divided by its largest |x| first (the result is the same: the eps is scaled with it), never
    returned as beta; a result that overflows the dtype (gamma or beta too large) is a ValueError.
    """
    x = as_float_array(x, "x", min_ndim=1)
    gamma = _check_vector(gamma, "gamma", x.shape[-1], "d")
    beta = _check_vector(beta, "beta", x.shape[-1], "d")
    dtype = float_dtype(x, gamma, beta)
    work = work_dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is found and named below
        y = layer_norm_unchecked(x.astype(work, copy=False), gamma.astype(work), beta.astype(work), _check_eps(eps))
    if not np.isfinite(y).all():
        raise ValueError(
            f"layer_norm's result overflowed {work}: the normalised x is finite, but gamma and beta"
            f" (largest |gamma| {np.abs(gamma).max():.4g}, |beta| {np.abs(beta).max():.4g}) are too large; rescale them"
        )
    return check_fits(y, dtype, "layer_norm's result", "gamma and beta are too large for {dtype}; rescale them")


def layer_norm_unchecked(x, gamma, beta, eps):
    """layer_norm's arithmetic, on inputs already checked (attn_lib.models.minilm.bert: the model file is verified).

    Computed in x's dtype. The rows whose variance overflows (|x| near the dtype's largest number, or
    above its square root) are recomputed from x / max|x|, with eps / max|x|^2: the same formula.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = x.mean(axis=-1, keepdims=True)  # [..., 1]
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # [..., 1], the biased variance, as PyTorch
    if np.isfinite(var).all():  # the usual case
        return (x - mean) / np.sqrt(var + eps) * gamma + beta
    return _layer_norm_rescaled(x, gamma, beta, eps, ~np.isfinite(var))


def _layer_norm_rescaled(x, gamma, beta, eps, overflowed):
    """layer_norm_unchecked for rows whose variance overflowed ([..., 1] True): LN(x) = LN_{eps/s²}(x/s), s = max|x|."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        s = np.max(np.abs(x), axis=-1, keepdims=True)  # [..., 1], positive on the rows that overflowed
        s = np.where(overflowed, s, 1)
        z = x / s  # [..., d], |z| <= 1
        mean = z.mean(axis=-1, keepdims=True)
        var = ((z - mean) ** 2).mean(axis=-1, keepdims=True)
        small_eps = eps / s / s  # underflows to 0 when s is huge, as eps is then negligible
        scaled = (z - mean) / np.sqrt(var + small_eps) * gamma + beta
        mean = x.mean(axis=-1, keepdims=True)
        plain = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps) * gamma + beta
    return np.where(overflowed, scaled, plain)


def _check_activation(activation):
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {describe_value(activation)}")
    return ACTIVATIONS[activation]


def feed_forward(x, w_1, b_1, w_2, b_2, activation="gelu"):
    """[..., n, d_model] -> [..., n, d_model]: act(x W_1 + b_1) W_2 + b_2, applied to each position alone.

    w_1 is [d_model, d_ff], w_2 is [d_ff, d_model]; d_ff is usually 4 d_model. `activation` is
    "gelu" (the exact erf form, as BERT and PyTorch's nn.GELU use), "gelu_tanh" (its tanh approximation,
    as GPT-2 uses: Hugging Face's "gelu_new"; up to 4.7e-4 from the exact form) or "relu" (the original
    transformer's).
    """
    act = _check_activation(activation)
    x = as_float_array(x, "x", min_ndim=1)
    w_1, w_2 = as_float_array(w_1, "w_1", min_ndim=2), as_float_array(w_2, "w_2", min_ndim=2)
    d_model = x.shape[-1]
    if w_1.shape[0] != d_model or w_2.shape != (w_1.shape[1], d_model):
        raise ValueError(
            f"w_1 {w_1.shape} and w_2 {w_2.shape} do not fit x with d_model={d_model}: w_1 must be"
            f" [d_model, d_ff] and w_2 [d_ff, d_model]"
        )
    b_1 = _check_vector(b_1, "b_1", w_1.shape[1], "d_ff")
    b_2 = _check_vector(b_2, "b_2", d_model, "d_model")
    return feed_forward_unchecked(x, w_1, b_1, w_2, b_2, act)


def feed_forward_unchecked(x, w_1, b_1, w_2, b_2, act=None):
    """feed_forward's arithmetic (act: a function, default GELU), on inputs already checked."""
    hidden = (gelu if act is None else act)(x @ w_1 + b_1)  # [..., n, d_model] x [d_model, d_ff] -> [..., n, d_ff]
    return hidden @ w_2 + b_2  # [..., n, d_ff] x [d_ff, d_model] -> [..., n, d_model]


def init_block_params(d_model, n_heads, d_ff=None, seed=0):
    """(d_model, h, d_ff = 4 d_model) -> the parameters of one block (names in BLOCK_PARAMS), float64.

    As a model starts training: weight matrices random, N(0, 1/fan_in) from numpy.random.default_rng(seed);
    biases and betas 0; gammas 1 (so each layer norm starts as a plain normalisation).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    check_heads_divide(d_model, n_heads)
    d_ff = 4 * d_model if d_ff is None else check_positive_int(d_ff, "d_ff")
    rng = np.random.default_rng(check_seed(seed))
    shapes = {name: (d_model, d_model) for name in ("w_q", "w_k", "w_v", "w_o")}
    shapes.update(w_1=(d_model, d_ff), w_2=(d_ff, d_model))
    params = {name: rng.normal(0.0, 1.0 / np.sqrt(shape[0]), size=shape) for name, shape in shapes.items()}
    for name in ("b_q", "b_k", "b_v", "b_o", "ln1_beta", "b_2", "ln2_beta"):
        params[name] = np.zeros(d_model)
    params.update(b_1=np.zeros(d_ff), ln1_gamma=np.ones(d_model), ln2_gamma=np.ones(d_model))
    return {name: params[name] for name in BLOCK_PARAMS}


def transformer_block(x, params, n_heads, mask=None, *, norm_first=True, activation="gelu", eps=1e-5):
    """[..., n, d_model] -> output [..., n, d_model], weights [..., h, n, n]: one transformer block.

    norm_first=True (pre-norm): x + MultiHead(LN_1(x)), then + FFN(LN_2(.)). norm_first=False
    (post-norm, the original paper and BERT): LN_1(x + MultiHead(x)), then LN_2(. + FFN(.)).
    `params` holds the names in BLOCK_PARAMS; `mask` is multi_head_attention's (True = may attend).
    eps=1e-5 is GPT-2's and PyTorch's default (BERT uses 1e-12). activation="gelu" is the exact GELU, as
    in BERT and in PyTorch's layer with activation="gelu" (its default is "relu"); GPT-2 uses the tanh
    approximation: activation="gelu_tanh".
    """
    if not isinstance(params, dict):
        raise TypeError(
            f"params must be a dict of the block's arrays (see init_block_params), got {describe_value(params)}"
        )
    missing = [name for name in BLOCK_PARAMS if name not in params]
    if missing:
        raise ValueError(f"params is missing {', '.join(missing)} (a block needs {', '.join(BLOCK_PARAMS)})")
    if not isinstance(norm_first, (bool, np.bool_)):
        raise TypeError(f"norm_first must be True (pre-norm) or False (post-norm), got {describe_value(norm_first)}")
    _check_activation(activation)
    x = as_float_array(x, "x", min_ndim=2)
    p = params

    def attention(z):  # [..., n, d_model] -> [..., n, d_model], [..., h, n, n]
        return multi_head_attention(
            z, p["w_q"], p["w_k"], p["w_v"], p["w_o"], n_heads, mask=mask,
            b_q=p["b_q"], b_k=p["b_k"], b_v=p["b_v"], b_o=p["b_o"],
        )  # fmt: skip

    def ffn(z):  # [..., n, d_model] -> [..., n, d_model], each position alone
        return feed_forward(z, p["w_1"], p["b_1"], p["w_2"], p["b_2"], activation)

    if norm_first:  # pre-norm: normalise the sublayer's input; the residual path stays untouched
        heads, weights = attention(layer_norm(x, p["ln1_gamma"], p["ln1_beta"], eps))
        x = x + heads  # residual connection: x + Sublayer(LN(x))
        x = x + ffn(layer_norm(x, p["ln2_gamma"], p["ln2_beta"], eps))
    else:  # post-norm: normalise after the addition, as Vaswani et al. 2017 and BERT
        heads, weights = attention(x)
        x = layer_norm(x + heads, p["ln1_gamma"], p["ln1_beta"], eps)  # LN(x + Sublayer(x))
        x = layer_norm(x + ffn(x), p["ln2_gamma"], p["ln2_beta"], eps)
    return x, weights


# --- what today's models use instead: RMSNorm and the SwiGLU feed-forward network --------------------
# LLaMA, Mistral, Qwen and Gemma replace LayerNorm + GELU by these two (Zhang and Sennrich 2019; Shazeer 2020).


def silu(x):
    """[...] -> [...]: SiLU(x) = x * sigmoid(x) = x / (1 + exp(-x)) (also called swish), the gate of SwiGLU.

    float16 is computed in float32 and rounded once: in float16 exp(-x) overflows below x = -11.1, and
    x / (1 + exp(-x)) would be -0.0 where SiLU is still about -1e-4 (it is representable down to x = -17.5).
    Where 1 + exp(-x) overflows in float32 or float64 (x < -88.7, x < -709.8), SiLU's value there to the dtype's
    precision, x e^x = -exp(x + log(-x)), is used instead of the quotient's -0.0: no value the dtype holds becomes 0.
    This form is accurate to a few ulp for every x (the form with tanh, x (1 + tanh(x / 2)) / 2, loses digits for
    negative x, where 1 + tanh cancels) and faster (one exp instead of a tanh).
    """
    if getattr(x, "dtype", None) == np.float16:
        return silu(x.astype(np.float32)).astype(np.float16)
    with np.errstate(over="ignore"):
        denominator = 1.0 + np.exp(-x)
    y = x / denominator
    overflowed = np.isinf(denominator)
    if np.any(overflowed):  # x far below 0: 1 + e^-x is inf, and SiLU(x) = x e^x / (1 + e^x) = x e^x to the last bit
        far = np.where(overflowed, x, -1)  # x e^x = -exp(x + log(-x)): e^x alone would lose digits as a subnormal
        y = np.where(overflowed, -np.exp(far + np.log(-far)), y)[()]  # [()]: a scalar stays a scalar
    return y


def rms_norm(x, gain, eps=1e-6):
    """[..., d], [d] -> [..., d]: RMSNorm(x) = x / sqrt(mean(x^2) + eps) * gain, over the last axis.

    LayerNorm without the mean subtracted and without beta: each token's vector is divided by its root
    mean square. eps=1e-6 is the first LLaMA's (and Qwen2's and Gemma 3's); Llama 2 and 3, Mistral and SmolLM2 use
    1e-5: pass the eps of the model you port (Gemma also multiplies by 1 + gain).
    float16 is computed in float32 and rounded once (as Hugging Face's LlamaRMSNorm upcasts): x^2 overflows
    float16 from |x| = 256 on. A row whose mean(x^2) overflows even so is divided by its largest |x| first (the
    same result: eps is scaled with it); a result that overflows the dtype (gain too large) is a ValueError.
    """
    x = as_float_array(x, "x", min_ndim=1)
    gain = _check_vector(gain, "gain", x.shape[-1], "d")
    y, dtype = _rms_norm(x, gain, _check_eps(eps))
    return check_fits(y, dtype, "rms_norm's result", "gain is too large for {dtype}; rescale it")


def rms_norm_unchecked(x, gain, eps):
    """rms_norm's arithmetic, on inputs already checked (attn_lib.models.smollm2.model: the model file is verified)."""
    y, dtype = _rms_norm(x, gain, eps)
    if y.dtype == dtype:
        return y
    with np.errstate(over="ignore"):  # float16 computed in float32, rounded once (rms_norm names an overflow)
        return y.astype(dtype)


def _rms_norm(x, gain, eps):
    """-> (RMSNorm(x) computed with float16 taken as float32, the dtype to return: that of x and gain together).

    Rows whose mean(x^2) overflows are recomputed from x / max|x|, with eps / max|x|^2: the same formula.
    """
    dtype = np.result_type(x, gain)
    if x.dtype == np.float16:  # x^2 overflows float16 from |x| = 256 on
        x = x.astype(np.float32)
    if gain.dtype == np.float16:
        gain = gain.astype(np.float32)
    with np.errstate(over="ignore"):
        mean_square = (x * x).mean(axis=-1, keepdims=True)  # [..., 1]: one mean square per token
    if not np.isfinite(mean_square).all():  # |x| near the dtype's largest number: the same formula on x / max|x|
        with np.errstate(under="ignore"):
            s = np.max(np.abs(x), axis=-1, keepdims=True)  # [..., 1]
            s = np.where(np.isfinite(mean_square), 1, s).astype(x.dtype)  # only the rows that overflowed
            x = x / s  # |x| <= 1 on those rows, unchanged on the others
            mean_square = (x * x).mean(axis=-1, keepdims=True)
            eps = eps / s / s  # underflows to 0 when s is huge, as eps is then negligible
    rms = np.sqrt(mean_square + eps)  # [..., 1]: one root mean square per token
    return x / rms * gain, dtype


def swiglu(x, w_gate, w_up, w_down):
    """[..., n, d_model] -> [..., n, d_model]: SwiGLU(x) = (SiLU(x W_gate) * (x W_up)) W_down, no biases.

    w_gate and w_up are [d_model, d_ff], w_down [d_ff, d_model]; LLaMA takes d_ff about 8/3 d_model
    (rounded up to a multiple of 256), so the three matrices hold as many weights as GELU's two of 4 d_model.
    """
    x = as_float_array(x, "x", min_ndim=1)
    w_gate, w_up = as_float_array(w_gate, "w_gate", min_ndim=2), as_float_array(w_up, "w_up", min_ndim=2)
    w_down = as_float_array(w_down, "w_down", min_ndim=2)
    d_model = x.shape[-1]
    if w_gate.shape[0] != d_model or w_up.shape != w_gate.shape or w_down.shape != (w_gate.shape[1], d_model):
        raise ValueError(
            f"w_gate {w_gate.shape}, w_up {w_up.shape} and w_down {w_down.shape} do not fit x with"
            f" d_model={d_model}: w_gate and w_up must be [d_model, d_ff] and w_down [d_ff, d_model]"
        )
    return _swiglu(x, w_gate, w_up, w_down)


def _swiglu(x, w_gate, w_up, w_down, matmul=np.matmul):
    """swiglu's arithmetic, on inputs already checked; `matmul(a, w)` computes a @ w (a model may pass one
    that sums its products more accurately, as attn_lib.models.smollm2.model does)."""
    hidden = silu(matmul(x, w_gate)) * matmul(x, w_up)  # [..., n, d_model] x [d_model, d_ff] -> [..., n, d_ff], twice
    return matmul(hidden, w_down)  # [..., n, d_ff] x [d_ff, d_model] -> [..., n, d_model]
