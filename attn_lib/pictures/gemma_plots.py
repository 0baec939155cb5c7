"""Pictures of notebook 15's model, Gemma 3 270M (attn_lib.models.gemma3), which reads Chinese.

    plot_small_heatmaps(panels)                       small annotated heatmaps of different sizes, one colour scale
    plot_bos_share(share, global_layers)              how much attention each head puts on <bos>, layers x heads
    draw_local_global_layers(n_layers, window, ...)   what one query sees per layer, and how far back after l layers
    plot_kv_cache_bytes(rows)                         the KV cache's bytes per token: formula and measured, per model
    plot_score_ranges(with_norm, without_norm, ...)   the largest |score| per layer with QK-norm and without it

Each function takes numbers and arrays (never the model) and returns a matplotlib Figure; the words come from
attn_lib.i18n. Layers are numbered from 1 on the pictures; `global_layers` takes the indices i from 0 for which
``config.is_global(i)`` is True (Gemma 3 270M: 5, 11, 17, drawn as layers 6, 12, 18).
"""

import textwrap

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator, NullFormatter

from attn_lib._checks import as_float_array, check_positive_int, describe_value
from attn_lib.i18n import display_width, t
from attn_lib.pictures.heatmaps import check_labels, draw_attention, masked_legend_handle, use_cjk_font
from attn_lib.sliding_window import receptive_field

LOCAL_COLOUR, GLOBAL_COLOUR, REACH_COLOUR = "#9ecae1", "#e6550d", "#756bb1"
FORMULA_COLOUR, MEASURED_COLOUR = "#9ecae1", "#08519c"
WITH_COLOUR, WITHOUT_COLOUR, BAND_COLOUR = "#1f77b4", "#d62728", "#fee6ce"
#: plot_small_heatmaps: at most this wide (inches), cells at most CELL and at least MIN_CELL inches a side.
MAX_WIDTH, CELL, MIN_CELL = 10.0, 0.62, 0.36


def _check_global(global_layers, n_layers):
    """Indices from 0 of the global layers -> a sorted list of distinct ints in 0 .. n_layers - 1."""
    if isinstance(global_layers, (str, bytes)) or not hasattr(global_layers, "__iter__"):
        raise TypeError(f"global_layers must be a list of layer indices (from 0), got {describe_value(global_layers)}")
    layers = list(global_layers)
    if any(isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) for i in layers):
        raise TypeError(f"global_layers must hold ints (layer indices from 0), got {layers!r}")
    if len(set(layers)) != len(layers) or any(not 0 <= i < n_layers for i in layers):
        raise ValueError(
            f"global_layers={layers!r} must be distinct layer indices from 0 to n_layers - 1 = {n_layers - 1}"
            " (counted from 0, as config.is_global(i))"
        )
    return sorted(int(i) for i in layers)


def _layer_labels(n_layers, global_layers, lang, key="gemma.global_tick"):
    """The tick labels of layers 1 .. n_layers; a global layer's says so ("6 (global)", or on two lines)."""
    labels = [str(i + 1) for i in range(n_layers)]
    for i in global_layers:
        labels[i] = t(key, lang, l=i + 1)
    return labels


def _colour_global(tick_labels, global_layers):
    for i in global_layers:
        tick_labels[i].set_color(GLOBAL_COLOUR)


def _thousands(x, _=None):
    """A tick's number as the texts write it: 32,768; 0.5."""
    return f"{x:,.0f}" if x == round(x) else f"{x:,.3g}"


def _per_layer(values, name):
    values = as_float_array(values, name, min_ndim=1)
    if values.ndim != 1 or not len(values):
        raise ValueError(f"{name} must be [n_layers] (one number per layer), got shape {values.shape}")
    if (values < 0).any():
        raise ValueError(f"{name} must be >= 0 (a largest |score| per layer), got {values.min():.3g}")
    return values


# --- small heatmaps side by side -------------------------------------------------------------------------------


