"""Notebook 09's pictures: the encoder–decoder drawn by code, its three masks, learned alignments, the seeds table.

draw_encoder_decoder()                      the two stacks, the memory, and where Q, K, V come from
draw_translation_masks()                    encoder padding, decoder causal, cross-attention padding
plot_alignment(weights, english, chinese, align)   a head's cross-attention beside the known alignment
plot_alignment_by_head(accuracy, baselines) alignment accuracy of every decoder layer and head
plot_dropout_seeds(runs)                    each seed without and with attention dropout, paired
"""

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, PercentFormatter

from attn_lib._checks import as_float_array, check_positive_int, describe_value
from attn_lib.i18n import display_width, t
from attn_lib.pictures.heatmaps import (
    MASK_FACE,
    MASK_HATCH,
    check_labels,
    draw_attention,
    masked_legend_handle,
    use_cjk_font,
)
from attn_lib.pictures.kit import FONT, MUTED, PALETTE, SMALL, Canvas, check_tokens, shape

ARTICLE_SOURCE = ("我", "昨天", "在", "北京", "吃了", "烤鸭")
ARTICLE_TARGET = ("yesterday", "I", "ate", "roast", "duck", "in", "Beijing")
#: The masks' example: 猫 吃 鱼 in a batch with a six-token sentence, so it is padded to six.
MASK_BATCH, MASK_TARGET = (ARTICLE_SOURCE, ("猫", "吃", "鱼")), ("the", "cat", "eats", "fish")
PAD = "<pad>"
ALLOWED_FACE = PALETTE["x"][0]  # may attend: the light green of token vectors
KNOWN_EDGE, LARGEST = PALETTE["k"][1], PALETTE["out"][1]  # the known alignment's frame; the row's largest weight
BETTER, WORSE, SAME = "#1b9e77", "#d95f02", "#b0b0b0"  # a seed's line: dropout helped, hurt, changed nothing
#: The widest row of tokens each stack of the diagram holds (inches), and the most tokens a mask panel labels.
ENCODER_ROW, DECODER_ROW, MAX_MASK_TOKENS = 3.4, 5.2, 16


# --- the encoder–decoder ---------------------------------------------------------------------------------


def draw_encoder_decoder(source=ARTICLE_SOURCE, target=ARTICLE_TARGET, lang=None, *, n_layers=2):
    """The encoder–decoder: the encoder reads the source into a memory (one vector per source token); every
    decoder layer reads it through cross-attention (K and V from the memory, Q from the decoder) while the
    decoder, reading <bos> and the words so far, writes each next word (the output row is the input shifted)."""
    source, target = check_tokens(source, "source"), check_tokens(target, "target")
    check_positive_int(n_layers, "n_layers")
    c = Canvas(10.0, 6.0, t("translation.model_title", lang))
    inputs, outputs = ["<bos>", *target], [*target, "<eos>"]
    source_widths = _token_widths(c, [source])
    columns = _token_widths(c, [inputs, outputs])  # output t sits above input t: the word it writes
    for name, widths, room in (("source", source_widths, ENCODER_ROW), ("target", columns, DECODER_ROW)):
        if sum(widths) > room:
            raise ValueError(
                f"{name} is too long to draw: its tokens need {sum(widths):.1f} inches, the diagram's row holds"
                f" {room}; draw a shorter sentence"
            )
    ex, dx = 1.8, 7.2  # the two stacks' centres
    c.text(ex, 5.38, t("translation.encoder", lang), size=FONT, color=MUTED)
    c.text(dx, 5.38, t("translation.decoder", lang), size=FONT, color=MUTED)
    # the encoder, left: tokens -> embedding -> N x [self-attention (padding mask), feed-forward] -> memory
    _token_row(c, ex, 0.5, source, source_widths, "x")
    _stack(c, ex, 2.8, 3.3, [("translation.self_pad", "q", 1.95, 0.55), ("translation.ffn", "v", 2.75, 0.4)],
           n_layers, lang)  # fmt: skip
    memory_y = 4.45
    c.arrow((ex, 2.95), (ex, memory_y - 0.18), lw=1.0)
    memory_right = _token_row(c, ex, memory_y, source, source_widths, "k")
    c.text(ex, memory_y + 0.4, t("translation.memory", lang), size=SMALL + 1, color=PALETTE["k"][1])
    # the decoder, right: <bos> + the words so far -> N x [causal self-attention, cross-attention, feed-forward]
    _token_row(c, dx, 0.5, inputs, columns, "x")
    c.text(dx, 0.15, t("translation.inputs", lang), size=SMALL, color=MUTED)
    boxes = [("translation.self_causal", "q", 1.9, 0.5), ("translation.cross", "score", 2.75, 0.55),
             ("translation.ffn", "v", 3.55, 0.4)]  # fmt: skip
    _stack(c, dx, 3.4, 4.05, boxes, n_layers, lang)
    c.box(dx, 4.45, 3.4, 0.38, t("translation.output_layer", lang), kind="out", size=SMALL + 1)
    c.arrow((dx, 3.75), (dx, 4.25), lw=1.0)
    c.arrow((dx, 4.64), (dx, 4.82), lw=1.0)
    _token_row(c, dx, 5.0, outputs, columns, "out")
    # where cross-attention's inputs come from: K and V from the memory, Q from the decoder below it
    kv = PALETTE["k"][1]
    c.line([(memory_right + 0.05, memory_y), (4.4, memory_y), (4.4, 2.75), (dx - 1.72, 2.75)], color=kv, lw=2.0)
    c.shape_label(4.4, 3.6, t("translation.kv_from_memory", lang))
    c.text(dx + 0.1, 2.31, t("translation.q_from_decoder", lang), size=SMALL, color=PALETTE["q"][1], ha="left")
    # the residual stream and LayerNorm of notebook 07, said once for both stacks
    c.text(4.35, 2.1, t("translation.sublayer", lang), size=SMALL, color=MUTED)
    c.text(4.35, 1.82, r"$x + f(\mathrm{LN}(x))$", size=SMALL + 1, color=MUTED)
    return c.fig


