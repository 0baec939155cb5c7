"""The diagrams of notebooks 07, 08, 11 and 13: the transformer block, cross-attention, the tiny trained
model, the KV cache (with a prompt's prefill) and the tiles of the online softmax. Re-exported by
`attn_lib.pictures.diagrams`; the drawing kit, colours and fonts are those of `attn_lib.pictures.kit`.

Shapes are written with the sizes given (numbers), or with their symbols when none are given
(``draw_transformer_block()`` writes [n, d_model]).
"""

from matplotlib.patches import Rectangle

from attn_lib._checks import check_heads_divide, check_positive_int
from attn_lib.examples import CAT_TOKENS, SHANGHAI_TOKENS
from attn_lib.i18n import t
from attn_lib.pictures.kit import FONT, MUTED, PALETTE, SMALL, Canvas, check_tokens, shape

__all__ = [
    "draw_transformer_block",
    "draw_cross_attention",
    "draw_tiny_model",
    "draw_kv_cache",
    "draw_online_softmax_tiles",
]

#: The target sentence of the cross-attention diagram (a translation of 猫吃鱼).
CROSS_TARGET = ("the", "cat", "eats", "fish")

#: The online-softmax diagram draws at most this many queries and keys, and this many tiles a side.
MAX_TILE_TOKENS, MAX_TILES = 256, 32
#: Below this cell size (inches) the diagram leaves out the line between every two queries and keys.
MIN_GRID_CELL = 0.05


# --- 07: the transformer block ------------------------------------------------------------------------


def draw_transformer_block(n="n", d_model="d_model", d_ff=None, n_heads=None, lang=None):
    """One pre-norm block as a residual stream: x' = x + MHA(LN(x)), y = x' + FFN(LN(x')), with shapes."""
    if d_ff is None:
        d_ff = 4 * d_model if isinstance(d_model, int) else "4·d_model"
    mha = t("diagrams.mha", lang) if n_heads is None else t("diagrams.mha_h", lang, h=n_heads)
    c = Canvas(10.0, 4.0, t("diagrams.block_title", lang))
    y_line, y_branch = 1.5, 2.75
    c.text(0.3, y_line, "$x$", size=FONT + 3)
    c.line([(0.5, y_line), (9.35, y_line)], lw=2.2)
    c.text(9.55, y_line, "$y$", size=FONT + 3)
    sublayers = [  # branch start, sublayer label, colour, where it is added back, name after the sum
        (1.6, mha + "\n(MHA)", "q", 4.6, "$x'$"),
        (5.8, t("diagrams.ffn", lang, d_ff=d_ff) + "\n(FFN)", "v", 8.9, "$y$"),
    ]
    c.shape_label(1.05, y_line, shape(n, d_model))
    c.shape_label(5.28, y_line, shape(n, d_model))
    for start, label, kind, plus_x, name in sublayers:
        norm_x, layer_x = start + 0.68, start + 2.05
        c.line([(start, y_line), (start, y_branch), (norm_x - 0.5, y_branch)])
        c.box(norm_x, y_branch, 0.95, 0.58, t("diagrams.layer_norm", lang) + "\n(LN)", kind="op", size=SMALL + 1)
        c.arrow((norm_x + 0.48, y_branch), (layer_x - 0.78, y_branch))
        c.box(layer_x, y_branch, 1.55, 0.8, label, kind=kind, size=SMALL + 1)
        c.line([(layer_x + 0.78, y_branch), (plus_x, y_branch), (plus_x, y_line + 0.18)])
        c.circle(plus_x, y_line, "+")
        if name == "$x'$":
            c.text(plus_x + 0.4, y_line + 0.25, name, size=FONT + 1)
    c.text(3.0, 3.38, t("diagrams.block_reads", lang), size=SMALL, color=MUTED)
    c.text(3.3, 1.0, t("diagrams.residual", lang), size=SMALL, color=MUTED)
    c.text(
        5.0, 0.4, r"$x' = x + \mathrm{MHA}(\mathrm{LN}(x)),\qquad y = x' + \mathrm{FFN}(\mathrm{LN}(x'))$", size=FONT
    )
    return c.fig


