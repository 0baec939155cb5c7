"""Multi-head attention: project, split into heads, attend in each head, concatenate, project back.

Weights are stored the way the article writes them: ``w_q`` is [d_model, d_model] and is used as
``x @ w_q``; head i uses columns ``i*d_k:(i+1)*d_k`` (the article's W_i^Q matrices side by side).
"""

import numpy as np

from attn_lib._checks import (
    as_float_array,
    check_fits,
    check_heads_divide,
    check_kv_heads_divide,
    check_positive_int,
    check_seed,
    float_dtype,
    work_dtype,
)
from attn_lib.core import ScoresOverflowError, scaled_dot_product_attention


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


_WIDER = {"float32": " (or compute in float64)"}


def _project(x, w, b, dtype, step):
    """x @ w (+ b): one projection for all heads at once; an overflow is an error that names the step."""
    with np.errstate(over="ignore", invalid="ignore"):
        y = x @ w.astype(dtype, copy=False)  # [..., n, d_model] x [d_model, d_model] -> [..., n, d_model]
        y = y if b is None else y + b.astype(dtype, copy=False)
    if not np.isfinite(y).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(y))[0])
        raise ValueError(
            f"{step} overflowed {dtype} (first at index {where}): its inputs are finite but too large in"
            f" magnitude; rescale them{_WIDER.get(dtype.name, '')}"
        )
    return y


def check_tokens_x(x):
    """Raise unless x [..., n, d_model] has at least one token and one feature (named here, not as q and k)."""
    n, d_model = x.shape[-2:]
    if n == 0:
        raise ValueError(f"x has no tokens (shape {x.shape}): attention needs at least one token, n >= 1")
    if d_model == 0:
        raise ValueError(f"x has d_model=0 (shape {x.shape}): each token needs at least one feature")


def check_heads_mask(mask, x):
    """Refuse a mask whose axes would line up with the wrong axes of the weights [..., h, n, n]."""
    try:
        shape = np.shape(mask)
    except ValueError:  # ragged: scaled_dot_product_attention says so
        return
    weights_ndim = x.ndim + 1
    if 2 < len(shape) < weights_ndim:
        raise ValueError(
            f"mask of shape {shape} is ambiguous for x of shape {x.shape}: the weights are [..., h, n, n]"
            f" ({weights_ndim} dimensions), and broadcasting would line up the mask's first axis with the heads,"
            " not the sentences. Give an [n, n] mask (every sentence, every head) or one with"
            f" {weights_ndim} dimensions: [B, 1, n, n] for one mask per sentence (mask[..., None, :, :] turns"
            " [B, n, n] into that), or [1, h, n, n] for one mask per head"
        )


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None, *, b_q=None, b_k=None, b_v=None, b_o=None):
    """[..., n, d_model] -> output [..., n, d_model], weights [..., h, n, n].

    MultiHead(X) = Concat(head_1, ..., head_h) W_O with head_i = Attention(X W_i^Q, X W_i^K, X W_i^V),
    each head scaled by its own sqrt(d_k) = sqrt(d_model / h). `mask` (boolean, True = may attend,
    or float, added to the scores; the rules of `scaled_dot_product_attention` apply) is either
    [n, n], for every sentence and every head, or has as many dimensions as the weights
    [..., h, n, n]: one mask per sentence of a batch x [B, n, d_model] is [B, 1, n, n]. A [B, n, n]
    mask is refused, since broadcasting would line up B with the heads axis.
    The optional keyword-only biases b_q, b_k, b_v, b_o ([d_model] each; None = no bias, as in the
    article) are added after their projections, Q = X W_Q + b_Q, ..., as in BERT-style models.
    Mixed floating dtypes are promoted to the common one; float16 is computed in float32 and rounded
    once at the end. A projection that overflows is an error naming it, never an inf in the output.
    """
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    check_tokens_x(x)
    d_model = x.shape[-1]
    check_heads_divide(d_model, n_heads)
    weights, biases = _check_projections(d_model, (w_q, w_k, w_v, w_o), (b_q, b_k, b_v, b_o))
    check_heads_mask(mask, x)
    return attend_heads(x, weights, biases, n_heads, n_heads, scaled_dot_product_attention, mask)