def _token_widths(c, rows):
    """The width (inches) of each column of tokens: the widest of the rows' tokens in it, plus a margin."""
    widths = []
    for tokens in zip(*rows, strict=True):
        measured = []
        for token in tokens:
            artist = c.text(0, 0, token, size=SMALL)
            measured.append(c.width_of(artist))
            artist.remove()
        widths.append(max(0.34, max(measured) + 0.18))
    return widths


def _token_row(c, x_center, y, tokens, widths, kind):
    """Tokens side by side in small boxes of the role's colour, centred on x_center; returns the row's right end."""
    left = x_center - sum(widths) / 2
    for token, w in zip(tokens, widths, strict=True):
        c.box(left + w / 2, y, w - 0.03, 0.32, token, kind=kind, size=SMALL)
        left += w
    return left


def _stack(c, x, width, top, boxes, n_layers, lang):
    """Embedding + positions, then one layer's sublayers (key, role, centre y, height) in a dashed frame marked
    "x N layers", each box joined to the next by an arrow."""
    c.arrow((x, 0.68), (x, 0.9), lw=1.0)
    c.box(x, 1.1, width, 0.38, t("translation.embed", lang), kind="op", size=SMALL + 1)
    frame = width + 0.4
    c.ax.add_patch(Rectangle((x - frame / 2, 1.45), frame, top - 1.45, fill=False, ec=MUTED, lw=1.0, ls="--"))
    c.text(x + frame / 2 - 0.08, top - 0.15, t("translation.layers", lang, n=n_layers), size=SMALL, color=MUTED,
           ha="right")  # fmt: skip
    below = 1.29
    for key, kind, y, height in boxes:
        c.arrow((x, below), (x, y - height / 2), lw=1.0)
        c.box(x, y, width, height, t(key, lang), kind=kind, size=SMALL + 1)
        below = y + height / 2


# --- the three masks -------------------------------------------------------------------------------------


