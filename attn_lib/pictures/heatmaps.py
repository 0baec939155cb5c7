"""Attention heatmaps with readable Chinese labels, and the font choice that makes them readable.

Chinese glyphs: `use_cjk_font()` picks an installed CJK font (Noto Sans CJK SC, Source Han Sans,
PingFang, Microsoft YaHei, WenQuanYi, ...) or, when there is none, registers the subset of Noto
Sans CJK SC that ships with attn_lib (SIL OFL 1.1, licence in attn_lib/pictures/fonts/). It appends that
family after the current Latin font in ``rcParams["font.family"]``, so Latin letters and digits
keep the default font and matplotlib falls back to the CJK font glyph by glyph. Nothing happens at
import time; every plotting function here calls `use_cjk_font()` for you.
"""

from pathlib import Path

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.transforms import Bbox

from attn_lib._checks import as_float_array, check_positive_int, describe_value
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
    """The family name of the CJK font to use: an installed one, else the bundled subset, else None (and a warning)."""
    if installed := {entry.name for entry in font_manager.fontManager.ttflist}.intersection(PREFERRED_CJK_FONTS):
        return min(installed, key=PREFERRED_CJK_FONTS.index)  # the first of the preferred fonts that is installed
    try:  # the bundled subset, missing from a copy of attn_lib without its data files
        if str(BUNDLED_FONT) not in {entry.fname for entry in font_manager.fontManager.ttflist}:
            font_manager.fontManager.addfont(str(BUNDLED_FONT))
        return font_manager.FontProperties(fname=str(BUNDLED_FONT)).get_name()
    except (OSError, RuntimeError, ValueError) as exc:  # None: plots still draw, Chinese as boxes (matplotlib warns)
        import warnings

        warnings.warn(t("cjk_font_missing", path=BUNDLED_FONT, reason=repr(exc)), stacklevel=2)


def use_cjk_font():
    """Let matplotlib draw Chinese: add a CJK family after the Latin one in rcParams; return its name (None if none).

    Idempotent and cheap after the first call. Changes only ``rcParams["font.family"]`` of the
    running session; the user's matplotlib configuration files are never touched.
    """
    family = find_cjk_font()
    if family is not None:  # else there is no CJK font at all (find_cjk_font warned): the Latin font draws alone
        matplotlib.rcParams["font.family"] = [f for f in matplotlib.rcParams["font.family"] if f != family] + [family]
    return family


def check_labels(tokens, n, name, dim):
    """`tokens` as a list of n strings (read once, so a generator works), else a clear error."""
    if tokens is None or isinstance(tokens, str) and len(tokens) != n or not hasattr(tokens, "__iter__"):
        raise TypeError(f"{name} must be a sequence of {n} token strings, got {describe_value(tokens)}")
    tokens = [str(tok) for tok in tokens]
    if len(tokens) != n:
        raise ValueError(f"{name} has {len(tokens)} tokens but the weights have {n} {dim}")
    return tokens


#: How masked cells (True = may attend is False there) look in every heatmap: grey, hatched, "—".
MASK_FACE, MASK_HATCH, MASK_TEXT = "#d4d4d4", "#8a8a8a", "—"

#: Up to this many tokens a side, a heatmap grows 0.45 in per token; beyond, its cells shrink instead
#: (a 512-token heatmap is as large as a 24-token one), so that a long sentence costs megabytes, not gigabytes.
SMALL = 24
#: The longest side of one heatmap, in inches: SMALL tokens of 0.45 in.
MAX_SIDE = 0.45 * SMALL
#: At most this many token labels on an axis of plot_attention (every k-th token is labelled past that).
MAX_LABELS = 48
#: annotate=True writes a number in every cell; the cells of a larger matrix are too small for them.
ANNOTATE_MAX = 32
#: The most tokens a heatmap draws on a side: beyond, a cell is smaller than a pixel of the picture.
MAX_TOKENS = 1024
#: plot_heads: one head's heatmap grows 0.3 in per token up to this many tokens, then its cells shrink.
HEADS_SMALL = 16
#: plot_heads: at most this many heads in one figure, and this many labels per axis of each.
MAX_HEADS, MAX_HEAD_LABELS = 64, 16


