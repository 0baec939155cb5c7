"""Notebook 09's pictures: the encoder–decoder drawn by code, its three masks, learned alignments, the seeds table.

draw_encoder_decoder()                      the two stacks, the memory, and where Q, K, V come from
draw_translation_masks()                    encoder padding, decoder causal, cross-attention padding
plot_alignment(weights, english, chinese, align)   a head's cross-attention beside the known alignment
plot_alignment_by_head(accuracy, baselines) alignment accuracy of every decoder layer and head
plot_dropout_seeds(runs)                    each seed with and without attention dropout, paired
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from attn_lib._checks import _describe, as_float_array
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import MASK_FACE, MASK_HATCH, _check_tokens, draw_attention, use_cjk_font
from attn_lib.pictures.kit import FONT, MUTED, PALETTE, SMALL, Canvas, check_tokens

ARTICLE_SOURCE = ("我", "昨天", "在", "北京", "吃了", "烤鸭")
ARTICLE_TARGET = ("yesterday", "I", "ate", "roast", "duck", "in", "Beijing")
ALLOWED_FACE = PALETTE["x"][0]  # may attend: the light green of token vectors
KNOWN_EDGE, LARGEST = "#e6550d", "#c51b8a"  # the known alignment's frame; the row's largest weight


def draw_encoder_decoder(source=ARTICLE_SOURCE, target=ARTICLE_TARGET, n_layers=2, lang=None):
    """The encoder–decoder: the encoder reads the source into a memory; every decoder layer reads it through
    cross-attention (K and V from the memory, Q from the decoder) while the decoder writes the target."""
    source, target = check_tokens(source, "source"), check_tokens(target, "target")
    c = Canvas(10.0, 6.6, t("translation.model_title", lang))
    # the encoder, left
    ex, dx = 2.1, 7.2  # the two stacks' centres
    c.text(ex, 5.85, t("translation.encoder", lang), size=FONT, color=MUTED)
    c.text(dx, 5.85, t("translation.decoder", lang), size=FONT, color=MUTED)
    _tokens(c, ex, 0.45, source, "x")
    c.box(ex, 1.15, 2.9, 0.42, t("translation.embed", lang), kind="op", size=SMALL + 1)
    c.arrow((ex, 0.68), (ex, 0.93), lw=1.0)
    c.ax.add_patch(Rectangle((ex - 1.65, 1.6), 3.3, 1.95, fill=False, ec=PALETTE["note"][1], lw=1.2, ls="--"))
    c.box(ex, 2.15, 2.9, 0.62, t("translation.self_pad", lang), kind="q", size=SMALL + 1)
    c.box(ex, 3.0, 2.9, 0.45, t("translation.ffn", lang), kind="v", size=SMALL + 1)
    c.text(ex + 1.75, 2.55, t("translation.layers", lang, n=n_layers), size=SMALL, color=MUTED, ha="left")
    for y0, y1 in ((1.36, 1.84), (2.46, 2.77)):
        c.arrow((ex, y0), (ex, y1), lw=1.0)
    c.arrow((ex, 3.23), (ex, 3.98), lw=1.0)
    c.box(ex, 4.35, 3.0, 0.62, t("translation.memory", lang), kind="k", size=SMALL + 1)
    _tokens(c, ex, 5.05, source, "k", width=0.5)
    # the decoder, right: it reads <bos> and the words so far, and writes each next word (then <eos>)
    inputs, outputs = ["<bos>", *target], [*target, "<eos>"]
    _tokens(c, dx, 0.45, inputs, "x", width=0.4)
    c.text(dx, 0.08, t("translation.inputs", lang), size=SMALL, color=MUTED)
    c.box(dx, 1.15, 3.9, 0.42, t("translation.embed", lang), kind="op", size=SMALL + 1)
    c.arrow((dx, 0.68), (dx, 0.93), lw=1.0)
    c.ax.add_patch(Rectangle((dx - 2.15, 1.6), 4.3, 2.9, fill=False, ec=PALETTE["note"][1], lw=1.2, ls="--"))
    c.box(dx, 2.1, 3.9, 0.55, t("translation.self_causal", lang), kind="q", size=SMALL + 1)
    c.box(dx, 2.95, 3.9, 0.62, t("translation.cross", lang), kind="score", size=SMALL + 1)
    c.box(dx, 3.9, 3.9, 0.45, t("translation.ffn", lang), kind="v", size=SMALL + 1)
    c.text(dx + 2.05, 4.32, t("translation.layers", lang, n=n_layers), size=SMALL, color=MUTED, ha="right")
    for y0, y1 in ((1.36, 1.82), (2.38, 2.64), (3.26, 3.67)):
        c.arrow((dx, y0), (dx, y1), lw=1.0)
    c.box(dx, 4.95, 3.9, 0.42, t("translation.output_layer", lang), kind="out", size=SMALL + 1)
    c.arrow((dx, 4.13), (dx, 4.73), lw=1.0)
    _tokens(c, dx, 5.45, outputs, "out", width=0.4)
    # the memory feeds every decoder layer's cross-attention: keys and values from the encoder
    c.arrow(
        (ex + 1.5, 4.35), (dx - 1.95, 2.95), lw=2.0, color=PALETTE["k"][1], label=t("translation.kv_from_memory", lang)
    )
    c.text(dx + 1.1, 2.55, t("translation.q_from_decoder", lang), size=SMALL, color=PALETTE["q"][1])
    return c.fig


def _tokens(c, x_center, y, tokens, kind, width=0.56):
    """Tokens side by side in small boxes of the role's colour, centred on x_center; a long word gets a wider box."""
    widths = [max(width, 0.09 * len(token) + 0.14) for token in tokens]
    left = x_center - sum(widths) / 2
    for token, w in zip(tokens, widths, strict=True):
        c.box(left + w / 2, y, w * 0.94, 0.34, token, kind=kind, size=SMALL)
        left += w