def draw_translation_masks(source_batch=MASK_BATCH, target=MASK_TARGET, lang=None):
    """The three masks of an encoder–decoder (True = may attend) for the last sentence of a padded batch:
    ① the encoder's padding mask [S, S] (the <pad> keys hidden from every row), ② the decoder's causal mask
    [T, T] over <bos> and the target, ③ cross-attention's padding mask [T, S] (<pad> keys hidden, no triangle)."""
    if isinstance(source_batch, str) or not hasattr(source_batch, "__iter__"):
        raise TypeError(f"source_batch must be a sequence of token sequences, got {describe_value(source_batch)}")
    batch = [check_tokens(s, "source_batch entry") for s in source_batch]
    if not batch:
        raise ValueError("source_batch must hold at least one sentence")
    target = check_tokens(target, "target")
    length = max(len(s) for s in batch)
    source = batch[-1] + [PAD] * (length - len(batch[-1]))  # the last sentence, padded to the batch
    inputs = ["<bos>", *target]
    for name, tokens in (("source_batch", source), ("target", inputs)):
        if len(tokens) > MAX_MASK_TOKENS:
            raise ValueError(f"{name} gives {len(tokens)} tokens; a mask panel labels at most {MAX_MASK_TOKENS}")
    use_cjk_font()
    real = np.array([token != PAD for token in source])  # [S]: the keys a query may read
    S, T = length, len(inputs)
    masks = (
        (np.broadcast_to(real, (S, S)), source, source, "translation.mask_encoder"),
        (np.tril(np.ones((T, T), dtype=bool)), inputs, inputs, "translation.mask_decoder"),
        (np.broadcast_to(real, (T, S)), inputs, source, "translation.mask_cross"),
    )
    # laid out by hand in inches: one cell size for the three panels, their tops in line, room for the labels
    rooms = [0.4 + 0.08 * max(map(display_width, rows)) for _, rows, _, _ in masks]  # the y labels' width
    cell = min(0.42, (9.4 - sum(rooms) - 0.3) / (2 * S + T))
    bottom = 0.75 + 0.06 * max(map(display_width, source + inputs))  # rotated x labels, "keys", the legend
    height = 1.05 + max(S, T) * cell + bottom
    fig = Figure(figsize=(10.0, height))
    fig.suptitle(t("translation.masks_title", lang), fontsize=FONT + 2, y=1 - 0.1 / height, va="top")
    left = (10.0 - sum(rooms) - (2 * S + T) * cell - 0.3) / 2
    for room, (allowed, rows, cols, key) in zip(rooms, masks, strict=True):
        n_q, n_k = allowed.shape
        left += room
        ax = fig.add_axes((left / 10, (height - 1.05 - n_q * cell) / height, n_k * cell / 10, n_q * cell / height))
        _draw_mask(ax, allowed, rows, cols, t(key, lang, shape=shape(n_q, n_k)), lang)
        left += n_k * cell + 0.15
    allowed_handle = Patch(
        facecolor=ALLOWED_FACE, edgecolor=MUTED, linewidth=0.5, label=t("translation.may_attend", lang)
    )
    fig.legend(handles=[allowed_handle, masked_legend_handle(lang)], loc="lower center", ncol=2, frameon=False)
    return fig


def _draw_mask(ax, allowed, rows, cols, title, lang):
    """A boolean mask as a grid: allowed cells light green, masked cells grey and hatched (as the heatmaps draw
    them), queries down the side, keys along the bottom; the panels share one cell size and line up at the top."""
    n_q, n_k = allowed.shape
    for (i, j), ok in np.ndenumerate(allowed):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=ALLOWED_FACE if ok else MASK_FACE,
                               edgecolor="white", linewidth=1.5))  # fmt: skip
        if not ok:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=MASK_HATCH, hatch="///", lw=0))
    ax.set(xlim=(-0.5, n_k - 0.5), ylim=(n_q - 0.5, -0.5))
    ax.set_xticks(range(n_k), cols, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n_q), rows)
    ax.tick_params(length=0)
    ax.set_xlabel(t("translation.keys", lang), fontsize=SMALL)
    ax.set_ylabel(t("translation.queries", lang), fontsize=SMALL)
    ax.set_title(title, fontsize=SMALL + 1)
    for spine in ax.spines.values():
        spine.set_visible(False)


# --- what cross-attention learned ------------------------------------------------------------------------


