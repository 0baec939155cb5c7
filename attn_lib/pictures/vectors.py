"""Two-dimensional vectors drawn as arrows: the dot product of notebook 02 as alignment × length.

    plot_dot_products(query, keys, labels)   left: q and each k_j as arrows from the origin, with k_j's
                                             shadow on q's direction; right: each q · k_j as a bar,
                                             written as |q| × |k_j| × cos θ_j

The words come from `attn_lib.i18n` ("vectors.*"); formulas (q · k = |q| × |k| × cos θ) are the same in both
languages and written here. Colours are the diagrams' (query purple, keys orange).
"""

import numpy as np
from matplotlib.figure import Figure

from attn_lib._checks import as_float_array
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import use_cjk_font
from attn_lib.pictures.kit import MUTED, PALETTE, TEXT

__all__ = ["plot_dot_products", "dot_product_factors"]


def _side(component, positive, negative):
    """Alignment of a label placed beyond an arrow's tip: `positive`, `negative` or "center"."""
    return positive if component > 0.3 else negative if component < -0.3 else "center"


def dot_product_factors(query, keys):
    """(|q|, |k_j| [n], cos θ_j [n], q · k_j [n]) for a query [d] and keys [n, d]; |q| |k_j| cos θ_j = q · k_j."""
    query = as_float_array(query, "query", min_ndim=1)
    keys = as_float_array(keys, "keys", min_ndim=2)
    if query.ndim != 1 or keys.ndim != 2 or keys.shape[1] != query.shape[0]:
        raise ValueError(
            f"query must be [d] and keys [n, d] with the same d, got shapes {query.shape} and {keys.shape}"
        )
    q_len, k_len = np.linalg.norm(query), np.linalg.norm(keys, axis=-1)  # |q|, [n]
    if q_len == 0 or (k_len == 0).any():
        raise ValueError("query and keys must not be zero vectors: the angle between them is undefined")
    dots = keys @ query  # [n, d] x [d] -> [n]
    return q_len, k_len, dots / (q_len * k_len), dots


def plot_dot_products(query, keys, labels, *, axis_labels=None, title=None, lang=None):
    """A 2-D query and keys [n, 2] -> a Figure: the vectors as arrows, and q · k_j = |q| × |k_j| × cos θ_j as bars.

    `labels` names the keys (tokens); `axis_labels` names the two components (default: "component 1", "2").
    """
    use_cjk_font()
    q_len, k_len, cosines, dots = dot_product_factors(query, keys)
    query, keys = np.asarray(query, dtype=float), np.asarray(keys, dtype=float)
    if query.shape != (2,):
        raise ValueError(f"plot_dot_products draws 2-D vectors: query must have 2 components, got {query.shape}")
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (list, tuple)):
        raise TypeError(f"labels must be a list of {len(keys)} key names (strings), got {type(labels).__name__}")
    labels = [str(label) for label in labels]
    if len(labels) != len(keys):
        raise ValueError(f"labels has {len(labels)} entries but there are {len(keys)} keys")
    q_fill, q_edge = PALETTE["q"]
    k_fill, k_edge = PALETTE["k"]
    fig = Figure(figsize=(10.5, 4.4), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.25])
    fig.suptitle((t("vectors.dot_title", lang) if title is None else title) + "\nq · k = |q| × |k| × cos θ")

    # left: the arrows, q's direction as a line, and each key's shadow on it (|k_j| cos θ_j along q)
    reach = 1.25 * max(np.abs(keys).max(), np.abs(query).max())
    unit = query / q_len  # [2]
    left.axline((0, 0), tuple(unit), color=q_fill, lw=6, zorder=0, label=t("vectors.direction", lang))
    # q wide and pale underneath, the keys thin and dark on top: a key along q (even equal to q) stays visible
    q_arrow = {"arrowstyle": "-|>,head_width=0.5,head_length=0.8", "color": q_edge, "lw": 7, "alpha": 0.45}
    left.annotate("", xy=tuple(query), xytext=(0, 0), arrowprops=q_arrow, zorder=1)
    side = np.array([-unit[1], unit[0]])  # q's left-hand side: where the label "q" goes
    left.annotate("q", xy=tuple(query), xytext=tuple(12 * side), textcoords="offset points", color=q_edge,
                  fontsize=12, ha=_side(side[0], "left", "right"), va=_side(side[1], "bottom", "top"))  # fmt: skip
    for key, label, shadow in zip(keys, labels, k_len * cosines, strict=True):  # drawn over q
        foot = shadow * unit  # [2]: where the key's shadow ends on q's line
        left.plot(*zip(key, foot, strict=True), ls=":", color=MUTED, lw=1, zorder=2)
        left.plot(*foot, "o", color=k_edge, ms=4, zorder=3)
        left.annotate("", xy=tuple(key), xytext=(0, 0), zorder=4,
                      arrowprops={"arrowstyle": "-|>", "color": k_edge, "lw": 1.8})  # fmt: skip
        out = key / np.linalg.norm(key)  # the label sits just beyond the tip, in the arrow's direction ...
        if abs(out[0] * unit[1] - out[1] * unit[0]) < 0.3:  # ... unless that is on q's line, among the shadows:
            out = -side  # then on q's right-hand side, away from q's label
        left.annotate(label, xy=tuple(key), xytext=tuple(11 * out), textcoords="offset points", color=TEXT,
                      fontsize=10, ha=_side(out[0], "left", "right"), va=_side(out[1], "bottom", "top"),
                      zorder=5)  # fmt: skip
    left.set_xlim(-reach, reach)
    left.set_ylim(-reach, reach)
    left.set_aspect("equal")
    left.axhline(0, color=MUTED, lw=0.6)
    left.axvline(0, color=MUTED, lw=0.6)
    x_label, y_label = axis_labels or (t("vectors.component", lang, i=1), t("vectors.component", lang, i=2))
    left.set_xlabel(x_label)
    left.set_ylabel(y_label)
    left.set_title(t("vectors.arrows_title", lang), fontsize=10)
    left.legend(loc="lower right", fontsize=8, frameon=False)

    # right: each dot product as a bar, with its three factors written out
    rows = np.arange(len(keys))[::-1]  # the first key on top
    right.barh(rows, dots, color=k_fill, edgecolor=k_edge)
    right.axvline(0, color=MUTED, lw=0.8)
    for row, q_k, length, cosine in zip(rows, dots, k_len, cosines, strict=True):
        text = f"{q_len:.2f} × {length:.2f} × {cosine:.2f} = {q_k:+.2f}".replace("-", "−")
        right.annotate(text, xy=(0, row), xytext=(6 if q_k < 0 else -6, 0), textcoords="offset points",
                       ha="left" if q_k < 0 else "right", va="center", fontsize=9, color=TEXT)  # fmt: skip
    span = max(np.abs(dots).max(), 1e-9)
    right.set_xlim(-2.4 * span, 2.4 * span)
    right.set_yticks(rows, labels)
    right.set_xlabel("q · k_j")
    right.set_title("q · k_j = |q| × |k_j| × cos θ_j", fontsize=10)
    return fig
