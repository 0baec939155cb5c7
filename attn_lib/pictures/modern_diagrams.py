"""The diagrams of notebook 12: which query heads share keys and values (MHA, GQA, MQA), and how a
sliding window reaches further back with every layer. Re-exported by `attn_lib.pictures.diagrams`; the drawing
kit, colours and fonts are those of `attn_lib.pictures.kit`.
"""

from matplotlib.patches import Circle

from attn_lib._checks import check_kv_heads_divide, check_positive_int
from attn_lib.i18n import t
from attn_lib.pictures.kit import ARROW, FONT, MUTED, PALETTE, SMALL, Canvas
from attn_lib.sliding_window import receptive_field, receptive_field_mask, sliding_window_mask

__all__ = [
    "draw_kv_sharing",
    "draw_sliding_window_layers",
]

#: One colour per K/V group (the lines from query heads to the K/V head they share).
GROUP_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")


def _kind(n_heads, n_kv_heads):
    if n_kv_heads == n_heads:
        return "diagrams.kvshare_mha"
    return "diagrams.kvshare_mqa" if n_kv_heads == 1 else "diagrams.kvshare_gqa"


# --- 11: multi-head, grouped-query and multi-query attention ----------------------------------------


def draw_kv_sharing(n_heads=8, kv_options=(8, 2, 1), lang=None):
    """Query heads above, key/value heads below, a line from each query head to the K/V head it uses
    (head i -> i // (n_heads / n_kv_heads)), one panel per entry of `kv_options`, with the cache each keeps."""
    n_heads = check_positive_int(n_heads, "n_heads")
    kv_options = tuple(check_positive_int(kv, "kv_options entry") for kv in kv_options)
    if not 1 <= len(kv_options) <= 3 or n_heads > 12:
        raise ValueError(f"draw 1 to 3 panels of at most 12 heads, got n_heads={n_heads}, kv_options={kv_options}")
    for kv in kv_options:
        check_kv_heads_divide(n_heads, kv)
    c = Canvas(10.0, 4.3, t("diagrams.kvshare_title", lang))
    y_q, y_k, y_v = 2.55, 1.55, 1.25
    left, width = 1.25, 8.6 / len(kv_options)
    step = min(0.32, (width - 0.3) / n_heads)
    c.text(0.65, y_q, t("diagrams.kvshare_queries", lang), size=SMALL, color=PALETTE["q"][1])
    c.text(0.65, (y_k + y_v) / 2, t("diagrams.kvshare_keys", lang), size=SMALL, color=PALETTE["k"][1])
    for p, kv in enumerate(kv_options):
        centre = left + (p + 0.5) * width
        g = n_heads // kv
        xs = [centre + (i - (n_heads - 1) / 2) * step for i in range(n_heads)]
        c.text(centre, 3.45, t(_kind(n_heads, kv), lang), size=FONT)
        c.text(centre, 3.12, t("diagrams.kvshare_heads", lang, h=n_heads, kv=kv), size=SMALL, color=MUTED)
        for j in range(kv):
            group = xs[j * g : (j + 1) * g]
            x_kv, w_kv = (group[0] + group[-1]) / 2, group[-1] - group[0] + step * 0.8
            colour = GROUP_COLOURS[j % len(GROUP_COLOURS)] if kv > 1 else ARROW
            c.box(x_kv, y_k, w_kv, 0.26, "K" if w_kv > 0.2 else "", kind="k", size=SMALL, radius=0.03)
            c.box(x_kv, y_v, w_kv, 0.26, "V" if w_kv > 0.2 else "", kind="v", size=SMALL, radius=0.03)
            for x in group:
                c.ax.plot([x, x_kv + (x - x_kv) * 0.85], [y_q - 0.15, y_k + 0.14], color=colour, lw=1.1)
        for i, x in enumerate(xs):
            c.box(x, y_q, step * 0.8, 0.3, str(i + 1), kind="q", size=SMALL - 1, radius=0.03)
        c.text(centre, 0.85, t("diagrams.kvshare_cache", lang, kv=kv, h=n_heads), size=SMALL + 1)
    c.text(5.0, 0.3, t("diagrams.kvshare_note", lang), size=SMALL, color=MUTED)
    return c.fig


# --- 11: the sliding window over layers ------------------------------------------------------------


def draw_sliding_window_layers(n=12, window=3, n_layers=3, lang=None):
    """Positions 0 .. n-1 in rows, the input at the bottom and each layer above it; lines from every
    position the last token's output depends on to the `window` positions it attends to below. The
    filled positions, counted from the composed masks, widen by window - 1 per layer."""
    n, window, n_layers = (
        check_positive_int(n, "n"),
        check_positive_int(window, "window"),
        check_positive_int(n_layers, "n_layers"),
    )
    if n > 24 or n_layers > 5:
        raise ValueError(f"draw at most 24 positions and 5 layers, got n={n}, n_layers={n_layers}")
    if n < receptive_field(window, n_layers):
        raise ValueError(
            f"n={n} positions cannot show the whole reach of {n_layers} layers with window={window}:"
            f" n must be at least n_layers * (window - 1) + 1 = {receptive_field(window, n_layers)}"
        )
    mask = sliding_window_mask(n, window)
    reached = int(receptive_field_mask(mask, n_layers)[-1].sum())  # counted, then written on the picture
    row_h = 0.72
    height = 1.75 + n_layers * row_h
    c = Canvas(10.0, height + 0.45, t("diagrams.window_title", lang))
    x0, dx = 1.9, min(0.62, 7.6 / max(n - 1, 1))
    y0 = 0.95

    def y_of(layer):
        return y0 + layer * row_h

    for layer in range(n_layers + 1):
        label = t("diagrams.window_input", lang) if layer == 0 else t("diagrams.window_layer", lang, l=layer)
        c.text(0.85, y_of(layer), label, size=SMALL + 1)
        # which positions of this layer the last token of the top layer depends on: composed masks, not a formula
        reach = receptive_field_mask(mask, n_layers - layer)[-1] if layer < n_layers else [i == n - 1 for i in range(n)]
        if layer > 0:
            for i in range(n):
                if reach[i]:
                    for j in range(n):
                        if mask[i, j]:
                            c.ax.plot(
                                [x0 + i * dx, x0 + j * dx],
                                [y_of(layer) - 0.12, y_of(layer - 1) + 0.12],
                                color=PALETTE["q"][1],
                                lw=0.9,
                                alpha=0.7,
                            )
        for i in range(n):
            face, edge = (PALETTE["q"][1],) * 2 if reach[i] else ("white", PALETTE["mask"][1])
            c.ax.add_patch(Circle((x0 + i * dx, y_of(layer)), 0.11, facecolor=face, edgecolor=edge, lw=1.2, zorder=3))
    for i in range(n):
        c.text(x0 + i * dx, y0 - 0.3, str(i), size=SMALL - 1, color=MUTED)
    c.text(
        5.0, height - 0.25, t("diagrams.window_reach", lang, window=window, layers=n_layers, reach=reached), size=FONT
    )
    c.text(5.0, 0.3, t("diagrams.window_note", lang), size=SMALL, color=MUTED)
    return c.fig