def _draw_mask(ax, allowed, rows, cols, title):
    """A boolean mask as a grid: allowed cells light, masked cells grey and hatched (as the heatmaps draw them)."""
    n_q, n_k = allowed.shape
    for i in range(n_q):
        for j in range(n_k):
            face = ALLOWED_FACE if allowed[i, j] else MASK_FACE
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=face, edgecolor="white", linewidth=1.2))
            if not allowed[i, j]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=MASK_HATCH, hatch="///", lw=0))
    ax.set_xlim(-0.5, n_k - 0.5)
    ax.set_ylim(n_q - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(n_k), cols, rotation=45, ha="right")
    ax.set_yticks(range(n_q), rows)
    ax.set_title(title, fontsize=FONT)


def draw_translation_masks(source_batch=(ARTICLE_SOURCE, ("猫", "吃", "鱼")), target=("the", "cat", "eats", "fish"),
                           lang=None):  # fmt: skip
    """The three masks of an encoder–decoder for the last sentence of a padded batch (True = may attend):
    the encoder's padding mask [S, S], the decoder's causal mask [T, T], cross-attention's padding mask [T, S]."""
    if isinstance(source_batch, str) or not hasattr(source_batch, "__iter__") or not len(source_batch):
        raise TypeError(f"source_batch must be a sequence of token sequences, got {_describe(source_batch)}")
    batch = [check_tokens(s, "source_batch entry") for s in source_batch]
    target = check_tokens(target, "target")
    use_cjk_font()
    length = max(len(s) for s in batch)
    source = batch[-1] + ["<pad>"] * (length - len(batch[-1]))  # the last sentence, padded to the batch
    inputs = ["<bos>", *target]
    real = np.array([token != "<pad>" for token in source])  # [S]
    masks = (
        (np.broadcast_to(real, (length, length)), source, source, "translation.mask_encoder"),
        (np.tril(np.ones((len(inputs),) * 2, dtype=bool)), inputs, inputs, "translation.mask_decoder"),
        (np.broadcast_to(real, (len(inputs), length)), inputs, source, "translation.mask_cross"),
    )
    fig = Figure(figsize=(12.0, 4.6), layout="constrained")
    fig.suptitle(t("translation.masks_title", lang), fontsize=FONT + 2)
    for ax, (allowed, rows, cols, key) in zip(fig.subplots(1, 3), masks, strict=True):
        _draw_mask(ax, allowed, rows, cols, t(key, lang))
    fig.legend(
        handles=[Patch(facecolor=ALLOWED_FACE, edgecolor="none", label=t("translation.may_attend", lang)),
                 Patch(facecolor=MASK_FACE, edgecolor=MASK_HATCH, hatch="///", label=t("masked_cell", lang))],
        loc="outside lower center", ncol=2, frameon=False,
    )  # fmt: skip
    return fig


