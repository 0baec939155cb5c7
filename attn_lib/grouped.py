"""Grouped-query attention: n_heads query heads share n_kv_heads key/value heads (notebook 12).

Multi-head attention gives every query head its own keys and values. A model that generates text
keeps every past key and value in its KV cache, and that cache, not the arithmetic, is what limits
long contexts. Grouped-query attention (GQA; Ainslie et al. 2023) keeps all n_heads query heads but
only n_kv_heads key/value heads; each K/V head serves a *group* of g = n_heads / n_kv_heads
consecutive query heads:

    query head i  uses  K/V head  i // g          (n_heads = 8, n_kv_heads = 2: heads 0-3 -> 0, 4-7 -> 1)

n_kv_heads = n_heads is multi-head attention (MHA); n_kv_heads = 1 is multi-query attention (MQA;
Shazeer 2019). This is the layout of PyTorch's `scaled_dot_product_attention(..., enable_gqa=True)`
and of Hugging Face's `repeat_kv`: the K/V heads are *repeated* (np.repeat, 0 0 0 0 1 1 1 1), not
*tiled* (np.tile, 0 1 0 1 0 1 0 1).

Weights follow `attn_lib.multihead`: used as ``x @ w``; ``w_q`` and ``w_o`` are [d_model, d_model],
``w_k`` and ``w_v`` are [d_model, n_kv_heads * d_k] (K/V head j uses columns j*d_k:(j+1)*d_k), with
d_k = d_model / n_heads.
"""

import numpy as np

from attn_lib._checks import (
    as_float_array,
    check_heads_divide,
    check_kv_heads_divide,
    check_positive_int,
    check_seed,
    describe_value,
    mask_array,
)
from attn_lib.core import scaled_dot_product_attention, softmax_unchecked
from attn_lib.multihead import attend_heads, check_heads_mask, check_tokens_x


def repeat_kv(x, n_rep):
    """[..., n_kv_heads, n, d] -> [..., n_kv_heads * n_rep, n, d]: K/V head j becomes heads j*n_rep .. (j+1)*n_rep - 1.

    np.repeat along the heads axis (0 0 1 1 for n_rep = 2), never np.tile (0 1 0 1): query head i of a
    group of n_rep consecutive heads must meet K/V head i // n_rep.
    """
    x = as_float_array(x, "x", min_ndim=3)
    n_rep = check_positive_int(n_rep, "n_rep")
    return np.repeat(x, n_rep, axis=-3)  # [..., n_kv, n, d] -> [..., n_kv * n_rep, n, d]


def grouped_attention(q, k, v, mask=None, scale=None, *, attention=None):
    """[..., h, n_q, d_k], [..., h_kv, n_k, d_k], [..., h_kv, n_k, d_v] -> [..., h, n_q, d_v], [..., h, n_q, n_k].

    Scaled dot-product attention in which h query heads share h_kv key/value heads: query head i
    attends with K/V head i // (h / h_kv). The same numbers as `scaled_dot_product_attention` on
    K and V repeated with `repeat_kv` (and as PyTorch's enable_gqa=True), computed without copying
    K and V: the queries are grouped as [..., h_kv, g, n_q, d_k] and each group meets its one K/V
    head by broadcasting. `mask` and `scale` follow `scaled_dot_product_attention`; the mask
    broadcasts to the weights [..., h, n_q, n_k].

    `attention` (keyword-only; None: `scaled_dot_product_attention`) does the attention step on those
    grouped arrays: a function with scaled_dot_product_attention's contract, e.g. a learner's own, called
    as ``attention(q, k, v, mask=mask)`` (and ``scale=scale`` when a scale is given) with q
    [..., h_kv, g, n_q, d_k] and k, v [..., h_kv, 1, n_k, d] (its leading axes must broadcast, as numpy's
    ``@`` does). It must return (output, weights) of the shapes scaled_dot_product_attention gives.
    """
    q = as_float_array(q, "q", min_ndim=3)
    k = as_float_array(k, "k", min_ndim=3)
    v = as_float_array(v, "v", min_ndim=3)
    h, h_kv = q.shape[-3], k.shape[-3]
    if v.shape[-3] != h_kv:
        raise ValueError(
            f"k has {h_kv} heads but v has {v.shape[-3]}: every key/value head has its keys and its values"
            f" (k {k.shape}, v {v.shape}; heads are the third axis from the end)"
        )
    if h < 1 or h_kv < 1:
        raise ValueError(f"q and k need at least one head, got q {q.shape}, k {k.shape}")
    if h % h_kv:
        raise ValueError(
            f"q has {h} heads but k and v have {h_kv}: the number of key/value heads must divide the number of"
            f" query heads (each K/V head serves h / h_kv query heads; q {q.shape}, k {k.shape})"
        )
    g = h // h_kv
    try:
        batch = np.broadcast_shapes(q.shape[:-3], k.shape[:-3], v.shape[:-3])
    except ValueError:
        raise ValueError(
            f"the leading (batch) dimensions of q {q.shape}, k {k.shape} and v {v.shape}, before the heads axis,"
            " do not broadcast"
        ) from None
    if mask is not None:
        mask = _check_grouped_mask(mask, (*batch, h, q.shape[-2], k.shape[-2]))
    q = q.reshape(*q.shape[:-3], h_kv, g, *q.shape[-2:])  # [..., h, n_q, d_k] -> [..., h_kv, g, n_q, d_k]
    k, v = k[..., None, :, :], v[..., None, :, :]  # [..., h_kv, 1, n_k, d]: one K/V head for the whole group
    if mask is not None and mask.ndim >= 3:  # a mask over the h query heads: group its heads axis too
        heads = mask.shape[-3]  # h or 1 (checked)
        mask = mask.reshape(*mask.shape[:-3], h_kv, g, *mask.shape[-2:]) if heads == h else mask[..., None, :, :]
    if attention is None:
        output, weights = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)  # [..., h_kv, g, n_q, *]
    else:
        output, weights = _replaced_attention(attention, q, k, v, mask, scale)
    output = output.reshape(*output.shape[:-4], h, *output.shape[-2:])  # -> [..., h, n_q, d_v]
    weights = weights.reshape(*weights.shape[:-4], h, *weights.shape[-2:])  # -> [..., h, n_q, n_k]
    return output, weights


