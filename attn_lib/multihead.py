"""Multi-head attention: project, split into heads, attend in each head, concatenate, project back.

Weights are stored the way the article writes them: ``w_q`` is [d_model, d_model] and is used as
``x @ w_q``; head i uses columns ``i*d_k:(i+1)*d_k`` (the article's W_i^Q matrices side by side).
"""

import numbers

import numpy as np

from attn_lib._checks import _describe, as_float_array, check_heads_divide, check_positive_int, float_dtype
from attn_lib.core import scaled_dot_product_attention


def split_heads(x, n_heads):
    """[..., n, d_model] -> [..., h, n, d_k] with d_k = d_model / h; head i gets features i*d_k:(i+1)*d_k."""
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    *batch, n, d_model = x.shape
    check_heads_divide(d_model, n_heads)
    d_k = d_model // n_heads
    x = x.reshape(*batch, n, n_heads, d_k)  # [..., n, d_model] -> [..., n, h, d_k]
    return np.swapaxes(x, -2, -3)  # [..., n, h, d_k] -> [..., h, n, d_k]


def merge_heads(x):
    """[..., h, n, d_k] -> [..., n, h * d_k]: the article's Concat(head_1, ..., head_h)."""
    x = as_float_array(x, "x", min_ndim=3)
    *batch, h, n, d_k = x.shape
    x = np.swapaxes(x, -2, -3)  # [..., h, n, d_k] -> [..., n, h, d_k]
    return x.reshape(*batch, n, h * d_k)  # [..., n, h, d_k] -> [..., n, d_model]


def _check_weight(w, name, d_model):
    w = as_float_array(w, name)
    if w.shape != (d_model, d_model):
        raise ValueError(
            f"{name} has shape {w.shape} but x has d_model={d_model}: {name} must be [d_model, d_model]"
            f" = ({d_model}, {d_model}), used as x @ {name}"
        )
    return w


def _check_bias(b, name, d_model):
    if b is None:
        return None
    b = as_float_array(b, name)
    if b.shape != (d_model,):
        raise ValueError(
            f"{name} has shape {b.shape} but x has d_model={d_model}: {name} must be [d_model] = ({d_model},)"
        )
    return b


def _project(x, w, b, dtype):
    """x @ w (+ b): one projection for all heads at once."""
    y = x @ w.astype(dtype, copy=False)  # [..., n, d_model] x [d_model, d_model] -> [..., n, d_model]
    return y if b is None else y + b.astype(dtype, copy=False)


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None, *, b_q=None, b_k=None, b_v=None, b_o=None):
    """[..., n, d_model] -> output [..., n, d_model], weights [..., h, n, n].

    MultiHead(X) = Concat(head_1, ..., head_h) W_O with head_i = Attention(X W_i^Q, X W_i^K, X W_i^V),
    each head scaled by its own sqrt(d_k) = sqrt(d_model / h). `mask` (boolean, True = may attend,
    or float, added to the scores) broadcasts to [..., h, n, n]; an [n, n] mask applies to every head.
    For one mask per sentence of a batch x [B, n, d_model], give it the shape [B, 1, n, n]: a
    [B, n, n] mask would line up B with the heads axis.
    The optional keyword-only biases b_q, b_k, b_v, b_o ([d_model] each; None = no bias, as in the
    article) are added after their projections, Q = X W_Q + b_Q, ..., as in BERT-style models.
    """
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    d_model = x.shape[-1]
    check_heads_divide(d_model, n_heads)
    w_q, w_k, w_v, w_o = (
        _check_weight(w, name, d_model) for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"), (w_o, "w_o"))
    )
    b_q, b_k, b_v, b_o = (
        _check_bias(b, name, d_model) for b, name in ((b_q, "b_q"), (b_k, "b_k"), (b_v, "b_v"), (b_o, "b_o"))
    )
    dtype = float_dtype(x, w_q, w_k, w_v, w_o, *(b for b in (b_q, b_k, b_v, b_o) if b is not None))
    x = x.astype(dtype, copy=False)

    # project once for all heads, then give each head its own d_k columns
    q = split_heads(_project(x, w_q, b_q, dtype), n_heads)  # [..., n, d_model] -> [..., h, n, d_k]
    k = split_heads(_project(x, w_k, b_k, dtype), n_heads)  # [..., n, d_model] -> [..., h, n, d_k]
    v = split_heads(_project(x, w_v, b_v, dtype), n_heads)  # [..., n, d_model] -> [..., h, n, d_k]
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)  # [..., h, n, d_k], [..., h, n, n]
    output = _project(merge_heads(heads), w_o, b_o, dtype)  # [..., n, d_model] x [d_model, d_model]
    return output, weights


def init_multi_head_weights(d_model, n_heads, seed=0):
    """(d_model, n_heads) -> {"w_q", "w_k", "w_v", "w_o"}, each [d_model, d_model], float64.

    Entries are drawn from N(0, 1/d_model) with numpy.random.default_rng(seed), so that projecting
    unit-variance inputs keeps every component of q, k and v near unit variance (the setting in
    which Var(q . k) = d_k holds).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    check_heads_divide(d_model, n_heads)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be a non-negative integer (or None), got {_describe(seed)}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed={seed} must be a non-negative integer (numpy.random.default_rng's rule)")
    rng = np.random.default_rng(seed)
    std = 1.0 / np.sqrt(d_model)
    return {name: rng.normal(0.0, std, size=(d_model, d_model)) for name in ("w_q", "w_k", "w_v", "w_o")}


def count_parameters(d_model, n_heads, bias=False):
    """(d_model, h) -> the number of learned numbers in one multi-head attention block.

    h heads x (W_i^Q + W_i^K + W_i^V, each d_model x d_k) + W_O (d_model x d_model) = 4 d_model^2,
    whatever h is; with bias=True, add one bias vector per projection: + 4 d_model (PyTorch's
    nn.MultiheadAttention default).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    check_heads_divide(d_model, n_heads)
    if not isinstance(bias, (bool, np.bool_)):
        raise TypeError(f"bias must be True or False, got {bias!r}")
    d_k = d_model // n_heads
    per_head = 3 * d_model * d_k + (3 * d_k if bias else 0)  # W_i^Q, W_i^K, W_i^V (+ their biases)
    output = d_model * d_model + (d_model if bias else 0)  # W_O (+ its bias)
    return n_heads * per_head + output