def _check_align(align, n_q, n_k):
    if isinstance(align, str) or not hasattr(align, "__len__"):
        raise TypeError(f"align must be a sequence of source positions (-1: none), got {describe_value(align)}")
    align = np.asarray(align)
    if align.shape != (n_q,) or align.dtype.kind not in "iu":
        raise ValueError(
            f"align must be {n_q} integer source positions, one per row of weights, got {describe_value(align)}"
        )
    if ((align < -1) | (align >= n_k)).any():
        raise ValueError(f"align's positions must lie in -1..{n_k - 1} (-1: no counterpart), got {align.tolist()}")
    return align.astype(int)


def plot_alignment(weights, target_words, source_tokens, align, *, title=None, lang=None):
    """weights [T, S] (English words being written x Chinese tokens) and align [T] (the source position each word
    translates, -1 for none) -> the learned weights, each row's known-alignment cell framed and its largest weight
    dotted, beside the known alignment as a 0/1 matrix; `title` (e.g. which head) goes above both."""
    weights = as_float_array(weights, "weights", min_ndim=2)
    if weights.ndim != 2:
        raise ValueError(f"weights must be one [T, S] matrix (a head, or heads averaged), got shape {weights.shape}")
    n_q, n_k = weights.shape
    target_words = check_labels(target_words, n_q, "target_words", "rows (English words)")
    source_tokens = check_labels(source_tokens, n_k, "source_tokens", "columns (Chinese tokens)")
    align = _check_align(align, n_q, n_k)
    use_cjk_font()
    cell = min(0.52, 3.6 / n_k)
    fig = Figure(figsize=(max(7.6, 2 * n_k * cell + 2.6), n_q * min(0.45, 4.5 / n_q) + 2.0), layout="constrained")
    learned_ax, known_ax = fig.subplots(1, 2, sharey=True)
    draw_attention(learned_ax, weights, target_words, source_tokens, title=t("translation.learned", lang),
                   lang=lang, colorbar=False)  # fmt: skip
    for text in learned_ax.texts:  # the weights, small enough for 0.0045 to fit its cell
        text.set_fontsize(min(text.get_fontsize(), SMALL))
    aligned = np.flatnonzero(align >= 0)
    for i in aligned:
        for ax in (learned_ax, known_ax):
            ax.add_patch(Rectangle((align[i] - 0.45, i - 0.45), 0.9, 0.9, fill=False, ec=KNOWN_EDGE, lw=2.2))
    largest = weights.argmax(axis=1)
    learned_ax.plot(largest + 0.3, np.arange(n_q) - 0.28, "o", color=LARGEST, markersize=4.5, linestyle="none")
    _draw_known(known_ax, align, n_k, source_tokens, lang)
    learned_ax.tick_params(which="minor", length=0)  # the known panel's grid, shared through sharey
    for ax in (learned_ax, known_ax):
        ax.set_xlabel(t("translation.source_axis", lang))
    learned_ax.set_ylabel(t("translation.target_axis", lang))
    for i, label in enumerate(learned_ax.get_yticklabels()):
        if align[i] < 0:
            label.set_color(MUTED)
    hits = int((largest[aligned] == align[aligned]).sum())
    handles = [
        Patch(fill=False, edgecolor=KNOWN_EDGE, linewidth=2, label=t("translation.known_mark", lang)),
        Line2D([], [], marker="o", color=LARGEST, linestyle="none", label=t("translation.largest_mark", lang)),
    ]
    agree = t("translation.agree", lang, hits=hits, total=len(aligned)) if len(aligned) else None
    legend = fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False, fontsize=SMALL, title=agree)
    legend.get_title().set_fontsize(SMALL)
    if title is not None:
        fig.suptitle(title, fontsize=FONT + 1)
    return fig


def _draw_known(ax, align, n_k, source_tokens, lang):
    """The known alignment as a 0/1 matrix: a 1 (orange) in the cell of the token each word translates, a grey
    band saying "no counterpart" across the row of a word that translates none."""
    n_q = len(align)
    known = np.zeros((n_q, n_k))
    rows = np.flatnonzero(align >= 0)
    known[rows, align[rows]] = 1.0
    ax.imshow(known, cmap=ListedColormap(["white", PALETTE["k"][0]]), vmin=0, vmax=1)
    for i, j in enumerate(align):
        if j < 0:
            ax.add_patch(Rectangle((-0.5, i - 0.5), n_k, 1, facecolor="#f0f0f0", edgecolor="none"))
            ax.text((n_k - 1) / 2, i, t("translation.no_alignment", lang), ha="center", va="center", fontsize=SMALL,
                    color=MUTED)  # fmt: skip
            continue
        for col in range(n_k):
            one = col == j
            ax.text(col, i, "1" if one else "0", ha="center", va="center", fontsize=SMALL + (1 if one else 0),
                    color=KNOWN_EDGE if one else "#b0b0b0")  # fmt: skip
    ax.set_xticks(range(n_k), source_tokens)
    ax.set_xticks(np.arange(-0.5, n_k), minor=True)
    ax.set_yticks(np.arange(-0.5, n_q), minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.8)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(labelleft=False, left=False)
    ax.set_title(t("translation.known", lang))