def grouped_unchecked(q, k, v, mask):
    """grouped_attention(q, k, v, mask=mask)'s arithmetic without its checks and copies, for a model's own inner loop.

    q [h, n_q, d] and k, v [h_kv, n_k, d], float64; mask bool [n_q, n_k], n_q * n_k at most
    core.BLOCKED_MIN_SCORES (above it scaled_dot_product_attention works in blocks: call grouped_attention).
    The same numbers as grouped_attention (tests/test_smollm.py compares the two on the model's blocks).
    """
    h, h_kv = q.shape[0], k.shape[0]
    q = q.reshape(h_kv, h // h_kv, *q.shape[1:])  # [h_kv, g, n_q, d]: a group of query heads per K/V head
    scores = (q @ np.swapaxes(k, -1, -2)[:, None]) * (1.0 / np.sqrt(q.shape[-1]))  # [h_kv, g, n_q, n_k]
    weights = softmax_unchecked(np.where(mask, scores, -np.inf), axis=-1)
    output = weights @ v[:, None]  # [h_kv, g, n_q, n_k] x [h_kv, 1, n_k, d] -> [h_kv, g, n_q, d]
    return output.reshape(h, *output.shape[2:]), weights.reshape(h, *weights.shape[2:])


def _replaced_attention(attention, q, k, v, mask, scale):
    """`attention`'s (output, weights) on the grouped q [..., h_kv, g, n_q, d_k], k, v [..., h_kv, 1, n_k, d],
    as arrays of q's dtype and the shapes scaled_dot_product_attention returns, or a clear error."""
    if not callable(attention):
        raise TypeError(
            f"attention must be a function like scaled_dot_product_attention or None, got {describe_value(attention)}"
        )
    kwargs = {"mask": mask} if scale is None else {"mask": mask, "scale": scale}
    value = attention(q, k, v, **kwargs)
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])  # [..., h_kv, g]
    shapes = ((*lead, q.shape[-2], v.shape[-1]), (*lead, q.shape[-2], k.shape[-2]))
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(
            f"attention must return (output, weights) like scaled_dot_product_attention, got {describe_value(value)}"
        )
    output, weights = (np.asarray(a) for a in value)
    if output.shape != shapes[0] or weights.shape != shapes[1]:
        raise ValueError(
            f"attention returned output {output.shape} and weights {weights.shape}; for the grouped q {q.shape}"
            f" and k {k.shape} they must be [..., h_kv, g, n_q, d_v] = {shapes[0]} and [..., h_kv, g, n_q, n_k]"
            f" = {shapes[1]}"
        )
    if output.dtype.kind not in "iuf" or weights.dtype.kind not in "iuf":
        raise TypeError(f"attention returned {output.dtype} and {weights.dtype} arrays; they must hold real numbers")
    if not (np.isfinite(output).all() and np.isfinite(weights).all()):
        raise ValueError("attention returned NaN or inf; the output and the weights must be finite")
    return output.astype(q.dtype, copy=False), weights.astype(q.dtype, copy=False)