def _check_align(align, n_q, n_k):
    if isinstance(align, str) or not hasattr(align, "__len__"):
        raise TypeError(f"align must be a sequence of source positions (-1: none), got {_describe(align)}")
    align = np.asarray(align)
    if align.shape != (n_q,) or align.dtype.kind not in "iu":
        raise ValueError(
            f"align must be {n_q} integer source positions, one per row of weights, got {_describe(align)}"
        )
    if ((align < -1) | (align >= n_k)).any():
        raise ValueError(f"align's positions must lie in -1..{n_k - 1} (-1: no counterpart), got {align.tolist()}")
    return align


def plot_alignment(weights, target_words, source_tokens, align, *, title=None, lang=None):
    """weights [T, S] (English words being written x Chinese tokens), align [T] -> the learned weights, with each
    row's known-alignment cell framed and its largest weight dotted, beside the known alignment as a 0/1 matrix."""
    weights = as_float_array(weights, "weights", min_ndim=2)
    if weights.ndim != 2:
        raise ValueError(f"weights must be one [T, S] matrix, got shape {weights.shape}")
    n_q, n_k = weights.shape
    target_words = _check_tokens(target_words, n_q, "target_words", "rows (English words)")
    source_tokens = _check_tokens(source_tokens, n_k, "source_tokens", "columns (Chinese tokens)")
    align = _check_align(align, n_q, n_k)
    use_cjk_font()
    fig = Figure(figsize=(4.0 + 1.2 * n_k, 1.2 + 0.42 * n_q), layout="constrained")
    learned_ax, known_ax = fig.subplots(1, 2)
    draw_attention(learned_ax, weights, target_words, source_tokens, title=title or t("translation.learned", lang),
                   lang=lang, colorbar=False)  # fmt: skip
    known = np.zeros((n_q, n_k))
    known[np.flatnonzero(align >= 0), align[align >= 0]] = 1.0
    draw_attention(known_ax, known, target_words, source_tokens, title=t("translation.known", lang), lang=lang,
                   colorbar=False, cmap="Oranges", annotate=False)  # fmt: skip
    for ax in (learned_ax, known_ax):
        ax.set_xlabel(t("translation.source_axis", lang))
        ax.set_ylabel(t("translation.target_axis", lang))
    known_ax.set_ylabel("")
    for i, j in enumerate(align):
        if j >= 0:
            learned_ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec=KNOWN_EDGE, lw=2.2))
        else:
            known_ax.text(n_k / 2 - 0.5, i, t("translation.no_alignment", lang), ha="center", va="center",
                          fontsize=8, color=MUTED)  # fmt: skip
    largest = weights.argmax(axis=1)
    learned_ax.plot(largest + 0.32, np.arange(n_q) - 0.3, "o", color=LARGEST, markersize=4, linestyle="none")
    fig.text(0.5, 0.0, t("translation.marks", lang), ha="center", va="bottom", fontsize=SMALL)
    return fig


