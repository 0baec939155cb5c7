"""Attention heatmaps with readable Chinese labels, and the font choice that makes them readable.

Chinese glyphs: `use_cjk_font()` picks an installed CJK font (Noto Sans CJK SC, Source Han Sans,
PingFang, Microsoft YaHei, WenQuanYi, ...) or, when there is none, registers the subset of Noto
Sans CJK SC that ships with attn_lib (SIL OFL 1.1, licence in attn_lib/fonts/). It appends that
family after the current Latin font in ``rcParams["font.family"]``, so Latin letters and digits
keep the default font and matplotlib falls back to the CJK font glyph by glyph. Nothing happens at
import time; every plotting function here calls `use_cjk_font()` for you.
"""

from pathlib import Path

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure

from attn_lib._checks import _describe, as_float_array, check_positive_int
from attn_lib.i18n import t

#: Installed fonts that cover simplified Chinese, best first (Linux, macOS, Windows).
PREFERRED_CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK JP",
    "Source Han Sans",
)

BUNDLED_FONT = Path(__file__).parent / "fonts" / "NotoSansCJKsc-Subset.ttf"


def find_cjk_font():
    """The family name of the CJK font to use: an installed one if any, else the bundled subset."""
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    for family in PREFERRED_CJK_FONTS:
        if family in installed:
            return family
    if str(BUNDLED_FONT) not in {entry.fname for entry in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(BUNDLED_FONT))
    return font_manager.FontProperties(fname=str(BUNDLED_FONT)).get_name()


def use_cjk_font():
    """Let matplotlib draw Chinese: add a CJK family after the Latin one in rcParams; return its name.

    Idempotent and cheap after the first call. Changes only ``rcParams["font.family"]`` of the
    running session; the user's matplotlib configuration files are never touched.
    """
    family = find_cjk_font()
    current = [f for f in matplotlib.rcParams["font.family"] if f != family]
    matplotlib.rcParams["font.family"] = [*current, family]
    return family


def _check_tokens(tokens, n, name, dim):
    if tokens is None or isinstance(tokens, str) and len(tokens) != n or not hasattr(tokens, "__iter__"):
        raise TypeError(f"{name} must be a sequence of {n} token strings, got {_describe(tokens)}")
    tokens = [str(tok) for tok in tokens]
    if len(tokens) != n:
        raise ValueError(f"{name} has {len(tokens)} tokens but the weights have {n} {dim}")
    return tokens


def draw_attention(
    ax, weights, query_tokens, key_tokens, *, title=None, lang=None, annotate=None, colorbar=True, cmap="Blues"
):
    """Draw one [n_q, n_k] heatmap of weights on `ax` (rows: queries, columns: keys); return the image."""
    weights = _check_weights(weights, 2, 2)
    n_q, n_k = weights.shape
    query_tokens = _check_tokens(query_tokens, n_q, "query_tokens", "rows (queries)")
    key_tokens = _check_tokens(key_tokens, n_k, "key_tokens", "columns (keys)")
    image = ax.imshow(weights, vmin=0.0, vmax=1.0, cmap=cmap)
    ax.set_xticks(
        range(n_k),
        key_tokens,
        rotation=45 if max(map(len, key_tokens)) > 2 else 0,
        ha="right" if max(map(len, key_tokens)) > 2 else "center",
    )
    ax.set_yticks(range(n_q), query_tokens)
    ax.set_xlabel(t("key_axis", lang))
    ax.set_ylabel(t("query_axis", lang))
    ax.set_title(t("attention_title", lang) if title is None else title)
    if annotate is None:
        annotate = max(n_q, n_k) <= 12
    if annotate:
        for i in range(n_q):
            for j in range(n_k):
                value = weights[i, j]
                ax.text(
                    j,
                    i,
                    f"{value:.2f}",
                    ha="center",
                    va="center",
                    fontsize=8 if n_k > 6 else 10,
                    color="white" if value > 0.55 else "black",
                )
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label=t("weight", lang), fraction=0.046, pad=0.04)
    return image


def _check_weights(weights, min_ndim, max_ndim):
    weights = as_float_array(weights, "weights", min_ndim=min_ndim)
    if weights.ndim > max_ndim:
        raise ValueError(f"weights must have at most {max_ndim} dimensions, got shape {weights.shape}")
    if weights.size == 0:
        raise ValueError(f"weights must have at least one row and one column, got shape {weights.shape}")
    return weights


def plot_attention(
    weights, tokens, key_tokens=None, *, title=None, lang=None, annotate=None, figsize=None, cmap="Blues"
):
    """[n_q, n_k] weights -> a Figure: a heatmap on one 0-1 colour scale, tokens on both axes.

    `tokens` labels the rows (queries); `key_tokens` the columns (keys), defaulting to `tokens`.
    Cells show their weight when the matrix is at most 12 x 12 (or when `annotate=True`).
    """
    use_cjk_font()
    weights = _check_weights(weights, 2, 2)
    n_q, n_k = weights.shape
    query_tokens = _check_tokens(tokens, n_q, "tokens", "rows (queries)")
    key_tokens = _check_tokens(tokens if key_tokens is None else key_tokens, n_k, "key_tokens", "columns (keys)")
    side = 1.2 + 0.45 * max(n_q, n_k)
    fig = Figure(figsize=figsize or (side + 1.6, side), layout="constrained")
    draw_attention(
        fig.add_subplot(), weights, query_tokens, key_tokens, title=title, lang=lang, annotate=annotate, cmap=cmap
    )
    return fig


def plot_heads(weights, tokens, *, title=None, lang=None, ncols=None, annotate=None, cmap="Blues"):
    """[h, n, n] weights -> a Figure with one heatmap per head, titled "head 1" ... "head h"."""
    use_cjk_font()
    weights = _check_weights(weights, 3, 3)
    h, n_q, n_k = weights.shape
    query_tokens = _check_tokens(tokens, n_q, "tokens", "rows (queries)")
    key_tokens = _check_tokens(tokens, n_k, "tokens", "columns (keys)")
    ncols = min(h, 4) if ncols is None else check_positive_int(ncols, "ncols")
    nrows = -(-h // ncols)
    cell = 1.0 + 0.3 * max(n_q, n_k)
    fig = Figure(figsize=(cell * ncols + 1.0, cell * nrows + 0.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    if annotate is None:
        annotate = max(n_q, n_k) <= 4
    image = None
    for i, ax in enumerate(axes):
        if i >= h:
            ax.set_axis_off()
            continue
        image = draw_attention(
            ax,
            weights[i],
            query_tokens,
            key_tokens,
            title=t("head_title", lang, i=i + 1),
            lang=lang,
            annotate=annotate,
            colorbar=False,
            cmap=cmap,
        )
        if i % ncols:
            ax.set_ylabel("")
        if i < h - ncols:
            ax.set_xlabel("")
    fig.colorbar(image, ax=axes.tolist(), label=t("weight", lang), shrink=0.8)
    if title is not None:
        fig.suptitle(title)
    return fig