def _panel(panel, k):
    """(title, weights [n_q, n_k], row labels, column labels[, mask]) checked -> the same with the mask decided."""
    if isinstance(panel, (str, bytes)) or not hasattr(panel, "__len__") or len(panel) not in (4, 5):
        raise TypeError(
            f"panel {k} must be (title, weights [n_q, n_k], row_labels, col_labels) with an optional mask,"
            f" got {describe_value(panel)}"
        )
    title, weights, rows, cols = panel[:4]
    weights = as_float_array(weights, f"panel {k}'s weights", min_ndim=2)
    if weights.ndim != 2 or not weights.size:
        raise ValueError(f"panel {k}'s weights must be one [n_q, n_k] matrix, got shape {weights.shape}")
    n_q, n_k = weights.shape
    rows = check_labels(rows, n_q, f"panel {k}'s row_labels", "rows (queries)")
    cols = check_labels(cols, n_k, f"panel {k}'s col_labels", "columns (keys)")
    if len(panel) == 5:
        mask = panel[4]
    elif n_q == n_k > 1 and not np.triu(weights, 1).any():
        mask = np.tril(np.ones((n_q, n_k), dtype=bool))  # exactly 0 above the diagonal: a causal model's future
    else:
        mask = None
    return str(title), weights, rows, cols, mask


def plot_small_heatmaps(panels, title=None, *, lang=None):
    """[(title, weights [n_q, n_k], row labels, column labels)] -> a Figure: the heatmaps in a row, cells of one size.

    Every heatmap uses the 0-1 colour scale of one shared colour bar and writes each weight in its cell. A square
    matrix whose cells above the diagonal are all exactly 0 is a causal model's: those cells are drawn masked (grey,
    hatched, "—", as every heatmap of the course). A fifth element per panel sets the mask instead (bool [n_q, n_k],
    True = may attend; None for no mask).
    """
    use_cjk_font()
    if isinstance(panels, (str, bytes, dict)) or not hasattr(panels, "__len__") or not len(panels):
        raise TypeError(
            f"panels must be a non-empty list of (title, weights, row_labels, col_labels), got {describe_value(panels)}"
        )
    panels = [_panel(panel, k) for k, panel in enumerate(panels)]
    widths = [weights.shape[1] for _, weights, *_ in panels]
    n_rows = max(weights.shape[0] for _, weights, *_ in panels)
    cell = min(CELL, (MAX_WIDTH - 1.1 - 0.75 * len(panels)) / sum(widths))
    if cell < MIN_CELL:
        raise ValueError(
            f"{len(panels)} heatmaps of {sum(widths)} columns in all do not fit one row of {MAX_WIDTH:g} inches with"
            " a number in every cell: draw fewer or smaller matrices"
        )
    masked = any(mask is not None and not np.asarray(mask).all() for *_, mask in panels)
    # the keys' labels stay level when the widest fits its cell: a column of a 10 pt label is about 6 pt wide, and
    # a Chinese character takes two (display_width)
    level = max(display_width(label) for *_, cols, _ in panels for label in cols) * 6.0 <= cell * 72 - 4
    height = n_rows * cell + 1.2 + (0.0 if level else 0.4) + (0.3 if masked else 0.0) + (0.3 if title else 0.0)
    fig = Figure(figsize=(sum(widths) * cell + 0.75 * len(panels) + 1.1, height), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False, gridspec_kw={"width_ratios": widths})[0]
    image = None
    for k, (ax, (name, weights, rows, cols, mask)) in enumerate(zip(axes, panels, strict=True)):
        image = draw_attention(ax, weights, rows, cols, title=name, lang=lang, annotate=True, colorbar=False,
                               mask=mask, legend=False)  # fmt: skip
        ax.title.set_fontsize(10)
        for text in ax.texts:  # "<0.001" needs a smaller font than "0.25" to keep clear of its neighbours
            text.set_fontsize(10 if cell >= 0.5 and len(text.get_text()) <= 4 else 9)
        if level:
            ax.tick_params(axis="x", labelrotation=0)
            for label in ax.get_xticklabels():
                label.set_horizontalalignment("center")
        if k:
            ax.set_ylabel("")
    fig.colorbar(image, ax=axes.tolist(), label=t("weight", lang), shrink=0.9)
    if masked:
        fig.legend(handles=[masked_legend_handle(lang)], loc="outside lower center", frameon=False, fontsize=9)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


