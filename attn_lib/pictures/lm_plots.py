"""Pictures of notebook 14's real language model (attn_lib.models.smollm2.model).

    plot_top_next_tokens(model, panels)          the top 10 next tokens after each prompt, bar charts side by side
    plot_q4_1_block(d, m, codes, weights)        one block of 32 weights on the 16 levels d * q + m of Q4_1
    plot_bytes_and_tokens(text, pieces)          a text's characters, their UTF-8 bytes, and the tokens over them
    plot_head_maps(maps, tokens, titles)         a few heads' attention maps of a causal model, the future greyed
    plot_induction_scores(scores)                every head's induction score as a layers x heads grid

Each function takes arrays (and the model, for token texts) and returns a matplotlib Figure; the words come
from attn_lib.i18n. Layers and heads are shown counted from 1, as in notebook 10.
"""

import numpy as np
from matplotlib.figure import Figure

from attn_lib._checks import as_float_array, check_positive_int, describe_value
from attn_lib.i18n import t
from attn_lib.pictures.generation_plots import plot_next_token
from attn_lib.pictures.heatmaps import draw_attention, use_cjk_font

BYTE_COLOURS = ("#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb", "#fcbba1", "#d9d9d9")


def token_label(text):
    """A token's text for a label: quoted, so a leading space shows (' Paris'); newlines written as \\n."""
    return "'" + text.replace("\n", "\\n") + "'"


def plot_top_next_tokens(model, panels, *, top=10, title=None, lang=None):
    """model, [(panel title, probabilities [V])] -> a Figure: each panel's `top` next tokens and the rest in grey."""
    if isinstance(panels, (str, dict)) or not hasattr(panels, "__len__") or not len(panels):
        raise TypeError(f"panels must be a non-empty list of (title, probabilities), got {describe_value(panels)}")
    top = check_positive_int(top, "top")
    shown = []
    for name, probs in panels:
        probs = as_float_array(probs, "probabilities", min_ndim=1)
        if probs.shape != (model.config.vocab_size,):
            raise ValueError(f"probabilities must be [V] = ({model.config.vocab_size},), got shape {probs.shape}")
        best = np.argsort(-probs, kind="stable")[:top]
        labels = [""] * len(probs)  # only the bars drawn need a label
        for i in best:
            labels[i] = token_label(model.tokens([i])[0])
        shown.append((name, labels, probs))
    fig = plot_next_token(shown, top=top, title=title, lang=lang)
    fig.set_size_inches(0.6 + 5.2 * len(panels), 3.6)
    return fig


def plot_q4_1_block(d, m, codes, weights, *, lang=None):
    """One Q4_1 block -> a Figure: its 32 weights as dots on the 16 levels m, m + d, ..., m + 15 d they may take."""
    use_cjk_font()
    codes, weights = np.asarray(codes), as_float_array(weights, "weights", min_ndim=1)
    if codes.shape != (32,) or weights.shape != (32,):
        raise ValueError(f"a Q4_1 block has 32 codes and 32 weights, got {codes.shape} and {weights.shape}")
    fig = Figure(figsize=(8.0, 3.2), layout="constrained")
    ax = fig.subplots()
    levels = m + d * np.arange(16)
    for level in levels:
        ax.axhline(level, color="#d9d9d9", lw=0.7, zorder=0)
    ax.scatter(np.arange(32), weights, s=28, color="#1f77b4", zorder=2)
    for j in (0, 31):
        ax.annotate(f"q = {codes[j]}", (j, weights[j]), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel(t("lm.block_position", lang))
    ax.set_ylabel(t("lm.block_weight", lang))
    ax.set_title(t("lm.block_title", lang, d=f"{d:.3g}", m=f"{m:.3g}"), fontsize=10)
    ax.set_xlim(-1, 32)
    return fig


def plot_bytes_and_tokens(text, pieces, *, lang=None):
    """text, the bytes of each of its tokens -> a Figure: characters (top), UTF-8 bytes, tokens (bottom).

    Each character's bytes share its colour; a token is a box over the bytes it holds, so a token that ends
    inside a character shows it.
    """
    use_cjk_font()
    pieces = [bytes(p) for p in pieces]
    data = text.encode("utf-8")
    if b"".join(pieces) != data:
        raise ValueError("the tokens' bytes, joined, must be the text's UTF-8 bytes")
    owner = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")]  # [bytes]: the character of each byte
    n = len(data)
    fig = Figure(figsize=(max(6.0, 0.42 * n + 1.6), 2.6), layout="constrained")
    ax = fig.subplots()
    ax.set_xlim(-1.8, n)
    ax.set_ylim(-0.2, 3.1)
    ax.axis("off")
    for row, key in ((2.5, "lm.row_characters"), (1.5, "lm.row_bytes"), (0.5, "lm.row_tokens")):
        ax.text(-0.6, row, t(key, lang), ha="right", va="center", fontsize=9)
    start = 0
    for i, ch in enumerate(text):
        size = len(ch.encode("utf-8"))
        ax.add_patch(_box(start, 2.1, size, BYTE_COLOURS[i % len(BYTE_COLOURS)]))
        ax.text(start + size / 2 - 0.5, 2.5, ch, ha="center", va="center", fontsize=13)
        start += size
    for j, byte in enumerate(data):
        ax.add_patch(_box(j, 1.1, 1, BYTE_COLOURS[owner[j] % len(BYTE_COLOURS)]))
        ax.text(j, 1.5, f"{byte:02x}", ha="center", va="center", fontsize=7, family="monospace")
    start = 0
    for k, piece in enumerate(pieces):
        ax.add_patch(_box(start, 0.1, len(piece), "white", edge="#525252"))
        ax.text(start + len(piece) / 2 - 0.5, 0.5, str(k + 1), ha="center", va="center", fontsize=8)
        start += len(piece)
    ax.set_title(t("lm.bytes_title", lang, chars=len(text), bytes=n, tokens=len(pieces)), fontsize=10)
    return fig


def _box(x, y, width, face, edge="white"):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.48, y), width - 0.04, 0.8, facecolor=face, edgecolor=edge, lw=1.0)


