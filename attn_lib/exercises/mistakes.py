"""The classic mistakes, written as formulas, to compare a learner's wrong answer with.

Each function here computes what a typical wrong implementation returns (no scaling, √d_model for
√d_k, a softmax over the wrong axis or without the max subtracted, the mask added after the softmax,
−1e9 for −inf, heads split by a reshape only, ...) or finds which of them a wrong answer matches.
The checkers of `attn_lib.exercises` call them after a case fails, to name the mistake.
"""

import numpy as np

from attn_lib.core import softmax
from attn_lib.exercises.compare import (
    WEIGHTS,
    Finding,
    Word,
    difference,
    first_match,
    fmt,
    fmt_apart,
    matches,
    same,
)
from attn_lib.multihead import merge_heads, split_heads

# private references, as in diagnose: a learner's `np.errstate = ...` does not reach them
_broadcast_to, _errstate = np.broadcast_to, np.errstate


def swap_last(a):
    """k -> kᵀ for a batch: swap only the last two axes."""
    return np.swapaxes(a, -1, -2)  # [..., m, n] -> [..., n, m]


def scale_candidates(make, d_k, dims):
    """(key, fields, make) for the typical wrong scale factors; make(c) builds the result for factor c."""
    candidates = [
        ("scale_missing", {"sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(1.0)),
        ("scale_dk", {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(1.0 / d_k)),
        ("scale_inverted", {"sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(np.sqrt(d_k))),
    ]
    for name, size in dims.items():
        if size not in (1, d_k):
            fields = {"name": name, "value": size, "d_k": d_k}
            candidates.append(("scale_dim", fields, lambda size=size: make(1.0 / np.sqrt(size))))
    return candidates


def softmax_mistake(x, got):
    """Which wrong softmax `got` is: no max subtracted, one max for the whole array, wrong axis, ..."""
    with np.errstate(all="ignore"):  # the wrong formulas overflow on purpose
        e = np.exp(x)
        shifted = np.exp(x - np.max(x, axis=-1, keepdims=True))
    candidates = [
        ("softmax_overflow", {}, lambda: e / e.sum(axis=-1, keepdims=True)),
        ("softmax_global_max", {}, lambda: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True)),
    ]
    candidates += [("softmax_axis", {"axis": a}, lambda a=a: softmax(x, axis=a)) for a in range(x.ndim - 1)]
    candidates += [
        ("softmax_sum_all", {}, lambda: shifted / shifted.sum()),
        ("softmax_sum_all", {}, lambda: e / e.sum()),
        ("softmax_not_normalised", {"total": fmt_apart(shifted.sum(axis=-1).flat[0], 1)}, lambda: shifted),
        ("softmax_not_normalised", {"total": fmt_apart(e.sum(axis=-1).flat[0], 1)}, lambda: e),
    ]
    return first_match(got, candidates)


def global_max_softmax(x):
    """The mistake: the maximum of the whole array subtracted, so a row far below it underflows to 0/0 = NaN."""
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=-1, keepdims=True)


def overflow_mistake(got, scores):
    """NaN or inf with large scores: the global maximum subtracted (rows underflow), else no maximum (exp overflows)."""
    found = first_match(got, [("attn_softmax_global_max", {}, lambda: global_max_softmax(scores))])
    return found or Finding("attn_softmax_overflow")


def mask_pattern_mistake(got, n):
    """The finding for a boolean pattern that is not the lower triangle, or None."""
    ones = np.ones((n, n), dtype=bool)
    if same(got, ~np.tril(ones)):
        return Finding("mask_inverted")
    if same(got, np.triu(ones)):
        return Finding("mask_future")
    if same(got, np.tril(ones, k=-1)):
        return Finding("mask_no_diagonal")
    return None


def masked(scores, mask):
    """The scores with -inf where the boolean mask is False (unchanged when mask is None)."""
    return scores if mask is None else np.where(mask, scores, -np.inf)


def mask_use_mistake(got, scores, mask, visible):
    """Typical mistakes with the mask, recognised from the weights; None if the mask looks right."""
    finite = np.isfinite(got)
    leak = visible & ~mask & finite & (np.abs(got) > 1e-6)  # weight on a key the mask forbids
    if leak.any():
        candidates = [
            ("attn_mask_added", {}, lambda: softmax(scores + mask)),
            ("attn_mask_multiplied", {}, lambda: softmax(scores * mask)),
        ]
        found = first_match(got, candidates, visible)
        if found:
            return found
        i, j = np.argwhere(leak)[0][-2:]
        fields = {"i": int(i), "j": int(j), "w": fmt(got[tuple(np.argwhere(leak)[0])])}
        if matches(got, softmax(scores), visible):
            return Finding("attn_mask_ignored", fields)
        fill = finite_fill(got, scores, mask, visible)
        if fill is not None:
            return Finding("attn_mask_finite", {**fields, "fill": fmt(fill)})
        if np.all(np.abs(got[visible & mask & finite]) < 1e-6):
            return Finding("attn_mask_inverted", fields)
        return Finding("attn_mask_leak", fields)
    after = softmax(scores) * mask
    short = ~np.isclose(after.sum(axis=-1), 1) & visible[..., 0]  # rows that lost weight to the mask
    if short.any() and matches(got, after, visible):
        row = np.argwhere(short)[0]
        return Finding("attn_mask_after_softmax", {"row": int(row[-1]), "total": fmt_apart(after[tuple(row)].sum(), 1)})
    return None


def finite_fill(got, scores, mask, visible):
    """c if `got` is the softmax of the scores with the masked ones set to the finite number c, else None.

    c is read off one row: a hidden key j and a shown key l have weights in the ratio e^(c - s_l).
    """
    hidden, shown = visible & ~mask & (got > 0), visible & mask & (got > 0)
    rows = np.argwhere(hidden.any(axis=-1) & shown.any(axis=-1))
    if not len(rows):
        return None
    row = tuple(rows[0])
    j, col = int(np.argmax(hidden[row])), int(np.argmax(shown[row]))
    with _errstate(all="ignore"):
        fill = float(scores[row][col] + np.log(got[row][j] / got[row][col]))
    if not np.isfinite(fill):
        return None
    return fill if matches(got, softmax(np.where(mask, scores, fill)), visible) else None


def hidden_weight(got, scores, mask):
    """The Finding for weights that match but give a hidden key a weight that is small, not exactly 0."""
    mask = _broadcast_to(mask, got.shape)
    nonzero = ~mask & (got != 0) & mask.any(axis=-1, keepdims=True)  # rows that see no key are judged elsewhere
    if not nonzero.any():
        return None
    index = tuple(np.argwhere(nonzero)[0])
    fields = {"i": int(index[-2]), "j": int(index[-1]), "w": f"{got[index]:.3g}"}
    fill = finite_fill(got, scores, mask, np.ones(got.shape, dtype=bool))
    fields["fill"] = Word("exercises.word_finite_number") if fill is None else fmt(fill)
    return Finding("attn_mask_finite", fields)


def attention_weights_mistake(case, got):
    """Why the weights `got` differ from case.expected: overflow, the fully masked row, the mask, the scale, ..."""
    q, k, v = case.args
    mask, expected = case.kwargs.get("mask"), case.expected[1]
    d_k = q.shape[-1]
    raw = q @ swap_last(k)  # [..., n_q, n_k]
    scores = raw / np.sqrt(d_k)
    visible = np.ones(expected.shape, dtype=bool)
    if mask is not None:
        visible = np.broadcast_to(np.any(mask, axis=-1, keepdims=True), expected.shape)  # rows that see a key
    bad = ~np.isfinite(got) & np.isfinite(expected)
    if case.kind == "case_large_scores" and bad.any():
        return overflow_mistake(got, masked(scores, mask))
    if case.kind == "case_masked_row" and matches(got, expected, visible):
        row = int(np.argwhere(~visible[..., 0])[0][-1])
        if np.isnan(got[..., row, :]).all():
            return Finding("attn_masked_row_nan", {"row": row})
        if np.allclose(got[..., row, :].sum(axis=-1), 1):
            return Finding("attn_masked_row_1e9", {"row": row, "n_k": k.shape[-2], "uniform": fmt(1 / k.shape[-2])})
    if mask is not None:
        found = mask_use_mistake(got, scores, np.broadcast_to(mask, expected.shape), visible)
        if found:
            return found
    candidates = scale_candidates(
        lambda c: softmax(masked(c * raw, mask)), d_k, {"n_q": q.shape[-2], "n_k": k.shape[-2], "d_v": v.shape[-1]}
    )
    candidates.append(("attn_softmax_axis", {}, lambda: softmax(masked(scores, mask), axis=-2)))
    after = {"sqrt_dk": fmt(np.sqrt(d_k)), "total": fmt(1 / np.sqrt(d_k))}  # the scale applied to the weights
    candidates.append(("attn_scale_after_softmax", after, lambda: softmax(masked(raw, mask)) / np.sqrt(d_k)))
    found = first_match(got, candidates, visible)
    if found:
        return found
    sums = got.sum(axis=-1)
    off = np.isfinite(sums) & ~np.isclose(sums, 1) & visible[..., 0]
    if off.any():
        row = np.argwhere(off)[0]
        return Finding("attn_weights_not_normalised", {"row": int(row[-1]), "total": fmt_apart(sums[tuple(row)], 1)})
    return difference(got, expected, WEIGHTS)


def split_reshape_only(x, h):
    """The mistake: [..., n, d_model] reshaped straight to [..., h, n, d_k], mixing tokens across heads."""
    *batch, n, d_model = x.shape
    return x.reshape(*batch, h, n, d_model // h)


def split_interleaved(x, h):
    """The mistake: reshaping to [..., n, d_k, h], so that head i gets features i, i+h, i+2h, ..."""
    *batch, n, d_model = x.shape
    return np.moveaxis(x.reshape(*batch, n, d_model // h, h), -1, -3)  # [..., n, d_k, h] -> [..., h, n, d_k]


def mha_variant(x, w_q, w_k, w_v, w_o, h, mask, scale=None, split=split_heads, use_w_o=True, transpose=False):
    """Multi-head attention with one typical mistake switched on; -> (output, weights)."""
    if transpose:
        w_q, w_k, w_v, w_o = w_q.T, w_k.T, w_v.T, w_o.T
    q, k, v = split(x @ w_q, h), split(x @ w_k, h), split(x @ w_v, h)  # [..., h, n, d_k] each
    d_k = q.shape[-1]
    scores = q @ swap_last(k) * (1 / np.sqrt(d_k) if scale is None else scale)  # [..., h, n, n]
    weights = softmax(masked(scores, mask))  # [..., h, n, n]
    output = merge_heads(weights @ v)  # [..., h, n, d_k] -> [..., n, d_model]
    return (output @ w_o if use_w_o else output), weights


# --- RMSNorm: an eps of one's own --------------------------------------------------------------------------


def _eps_used(x, gain, got):
    """The eps a result of x / sqrt(mean(x^2) + eps) * gain was computed with, read off its largest entry; or None."""
    scaled = x * gain
    i = np.unravel_index(np.argmax(np.abs(scaled)), x.shape)
    if scaled[i] == 0 or not np.isfinite(got[i]) or got[i] == 0:
        return None
    used = (scaled[i] / got[i]) ** 2 - (x * x).mean(axis=-1)[i[:-1]]
    return float(used) if used > 0 else None


def eps_ignored(x, gain, eps, got):
    """[("rms_eps_ignored", ...)]: `got` is x RMS-normed over its last axis with another eps than `eps`; else []."""
    used = _eps_used(x, gain, got)
    if used is None or np.isclose(used, eps, rtol=1e-2):
        return []
    square = (x * x).mean(axis=-1, keepdims=True)
    return [("rms_eps_ignored", {"eps": f"{eps:g}", "used": f"{used:.2g}"}, lambda: x / np.sqrt(square + used) * gain)]
