"""Softmax, masks and scaled dot-product attention: the article's formulas, one function each.

Mask convention, used everywhere in the course: a boolean ``mask[..., i, j]`` answers
"may query i attend to key j?" (True = yes). The article's additive form, 0 or -inf added to the
scores, is derived from it by `additive_mask`.

A row whose keys are all masked has no valid distribution. Here it gets weights that are all
zero and therefore an output that is all zero, never NaN (a naive softmax would divide 0 by 0).

Precision: float32 in gives float32 out, float64 gives float64. float16 inputs are computed in
float32 and rounded to float16 once, at the end (as FlashAttention and PyTorch's CPU kernels do):
in float16 a sum of 70,000 weights overflows and each step would lose about 3 digits.
"""

import math

import numpy as np

from attn_lib._checks import (
    as_float_array,
    check_finite,
    check_float_dtype,
    check_positive_int,
    describe_value,
    float_dtype,
    mask_array,
    work_dtype,
)
from attn_lib._threads import buffer, resolve_threads, run_tasks


def softmax_unchecked(x, axis=-1):
    """Stable softmax with no input checks: subtract the row max, exponentiate, normalise."""
    if work_dtype(x.dtype) != x.dtype:  # float16: computed in float32, rounded once
        return softmax_unchecked(x.astype(work_dtype(x.dtype)), axis=axis).astype(x.dtype)
    row_max = np.max(x, axis=axis, keepdims=True)
    row_max = np.where(np.isneginf(row_max), 0, row_max)  # an all -inf row: exp(-inf) = 0, no NaN
    with np.errstate(over="ignore"):  # x - max <= 0; it can only overflow to -inf, whose exp is exactly 0
        e = np.exp(x - row_max)
    total = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def softmax(x, axis=-1):
    """[..., n] -> [..., n]: softmax(x)_i = exp(x_i) / sum_j exp(x_j) along `axis`.

    Stable for any finite input (the row maximum is subtracted first, which does not change the
    result). Entries equal to -inf get weight 0; a row that is entirely -inf gets all zeros.
    NaN and +inf are rejected with a ValueError. Floating dtypes are kept; float16 is computed in
    float32 and rounded once at the end.
    """
    x = as_float_array(x, "x", allow_neg_inf=True, min_ndim=1)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer, got {describe_value(axis)}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis={axis} is out of range for x with {x.ndim} dimensions (shape {x.shape})")
    if x.shape[axis] == 0:
        raise ValueError(f"x has no entries along axis={axis} (shape {x.shape}); softmax needs at least one")
    return softmax_unchecked(x, axis=axis)


# numpy arrays hold at most this many bytes (and a boolean takes one byte)
_MAX_BYTES = np.iinfo(np.intp).max


def causal_mask(n):
    """n -> bool [n, n]: True on and below the diagonal (query i may see keys 0..i, never the future).

    This is PyTorch's `is_causal=True` for a square matrix. For n_q queries that are the *last*
    n_q of n_k positions (decoding with a cache) the diagonal moves: see `efficient.tiled_attention`.
    """
    n = check_positive_int(n, "n")
    if n * n > _MAX_BYTES:
        raise ValueError(
            f"n={n} is too large: an n x n mask has n^2 = {n * n:.3g} entries, and a numpy array holds at most"
            f" {_MAX_BYTES:.3g} bytes, so n <= {math.isqrt(_MAX_BYTES):,}; for long sequences"
            " attn_lib.efficient.tiled_attention(causal=True) applies the causal mask without forming it"
        )
    positions = np.arange(n)
    try:
        return positions[:, None] >= positions  # [n, 1] vs [n] -> [n, n]: key j <= query i
    except MemoryError:
        raise MemoryError(
            f"causal_mask(n={n}) needs n^2 = {n * n / 2**30:.3g} GiB for its booleans, more than this machine"
            " can allocate; attn_lib.efficient.tiled_attention(causal=True) applies the causal mask without"
            " forming it"
        ) from None


