"""Head types by a computed rule (notebook 10); `attn_lib.pictures.head_types` draws them all in one picture.

For one sentence, each head's weights [n, n] (rows: queries) are averaged over the queries:

- **previous-token head**: the average weight of query i on key i - 1 (queries 1 .. n-1) is at least 0.5;
- **next-token head**: the average weight of query i on key i + 1 (queries 0 .. n-2) is at least 0.5;
- **parks on [CLS]/[SEP]**: the average weight on the first and the last key together is at least 0.5
  (BERT puts [CLS] first and [SEP] last; a head with nothing to add is often read as "parking" there);
- **other**: none of these.

The rules are checked in that order and the first that holds names the head. They follow the kinds Clark
et al. (2019, "What does BERT look at?") counted in BERT; they describe where the weights go in one sentence,
not what a head is for.

    types = head_types(out.attentions)            # [L, h] of "previous", "next", "special", "other"
    plot_head_types(out.attentions, types)        # an L x h grid of small attention maps, framed by type

A second look, `band_marks`, asks what a head does with the weight it does not park on [CLS]/[SEP]: a
head filed as "parks" can still hold a diagonal band (most of the rest on the keys just before or after
the query), which the frame alone would hide; the grid marks those heads.
"""

import numbers

import numpy as np

from attn_lib._checks import as_float_array, describe_value

#: The kinds, in the order the rules are checked; "other" when none holds.
HEAD_TYPES = ("previous", "next", "special", "other")

#: The threshold of every rule: an average weight of at least this much.
THRESHOLD = 0.5


def check_attentions(attentions):
    """`attentions` as a float array [L, h, n, n] whose rows are distributions, else a clear error."""
    weights = as_float_array(attentions, "attentions", min_ndim=4)
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(
            "attentions must be [L, h, n, n] (layers, heads, queries, keys) for one sentence,"
            f" got shape {weights.shape}"
        )
    if weights.shape[-1] < 3:
        raise ValueError(
            f"attentions must cover at least 3 tokens (a previous and a next one), got n={weights.shape[-1]}"
        )
    rows = weights.sum(axis=-1)
    if (weights < 0).any() or not np.allclose(rows, 1, atol=1e-3):
        worst = tuple(int(i) for i in np.unravel_index(np.argmax(np.abs(rows - 1)), rows.shape))
        raise ValueError(
            f"attentions must hold attention weights (each row >= 0, summing to 1); row {worst} sums to"
            f" {rows[worst]:.4g}: pass the weights of one sentence without padding"
        )
    return weights


def head_type_scores(attentions):
    """[L, h, n, n] weights -> {"previous", "next", "special": [L, h]}: each rule's average weight."""
    weights = check_attentions(attentions)
    n = weights.shape[-1]
    i = np.arange(1, n)  # queries that have a previous token
    return {
        "previous": weights[..., i, i - 1].mean(axis=-1),  # [L, h, n-1] -> [L, h]
        "next": weights[..., i - 1, i].mean(axis=-1),  # query i-1 on key i: [L, h]
        "special": (weights[..., 0] + weights[..., -1]).mean(axis=-1),  # [L, h, n] -> [L, h]
    }


def check_threshold(threshold):
    """`threshold` as a float in (0, 1], else an error naming it (one number: an array is refused)."""
    if isinstance(threshold, bool) or not isinstance(threshold, (numbers.Real, np.ndarray)) or np.ndim(threshold):
        raise TypeError(f"threshold must be one number in (0, 1], got {describe_value(threshold)}")
    threshold = float(as_float_array(threshold, "threshold"))
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold={threshold} must be an average weight in (0, 1]")
    return threshold


def head_types(attentions, threshold=THRESHOLD):
    """[L, h, n, n] weights -> [L, h] array of "previous", "next", "special" or "other" (rules in the docstring)."""
    threshold = check_threshold(threshold)
    scores = head_type_scores(attentions)
    types = np.full(scores["previous"].shape, "other", dtype=object)
    for kind in reversed(HEAD_TYPES[:-1]):  # the first rule in HEAD_TYPES wins: write it last
        types[scores[kind] >= threshold] = kind
    return types


def count_head_types(types):
    """[L, h] head types -> {kind: number of heads}, every kind of HEAD_TYPES listed (0 if none)."""
    types = np.asarray(types, dtype=object)
    unknown = set(types.ravel()) - set(HEAD_TYPES)
    if unknown:
        raise ValueError(f"types must hold only {HEAD_TYPES}, got {sorted(map(str, unknown))}")
    return {kind: int((types == kind).sum()) for kind in HEAD_TYPES}


# --- what a head does with the weight it does not park: diagonal bands -----------------------------

#: The secondary marks: most of the weight that is not parked lies on the `BAND` keys just before (or after).
BANDS = ("behind", "ahead")
#: How many keys next to the query a band covers.
BAND = 2


def band_scores(attentions, width=BAND):
    """[L, h, n, n] weights -> {"behind", "ahead": [L, h]}: where the weight that is not parked goes.

    The first and the last token ([CLS] and [SEP]) are left out, as queries and as keys; each remaining row
    is rescaled to sum to 1 (a row with nothing left is skipped) and the weight on the `width` keys just
    before the query (i - 1 .. i - width) or just after it (i + 1 .. i + width) is averaged over the rows.
    A head that parks most of its weight can still hold a clear diagonal band in the rest.
    """
    weights = check_attentions(attentions)
    inner = weights[..., 1:-1, 1:-1]  # [L, h, m, m]: without [CLS] and [SEP], m = n - 2
    total = inner.sum(axis=-1, keepdims=True)  # [L, h, m, 1]: the weight not parked, per query
    kept = total[..., 0] > 1e-12  # [L, h, m]
    rows = np.divide(inner, total, out=np.zeros_like(inner), where=total > 1e-12)  # each kept row sums to 1
    m = inner.shape[-1]
    offset = np.arange(m)[None, :] - np.arange(m)[:, None]  # [m, m]: key - query
    scores = {}
    for name, near in (("behind", (offset < 0) & (offset >= -width)), ("ahead", (offset > 0) & (offset <= width))):
        on_band = (rows * near).sum(axis=-1)  # [L, h, m]
        scores[name] = np.where(kept, on_band, 0.0).sum(axis=-1) / np.maximum(kept.sum(axis=-1), 1)  # [L, h]
    return scores


def band_marks(attentions, threshold=THRESHOLD, width=BAND):
    """[L, h, n, n] -> [L, h] of "behind", "ahead" or "" (no band): the band holding >= threshold, if any."""
    threshold = check_threshold(threshold)
    scores = band_scores(attentions, width)
    marks = np.full(scores["behind"].shape, "", dtype=object)
    marks[scores["ahead"] >= threshold] = "ahead"
    marks[(scores["behind"] >= threshold) & (scores["behind"] >= scores["ahead"])] = "behind"
    return marks
