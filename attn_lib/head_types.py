"""Head types by a computed rule, and every head of a model in one picture (notebook 09).

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
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from attn_lib._checks import as_float_array
from attn_lib.i18n import t
from attn_lib.plotting import use_cjk_font

#: The kinds, in the order the rules are checked; "other" when none holds.
HEAD_TYPES = ("previous", "next", "special", "other")

#: The threshold of every rule: an average weight of at least this much.
THRESHOLD = 0.5

#: The frame colour of each kind in `plot_head_types` ("other" gets no frame).
TYPE_COLORS = {"previous": "#d95f02", "next": "#1b9e77", "special": "#7570b3", "other": "#bdbdbd"}


def _check_attentions(attentions):
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
    weights = _check_attentions(attentions)
    n = weights.shape[-1]
    i = np.arange(1, n)  # queries that have a previous token
    return {
        "previous": weights[..., i, i - 1].mean(axis=-1),  # [L, h, n-1] -> [L, h]
        "next": weights[..., i - 1, i].mean(axis=-1),  # query i-1 on key i: [L, h]
        "special": (weights[..., 0] + weights[..., -1]).mean(axis=-1),  # [L, h, n] -> [L, h]
    }


def _check_threshold(threshold):
    threshold = float(as_float_array(threshold, "threshold"))
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold={threshold} must be an average weight in (0, 1]")
    return threshold


def head_types(attentions, threshold=THRESHOLD):
    """[L, h, n, n] weights -> [L, h] array of "previous", "next", "special" or "other" (rules in the docstring)."""
    threshold = _check_threshold(threshold)
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


def plot_head_types(attentions, types=None, *, threshold=THRESHOLD, title=None, lang=None, cell=0.95):
    """[L, h, n, n] weights -> a Figure: an L x h grid of small attention maps, each framed in its type's colour.

    `types` ([L, h], default `head_types(attentions, threshold)`) picks the frames; the legend states each
    rule with `threshold` and the count of each type. Rows are layers and columns heads, both counted from 1;
    `cell` is the size of one map in inches.
    """
    use_cjk_font()
    weights = _check_attentions(attentions)
    threshold = _check_threshold(threshold)
    n_layers, n_heads = weights.shape[:2]
    types = head_types(weights, threshold) if types is None else np.asarray(types, dtype=object)
    if types.shape != (n_layers, n_heads):
        raise ValueError(f"types must be [L, h] = {(n_layers, n_heads)}, got shape {types.shape}")
    counts = count_head_types(types)
    cell = float(as_float_array(cell, "cell"))
    if cell <= 0:
        raise ValueError(f"cell={cell} must be a positive size in inches")
    fig = Figure(figsize=(cell * n_heads + 0.9, cell * n_layers + 1.3), layout="constrained")
    axes = fig.subplots(n_layers, n_heads, squeeze=False)
    for (layer, head), ax in np.ndenumerate(axes):
        kind = types[layer, head]
        ax.imshow(weights[layer, head], vmin=0, vmax=1, cmap="Blues", interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_color(TYPE_COLORS[kind])
            spine.set_linewidth(0.6 if kind == "other" else 3.0)
        if layer == 0:
            ax.set_title(t("head_title", lang, i=head + 1), fontsize=9)
        if head == 0:
            ax.set_ylabel(t("heads.layer", lang, layer=layer + 1), fontsize=9)
    handles = [
        Patch(
            facecolor="white",
            edgecolor=TYPE_COLORS[kind],
            linewidth=2.5,
            label=t(f"heads.{kind}", lang, count=counts[kind], threshold=threshold),
        )
        for kind in HEAD_TYPES
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(t("heads.grid_title", lang, count=n_layers * n_heads) if title is None else title)
    return fig