def draw_cross_attention(source=CAT_TOKENS, target=CROSS_TARGET, lang=None):
    """Self-attention (Q, K, V from one sequence) next to cross-attention (Q from the decoder, K and V
    from the encoder), each with the shape of its weight matrix."""
    source, target = check_tokens(source, "source"), check_tokens(target, "target")
    c = Canvas(10.0, 4.7, t("diagrams.cross_title", lang))
    y_tokens, y_qkv, y_grid = 3.15, 2.35, 1.15

    # left: self-attention within one sentence
    c.text(2.2, 3.95, t("diagrams.self_attention", lang), size=FONT, linespacing=1.4)
    _token_row(c, 2.2, y_tokens, target)
    for x, name, role in ((1.4, "$Q$", "q"), (2.2, "$K$", "k"), (3.0, "$V$", "v")):
        c.arrow((2.2, y_tokens - 0.2), (x, y_qkv + 0.2), lw=1.0)
        c.box(x, y_qkv, 0.55, 0.36, name, kind=role)
    top = _weights_grid(c, 2.2, y_grid, target, target)
    c.text(2.2, 0.3, t("diagrams.self_caption", lang), size=SMALL, color=MUTED)
    for x in (1.4, 2.2):
        c.arrow((x, y_qkv - 0.2), (2.2 + (x - 2.2) * 0.3, top + 0.3), lw=1.0)

    # right: cross-attention; the decoder asks (queries), the encoder answers (keys and values)
    c.ax.plot([4.45, 4.45], [0.3, 4.25], color=PALETTE["note"][1], lw=1.0)
    c.text(7.3, 3.95, t("diagrams.cross_attention", lang), size=FONT, linespacing=1.4)
    c.text(5.75, y_tokens + 0.32, t("diagrams.encoder", lang), size=SMALL, color=MUTED)
    c.text(8.55, y_tokens + 0.33, t("diagrams.decoder", lang), size=SMALL, color=MUTED)
    _token_row(c, 5.75, y_tokens, source)
    _token_row(c, 8.55, y_tokens, target)
    for x, name, role, origin in ((5.35, "$K$", "k", 5.75), (6.15, "$V$", "v", 5.75), (8.55, "$Q$", "q", 8.55)):
        c.arrow((origin, y_tokens - 0.2), (x, y_qkv + 0.2), lw=1.0)
        c.box(x, y_qkv, 0.55, 0.36, name, kind=role)
    top = _weights_grid(c, 7.3, y_grid, target, source)
    c.text(7.3, 0.3, t("diagrams.cross_caption", lang), size=SMALL, color=MUTED)
    for x in (5.35, 8.55):
        c.arrow((x, y_qkv - 0.2), (7.3 + (x - 7.3) * 0.25, top + 0.3), lw=1.0)
    return c.fig


def _token_row(c, x_center, y, tokens, width=0.58):
    """Tokens side by side in small boxes, centred on x_center."""
    left = x_center - len(tokens) * width / 2
    for i, token in enumerate(tokens):
        c.box(left + (i + 0.5) * width, y, width * 0.92, 0.34, token, kind="x", size=SMALL + 1)


def _weights_grid(c, x, y, rows, cols, cw=0.46, ch=0.24):
    """An empty [len(rows), len(cols)] weight matrix with its tokens (query rows, key columns) and its
    shape; returns the y of its top edge."""
    left, top = x - len(cols) * cw / 2, y + len(rows) * ch / 2
    face, edge = PALETTE["score"]
    for i in range(len(rows)):
        for j in range(len(cols)):
            c.ax.add_patch(Rectangle((left + j * cw, top - (i + 1) * ch), cw, ch, fc=face, ec=edge, lw=0.8))
    for i, token in enumerate(rows):
        c.text(left - 0.06, top - (i + 0.5) * ch, token, size=SMALL, ha="right", color=PALETTE["q"][1])
    for j, token in enumerate(cols):
        c.text(left + (j + 0.5) * cw, top + 0.13, token, size=SMALL, color=PALETTE["k"][1])
    c.text(left + len(cols) * cw + 0.1, y, shape(len(rows), len(cols)), size=SMALL, color=MUTED, ha="left")
    return top + 0.13


# --- 08: the tiny trained model ------------------------------------------------------------------------