def plot_head_maps(maps, tokens, titles, *, lang=None):
    """[k][n, n] weights of a causal model, n tokens, k titles -> a Figure: the k maps side by side.

    The future (above the diagonal, weight 0 by the causal mask) is drawn grey and hatched.
    """
    use_cjk_font()
    if len(maps) != len(titles) or not 1 <= len(maps) <= 6:
        raise ValueError(f"give 1 to 6 maps and one title each, got {len(maps)} maps and {len(titles)} titles")
    n = len(tokens)
    causal = np.tril(np.ones((n, n), dtype=bool))
    fig = Figure(figsize=(3.3 * len(maps) + 0.6, 3.9), layout="constrained")
    axes = fig.subplots(1, len(maps), squeeze=False)[0]
    for k, (ax, weights, name) in enumerate(zip(axes, maps, titles, strict=True)):
        draw_attention(ax, weights, tokens, tokens, title=name, lang=lang, annotate=False, colorbar=False,
                       mask=causal, legend=k == 0, max_labels=16)  # fmt: skip
        ax.tick_params(labelsize=7)
        ax.title.set_fontsize(9)
    return fig


def plot_induction_scores(scores, *, top=5, lang=None):
    """[L, h] induction scores -> a Figure: the grid (layers down, heads across, from 1), the `top` best marked."""
    use_cjk_font()
    scores = as_float_array(scores, "scores", min_ndim=2)
    if scores.ndim != 2:
        raise ValueError(f"scores must be [L, h] (layers, heads), got shape {scores.shape}")
    n_layers, n_heads = scores.shape
    fig = Figure(figsize=(4.6, 0.22 * n_layers + 1.4), layout="constrained")
    ax = fig.subplots()
    image = ax.imshow(scores, vmin=0, vmax=1, cmap="Purples", aspect="auto", interpolation="nearest")
    for flat in np.argsort(scores, axis=None)[::-1][: check_positive_int(top, "top")]:
        layer, head = np.unravel_index(flat, scores.shape)
        colour = "white" if scores[layer, head] > 0.5 else "black"
        ax.text(head, layer, f"{scores[layer, head]:.2f}", ha="center", va="center", fontsize=7, color=colour)
    ax.set_xticks(range(n_heads), [str(h + 1) for h in range(n_heads)], fontsize=8)
    ax.set_yticks(range(0, n_layers, 2), [str(layer + 1) for layer in range(0, n_layers, 2)], fontsize=7)
    ax.set_xlabel(t("lm.head", lang))
    ax.set_ylabel(t("lm.layer", lang))
    ax.set_title(t("lm.induction_title", lang), fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.6, label=t("lm.induction_score", lang))
    return fig
