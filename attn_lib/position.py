"""Where a token stands: position encodings added to the embeddings, and rotary position embeddings (RoPE).

Attention by itself cannot see word order: shuffle the tokens and its outputs are shuffled the same
way. Three ways of telling it where each token stands:

    learned table   X = E + P[:n], P a trained [n_max, d_model] matrix (GPT-2, BERT, notebook 08's model)
    sinusoidal      X = E + PE[:n], PE fixed by a formula for any length (Vaswani et al. 2017)
    rotary (RoPE)   rotate q and k by angles proportional to their positions (Su et al. 2021), so that
                    q_m . k_n depends on m - n only; nothing is added to X and v is not rotated

Sinusoidal: PE[pos, 2i] = sin(pos * theta_i), PE[pos, 2i+1] = cos(pos * theta_i), theta_i = base^(-2i/d).
RoPE turns each pair of features (2i, 2i+1) by the angle pos * theta_i, with the same frequencies.
(GPT-NeoX and the Hugging Face LLaMA code pair feature i with feature i + d/2 instead: the same method
on permuted features. This module follows the papers: pairs (2i, 2i+1), as llama.cpp and GGUF files do;
`rope_halves` is the other convention and `halves_permutation` the row order that turns one into the other.)
"""

import numbers

import numpy as np

from attn_lib._checks import as_float_array, check_positive_int, describe_value

BASE = 10000.0  # the frequency base of both papers


def _check_base(base):
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not np.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number greater than 1 (the papers use 10000), got {base!r}")
    return float(base)


def _check_even(d, name):
    if d % 2:
        raise ValueError(f"{name}={d} must be even: the features come in pairs (2i, 2i+1), one pair per frequency")
    return d


def frequencies(d, base=BASE):
    """d -> [d/2]: theta_i = base^(-2i/d) for i = 0 .. d/2 - 1, from 1 radian per position down to about 1/base."""
    return _theta(d, base, "d")


def _theta(d, base, name):
    d = _check_even(check_positive_int(d, name), name)
    base = _check_base(base)
    return base ** (-np.arange(0, d, 2) / d)  # [d/2]


def sinusoidal_encoding(n, d_model, base=BASE, *, start=0):
    """(n, d_model) -> [n, d_model]: row pos is PE(pos), with sin in the even and cos in the odd columns.

    `start` (keyword, default 0): the rows of positions start .. start + n - 1 only, PE[start : start + n]
    computed without the rows before it.
    """
    n = check_positive_int(n, "n")
    if isinstance(start, bool) or not isinstance(start, numbers.Integral):
        raise TypeError(f"start must be a non-negative integer (the first position), got {describe_value(start)}")
    if start < 0:
        raise ValueError(f"start={start} must be a non-negative integer (the first position)")
    theta = _theta(d_model, base, "d_model")  # [d_model/2]
    angles = np.arange(start, start + n)[:, None] * theta[None, :]  # [n, 1] x [1, d_model/2] -> [n, d_model/2]
    pe = np.empty((n, d_model))
    pe[:, 0::2] = np.sin(angles)  # columns 0, 2, 4, ...
    pe[:, 1::2] = np.cos(angles)  # columns 1, 3, 5, ...
    return pe


def add_positions(x, table):
    """[..., n, d_model], [n_max, d_model] -> [..., n, d_model]: X + P[:n], one table row per position.

    A learned table has n_max rows and nothing beyond: a sequence longer than n_max is an error here,
    not a silent wrap-around. (A sinusoidal table can be computed for any n.)
    """
    x = as_float_array(x, "x", min_ndim=2)
    table = as_float_array(table, "table", min_ndim=2)
    n, d_model = x.shape[-2:]
    if table.ndim != 2 or table.shape[1] != d_model:
        raise ValueError(f"table has shape {table.shape}; it must be [n_max, d_model] with d_model={d_model} like x")
    if n > table.shape[0]:
        raise ValueError(
            f"x has n={n} positions but the table has rows for only n_max={table.shape[0]}: a learned table"
            f" has no row for position {table.shape[0]} or later"
        )
    return x + table[:n]  # [..., n, d_model] + [n, d_model]