def draw_tiny_model(
    tokens=SHANGHAI_TOKENS, d_model=16, n_heads=2, n_layers=2, vocab_size=50, answer="小笼包", lang=None
):
    """The model of notebook 08: token + position embeddings -> causal attention layers, each added to
    the residual stream -> the vector at the blank -> read-out -> the dish."""
    tokens = check_tokens(tokens)
    for name, size in (("d_model", d_model), ("n_heads", n_heads), ("n_layers", n_layers), ("vocab_size", vocab_size)):
        check_positive_int(size, name)
    check_heads_divide(d_model, n_heads)
    n = len(tokens)
    c = Canvas(10.0, 4.7, t("diagrams.tiny_title", lang))
    step = min(0.3, 3.3 / n)
    ys = [3.85 - i * step for i in range(n)]
    for i, (y, token) in enumerate(zip(ys, tokens, strict=True)):
        c.box(0.5, y, 0.7, step * 0.85, token, kind="out" if i == n - 1 else "x", size=SMALL)
        c.ax.plot([0.86, 1.0], [y, y], color=MUTED, lw=0.8)
    c.ax.plot([1.0, 1.0], [ys[-1], ys[0]], color=MUTED, lw=0.8)
    c.text(0.5, ys[-1] - 0.3, t("diagrams.blank", lang), size=SMALL, color=PALETTE["out"][1])
    y_line, y_embed = 1.45, (ys[0] + ys[-1]) / 2
    c.arrow((1.0, y_embed), (1.2, y_embed), lw=1.0)
    c.box(1.75, y_embed, 1.05, 1.0, t("diagrams.tiny_embed", lang), kind="x", size=SMALL)
    c.line([(1.75, y_embed - 0.5), (1.75, y_line), (6.66, y_line)], lw=2.2)
    c.shape_label(2.45, y_line, shape(n, d_model))
    width = 3.7 / n_layers
    for layer in range(n_layers):
        x0 = 2.95 + layer * width
        c.line([(x0, y_line), (x0, 2.5)])
        label = t("diagrams.tiny_layer", lang, layer=layer + 1, h=n_heads, d_k=d_model // n_heads)
        c.box(x0 + width / 2 - 0.05, 2.95, width - 0.3, 0.9, label, kind="q", size=SMALL)
        plus_x = x0 + width - 0.4
        c.line([(plus_x, 2.5), (plus_x, y_line + 0.18)])
        c.circle(plus_x, y_line, "+")
    c.box(7.35, y_line, 1.3, 0.5, t("diagrams.tiny_pick", lang), kind="op", size=SMALL)
    c.arrow((7.35, y_line + 0.26), (7.35, 2.55), label=shape(d_model))
    c.box(7.35, 2.95, 1.3, 0.8, "", kind="w")
    c.text(7.35, 3.13, t("diagrams.tiny_readout", lang), size=SMALL)
    c.text(7.35, 2.85, r"$W_{\mathrm{out}},\ b_{\mathrm{out}}$", size=SMALL + 1)
    c.text(7.35, 2.65, shape(d_model, vocab_size), size=SMALL - 0.5, color=MUTED)
    c.arrow((8.02, 2.95), (8.8, 2.95), label=shape(vocab_size))
    c.box(9.4, 2.95, 1.05, 0.5, "softmax", kind="op", size=SMALL + 1)
    c.arrow((9.4, 2.69), (9.4, 1.75))
    c.box(9.4, y_line, 1.05, 0.5, answer, kind="out", size=FONT + 1)
    c.text(5.0, 0.45, t("diagrams.tiny_note", lang), size=SMALL, color=MUTED)
    return c.fig


# --- 10: the KV cache and the tiles of the online softmax ------------------------------------------------


def draw_kv_cache(tokens=SHANGHAI_TOKENS[:5], prompt=None, lang=None):
    """Decoding step by step: each new token appends its key and value; its query attends over the cache.

    With `prompt` = p, the first p tokens are a prompt stored in one step (the prefill: p keys and values
    at once, causal among themselves), and each later row is one token the model wrote (notebook 13).
    """
    tokens = check_tokens(tokens)
    n = len(tokens)
    if prompt is not None and not 1 <= check_positive_int(prompt, "prompt") <= n:
        raise ValueError(f"prompt={prompt} must be between 1 and the {n} tokens drawn")
    first = 1 if prompt is None else prompt  # tokens stored by the first step
    rows = [(tokens[0] if first == 1 else t("diagrams.kv_prompt", lang, n=first), first)]
    rows += [(token, first + i + 1) for i, token in enumerate(tokens[first:])]  # (token fed, keys stored after)
    row_h = min(0.68, 3.4 / len(rows))
    cell = min(0.5, 3.4 / n)
    height = 1.45 + len(rows) * row_h
    c = Canvas(10.0, height, t("diagrams.kv_title", lang))
    left, top = 2.55, height - 1.1
    c.text(left + n * cell / 2, top + 0.42, t("diagrams.kv_cache", lang, n=n), size=SMALL + 1, color=MUTED)
    for step, (token, stored) in enumerate(rows):
        y = top - step * row_h
        new = range(stored - (first if step == 0 else 1), stored)  # the cells this step stores
        c.text(0.25, y, t("diagrams.kv_step", lang, t=step + 1), size=SMALL + 1, ha="left")
        written = prompt is not None and step > 0
        c.box(1.35, y, 0.62 if step or first == 1 else 0.8, 0.36, token, kind="out" if written else "x", size=SMALL + 1)
        c.box(1.95, y, 0.4, 0.36, "$q$", kind="q", size=SMALL + 1)
        c.arrow((2.17, y), (left - 0.05, y), lw=1.0, color=PALETTE["q"][1])
        for j in range(n):
            x = left + (j + 0.5) * cell
            for dy, kind in ((0.13, "k"), (-0.13, "v")):
                patch = c.box(
                    x,
                    y + dy,
                    cell * 0.88,
                    0.22,
                    "",
                    kind=kind if j < stored else "mask",
                    radius=0.02,
                    dashed=j >= stored,
                )
                if j >= stored:
                    patch.set_facecolor("white")
                elif j in new:
                    patch.set_linewidth(2.6)
        if step == 0:
            c.text(left + n * cell + 0.12, y + 0.13, "$K$", size=SMALL + 1, ha="left", color=PALETTE["k"][1])
            c.text(left + n * cell + 0.12, y - 0.13, "$V$", size=SMALL + 1, ha="left", color=PALETTE["v"][1])
        scores = stored * stored if step == 0 else stored  # the prefill: p queries against p keys
        c.text(
            left + n * cell + 0.55,
            y,
            t("diagrams.kv_row", lang, k=scores, full=stored**2),
            size=SMALL + 1,
            ha="left",
        )
    c.text(5.0, 0.3, t("diagrams.kv_note" if prompt is None else "diagrams.kv_note_prompt", lang), size=SMALL,
           color=MUTED)  # fmt: skip
    return c.fig


def draw_online_softmax_tiles(n_q=12, n_k=12, block_q=4, block_k=4, causal=True, query_block=1, lang=None):
    """The score matrix cut into block_q x block_k tiles: one block of queries walks its key tiles left to
    right, keeping a running max m, sum ℓ and output o per row; with `causal`, tiles wholly in the future
    are skipped and the future inside a tile on the diagonal is masked. At most 256 queries and keys and
    32 x 32 tiles (a ValueError beyond)."""
    for name, size in (("n_q", n_q), ("n_k", n_k), ("block_q", block_q), ("block_k", block_k)):
        check_positive_int(size, name)
        if name in ("n_q", "n_k") and size > MAX_TILE_TOKENS:
            raise ValueError(
                f"{name}={size} is more than the diagram's limit of {MAX_TILE_TOKENS} (its 3.1 inches then give a"
                " cell about one pixel); draw fewer tokens: the tiles work the same way"
            )
    rows, cols = -(-n_q // block_q), -(-n_k // block_k)
    if max(rows, cols) > MAX_TILES:
        raise ValueError(
            f"{n_q} queries in blocks of {block_q} and {n_k} keys in blocks of {block_k} make {rows} x {cols} tiles,"
            f" more than the diagram's limit of {MAX_TILES} a side; take larger blocks"
        )
    if not 0 <= query_block < rows:
        raise ValueError(
            f"query_block must lie in 0..{rows - 1} ({n_q} queries in blocks of {block_q}), got {query_block}"
        )
    cell = min(0.26, 3.1 / max(n_q, n_k))
    c = Canvas(10.0, 4.7, t("diagrams.tiles_title", lang))
    left, top = 1.0, 3.85
    offset = n_k - n_q  # query i sits at position offset + i, as in tiled_attention
    order = 0
    for bi in range(rows):
        for bj in range(cols):
            i0, i1 = bi * block_q, min((bi + 1) * block_q, n_q)
            j0, j1 = bj * block_k, min((bj + 1) * block_k, n_k)
            skipped = causal and j0 > offset + i1 - 1
            active = bi == query_block and not skipped
            x, y, w, h = left + j0 * cell, top - i1 * cell, (j1 - j0) * cell, (i1 - i0) * cell
            patch = c.box(
                x + w / 2, y + h / 2, w, h, "", kind="mask" if skipped else "score" if active else "note", radius=0.0
            )
            patch.set_linewidth(2.0 if active else 1.0)
            patch.set_zorder(1.8 if active else 1.2)
            if skipped:
                patch.set_hatch("///")
            elif causal:  # a tile on the diagonal: the future inside it is masked, element by element
                for i in range(i0, i1):
                    first = max(j0, offset + i + 1)  # the first future key of query i in this tile
                    runs = [(j, j + 1) for j in range(first, j1)] if max(n_q, n_k) <= 24 else [(first, j1)]
                    for a, b in (run for run in runs if run[1] > run[0]):  # a long sentence: one strip per row
                        c.ax.add_patch(
                            Rectangle(
                                (left + a * cell, top - (i + 1) * cell),
                                (b - a) * cell,
                                cell,
                                hatch="///",
                                fc=PALETTE["mask"][0],
                                ec=PALETTE["mask"][1],
                                lw=0.0,
                                zorder=1.9,
                            )
                        )
            if active:
                order += 1
                c.text(
                    x + w / 2,
                    y + h / 2,
                    f"{order}",
                    size=FONT + 3,
                    color=PALETTE["score"][1],
                    bbox={"boxstyle": "circle,pad=0.15", "facecolor": "white", "edgecolor": "none"},
                )
    if cell >= MIN_GRID_CELL:  # thin lines: one row per query, one column per key (when they do not touch)
        for i in range(n_q + 1):
            c.ax.plot([left, left + n_k * cell], [top - i * cell] * 2, color="#cfcfcf", lw=0.4, zorder=1.5)
        for j in range(n_k + 1):
            c.ax.plot([left + j * cell] * 2, [top, top - n_q * cell], color="#cfcfcf", lw=0.4, zorder=1.5)
    c.text(
        left + n_k * cell / 2,
        top + 0.2,
        t("diagrams.tiles_keys", lang, n=n_k, b=block_k),
        size=SMALL + 1,
        color=PALETTE["k"][1],
    )
    c.text(
        left - 0.2,
        top - n_q * cell / 2,
        t("diagrams.tiles_queries", lang, n=n_q, b=block_q),
        size=SMALL + 1,
        color=PALETTE["q"][1],
        rotation=90,
    )
    if causal:
        c.text(
            left + n_k * cell / 2, top - n_q * cell - 0.25, t("diagrams.tiles_skipped", lang), size=SMALL, color=MUTED
        )
    y_state = top - (query_block + 0.5) * block_q * cell
    c.arrow((left + n_k * cell + 0.08, y_state), (left + n_k * cell + 0.45, y_state))
    c.box(left + n_k * cell + 0.85, y_state, 0.75, 0.42, r"$m, \ell, o$", kind="score")

    # the running state of each query row, and how a new tile updates it
    x0 = 5.55
    c.text(x0, 3.7, t("diagrams.tiles_state", lang), size=SMALL + 1, ha="left", linespacing=1.4)
    formulas = (
        r"$m' = \max(m,\ \max_j\, s_j)$",
        r"$\alpha = e^{\,m - m'}$",
        r"$\ell' = \alpha\,\ell + \Sigma_j\, e^{\,s_j - m'}$",
        r"$o' = \alpha\,o + \Sigma_j\, e^{\,s_j - m'}\, v_j$",
    )
    for i, formula in enumerate(formulas):
        c.text(x0 + 0.25, 3.05 - i * 0.42, formula, size=FONT, ha="left")
    c.text(x0, 1.15, t("diagrams.tiles_end", lang), size=SMALL + 1, ha="left")
    c.text(
        x0,
        0.55,
        t("diagrams.tiles_memory", lang, bq=block_q, bk=block_k),
        size=SMALL,
        ha="left",
        color=MUTED,
        linespacing=1.4,
    )
    return c.fig