def plot_alignment_by_head(accuracy, baselines, *, averaged=None, lang=None):
    """accuracy [L, h] (share of aligned words whose largest weight is on the right token, per decoder layer and
    head) as bars grouped by layer, optionally `averaged` [L] (the accuracy of each layer's heads averaged) as a
    last, hatched bar per layer, with the two guesses that read no weights (baselines: {"diagonal", "uniform"},
    translation_decoding.baseline_alignments) as labelled lines."""
    accuracy = as_float_array(accuracy, "accuracy", min_ndim=2)
    if accuracy.ndim != 2 or ((accuracy < 0) | (accuracy > 1)).any():
        raise ValueError(
            f"accuracy must be a [layers, heads] array of shares in [0, 1], got {describe_value(accuracy)}"
        )
    n_layers, n_heads = accuracy.shape
    if averaged is not None:
        averaged = as_float_array(averaged, "averaged", min_ndim=1)
        if averaged.shape != (n_layers,) or ((averaged < 0) | (averaged > 1)).any():
            raise ValueError(
                f"averaged must be {n_layers} shares in [0, 1], one per layer, got {describe_value(averaged)}"
            )
    if not isinstance(baselines, dict) or not {"diagonal", "uniform"} <= set(baselines):
        raise TypeError(f"baselines must be a dict with 'diagonal' and 'uniform', got {describe_value(baselines)}")
    use_cjk_font()
    per_layer = n_heads + (averaged is not None)
    fig = Figure(figsize=(min(10.0, 3.6 + 0.5 * n_layers * (per_layer + 1)), 3.8), layout="constrained")
    ax = fig.subplots()
    ticks, labels = [], []
    for layer in range(n_layers):
        x0 = layer * (per_layer + 1)
        bars = ax.bar(x0 + np.arange(n_heads), accuracy[layer], 0.8, color=PALETTE["v"][1])
        ax.bar_label(bars, fmt="%.2f", fontsize=8, padding=2)
        ticks += list(x0 + np.arange(n_heads))
        labels += [str(h + 1) for h in range(n_heads)]
        if averaged is not None:
            bar = ax.bar([x0 + n_heads], [averaged[layer]], 0.8, color=PALETTE["v"][0], edgecolor=PALETTE["v"][1],
                         hatch="//", label=t("translation.averaged", lang) if layer == 0 else None)  # fmt: skip
            ax.bar_label(bar, fmt="%.2f", fontsize=8, padding=2)
            ticks.append(x0 + n_heads)
            labels.append(t("translation.averaged_tick", lang))
        ax.text((2 * x0 + per_layer - 1) / 2, 1.07, t("translation.layer", lang, layer=layer + 1), ha="center",
                va="center", fontsize=SMALL + 1)  # fmt: skip
    ax.set_xticks(ticks, labels, fontsize=SMALL)
    ax.tick_params(axis="x", length=0)
    for key, style in (("diagonal", "--"), ("uniform", ":")):
        value = float(baselines[key])
        ax.axhline(value, color=MUTED, linestyle=style, linewidth=1.3, label=t(f"translation.{key}", lang, value=value))
    ax.set(ylim=(0, 1.13), xlim=(-0.7, n_layers * (per_layer + 1) - 1.3), yticks=np.linspace(0, 1, 6))
    ax.set_ylabel(t("translation.accuracy_axis", lang))
    ax.set_xlabel(t("translation.head_axis", lang))
    ax.set_title(t("translation.by_head_title", lang), fontsize=FONT)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=SMALL, frameon=False)
    return fig