def _check_grouped_mask(mask, weights_shape):
    """The mask as an array if it broadcasts to the weights [..., h, n_q, n_k], else an error naming both shapes."""
    mask = mask_array(mask)
    try:
        fits = np.broadcast_shapes(mask.shape, weights_shape) == tuple(weights_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the weights of shape {tuple(weights_shape)}"
            " [..., h, n_q, n_k] (h = the number of query heads)"
        )
    return mask


def _check_weight(w, name, d_model, width):
    w = as_float_array(w, name)
    if w.shape != (d_model, width):
        raise ValueError(
            f"{name} has shape {w.shape} but must be [d_model, {width}] = ({d_model}, {width}), used as x @ {name}"
        )
    return w


def grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads, mask=None):
    """[..., n, d_model] -> output [..., n, d_model], weights [..., h, n, n].

    GQA(X) = Concat(head_1, ..., head_h) W_O with head_i = Attention(X W_i^Q, X W_j^K, X W_j^V), j = i // g,
    g = n_heads / n_kv_heads. w_q, w_o are [d_model, d_model]; w_k, w_v are [d_model, n_kv_heads * d_k],
    d_k = d_model / n_heads. With n_kv_heads = n_heads this is `multi_head_attention`; with
    n_kv_heads = 1, multi-query attention. `mask`: as in `multi_head_attention` ([n, n], or one
    with as many dimensions as the weights). float16 is computed in float32 and rounded once.
    No biases: unlike `multi_head_attention` (b_q, b_k, b_v, b_o), this takes none, as in Llama and
    Mistral; a model with biases on its projections (Qwen2's q, k, v) needs them added to x @ w_q,
    x @ w_k, x @ w_v before `grouped_attention`.
    """
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv_heads = check_positive_int(n_kv_heads, "n_kv_heads")
    check_tokens_x(x)
    d_model = x.shape[-1]
    check_heads_divide(d_model, n_heads)
    check_kv_heads_divide(n_heads, n_kv_heads)
    d_kv = n_kv_heads * (d_model // n_heads)  # the width of all K (or V) heads together
    w_q, w_o = _check_weight(w_q, "w_q", d_model, d_model), _check_weight(w_o, "w_o", d_model, d_model)
    w_k, w_v = _check_weight(w_k, "w_k", d_model, d_kv), _check_weight(w_v, "w_v", d_model, d_kv)
    check_heads_mask(mask, x)
    return attend_heads(x, (w_q, w_k, w_v, w_o), (None,) * 4, n_heads, n_kv_heads, grouped_attention, mask)


def init_grouped_weights(d_model, n_heads, n_kv_heads, seed=0):
    """-> {"w_q", "w_k", "w_v", "w_o"}: w_q, w_o [d_model, d_model]; w_k, w_v [d_model, n_kv_heads * d_k]; float64.

    Entries from N(0, 1/d_model) with numpy.random.default_rng(seed), as in `init_multi_head_weights`.
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv_heads = check_positive_int(n_kv_heads, "n_kv_heads")
    check_heads_divide(d_model, n_heads)
    check_kv_heads_divide(n_heads, n_kv_heads)
    rng = np.random.default_rng(check_seed(seed, none_ok=True))
    std, d_kv = 1.0 / np.sqrt(d_model), n_kv_heads * (d_model // n_heads)
    shapes = {"w_q": (d_model, d_model), "w_k": (d_model, d_kv), "w_v": (d_model, d_kv), "w_o": (d_model, d_model)}
    return {name: rng.normal(0.0, std, size=shape) for name, shape in shapes.items()}


def kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens=1, bytes_per_number=2):
    """The KV cache of one sequence: 2 (a key and a value) x layers x K/V heads x d_head x tokens x bytes per number.

    Query heads do not appear: only the key/value heads are cached, which is the whole point of GQA
    and MQA. bytes_per_number is 2 for float16/bfloat16 (the default), 4 for float32. An exact int.
    """
    numbers_ = [(n_layers, "n_layers"), (n_kv_heads, "n_kv_heads"), (d_head, "d_head"), (n_tokens, "n_tokens")]
    n_layers, n_kv_heads, d_head, n_tokens = (check_positive_int(value, name) for value, name in numbers_)
    bytes_per_number = check_positive_int(bytes_per_number, "bytes_per_number")
    return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number