def additive_mask(mask, dtype=np.float64):
    """bool [..., n_q, n_k] -> float [..., n_q, n_k]: 0 where True (may attend), -inf where False.

    This is the article's form: add it to the scores before the softmax. `dtype` must be a
    floating dtype (it must hold -inf).
    """
    if mask is None or isinstance(mask, (str, bytes)):
        raise TypeError(f"mask must be a boolean array (True = may attend), got {describe_value(mask)}")
    try:
        mask = np.asarray(mask)
    except ValueError as exc:  # ragged lists
        raise ValueError(f"mask must be a rectangular array: {exc}") from None
    dtype = check_float_dtype(dtype, "dtype")
    if mask.dtype.kind != "b":
        raise TypeError(
            f"mask must be a boolean array (True = may attend), got {describe_value(mask)};"
            " for 0/1 integers use mask.astype(bool)"
        )
    if mask.ndim < 2:
        raise ValueError(f"mask must have at least 2 dimensions [n_q, n_k], got shape {mask.shape}")
    return np.where(mask, 0.0, -np.inf).astype(dtype)


def check_mask(mask, scores_shape, dtype):
    """A validated mask as an array: bool stays bool; float is cast to `dtype` (the inputs' dtype)."""
    mask = mask_array(mask)
    if mask.dtype.kind == "f":
        check_finite(mask, "mask", allow_neg_inf=True)
    elif mask.dtype.kind != "b":
        raise TypeError(
            f"mask must be boolean (True = may attend) or float (added to the scores), got"
            f" {describe_value(mask)}; for 0/1 integers use mask.astype(bool)"
        )
    try:
        shape = np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        shape = None
    if shape != tuple(scores_shape):
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to scores of shape {tuple(scores_shape)}")
    if mask.dtype.kind == "f":
        if (mask == 1).any() and ((mask == 0) | (mask == 1)).all():  # the classic keep/drop mistake
            raise ValueError(
                f"mask is a float array ({mask.dtype}) holding only 0.0 and 1.0, but a float mask is *added*"
                " to the scores: 1 would raise a score by 1 and 0 would hide nothing. For keep (1) / drop (0)"
                " use mask.astype(bool) (True = may attend), or additive_mask(mask.astype(bool)) for 0 / -inf"
            )
        mask = mask.astype(dtype, copy=False)
    return mask


class ScoresOverflowError(ValueError):
    """q @ k^T overflowed (a ValueError; multi_head_attention re-raises it naming its own arguments)."""


def check_no_overflow(scores, dtype, scale=None):
    """Raise if q @ k^T * scale overflowed (any score not finite: an overflow to -inf would pass as a masked key).

    `scale`: the scale factor when the caller chose it (None: the default 1/sqrt(d_k), not worth naming).
    """
    if not np.isfinite(scores).all():
        if scale is None:
            raise ScoresOverflowError(f"q @ k^T overflowed {dtype} (|q|, |k| too large); rescale the inputs")
        raise ScoresOverflowError(
            f"q @ k^T * scale overflowed {dtype} (scale={scale:g}): |q|, |k| or the scale are too large;"
            " rescale the inputs or take a smaller scale"
        )


def add_float_mask(scores, mask):
    """scores + mask for a float mask; a sum that overflows to +inf is an error, not a silent NaN row."""
    with np.errstate(over="ignore"):
        total = scores + mask
    if np.isposinf(total).any():
        raise ValueError(f"scores + mask overflowed to +inf in {total.dtype}; the float mask's values are too large")
    return total


def check_scale(scale, d_k, dtype=np.float64):
    """The scale factor: 1/sqrt(d_k) by default, else a positive finite number that is neither 0 nor inf in `dtype`.

    `dtype`: the dtype the scores are computed in (float32 for float16 inputs); 1e-300 is 0 there in float32
    and would make every row uniform, 1e300 is inf.
    """
    if scale is None:
        return 1.0 / np.sqrt(d_k)
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale must be a positive number or None, got {describe_value(scale)}")
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale={scale} must be a positive finite number (the default is 1/sqrt(d_k))")
    dtype = np.dtype(dtype)
    with np.errstate(over="ignore", under="ignore"):
        rounded = dtype.type(scale)
    if rounded == 0 or not np.isfinite(rounded):
        what = "is 0 in" if rounded == 0 else "overflows"
        info = np.finfo(dtype)
        raise ValueError(
            f"scale={float(scale):g} {what} {dtype}, the dtype the scores are computed in (it holds"
            f" {info.smallest_subnormal:.3g} to {info.max:.3g}): take a scale in that range, or compute in float64"
        )
    return float(scale)