# --- <bos> as a resting place -----------------------------------------------------------------------------------


def plot_bos_share(share, global_layers, title=None, *, lang=None):
    """[n_layers, n_heads] weights on the <bos> key -> a Figure: the grid (layers down, heads across, from 1), each
    cell's share written in it, the global layers named on their ticks."""
    use_cjk_font()
    share = as_float_array(share, "share", min_ndim=2)
    if share.ndim != 2:
        raise ValueError(f"share must be [n_layers, n_heads], got shape {share.shape}")
    if (share < 0).any() or (share > 1 + 1e-6).any():
        raise ValueError(f"share holds attention weights, in [0, 1]; got {share.min():.3g} to {share.max():.3g}")
    n_layers, n_heads = share.shape
    global_layers = _check_global(global_layers, n_layers)
    fig = Figure(figsize=(2.9 + 0.75 * n_heads, 0.27 * n_layers + 1.5), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(share, vmin=0, vmax=1, cmap="Purples", aspect="auto", interpolation="nearest")
    for layer in range(n_layers):
        for head in range(n_heads):
            value = share[layer, head]
            ax.text(head, layer, f"{value:.2f}", ha="center", va="center", fontsize=8,
                    color="white" if value > 0.6 else "black")  # fmt: skip
    for i in global_layers:  # a frame around each global layer's row
        ax.add_patch(Rectangle((-0.5, i - 0.5), n_heads, 1, fill=False, edgecolor=GLOBAL_COLOUR, lw=1.6))
    ax.set_xticks(range(n_heads), [str(h + 1) for h in range(n_heads)], fontsize=9)
    ax.set_yticks(range(n_layers), _layer_labels(n_layers, global_layers, lang), fontsize=8)
    _colour_global(ax.get_yticklabels(), global_layers)
    ax.set_xlabel(t("gemma.head", lang))
    ax.set_ylabel(t("gemma.layer", lang))
    ax.set_title(t("gemma.bos_title", lang) if title is None else title, fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.6, label=t("gemma.bos_share", lang))
    return fig


# --- local and global layers ------------------------------------------------------------------------------------


def draw_local_global_layers(n_layers, window, global_layers, n_tokens, *, lang=None):
    """A diagram of one query, the last of `n_tokens`, through the layers (layer 1 at the top).

    Left, each layer alone: the positions its attention sees (a local layer the last `window`, a global layer
    every one). Right, layers 1 to l together: the positions the output after layer l can depend on. Local
    layers reach window - 1 further back each (attn_lib.sliding_window.receptive_field); once a global layer
    has come, the start.
    """
    use_cjk_font()
    n_layers, window = check_positive_int(n_layers, "n_layers"), check_positive_int(window, "window")
    n_tokens = check_positive_int(n_tokens, "n_tokens")
    global_layers = _check_global(global_layers, n_layers)
    q = n_tokens - 1  # the query's position
    fig = Figure(figsize=(10.0, 0.24 * n_layers + 2.0), layout="constrained")
    seen, reach = fig.subplots(1, 2, sharey=True)
    first_global = global_layers[0] if global_layers else n_layers
    before = None  # the reach after the layers above: a row that reaches no further repeats no number
    for i in range(n_layers):
        start = 0 if i in global_layers else max(0, q - window + 1)
        colour = GLOBAL_COLOUR if i in global_layers else LOCAL_COLOUR
        seen.barh(i, q - start + 1, left=start - 0.5, height=0.7, color=colour)
        earliest = 0 if i >= first_global else max(0, q - receptive_field(window, i + 1) + 1)
        reach.barh(i, q - earliest + 1, left=earliest - 0.5, height=0.7, color=REACH_COLOUR)
        count = q - earliest + 1
        if count == before:
            continue
        before = count
        if earliest == 0:
            words = t("gemma.reach_all", lang, n=f"{n_tokens:,}")
        else:
            words = t("gemma.reach_count", lang, n=f"{count:,}")
        inside = count > 0.55 * n_tokens  # a long bar holds its number; beside a short one there is room
        reach.text(earliest + (0.01 * n_tokens if inside else -0.015 * n_tokens), i, words, va="center", fontsize=8,
                   ha="left" if inside else "right", color="white" if inside else "black")  # fmt: skip
    seen.set_yticks(range(n_layers), _layer_labels(n_layers, global_layers, lang), fontsize=8)
    _colour_global(seen.get_yticklabels(), global_layers)
    seen.set_ylim(n_layers - 0.5, -0.5)
    seen.set_ylabel(t("gemma.layer", lang))
    for ax, key in ((seen, "gemma.one_layer_title"), (reach, "gemma.reach_title")):
        ax.set_xlim(-0.5, n_tokens - 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
        ax.xaxis.set_major_formatter(_thousands)
        ax.set_xlabel(t("gemma.position_axis", lang, q=f"{q:,}"))
        ax.set_title(t(key, lang), fontsize=10)
    handles = [Patch(color=LOCAL_COLOUR, label=t("gemma.local_legend", lang, window=f"{window:,}")),
               Patch(color=GLOBAL_COLOUR, label=t("gemma.global_legend", lang))]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False, fontsize=9)
    fig.suptitle(t("gemma.layers_title", lang, q=f"{q:,}", n_local=n_layers - len(global_layers),
                   n_global=len(global_layers), window=f"{window:,}"), fontsize=11)  # fmt: skip
    return fig


# --- the KV cache's bytes ---------------------------------------------------------------------------------------


def _kib(n_bytes):
    """Bytes -> their KiB as a label: 36864 -> "36", 1536 -> "1.5"."""
    kib = n_bytes / 1024
    return f"{kib:,.0f}" if kib == round(kib) else f"{kib:,.1f}"


def _bytes(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number of bytes, got {describe_value(value)}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number of bytes, got {value!r}")
    return float(value)


def plot_kv_cache_bytes(rows, title=None, *, lang=None):
    """[(label, formula bytes per token, measured bytes per token or None)] -> a Figure: two bars per row, both
    numbers written in KiB per token (a label is wrapped at its spaces)."""
    use_cjk_font()
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__len__") or not len(rows):
        raise TypeError(
            "rows must be a non-empty list of (label, formula_bytes, measured_bytes or None),"
            f" got {describe_value(rows)}"
        )
    checked = []
    for k, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 3:
            raise TypeError(
                f"row {k} must be (label, formula_bytes, measured_bytes or None), got {describe_value(row)}"
            )
        label, formula, measured = row
        formula = _bytes(formula, f"row {k}'s formula bytes")
        measured = None if measured is None else _bytes(measured, f"row {k}'s measured bytes")
        checked.append((textwrap.fill(str(label), 30, break_long_words=False), formula, measured))
    largest = max(max(f, m or 0) for _, f, m in checked) / 1024  # KiB, as the axis
    fig = Figure(figsize=(8.6, 0.75 * len(checked) + 1.9), layout="constrained")
    ax = fig.subplots()
    for i, (_, formula, measured) in enumerate(checked):
        for y, value, colour in ((i - 0.19, formula, FORMULA_COLOUR), (i + 0.19, measured, MEASURED_COLOUR)):
            if value is None:
                ax.text(0.012 * largest, y, t("gemma.kv_not_measured", lang), va="center", fontsize=8, color="#737373")
                continue
            ax.barh(y, value / 1024, height=0.36, color=colour)
            ax.text(value / 1024 + 0.012 * largest, y, t("gemma.kib", lang, kib=_kib(value)), va="center", fontsize=9)
    ax.set_yticks(range(len(checked)), [label for label, _, _ in checked], fontsize=9)
    ax.set_ylim(len(checked) - 0.5, -0.5)
    ax.set_xlim(0, largest * 1.22)
    ax.xaxis.set_major_formatter(_thousands)
    ax.set_xlabel(t("gemma.kv_axis", lang))
    ax.set_title(t("gemma.kv_title", lang) if title is None else title, fontsize=11)
    handles = [Patch(color=FORMULA_COLOUR, label=t("gemma.kv_formula", lang))]
    if any(measured is not None for _, _, measured in checked):
        handles.append(Patch(color=MEASURED_COLOUR, label=t("gemma.kv_measured", lang)))
    fig.legend(handles=handles, loc="outside lower center", ncol=1, frameon=False, fontsize=9)
    return fig


# --- scores with and without QK-norm ----------------------------------------------------------------------------


def plot_score_ranges(with_norm, without_norm, global_layers, title=None, *, log=None, ylabel=None, lang=None):
    """[n_layers], [n_layers] largest |score| per layer -> a Figure: both as lines over the layers (from 1), the
    global layers shaded and named on their ticks.

    log=None picks a log scale when the numbers span more than a factor of 30 (all of them > 0); `ylabel` names
    what was measured when it is not the largest |score| (e.g. the range max - min).
    """
    use_cjk_font()
    with_norm, without_norm = _per_layer(with_norm, "with_norm"), _per_layer(without_norm, "without_norm")
    if with_norm.shape != without_norm.shape:
        raise ValueError(
            f"with_norm and without_norm must have one number per layer each, got shapes {with_norm.shape} and"
            f" {without_norm.shape}"
        )
    n_layers = len(with_norm)
    global_layers = _check_global(global_layers, n_layers)
    both = np.concatenate([with_norm, without_norm])
    if log is None:
        log = bool(both.min() > 0 and both.max() > 30 * both.min())
    elif not isinstance(log, (bool, np.bool_)):
        raise TypeError(f"log must be True, False or None (automatic), got {describe_value(log)}")
    if log and both.min() <= 0:
        raise ValueError("log=True needs numbers > 0 (a log scale has no 0)")
    fig = Figure(figsize=(min(10.0, 3.0 + 0.42 * n_layers), 4.2), layout="constrained")
    ax = fig.subplots()
    layers = np.arange(1, n_layers + 1)
    for i in global_layers:
        ax.axvspan(i + 0.65, i + 1.35, color=BAND_COLOUR, zorder=0)
    ax.plot(layers, with_norm, "o-", color=WITH_COLOUR, label=t("gemma.with_norm", lang))
    ax.plot(layers, without_norm, "s--", color=WITHOUT_COLOUR, label=t("gemma.without_norm", lang))
    ax.set_xticks(layers, _layer_labels(n_layers, global_layers, lang, "gemma.global_tick_2"), fontsize=8)
    _colour_global(ax.get_xticklabels(), global_layers)
    ax.set_xlim(0.4, n_layers + 0.6)
    label = t("gemma.score_axis", lang) if ylabel is None else str(ylabel)
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(_thousands)
        ax.yaxis.set_minor_formatter(NullFormatter())
        label = t("gemma.log_scale", lang, label=label)
    else:
        ax.set_ylim(0, both.max() * 1.1 or 1.0)
    ax.set_ylabel(label)
    ax.set_xlabel(t("gemma.layer", lang))
    ax.set_title(t("gemma.score_title", lang) if title is None else title, fontsize=11)
    fig.legend(loc="outside lower center", ncol=2, frameon=False, fontsize=9)
    return fig