def _check_projections(d_model, weights, biases):
    """(w_q, w_k, w_v, w_o), (b_q, b_k, b_v, b_o) -> the same, checked against d_model (a bias may be None)."""
    weights = tuple(
        _check_weight(w, name, d_model) for w, name in zip(weights, ("w_q", "w_k", "w_v", "w_o"), strict=True)
    )
    biases = tuple(_check_bias(b, name, d_model) for b, name in zip(biases, ("b_q", "b_k", "b_v", "b_o"), strict=True))
    return weights, biases


def attend_heads(x, weights, biases, n_heads, n_kv_heads, attend, mask, memory=None):
    """Validated x, (w_q, w_k, w_v, w_o), (b_q, b_k, b_v, b_o) -> output [..., n, d_model], weights [..., h, n, n].

    The steps every multi-head variant shares: project once for all heads, split into heads (n_kv_heads
    for K and V), `attend(q, k, v, mask=mask)` in every head, concatenate, project back with w_o.
    Keys and values come from `memory` [..., n_k, d_model] when it is given (cross-attention), else from x.
    float16 is computed in float32 and rounded once, at the end.
    """
    w_q, w_k, w_v, w_o = weights
    b_q, b_k, b_v, b_o = biases
    dtype = float_dtype(x, *weights, *(b for b in biases if b is not None), *(() if memory is None else (memory,)))
    work = work_dtype(dtype)  # float16 is computed in float32
    x = x.astype(work, copy=False)
    kv, kv_name = (x, "x") if memory is None else (memory.astype(work, copy=False), "memory")

    # project once for all heads, then give each head its own d_k columns
    q = split_heads(_project(x, w_q, b_q, work, "the query projection x @ w_q"), n_heads)  # -> [..., h, n, d_k]
    k = split_heads(
        _project(kv, w_k, b_k, work, f"the key projection {kv_name} @ w_k"), n_kv_heads
    )  # [.., h_kv, n_k, d_k]
    v = split_heads(
        _project(kv, w_v, b_v, work, f"the value projection {kv_name} @ w_v"), n_kv_heads
    )  # [.., h_kv, n_k, d_k]
    try:
        heads, attention = attend(q, k, v, mask=mask)  # [..., h, n, d_k], [..., h, n, n]
    except ScoresOverflowError:
        inputs = "x, w_q and w_k" if memory is None else "x, memory, w_q and w_k"
        raise ValueError(
            f"the scores (x @ w_q)({kv_name} @ w_k)^T / sqrt(d_k) overflowed {work}: {inputs} are finite but"
            f" too large in magnitude; rescale them{_WIDER.get(work.name, '')}"
        ) from None
    output = _project(merge_heads(heads), w_o, b_o, work, "the output projection heads @ w_o")  # [..., n, d_model]
    if work != dtype:  # float16: round once, here
        output = check_fits(output, dtype, "the output heads @ w_o", "the result does not fit {dtype}; rescale w_o")
    return output, attention.astype(dtype, copy=False)