def _check_positions(positions, x_shape):
    *batch, n, _ = x_shape
    if positions is None:
        return np.arange(n)
    positions = as_float_array(positions, "positions", min_ndim=1)
    if 1 < positions.ndim < len(batch) + 1:  # [B, n] for x [B, h, n, d]: B would line up with the heads
        raise ValueError(
            f"positions of shape {positions.shape} is ambiguous for x of shape {x_shape}: broadcasting lines up"
            " its first axis with an inner axis of x (the heads of [B, h, n, d]), not the sentences. Give [n]"
            f" positions (the same for every row) or positions with {len(batch) + 1} dimensions:"
            " positions[:, None, :] turns [B, n] into [B, 1, n], one row of positions per sentence for every head"
        )
    try:
        np.broadcast_shapes(positions.shape, (*batch, n))
    except ValueError:
        raise ValueError(
            f"positions has shape {positions.shape}, which does not broadcast to x's positions {(*batch, n)}"
        ) from None
    return positions


def rope(x, positions=None, base=BASE):
    """[..., n, d] -> [..., n, d]: turn each feature pair (2i, 2i+1) of token m by the angle m * theta_i.

    `positions` (default 0, 1, ..., n-1) is [n], or has x.ndim - 1 dimensions and broadcasts to x.shape[:-1]
    (any real numbers): for x [B, h, n, d], one row per sentence is [B, 1, n]; [B, n] is refused, since
    broadcasting would line B up with the heads (as multi_head_attention refuses a [B, n, n] mask). Each pair
    (a, b) becomes (a cos - b sin, a sin + b cos): a rotation, so lengths do not change. Apply it to
    q and k (never to v); then rope(q)[m] . rope(k)[n] depends only on m - n.
    """
    x = as_float_array(x, "x", min_ndim=2)
    *batch, n, d = x.shape
    theta = _theta(d, base, "d (x's last dimension)")  # [d/2]
    positions = _check_positions(positions, x.shape)
    angles = positions[..., None] * theta  # [..., n, 1] x [d/2] -> [..., n, d/2]
    return _turn_pairs(x, np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype))


def _turn_pairs(x, cos, sin):
    """x [..., n, d], cos and sin [..., n, d/2] in x's dtype -> rope's rotation of the pairs (2i, 2i+1), unchecked."""
    a, b = x[..., 0::2], x[..., 1::2]  # [..., n, d/2] each: the first and second feature of every pair
    out = np.empty(np.broadcast_shapes(x.shape, (*cos.shape[:-1], x.shape[-1])), dtype=x.dtype)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def rope_matrix(position, d, base=BASE):
    """(m, d) -> [d, d]: R_m, block-diagonal 2 x 2 rotations by m * theta_i, so rope(x)[m] = R_m @ x[m].

    Then rope(q)[m] . rope(k)[n] = q^T R_m^T R_n k = q^T R_(n-m) k: only the distance n - m is left.
    """
    if isinstance(position, bool) or not isinstance(position, numbers.Real) or not np.isfinite(position):
        raise TypeError(f"position must be a finite number, got {describe_value(position)}")
    theta = frequencies(d, base)  # [d/2]
    r = np.zeros((d, d))
    for i, angle in enumerate(position * theta):
        c, s = np.cos(angle), np.sin(angle)
        r[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]  # a turn by `angle` in the plane of pair i
    return r


def rope_halves(x, positions=None, base=BASE):
    """[..., n, d] -> [..., n, d]: RoPE with pairs (i, i + d/2), Hugging Face's x cos + rotate_half(x) sin.

    The same rotations as `rope`, applied to other pairs of features: feature i turns with feature i + d/2
    (GPT-NeoX's layout, and transformers' LLaMA code). `positions` and `base` as in `rope`.
    """
    x = as_float_array(x, "x", min_ndim=2)
    d = x.shape[-1]
    order = halves_permutation(1, d)  # [d]: 0, 2, 4, ..., 1, 3, 5, ...
    inverse = np.argsort(order)
    return rope(x[..., inverse], positions, base)[..., order]  # to pairs (2i, 2i+1), turn, and back


def halves_permutation(n_heads, d_head):
    """-> int [n_heads * d_head]: the row order taking W_Q (or W_K) rows from pairs (2i, 2i+1) to pairs (i, i + d/2).

    Inside each head: the first feature of every pair (0, 2, 4, ..., d-2), then the second (1, 3, ..., d-1),
    so that feature 2i becomes feature i and feature 2i+1 becomes feature i + d/2. With q and k permuted
    this way, rope_halves gives the scores rope gives on the unpermuted ones (a dot product does not
    change when both vectors are permuted alike). transformers applies it to a GGUF file's attn_q and attn_k.
    """
    n_heads = check_positive_int(n_heads, "n_heads")
    d_head = _check_even(check_positive_int(d_head, "d_head"), "d_head")
    one_head = np.concatenate([np.arange(0, d_head, 2), np.arange(1, d_head, 2)])  # [d]
    return (np.arange(n_heads)[:, None] * d_head + one_head).ravel()  # [h, 1] + [d] -> [h * d]