def plot_alignment_by_head(accuracy, baselines, *, lang=None):
    """accuracy [L, h] (share of aligned words whose largest weight is on the right token) as bars by layer and
    head, with the two guesses that read no weights (baselines: {"diagonal", "uniform"}) as lines."""
    accuracy = as_float_array(accuracy, "accuracy", min_ndim=2)
    if accuracy.ndim != 2 or ((accuracy < 0) | (accuracy > 1)).any():
        raise ValueError(f"accuracy must be a [layers, heads] array of shares in [0, 1], got {_describe(accuracy)}")
    if not isinstance(baselines, dict) or not {"diagonal", "uniform"} <= set(baselines):
        raise TypeError(f"baselines must be a dict with 'diagonal' and 'uniform', got {_describe(baselines)}")
    use_cjk_font()
    n_layers, n_heads = accuracy.shape
    fig = Figure(figsize=(1.6 + 0.75 * n_layers * n_heads, 3.4), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / n_heads
    colours = [PALETTE[kind][1] for kind in ("q", "k", "v", "out", "x", "score")]
    for h in range(n_heads):
        x = np.arange(n_layers) + (h - (n_heads - 1) / 2) * width
        bars = ax.bar(x, accuracy[:, h], width * 0.92, color=colours[h % len(colours)],
                      label=t("translation.head", lang, head=h + 1))  # fmt: skip
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    for key, style in (("diagonal", "--"), ("uniform", ":")):
        value = float(baselines[key])
        ax.axhline(value, color=MUTED, linestyle=style, linewidth=1.2, label=t(f"translation.{key}", lang, value=value))
    ax.set_xticks(range(n_layers), [t("translation.layer", lang, layer=i + 1) for i in range(n_layers)])
    ax.set(ylim=(0, 1.2), ylabel=t("translation.accuracy_axis", lang))
    ax.set_title(t("translation.by_head_title", lang), fontsize=FONT)
    ax.legend(fontsize=8, ncol=3, loc="upper left")
    return fig


def plot_dropout_seeds(runs, *, lang=None):
    """The stored table's runs -> three panels (test loss, test exact match, the test alignment accuracy of the head
    or averaged layer chosen on validation):
    each seed's run with attention dropout and without, joined by a line."""
    if isinstance(runs, (str, dict)) or not hasattr(runs, "__iter__"):
        raise TypeError(f"runs must be the table's list of runs, got {_describe(runs)}")
    runs = list(runs)
    needed = {"seed", "drop", "test_loss", "test_exact", "shown_head_test_alignment"}
    if not runs or not all(isinstance(r, dict) and needed <= set(r) for r in runs):
        raise ValueError(f"every run must be a dict with {sorted(needed)} (a row of load_translation_table()['runs'])")
    drops = sorted({r["drop"] for r in runs}, reverse=True)
    if len(drops) != 2:
        raise ValueError(f"runs must hold exactly two dropout rates, one run of each per seed; got {drops}")
    use_cjk_font()
    by = {(r["seed"], r["drop"]): r for r in runs}
    seeds = sorted({r["seed"] for r in runs if all((r["seed"], d) in by for d in drops)})
    values = {
        "translation.test_loss": lambda r: r["test_loss"],
        "translation.test_exact": lambda r: r["test_exact"],
        "translation.shown_alignment": lambda r: r["shown_head_test_alignment"],
    }
    fig = Figure(figsize=(11.0, 3.4), layout="constrained")
    fig.suptitle(t("translation.seeds_title", lang), fontsize=FONT + 1)
    for ax, (key, value) in zip(fig.subplots(1, 3), values.items(), strict=True):
        for seed in seeds:
            ax.plot([0, 1], [value(by[seed, d]) for d in drops], color=PALETTE["note"][1], linewidth=1, zorder=1)
        for x, d in enumerate(drops):
            ax.scatter([x] * len(seeds), [value(by[s, d]) for s in seeds], s=22, zorder=2,
                       color=PALETTE["q" if x == 0 else "k"][1])  # fmt: skip
        ax.set_xticks([0, 1], [t("translation.dropout", lang, drop=d) for d in drops])
        ax.set_xlim(-0.4, 1.4)
        ax.set_title(t(key, lang), fontsize=FONT)
        if key == "translation.test_loss":
            ax.set_yscale("log")
    line = Line2D([], [], color=PALETTE["note"][1], label=t("translation.seed_line", lang))
    fig.legend(handles=[line], loc="outside lower center", frameon=False, fontsize=8)
    return fig