def check_qkv(q, k, v):
    """Validate q, k, v for attention and return them as arrays, plus the broadcast batch shape."""
    q = as_float_array(q, "q", min_ndim=2)
    k = as_float_array(k, "k", min_ndim=2)
    v = as_float_array(v, "v", min_ndim=2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q has d_k={q.shape[-1]} but k has d_k={k.shape[-1]}: queries and keys must have the same"
            f" last dimension to be compared by a dot product (q {q.shape}, k {k.shape})"
        )
    if q.shape[-1] == 0 or k.shape[-2] == 0:
        raise ValueError(f"q and k need d_k >= 1 and at least one key, got q {q.shape}, k {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k has n_k={k.shape[-2]} keys but v has {v.shape[-2]} values: each key needs its value"
            f" (k {k.shape}, v {v.shape})"
        )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch/head) dimensions of q {q.shape}, k {k.shape} and v {v.shape} do not broadcast"
        ) from None
    return q, k, v, batch


# Long inputs (more than this many scores per head) take `attention_blocked`: same result, faster.
BLOCKED_MIN_SCORES = 512 * 512
_BLOCK_BYTES = 1 << 20  # scores per block: 1 MiB, about what one core's L2 cache holds


def may_overflow(q, k, scale):
    """False when no score scale * q_i . k_j can overflow: |q_i . k_j| <= d_k max|q| max|k|, with room to spare."""
    if q.size == 0 or k.size == 0:  # no score at all
        return False
    q_max = max(float(np.max(q)), -float(np.min(q)))
    k_max = max(float(np.max(k)), -float(np.min(k)))
    return not q.shape[-1] * q_max * k_max * max(1.0, float(scale)) < float(np.finfo(q.dtype).max) / 2