def cross_attention(x, memory, w_q, w_k, w_v, w_o, n_heads, mask=None, *, b_q=None, b_k=None, b_v=None, b_o=None):
    """[..., n_q, d_model], [..., n_k, d_model] -> output [..., n_q, d_model], weights [..., h, n_q, n_k].

    Multi-head attention whose queries come from x and whose keys and values come from `memory`:
    head_i = Attention(X W_i^Q, M W_i^K, M W_i^V), the article's MultiHead(Q, K, V) with Q, K, V from
    two sequences. In a translation model x is the decoder's (the sentence being written) and memory the
    encoder's output (the source sentence), so n_q != n_k in general. Weights, biases, scaling by the
    per-head sqrt(d_k) and the mask rules are those of `multi_head_attention`, with [n_q, n_k] in place
    of [n, n]: a padding mask that hides the source's padding is [B, 1, 1, n_k] (or [B, 1, n_q, n_k]).
    Self-attention is the case memory = x.
    """
    x = as_float_array(x, "x", min_ndim=2)
    memory = as_float_array(memory, "memory", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    check_tokens_x(x)
    if memory.shape[-2] == 0:
        raise ValueError(
            f"memory has no tokens (shape {memory.shape}): cross-attention needs at least one key, n_k >= 1"
        )
    d_model = x.shape[-1]
    if memory.shape[-1] != d_model:
        raise ValueError(
            f"memory has d_model={memory.shape[-1]} (shape {memory.shape}) but x has d_model={d_model} (shape"
            f" {x.shape}): the encoder's and the decoder's vectors must have the same size"
        )
    try:
        np.broadcast_shapes(x.shape[:-2], memory.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) axes of x {x.shape} and memory {memory.shape} do not broadcast: give one memory"
            " per sentence of x, [B, n_k, d_model] for x [B, n_q, d_model]"
        ) from None
    check_heads_divide(d_model, n_heads)
    weights, biases = _check_projections(d_model, (w_q, w_k, w_v, w_o), (b_q, b_k, b_v, b_o))
    check_heads_mask(mask, x)
    return attend_heads(x, weights, biases, n_heads, n_heads, scaled_dot_product_attention, mask, memory=memory)


def init_multi_head_weights(d_model, n_heads, seed=0):
    """(d_model, n_heads) -> {"w_q", "w_k", "w_v", "w_o"}, each [d_model, d_model], float64.

    Entries are drawn from N(0, 1/d_model) with numpy.random.default_rng(seed), so that projecting
    unit-variance inputs keeps every component of q, k and v near unit variance (the setting in
    which Var(q . k) = d_k holds).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    check_heads_divide(d_model, n_heads)
    rng = np.random.default_rng(check_seed(seed, none_ok=True))
    std = 1.0 / np.sqrt(d_model)
    return {name: rng.normal(0.0, std, size=(d_model, d_model)) for name in ("w_q", "w_k", "w_v", "w_o")}


def count_parameters(d_model, n_heads, bias=False, *, n_kv_heads=None):
    """(d_model, h) -> the number of learned numbers in one multi-head attention block.

    h heads x (W_i^Q + W_i^K + W_i^V, each d_model x d_k) + W_O (d_model x d_model) = 4 d_model^2,
    whatever h is. `bias`: False (none, the article's count), True (one bias vector per projection,
    + 4 d_model: PyTorch's nn.MultiheadAttention default) or "output" (a bias on W_O only, + d_model:
    three nn.Linear(bias=False) and an nn.Linear output projection, as in LLMs-from-scratch).
    `n_kv_heads` (keyword; default n_heads): grouped-query attention, in which W_K and W_V are
    d_model x (n_kv_heads * d_k), so the count is 2 d_model^2 + 2 d_model n_kv_heads d_k (+ biases).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    check_heads_divide(d_model, n_heads)
    n_kv_heads = n_heads if n_kv_heads is None else check_positive_int(n_kv_heads, "n_kv_heads")
    check_kv_heads_divide(n_heads, n_kv_heads)
    if isinstance(bias, str) and bias == "output":
        qkv_bias, output_bias = False, True
    elif isinstance(bias, (bool, np.bool_)):
        qkv_bias = output_bias = bool(bias)
    else:
        raise TypeError(f'bias must be True or False, got {bias!r} (or "output" for a bias on W_O only)')
    d_k = d_model // n_heads
    queries = n_heads * (d_model * d_k + (d_k if qkv_bias else 0))  # W_i^Q (+ its bias), one per query head
    keys_values = 2 * n_kv_heads * (d_model * d_k + (d_k if qkv_bias else 0))  # W_j^K, W_j^V per K/V head
    output = d_model * d_model + (d_model if output_bias else 0)  # W_O (+ its bias)
    return queries + keys_values + output