def format_weight(value):
    """How a heatmap writes a weight: 0.26 -> "0.26"; a small one keeps two digits (0.0026 -> "0.0026"),
    exactly 0 is "0", so that no unmasked weight reads "0.00" (masked cells read "—")."""
    value = float(value)
    if value == 0.0:
        return "0"
    if abs(value) < 0.001:
        return "<0.001"
    if abs(value) < 0.005:
        return f"{value:.2g}"
    return f"{value:.2f}"


def _check_mask(mask, shape, weights):
    """`mask` (bool, True = may attend) broadcast to the weights' shape; weights must be 0 where it is False."""
    if isinstance(mask, (str, bytes)) or not hasattr(mask, "__len__"):
        raise TypeError(f"mask must be a boolean array (True = may attend), got {describe_value(mask)}")
    mask = np.asarray(mask)
    if mask.dtype.kind != "b":
        raise TypeError(f"mask must be a boolean array (True = may attend), got {describe_value(mask)}")
    try:
        mask = np.broadcast_to(mask, shape)
    except ValueError:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the weights' shape {shape}") from None
    if np.any(weights[~mask] != 0):
        where = tuple(int(i) for i in np.argwhere((weights != 0) & ~mask)[0])
        raise ValueError(
            f"weights are {weights[where]:.3g} at index {where}, where the mask is False (may not attend):"
            " a masked weight must be exactly 0"
        )
    return mask


def masked_legend_handle(lang=None):
    """The legend entry for masked cells (a grey hatched square), to put in any legend."""
    return Patch(facecolor=MASK_FACE, edgecolor=MASK_HATCH, hatch="///", linewidth=0, label=t("masked_cell", lang))


def draw_attention(
    ax,
    weights,
    query_tokens,
    key_tokens,
    *,
    title=None,
    lang=None,
    annotate=None,
    colorbar=True,
    cmap="Blues",
    mask=None,
    legend=True,
    max_labels=MAX_LABELS,
):
    """Draw one [n_q, n_k] heatmap of weights on `ax` (rows: queries, columns: keys); return the image.

    `mask` (bool [n_q, n_k] or broadcastable, True = may attend) draws the masked cells grey and hatched
    with "—" instead of a number, and (with `legend`) adds a legend entry for them above the heatmap.
    At most `max_labels` tokens are labelled on each axis (every k-th one past that). Cells show their
    weight when the matrix is at most 12 x 12, or with `annotate=True` (at most ANNOTATE_MAX tokens a side).
    """
    weights = _check_weights(weights, 2, 2)
    n_q, n_k = weights.shape
    query_tokens = check_labels(query_tokens, n_q, "query_tokens", "rows (queries)")
    key_tokens = check_labels(key_tokens, n_k, "key_tokens", "columns (keys)")
    allowed = np.ones((n_q, n_k), dtype=bool) if mask is None else _check_mask(mask, (n_q, n_k), weights)
    annotate = _check_annotate(annotate, n_q, n_k, max(n_q, n_k) <= 12)
    colours = (matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap).with_extremes(bad=MASK_FACE)
    image = ax.imshow(np.ma.masked_array(weights, mask=~allowed), vmin=0.0, vmax=1.0, cmap=colours)
    for i, j0, j1 in _masked_runs(allowed):
        ax.add_patch(
            Rectangle((j0 - 0.5, i - 0.5), j1 - j0, 1, facecolor="none", edgecolor=MASK_HATCH, hatch="///", linewidth=0)
        )
    long_keys = max(map(len, key_tokens)) > 2
    every_k, every_q = _label_step(n_k, max_labels), _label_step(n_q, max_labels)
    ax.set_xticks(
        range(0, n_k, every_k),
        key_tokens[::every_k],
        rotation=45 if long_keys else 0,
        ha="right" if long_keys else "center",
    )
    ax.set_yticks(range(0, n_q, every_q), query_tokens[::every_q])
    ax.set_xlabel(t("key_axis", lang))
    ax.set_ylabel(t("query_axis", lang))
    show_legend = legend and not allowed.all()
    ax.set_title(t("attention_title", lang) if title is None else title, pad=LEGEND_PAD if show_legend else 6)
    if annotate:
        size = 8 if max(n_q, n_k) > 6 else 11
        for i in range(n_q):
            for j in range(n_k):
                value = weights[i, j]
                ax.text(
                    j,
                    i,
                    format_weight(value) if allowed[i, j] else MASK_TEXT,
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if value > 0.55 else "black",
                    bbox=None if allowed[i, j] else {"boxstyle": "square,pad=0.1", "fc": MASK_FACE, "ec": "none"},
                )
    if show_legend:
        ax.legend(
            handles=[masked_legend_handle(lang)],
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            frameon=False,
            fontsize=9,
            handlelength=1.4,
            handleheight=1.2,
            borderaxespad=0.3,
        )
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, label=t("weight", lang), fraction=0.046, pad=0.04)
        bar.ax.set_axes_locator(_as_tall_as(ax))  # the layout's place for it, the heatmap's height (n_q != n_k too)
    return image


