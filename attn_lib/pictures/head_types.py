"""Every head of a model in one picture, each small attention map framed in the colour of its type (notebook 10).

The types come from the computed rule of `attn_lib.models.minilm.head_types`.
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from attn_lib._checks import as_float_array
from attn_lib.i18n import t
from attn_lib.models.minilm.head_types import (
    BANDS,
    HEAD_TYPES,
    THRESHOLD,
    band_marks,
    check_attentions,
    check_threshold,
    count_head_types,
    head_types,
)
from attn_lib.pictures.heatmaps import use_cjk_font

#: The frame colour of each kind in `plot_head_types` ("other" gets no frame).
TYPE_COLORS = {"previous": "#d95f02", "next": "#1b9e77", "special": "#7570b3", "other": "#bdbdbd"}
#: The corner mark of a head with a diagonal band in the weight it does not park: the colour of its direction.
BAND_MARKERS = {"behind": ("<", TYPE_COLORS["previous"]), "ahead": (">", TYPE_COLORS["next"])}


def plot_head_types(attentions, types=None, *, threshold=THRESHOLD, title=None, lang=None, cell=0.95, bands=True):
    """[L, h, n, n] weights -> a Figure: an L x h grid of small attention maps, each framed in its type's colour.

    `types` ([L, h], default `head_types(attentions, threshold)`) picks the frames; the legend states each
    rule with `threshold` and the count of each type. With `bands`, a head whose weight that is not parked
    lies on a diagonal band (`band_marks`) gets a triangle in its corner, pointing back or ahead, and a
    legend entry. Rows are layers and columns heads, both counted from 1; `cell` is the size of one map in inches.
    """
    use_cjk_font()
    weights = check_attentions(attentions)
    threshold = check_threshold(threshold)
    n_layers, n_heads = weights.shape[:2]
    types = head_types(weights, threshold) if types is None else np.asarray(types, dtype=object)
    if types.shape != (n_layers, n_heads):
        raise ValueError(f"types must be [L, h] = {(n_layers, n_heads)}, got shape {types.shape}")
    counts = count_head_types(types)
    cell = float(as_float_array(cell, "cell"))
    if cell <= 0:
        raise ValueError(f"cell={cell} must be a positive size in inches")
    marks = band_marks(weights, threshold) if bands else np.full((n_layers, n_heads), "", dtype=object)
    marks[np.isin(types, ("previous", "next"))] = ""  # their band is their type already: mark only what a frame hides
    fig = Figure(figsize=(cell * n_heads + 0.9, cell * n_layers + 1.3 + 0.2 * bands), layout="constrained")
    axes = fig.subplots(n_layers, n_heads, squeeze=False)
    for (layer, head), ax in np.ndenumerate(axes):
        kind = types[layer, head]
        ax.imshow(weights[layer, head], vmin=0, vmax=1, cmap="Blues", interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_color(TYPE_COLORS[kind])
            spine.set_linewidth(0.6 if kind == "other" else 3.0)
        if marks[layer, head]:  # a diagonal band in the weight that is not parked
            marker, colour = BAND_MARKERS[marks[layer, head]]
            ax.plot([0.86], [0.86], marker=marker, color=colour, markersize=7, transform=ax.transAxes, gid="band")
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
    if bands:
        handles += [
            Line2D([], [], linestyle="", marker=BAND_MARKERS[band][0], color=BAND_MARKERS[band][1], markersize=7,
                   label=t(f"heads.band_{band}", lang, count=int((marks == band).sum()), threshold=threshold))
            for band in BANDS
        ]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(t("heads.grid_title", lang, count=n_layers * n_heads) if title is None else title)
    return fig