# --- ten seeds, without and with attention dropout -------------------------------------------------------


def plot_dropout_seeds(runs, *, lang=None):
    """The stored table's runs (load_translation_table()["runs"]) -> three panels, each seed's run without attention
    dropout (left) and with it (right) joined by a line coloured by which way it went: the test loss, the test
    sentences translated exactly, and the test alignment accuracy of the head (or layer average) chosen on
    validation (the table's shown_head_test_alignment, so no head is picked on the test sentences)."""
    if isinstance(runs, (str, dict)) or not hasattr(runs, "__iter__"):
        raise TypeError(f"runs must be the table's list of runs, got {describe_value(runs)}")
    runs = list(runs)
    needed = {"seed", "drop", "test_loss", "test_exact", "shown_head_test_alignment"}
    if not runs or not all(isinstance(r, dict) and needed <= set(r) for r in runs):
        raise ValueError(f"every run must be a dict with {sorted(needed)} (a row of load_translation_table()['runs'])")
    drops = sorted({r["drop"] for r in runs})
    if len(drops) != 2:
        raise ValueError(f"runs must hold exactly two dropout rates, one run of each per seed; got {drops}")
    by = {(r["seed"], r["drop"]): r for r in runs}
    seeds = sorted({r["seed"] for r in runs})
    unpaired = [s for s in seeds if not all((s, d) in by for d in drops)]
    if unpaired or len(by) != len(runs):
        raise ValueError(
            f"runs must hold one run per seed and dropout rate; seeds {unpaired} lack one, or one is twice"
        )
    use_cjk_font()
    panels = (  # key, field, whether higher is better
        ("translation.test_loss", "test_loss", False),
        ("translation.test_exact", "test_exact", True),
        ("translation.shown_alignment", "shown_head_test_alignment", True),
    )
    fig = Figure(figsize=(10.0, 4.2), layout="constrained")
    fig.suptitle(t("translation.seeds_title", lang, n=len(seeds)), fontsize=FONT + 1)
    offsets = (np.arange(len(seeds)) - (len(seeds) - 1) / 2) * min(0.03, 0.3 / len(seeds))  # ties side by side
    for ax, (key, field, higher) in zip(fig.subplots(1, 3), panels, strict=True):
        tally = {BETTER: 0, WORSE: 0, SAME: 0}
        for seed, dx in zip(seeds, offsets, strict=True):
            without, with_drop = (by[seed, d][field] for d in drops)
            change = with_drop - without if higher else without - with_drop
            colour = BETTER if change > 0 else WORSE if change < 0 else SAME
            tally[colour] += 1
            ax.plot([dx, 1 + dx], [without, with_drop], color=colour, linewidth=1.2, zorder=1)
            ax.plot([dx, 1 + dx], [without, with_drop], "o", color=colour, markersize=4, zorder=2)
        labels = [
            t("translation.no_dropout", lang) if d == 0 else t("translation.dropout", lang, drop=d) for d in drops
        ]
        ax.set_xticks([0, 1], labels)
        ax.set_xlim(-0.45, 1.45)
        ax.set_title(t(key, lang), fontsize=SMALL + 1)
        ax.set_xlabel(t("translation.tally", lang, better=tally[BETTER], worse=tally[WORSE], n=len(seeds)),
                      fontsize=SMALL)  # fmt: skip
        ax.spines[["top", "right"]].set_visible(False)
        if field == "test_loss":
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(_plain))
            ax.yaxis.set_minor_formatter(
                FuncFormatter(lambda v, _: _plain(v) if _leading_digit(v) in (2, 3, 5) else "")
            )
        elif field == "test_exact":
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
    handles = [Line2D([], [], color=colour, marker="o", markersize=4, label=t(f"translation.{name}", lang))
               for colour, name in ((BETTER, "better"), (WORSE, "worse"), (SAME, "same"))]  # fmt: skip
    fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False, fontsize=SMALL,
               title=t("translation.seed_line", lang), title_fontsize=SMALL)  # fmt: skip
    return fig


def _plain(value, _position=None):
    """A log axis's tick as a plain number (0.02, not 2 x 10^-2)."""
    return f"{value:g}"


def _leading_digit(value):
    return round(value / 10 ** np.floor(np.log10(value)))