def _label_step(n, max_labels):
    """Label every k-th token so that at most `max_labels` labels share an axis (k = 1 up to max_labels)."""
    return max(1, -(-n // max_labels))


def _masked_runs(allowed):
    """bool [n_q, n_k] -> [(i, j0, j1)]: the masked cells to hatch, one per cell in a small matrix, else one
    rectangle per run of masked cells in a row (a causal 512 x 512 mask: 511 rectangles, not 130,816)."""
    masked = ~allowed
    if max(allowed.shape) <= SMALL:
        return [(int(i), int(j), int(j) + 1) for i, j in np.argwhere(masked)]
    padded = np.zeros((masked.shape[0], masked.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = masked
    edges = np.diff(padded, axis=1)  # +1 where a run starts, -1 one past where it ends
    starts, ends = np.argwhere(edges == 1), np.argwhere(edges == -1)  # both in row order, paired
    return [(int(i), int(j0), int(j1)) for (i, j0), (_, j1) in zip(starts, ends, strict=True)]


def _check_annotate(annotate, n_q, n_k, default):
    """Whether to write each weight in its cell: `default` when None; True only up to ANNOTATE_MAX a side."""
    if annotate is None:
        return default
    if not isinstance(annotate, (bool, np.bool_)):
        raise TypeError(f"annotate must be True, False or None (automatic), got {describe_value(annotate)}")
    if annotate and max(n_q, n_k) > ANNOTATE_MAX:
        raise ValueError(
            f"annotate=True writes a number in every cell, at most {ANNOTATE_MAX} x {ANNOTATE_MAX}; these weights"
            f" are {n_q} x {n_k} (the numbers would not fit their cells): pass annotate=None or a slice of the weights"
        )
    return bool(annotate)


def _as_tall_as(ax):
    """An axes locator for a colour bar: the layout's width and gap, beside `ax`'s drawn (aspect-fitted) box and
    as tall as it."""

    def locate(bar_ax, renderer):
        ax.apply_aspect()
        heatmap, place = ax.get_position(original=False), bar_ax.get_position(original=True)
        gap = place.x0 - ax.get_position(original=True).x1
        return Bbox.from_bounds(heatmap.x1 + gap, heatmap.y0, place.width, heatmap.height)

    return locate


#: Points between a heatmap and its title when a legend for masked cells sits between them.
LEGEND_PAD = 26


def _check_weights(weights, min_ndim, max_ndim):
    weights = as_float_array(weights, "weights", min_ndim=min_ndim)
    if weights.ndim > max_ndim:
        raise ValueError(f"weights must have at most {max_ndim} dimensions, got shape {weights.shape}")
    if weights.size == 0:
        raise ValueError(f"weights must have at least one row and one column, got shape {weights.shape}")
    if max(weights.shape[-2:]) > MAX_TOKENS:
        raise ValueError(
            f"weights of shape {weights.shape} have more than {MAX_TOKENS} queries or keys: a heatmap shows at most"
            f" {MAX_TOKENS} a side (beyond, a cell is smaller than a pixel); plot a slice such as"
            " weights[..., :512, :512]"
        )
    outside = (weights < -_SLACK) | (weights > 1 + _SLACK)
    if outside.any():
        where = tuple(int(i) for i in np.argwhere(outside)[0])
        raise ValueError(
            f"weights holds {weights[where]:.4g} at index {where}, outside [0, 1]: a heatmap draws attention weights"
            " (each row a softmax, on a 0-1 colour scale); for scores, pass softmax(scores) or draw them with imshow"
        )
    return weights


#: How far outside [0, 1] a weight may be from rounding alone.
_SLACK = 1e-6


def _heatmap_side(n):
    """The side of one heatmap in inches: 3.5 for a worked example, 0.45 in a token from 8 tokens, at most MAX_SIDE."""
    return min(max(3.5, 0.45 * n), MAX_SIDE)


def plot_attention(
    weights,
    tokens,
    key_tokens=None,
    *,
    title=None,
    lang=None,
    annotate=None,
    figsize=None,
    cmap="Blues",
    mask=None,
):
    """[n_q, n_k] weights -> a Figure: a heatmap on one 0-1 colour scale, tokens on both axes.

    `tokens` labels the rows (queries); `key_tokens` the columns (keys), defaulting to `tokens`.
    Cells show their weight when the matrix is at most 12 x 12 (or when `annotate=True`, up to 32 x 32);
    `mask` (bool, True = may attend) draws masked cells grey and hatched, with a legend entry. The default
    size draws a 3 x 3 matrix about 5 inches wide (over 480 pixels at the notebooks' 100 dpi) and grows
    with the tokens up to 24 of them (10.8 in); a longer sentence gets smaller cells in the same size and a
    label on every k-th token (at most 48 per axis). At most 1024 tokens a side (a ValueError beyond).
    Weights must lie in [0, 1] (a ValueError otherwise: scores are not weights).
    """
    use_cjk_font()
    weights = _check_weights(weights, 2, 2)
    n_q, n_k = weights.shape
    query_tokens = check_labels(tokens, n_q, "tokens", "rows (queries)")
    key_tokens = check_labels(query_tokens if key_tokens is None else key_tokens, n_k, "key_tokens", "columns (keys)")
    side = _heatmap_side(max(n_q, n_k))
    fig = Figure(figsize=figsize or (side + 2.4, side + 1.2 + (0.3 if mask is not None else 0)), layout="constrained")
    draw_attention(
        fig.add_subplot(),
        weights,
        query_tokens,
        key_tokens,
        title=title,
        lang=lang,
        annotate=annotate,
        cmap=cmap,
        mask=mask,
    )
    return fig


def plot_attention_side_by_side(
    weights, tokens, titles, *, key_tokens=None, masks=None, suptitle=None, lang=None, annotate=None, cmap="Blues"
):
    """A list of m [n_q, n_k] weight matrices -> one Figure, heatmaps side by side with one shared colour bar.

    `titles` names each heatmap; `masks` is None or a list of m masks (None or bool, True = may attend).
    When any heatmap has masked cells, every title leaves room for the legend, so the titles line up.
    """
    use_cjk_font()
    if isinstance(weights, np.ndarray) and weights.ndim == 3:
        weights = list(weights)
    if isinstance(weights, (str, bytes)) or not isinstance(weights, (list, tuple)) or not weights:
        raise TypeError(f"weights must be a non-empty list of [n_q, n_k] matrices, got {describe_value(weights)}")
    matrices = [_check_weights(w, 2, 2) for w in weights]
    if len({m.shape for m in matrices}) != 1:
        raise ValueError(f"weights must all have the same shape, got shapes {[m.shape for m in matrices]}")
    count = len(matrices)
    titles = list(titles) if titles is not None else [None] * count
    masks = [None] * count if masks is None else list(masks)
    for name, items in (("titles", titles), ("masks", masks)):
        if len(items) != count:
            raise ValueError(f"{name} has {len(items)} entries but there are {count} weight matrices")
    n_q, n_k = matrices[0].shape
    query_tokens = check_labels(tokens, n_q, "tokens", "rows (queries)")
    key_tokens = check_labels(query_tokens if key_tokens is None else key_tokens, n_k, "key_tokens", "columns (keys)")
    any_mask = any(m is not None and not np.asarray(m).all() for m in masks)
    side = _heatmap_side(max(n_q, n_k))
    if count == 2 and max(n_q, n_k) <= 6:
        side = 3.1  # two small worked examples: 10 inches in all, so a notebook shows them unshrunk
    fig = Figure(figsize=(count * (side + 1.3) + 1.2, side + 1.3 + (0.3 if any_mask else 0)), layout="constrained")
    axes = fig.subplots(1, count, squeeze=False)[0]
    image = None
    for i, (ax, matrix, title, mask) in enumerate(zip(axes, matrices, titles, masks, strict=True)):
        image = draw_attention(
            ax,
            matrix,
            query_tokens,
            key_tokens,
            title=title,
            lang=lang,
            annotate=annotate,
            colorbar=False,
            cmap=cmap,
            mask=mask,
        )
        if any_mask:
            ax.set_title(ax.get_title(), pad=LEGEND_PAD)
        if i:
            ax.set_ylabel("")
    fig.colorbar(image, ax=axes.tolist(), label=t("weight", lang), shrink=0.85)
    if suptitle is not None:
        fig.suptitle(suptitle)
    return fig


def plot_heads(weights, tokens, *, title=None, lang=None, ncols=None, annotate=None, cmap="Blues", mask=None):
    """[h, n, n] weights -> a Figure with one heatmap per head, titled "head 1" ... "head h".

    `mask` (bool [n, n] or [h, n, n], True = may attend) draws masked cells grey and hatched; one legend
    entry for them goes below the grid. One head's heatmap grows 0.3 in per token up to 16 tokens (5.8 in);
    for a longer sentence its cells shrink, every k-th token is labelled (at most 16 per axis), on the
    left column and bottom row only. At most 64 heads.
    """
    use_cjk_font()
    weights = _check_weights(weights, 3, 3)
    h, n_q, n_k = weights.shape
    if h > MAX_HEADS:
        raise ValueError(
            f"weights has {h} heads; plot_heads draws at most {MAX_HEADS} (one heatmap each): pass a slice such as"
            " weights[:12], or draw a whole model's heads with attn_lib.pictures.plot_head_types"
        )
    query_tokens = check_labels(tokens, n_q, "tokens", "rows (queries)")
    key_tokens = check_labels(query_tokens, n_k, "tokens", "columns (keys)")
    masks = None if mask is None else _check_mask(mask, weights.shape, weights)
    ncols = min(h, 4) if ncols is None else check_positive_int(ncols, "ncols")
    nrows = -(-h // ncols)
    cell = 1.0 + 0.3 * min(max(n_q, n_k), HEADS_SMALL)
    long_sentence = max(n_q, n_k) > HEADS_SMALL  # smaller cells, and the labels on the outer heatmaps only
    fig = Figure(figsize=(cell * ncols + 1.0, cell * nrows + 0.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    annotate = _check_annotate(annotate, n_q, n_k, max(n_q, n_k) <= 4)
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
            mask=None if masks is None else masks[i],
            legend=False,
            max_labels=MAX_HEAD_LABELS,
        )
        if i % ncols:
            ax.set_ylabel("")
            if long_sentence:  # the left column's labels serve the whole row
                ax.set_yticks([])
        if i < h - ncols:
            ax.set_xlabel("")
            if long_sentence:  # the bottom row's labels serve the whole column
                ax.set_xticks([])
    fig.colorbar(image, ax=axes.tolist(), label=t("weight", lang), shrink=0.8)
    if masks is not None and not masks.all():
        fig.legend(handles=[masked_legend_handle(lang)], loc="outside lower center", frameon=False)
    if title is not None:
        fig.suptitle(title)
    return fig