def attention_blocked(q, k, v, mask, scale, batch, block_bytes=None, out_dtype=None, threads=None):
    """Validated inputs -> (output, weights) of attention, one head and a block of query rows at a time.

    The same steps as `scaled_dot_product_attention`, in place on a [rows, n_k] block of the weights
    while that block is still in the CPU cache, instead of one sweep over memory per step. q, k, v
    come in the dtype to compute in; the results are `out_dtype` (float16 for float16 inputs: each
    block is then computed in a float32 scratch block and rounded once when it is stored). The
    blocks are independent: `threads` threads (default: every core) compute them in parallel for
    large inputs (`attn_lib._threads`).
    """
    n_q, n_k, d_k, d_v = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    out_dtype = q.dtype if out_dtype is None else out_dtype
    rows = max(1, (block_bytes or _BLOCK_BYTES) // (n_k * q.dtype.itemsize))  # query rows per block
    output = np.empty((*batch, n_q, d_v), out_dtype)  # [..., n_q, d_v]
    weights = np.empty((*batch, n_q, n_k), out_dtype)  # [..., n_q, n_k]
    check_overflow = may_overflow(q, k, scale)  # usually False: no need to look at every score
    q, k, v = (np.broadcast_to(x, (*batch, *x.shape[-2:])) for x in (q, k, v))  # views, nothing copied
    if mask is not None:
        mask = np.broadcast_to(mask, weights.shape)

    def block(task, scratch):  # one head (one batch entry) b, query rows i .. i + rows - 1
        b, i = task
        if out_dtype == q.dtype:
            s = weights[b][i : i + rows]  # [rows, n_k]: a view into the weights
        else:
            s = buffer(scratch, "s", (min(rows, n_q - i), n_k), q.dtype)  # a float32 scratch block
        np.matmul(q[b][i : i + rows], k[b].T, out=s)  # [rows, d_k] x [d_k, n_k] -> [rows, n_k]
        np.multiply(s, scale, out=s)
        if check_overflow:
            check_no_overflow(s, q.dtype)
        if mask is not None:
            m = mask[b][i : i + rows]
            if m.dtype.kind == "b":
                np.copyto(s, -np.inf, where=~m)  # a forbidden key gets -inf, so its weight becomes 0
            else:
                s[...] = add_float_mask(s, m)
        row_max = s.max(axis=-1, keepdims=True)  # [rows, 1]
        row_max[np.isneginf(row_max)] = 0  # an all -inf row: exp(-inf) = 0, no NaN
        np.exp(np.subtract(s, row_max, out=s), out=s)
        total = s.sum(axis=-1, keepdims=True)  # [rows, 1]
        total[total == 0] = 1  # a fully masked row stays all zeros
        np.divide(s, total, out=s)
        if out_dtype == q.dtype:  # s is a view into the weights
            np.matmul(s, v[b], out=output[b][i : i + rows])  # [rows, n_k] x [n_k, d_v] -> [rows, d_v]
        else:  # round the float32 block once, into the float16 results
            weights[b][i : i + rows] = s
            output[b][i : i + rows] = s @ v[b]  # [rows, n_k] x [n_k, d_v] -> [rows, d_v]

    if weights.size:
        tasks = [(b, i) for b in np.ndindex(*batch) for i in range(0, n_q, rows)]
        run_tasks(tasks, block, resolve_threads(threads), weights.size * (d_k + d_v))
    return output, weights


def scaled_dot_product_attention(q, k, v, mask=None, scale=None):
    """[..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v] -> output [..., n_q, d_v], weights [..., n_q, n_k].

    Attention(Q, K, V) = softmax(Q K^T * scale + M) V. `scale` defaults to 1/sqrt(d_k), where d_k
    is the last dimension of q (the per-head key size, never d_model); any other value must be a
    positive finite number (PyTorch also accepts 0 and negative values; here they are refused,
    since 0 makes every row uniform and a negative scale prefers the worst-matching keys).

    `mask` is boolean (True = may attend) or float (added to the scaled scores), broadcastable to
    [..., n_q, n_k]. A fully masked row gives zero weights and a zero output. A float mask hides
    a key completely only with -inf: a finite "large negative" value (-1e9, np.finfo(dtype).min)
    on every key of a row gives that row *uniform* weights, not zeros. A float mask holding only
    0.0 and 1.0 is refused (it would be added to the scores; use mask.astype(bool)).

    dtypes: q, k, v of different floating dtypes are promoted to their common dtype (float32 q
    with float64 k computes in float64; PyTorch refuses mixed dtypes), integers become float64,
    and the results have that dtype: float32 in, float32 out. float16 is computed in float32 and
    rounded once at the end; a float mask is rounded to the inputs' dtype first (in float16,
    -1e9 becomes -inf).
    """
    q, k, v, batch = check_qkv(q, k, v)
    n_q, d_k = q.shape[-2:]
    n_k = k.shape[-2]
    dtype = float_dtype(q, k, v)
    work = work_dtype(dtype)  # float16 is computed in float32
    q, k, v = q.astype(work, copy=False), k.astype(work, copy=False), v.astype(work, copy=False)
    scale, chosen = check_scale(scale, d_k, work), scale
    scores_shape = (*batch, n_q, n_k)
    if mask is not None:
        mask = check_mask(mask, scores_shape, dtype)  # a float mask is rounded to the inputs' dtype
    if n_q * n_k > BLOCKED_MIN_SCORES:  # same result, computed a block of rows at a time
        return attention_blocked(q, k, v, mask, work.type(scale), batch, out_dtype=dtype)

    # 1. scores: how well each query matches each key, scaled so their variance stays near 1
    with np.errstate(over="ignore"):  # an overflow is found and named below
        scores = (q @ np.swapaxes(k, -1, -2)) * work.type(scale)  # [..., n_q, d_k] x [..., d_k, n_k] -> [..., n_q, n_k]
    check_no_overflow(scores, work, chosen)
    # 2. mask: a forbidden key gets -inf, so its weight becomes exactly 0
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype.kind == "b" else add_float_mask(scores, mask)
    # 3. weights: each row is a probability distribution over the keys
    weights = softmax_unchecked(scores, axis=-1)  # [..., n_q, n_k]
    # 4. output: the weighted average of the values
    output = weights @ v  # [..., n_q, n_k] x [..., n_k, d_v] -> [..., n_q, d_v]
    return output.astype(dtype, copy=False), weights.astype(dtype, copy=False)
