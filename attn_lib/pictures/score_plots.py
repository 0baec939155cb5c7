"""One attention score taken apart, and the softmax's gradient drawn as a heatmap (notebook 04).

    plot_score_terms(q, k, query, key)      the d_k products q_i k_i of one query and one key as bars
                                            (positive and negative), then their sum, the score q · k,
                                            and the scaled score q · k / √d_k: one score, feature by feature
    plot_softmax_jacobian(scores, tokens)   J = diag(p) − p pᵀ of p = softmax(scores) as a heatmap, one panel
                                            per row of scores (the same row at two scales, say)

The words come from `attn_lib.i18n` ("scores.*"); formulas are the same in both languages and written here.
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from attn_lib._checks import as_float_array
from attn_lib.core import softmax
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import check_labels, use_cjk_font
from attn_lib.pictures.kit import MUTED, PALETTE, TEXT

__all__ = ["plot_score_terms", "plot_softmax_jacobian", "score_terms", "softmax_jacobian"]

#: Bars of a positive and of a negative product q_i k_i.
POSITIVE, NEGATIVE = "#3182bd", "#de2d26"
#: Up to this many features, every bar is labelled with its value.
LABELLED_FEATURES = 8


def _signed(value, digits=2):
    """+0.12 / −0.12 with a true minus sign; 0.00 for what rounds to 0."""
    text = f"{value:+.{digits}f}"
    return text[1:] if float(text) == 0 else text.replace("-", "−")


def score_terms(q, k):
    """[d_k], [d_k] -> (q_i k_i [d_k], the score q · k, the scaled score q · k / √d_k)."""
    q = as_float_array(q, "q", min_ndim=1)
    k = as_float_array(k, "k", min_ndim=1)
    if q.ndim != 1 or q.shape != k.shape or len(q) == 0:
        raise ValueError(
            f"q and k must be one query and one key, 1-D with the same d_k >= 1, got shapes {q.shape} and {k.shape}"
        )
    products = q * k  # [d_k]: one term per feature
    score = float(products.sum())  # q · k
    return products, score, score / np.sqrt(len(q))


def softmax_jacobian(p):
    """[n] -> [n, n]: J[i, j] = ∂p_i/∂s_j = p_i (δ_ij − p_j), i.e. diag(p) − p pᵀ, for weights p = softmax(s)."""
    p = as_float_array(p, "p", min_ndim=1)
    if p.ndim != 1 or (p < 0).any() or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"p must be one row of weights (1-D, non-negative, summing to 1), got shape {p.shape}")
    return np.diag(p) - np.outer(p, p)  # [n, n]


def _pairs(q, k):
    """One (q, k) pair, or lists of pairs (one panel each, d_k may differ) -> a list of 1-D (q, k) arrays."""
    many = isinstance(q, (list, tuple)) and len(q) > 0 and np.ndim(q[0]) > 0
    queries, keys = (list(q), list(k)) if many else ([q], [k])
    if len(queries) != len(keys):
        raise ValueError(f"q and k must hold as many vectors (one pair per panel), got {len(queries)} and {len(keys)}")
    return [score_terms(one_q, one_k) for one_q, one_k in zip(queries, keys, strict=True)]


def plot_score_terms(q, k, query, key, *, title=None, lang=None):
    """One query q [d_k] and one key k [d_k] -> a Figure: each q_i k_i as a bar, their sum q · k, and q · k / √d_k.

    Pass lists of queries and keys (d_k may differ) for one panel per pair; `query` and `key` name the two
    tokens. The bars of each panel are `ax.containers`: the d_k products, then the sum, then the scaled score.
    """
    use_cjk_font()
    panels = _pairs(q, k)
    query, key = str(query), str(key)
    ratios = [int(np.clip(len(products) + 2, 5, 12)) for products, _, _ in panels]
    fig = Figure(figsize=(1.6 + 0.6 * sum(ratios), 3.9), layout="constrained")
    axes = fig.subplots(1, len(panels), width_ratios=ratios, squeeze=False)[0]
    fig.suptitle(t("scores.terms_title", lang) if title is None else title)
    sum_fill, sum_edge = PALETTE["score"]
    for ax, (products, score, scaled) in zip(axes, panels, strict=True):
        d_k = len(products)
        features = np.arange(d_k)
        colours = [POSITIVE if value >= 0 else NEGATIVE for value in products]
        ax.bar(features, products, color=colours, width=0.8)
        unit = max(1.0, d_k / 10)  # the sum's two bars stay as wide as about a tenth of the panel
        total_at, scaled_at = d_k - 0.5 + 1.3 * unit, d_k - 0.5 + 2.7 * unit
        ax.bar([total_at], [score], color=sum_fill, edgecolor=sum_edge, width=unit)
        ax.bar([scaled_at], [scaled], color=sum_fill, edgecolor=sum_edge, hatch="//", width=unit)
        ax.axhline(0, color=MUTED, lw=0.8)
        ax.axvline(d_k - 0.5 + 0.4 * unit, color=MUTED, lw=0.6, ls=":")
        labelled = list(zip(features, products, strict=True)) if d_k <= LABELLED_FEATURES else []
        for x, value in [*labelled, (total_at, score), (scaled_at, scaled)]:
            ax.annotate(_signed(value), xy=(x, value), xytext=(0, 3 if value >= 0 else -3), textcoords="offset points",
                        ha="center", va="bottom" if value >= 0 else "top", fontsize=8, color=TEXT)  # fmt: skip
        step = max(1, d_k // 8)  # at most about 8 feature ticks
        ticks = list(features[::step])
        ax.set_xticks([*ticks, total_at, scaled_at], [*(str(i + 1) for i in ticks), "Σ", "÷√d_k"])
        low, high = min(0.0, products.min(), score, scaled), max(0.0, products.max(), score, scaled)
        ax.set_ylim(low - 0.15 * (high - low + 1e-9), high + 0.15 * (high - low + 1e-9))
        ax.set_xlabel(t("scores.feature", lang))
        ax.set_title(
            t("scores.terms_panel", lang, q_token=query, k_token=key, d_k=d_k, score=_signed(score)), fontsize=10
        )
    axes[0].set_ylabel(t("scores.term", lang))
    handles = [
        Patch(color=POSITIVE, label=t("scores.positive", lang)),
        Patch(color=NEGATIVE, label=t("scores.negative", lang)),
    ]
    axes[-1].legend(handles=handles, fontsize=8, loc="best")
    return fig


def plot_softmax_jacobian(scores, tokens, *, names=None, title=None, lang=None):
    """Scores [n] or [panels, n] -> a Figure: the softmax Jacobian ∂p_i/∂s_j of each row as a heatmap.

    Every panel shares one colour scale (symmetric about 0), so a row whose weights saturate shows as blank;
    `names` (one per panel) head the panels, each followed by the row's largest weight.
    """
    use_cjk_font()
    scores = as_float_array(scores, "scores", min_ndim=1)
    rows = scores[None] if scores.ndim == 1 else scores  # [panels, n]
    if rows.ndim != 2 or rows.shape[1] < 2:
        raise ValueError(f"scores must be one row [n] or rows [panels, n] with n >= 2, got shape {scores.shape}")
    tokens = check_labels(tokens, rows.shape[1], "tokens", "scores in a row")
    if names is not None and (isinstance(names, str) or len(names) != len(rows)):
        raise ValueError(f"names must hold one name per row of scores ({len(rows)}), got {names!r}")
    weights = softmax(rows)  # [panels, n]
    jacobians = [softmax_jacobian(p) for p in weights]  # [n, n] each
    reach = max(max(np.abs(j).max() for j in jacobians), 1e-12)
    n = len(tokens)
    fig = Figure(figsize=(0.6 + (1.1 + 0.75 * n) * len(rows), 1.6 + 0.75 * n), layout="constrained")
    axes = fig.subplots(1, len(rows), squeeze=False)[0]
    fig.suptitle(t("scores.jacobian_title", lang) if title is None else title)
    for panel, (ax, jacobian, p) in enumerate(zip(axes, jacobians, weights, strict=True)):
        image = ax.imshow(jacobian, cmap="RdBu_r", vmin=-reach, vmax=reach)
        for (i, j), value in np.ndenumerate(jacobian):
            ax.text(j, i, _signed(value, 3), ha="center", va="center", fontsize=9,
                    color="white" if abs(value) > 0.6 * reach else TEXT)  # fmt: skip
        ax.set_xticks(range(n), tokens)
        ax.set_yticks(range(n), tokens)
        ax.set_xlabel(t("scores.nudged", lang))
        name = "" if names is None else f"{names[panel]}\n"
        ax.set_title(name + t("scores.largest_weight", lang, weight=p.max()), fontsize=10)
    axes[0].set_ylabel(t("scores.weight_i", lang))
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="∂p_i / ∂s_j")
    return fig
