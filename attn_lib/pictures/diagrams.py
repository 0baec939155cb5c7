"""Box-and-arrow diagrams of notebooks 02-06, drawn by code (no image files), in en and zh.

One function per picture; each returns a matplotlib Figure (a notebook cell shows it), draws its
words from `attn_lib.i18n` (``lang=None`` follows `set_language`) and writes shapes on the arrows
with the sizes it is given, so a diagram always matches the numbers of the cell next to it:

    draw_three_steps()            02  relevance -> weights -> weighted sum, on notebook 02's numbers
    draw_qkv_projection()         03  X -> Q, K, V through W_Q, W_K, W_V
    draw_attention_pipeline()     04  Q Kᵀ -> scale -> mask -> softmax -> · V
    draw_causal_mask()            05  the causal mask as "who may see whom"
    draw_multi_head()             06  split -> attend per head -> concat -> W_O

The diagrams of notebooks 07-11 live in `attn_lib.pictures.model_diagrams`, those of 12 in
`attn_lib.pictures.modern_diagrams`; `attn_lib.pictures` re-exports them all. Colours, fonts and the
drawing primitives are shared (`attn_lib.pictures.kit`). Mathematical notation ($W_Q$, $QK^\\top$) is
the same in both languages and written here; every word comes from i18n.
"""

import numpy as np
from matplotlib.patches import Rectangle

from attn_lib._checks import check_heads_divide, check_positive_int
from attn_lib.core import causal_mask, softmax
from attn_lib.examples import CAT_TOKENS, cat_example
from attn_lib.i18n import t
from attn_lib.pictures.kit import FONT, MUTED, PALETTE, SMALL, TEXT, Canvas, check_tokens, shape

__all__ = [
    "draw_three_steps",
    "draw_qkv_projection",
    "draw_attention_pipeline",
    "draw_causal_mask",
    "draw_multi_head",
]

#: Notebook 02's example: the blank's query against four earlier tokens (scores q · k_j).
STEPS_TOKENS = ("昨天", "北京", "今天", "上海")
STEPS_SCORES = (-1.0, 1.0, 1.0, 3.0)

#: Colours of heads 1, 2, ... in the multi-head diagram.
HEAD_COLOURS = ("#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3", "#a6d854", "#ffd92f", "#e5c494", "#b3b3b3")


# --- 02: the three steps ----------------------------------------------------------------------------


def draw_three_steps(tokens=STEPS_TOKENS, scores=STEPS_SCORES, lang=None):
    """The idea of attention on real numbers: scores s_j = q · k_j -> weights softmax(s) -> Σ_j w_j v_j."""
    tokens, scores = check_tokens(tokens), np.asarray(scores, dtype=float)
    if scores.shape != (len(tokens),) or not np.isfinite(scores).all():
        raise ValueError(
            f"scores must be {len(tokens)} finite numbers, one per token, got {np.asarray(scores).tolist()}"
        )
    weights = softmax(scores)
    n = len(tokens)
    row_h = 0.5
    height = 2.2 + n * row_h
    c = Canvas(10.0, height, t("diagrams.steps_title", lang))
    rows = [height - 1.65 - i * row_h for i in range(n)]  # y of each token's row
    middle = (rows[0] + rows[-1]) / 2

    # the inputs: the query, and each earlier token's key and value
    c.box(0.95, height - 0.95, 1.3, 0.38, t("diagrams.query", lang), kind="q")
    for y, token in zip(rows, tokens, strict=True):
        c.text(0.62, y, token, size=FONT + 1, ha="right")
        c.box(0.95, y, 0.36, 0.32, "$k$", kind="k")
        c.box(1.38, y, 0.36, 0.32, "$v$", kind="v")

    panels = [(2.1, 4.2), (4.85, 6.95), (7.6, 9.9)]  # (left, right) of each step's panel
    heads = ("diagrams.step1", "diagrams.step2", "diagrams.step3")
    formulas = (r"$s_j = q \cdot k_j$", r"$w_j = e^{s_j} / \Sigma_l\, e^{s_l}$", r"$\Sigma_j\, w_j v_j$")
    for (left, right), head, formula in zip(panels, heads, formulas, strict=True):
        c.text((left + right) / 2, height - 0.85, t(head, lang), size=FONT + 1)
        c.text((left + right) / 2, height - 1.17, formula, size=FONT)
    c.arrow((1.65, height - 0.95), (panels[0][0] + 0.25, height - 0.95), color=PALETTE["q"][1])
    c.arrow((1.65, middle), (panels[0][0] - 0.05, middle))
    for (_, right), (left, _) in zip(panels[:-1], panels[1:], strict=True):
        c.arrow((right + 0.05, middle), (left - 0.1, middle))

    # step 1: scores can be negative: bars either side of a zero line
    left, right = panels[0]
    zero, unit = left + 0.85, 0.75 / max(1.0, np.abs(scores).max())
    c.ax.plot([zero, zero], [rows[-1] - 0.24, rows[0] + 0.24], color=MUTED, lw=0.8)
    for y, s in zip(rows, scores, strict=True):
        c.ax.add_patch(_bar(zero, y, s * unit, PALETTE["score"]))
        end = zero + s * unit + (0.08 if s >= 0 else -0.08)
        c.text(end, y, f"{s:+.3g}".replace("-", "−"), size=SMALL, ha="left" if s >= 0 else "right")

    # step 2: weights between 0 and 1 that add up to 1
    left, right = panels[1]
    for y, w in zip(rows, weights, strict=True):
        c.ax.add_patch(_bar(left + 0.1, y, w * 1.45, PALETTE["score"]))
        c.text(left + 0.18 + w * 1.45, y, f"{w:.3f}", size=SMALL, ha="left")
    c.text((left + right) / 2, rows[-1] - 0.48, t("diagrams.sum_to_one", lang), size=SMALL, color=MUTED)

    # step 3: each value scaled by its weight, all added up into one output vector
    left, right = panels[2]
    plus_x = right - 0.35
    for y, w in zip(rows, weights, strict=True):
        c.ax.add_patch(_bar(left + 0.1, y, max(w * 0.9, 0.02), PALETTE["v"]))
        label = c.text(left + 0.18 + w * 0.9, y, f"{w:.2f}$\\,v$", size=SMALL, ha="left")
        start = left + 0.25 + w * 0.9 + c.width_of(label)
        c.arrow((start, y), (plus_x - 0.18, middle), lw=0.8, color=MUTED)
    c.circle(plus_x, middle, "+")
    c.box(plus_x, rows[-1] - 0.48, 0.8, 0.34, t("diagrams.output", lang), kind="out", size=SMALL + 1)
    c.arrow((plus_x, middle - 0.17), (plus_x, rows[-1] - 0.3))
    return c.fig


def _bar(x0, y, length, colours, thickness=0.26):
    face, edge = colours
    return Rectangle((min(x0, x0 + length), y - thickness / 2), abs(length), thickness, fc=face, ec=edge, lw=1.0)


# --- 03: X -> Q, K, V -----------------------------------------------------------------------------


def draw_qkv_projection(tokens=CAT_TOKENS, d_model=4, d_k=2, d_v=None, lang=None):
    """X [n, d_model] times W_Q, W_K, W_V gives Q, K [n, d_k] and V [n, d_v]: one row per token each."""
    d_v = d_k if d_v is None else d_v
    for name, size in (("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
        check_positive_int(size, name)
    tokens = check_tokens(tokens)
    n = len(tokens)
    cell = min(0.3, 2.2 / max(n, d_model))
    w_cell = min(cell, 3.0 / (3 * d_model + 3))  # three W matrices stacked must fit the height
    c = Canvas(10.0, 5.6, t("diagrams.qkv_title", lang))
    x_center, y_center = 1.25, 2.75
    left, bottom, right, top = c.matrix(x_center, y_center, n, d_model, "x", cell=cell)
    c.text(x_center, top + 0.2, "$X$", size=FONT + 2)
    c.text(x_center, bottom - 0.2, shape(n, d_model), size=SMALL, color=MUTED)
    for i, token in enumerate(tokens):
        c.text(left - 0.12, top - (i + 0.5) * cell, token, size=FONT + 1, ha="right")

    branches = [  # role, weight name, result name, columns, y, note key
        ("q", "$W_Q$", "$Q = XW_Q$", d_k, 4.3, "diagrams.q_note"),
        ("k", "$W_K$", "$K = XW_K$", d_k, 2.75, "diagrams.k_note"),
        ("v", "$W_V$", "$V = XW_V$", d_v, 1.2, "diagrams.v_note"),
    ]
    for role, w_name, result, cols, y, note in branches:
        c.arrow((right + 0.08, y_center), (2.95, y))
        c.circle(3.12, y, "×")
        w_left, w_bottom, w_right, w_top = c.matrix(3.75, y, d_model, cols, "w", cell=w_cell)
        c.text(w_right + 0.1, w_top - 0.1, w_name, size=FONT + 1, ha="left")
        c.text(3.75, w_bottom - 0.15, shape(d_model, cols), size=SMALL, color=MUTED)
        r_left, r_bottom, r_right, r_top = c.matrix(6.55, y, n, cols, role, cell=cell)
        c.arrow((w_right + 0.45, y), (r_left - 0.08, y), label=f"{shape(n, d_model)} × {shape(d_model, cols)}")
        c.text(6.55, r_top + 0.17, result, size=FONT)
        c.text(6.55, r_bottom - 0.17, shape(n, cols), size=SMALL, color=MUTED)
        c.text(r_right + 0.25, y, t(note, lang), size=SMALL + 1, ha="left", color=PALETTE[role][1])
    c.text(5.0, 0.22, t("diagrams.qkv_rows", lang), size=SMALL, color=MUTED)
    return c.fig


# --- 04: the scaled dot-product pipeline ----------------------------------------------------------


def draw_attention_pipeline(example=None, lang=None):
    """softmax(Q Kᵀ / √d_k + M) V in five steps, left to right, with each step's result computed.

    `example` is a `attn_lib.examples.CatExample` (default: the running 猫吃鱼 example, no mask; pass
    ``cat_example(causal=True)`` to see the mask at work). Its numbers fill the small matrices.
    """
    ex = cat_example() if example is None else example
    n_q, n_k, d_k, d_v = len(ex.q), len(ex.k), ex.q.shape[-1], ex.v.shape[-1]
    hidden = ~np.asarray(ex.mask, dtype=bool)
    masked_scores = np.where(hidden, -np.inf, ex.scaled_scores)
    c = Canvas(10.0, 4.3, t("diagrams.pipeline_title", lang))
    y_op, y_grid = 3.0, 1.6
    xs = [2.05, 3.65, 5.25, 6.85, 8.45]
    steps = [  # operation, result shown under it, note key, matrix options
        (r"$QK^\top$", ex.scores, "diagrams.pipe_scores", {}),
        (r"$\div\sqrt{d_k}$", ex.scaled_scores, "diagrams.pipe_scale", {}),
        (t("diagrams.mask", lang), masked_scores, "diagrams.pipe_mask", {"hidden": hidden}),
        (
            "softmax",
            ex.weights,
            "diagrams.pipe_softmax",
            {"kind": "v", "shade": ex.weights, "hidden": hidden, "hidden_text": "0"},
        ),
        (r"$\cdot\, V$", ex.output, "diagrams.pipe_values", {"kind": "out"}),
    ]
    for i, (x, (label, result, note, options)) in enumerate(zip(xs, steps, strict=True)):
        c.box(x, y_op, 1.25, 0.46, label, kind="mask" if i == 2 else "op", dashed=i == 2, size=FONT + 1)
        left, bottom, right, top = c.table(x, y_grid, np.where(np.isfinite(result), result, 0.0), **options)
        c.arrow((x, y_op - 0.25), (x, top + 0.26), lw=1.0)
        c.text(x, bottom - 0.17, shape(*result.shape), size=SMALL, color=MUTED)
        c.text(x, bottom - 0.62, t(note, lang, d_k=d_k, root=np.sqrt(d_k)), size=SMALL, linespacing=1.3)
        if i + 1 < len(xs):
            c.arrow((x + 0.65, y_op), (xs[i + 1] - 0.65, y_op))
        if i == 0:
            for j, token in enumerate(ex.tokens):
                c.text(left - 0.08, top - (j + 0.5) * 0.3, token, size=SMALL + 1, ha="right")
            for j, token in enumerate(ex.tokens):
                c.text(left + (j + 0.5) * 0.46, top + 0.13, token, size=SMALL)
    c.box(0.6, y_op + 0.33, 0.62, 0.38, "$Q$", kind="q")
    c.box(0.6, y_op - 0.33, 0.62, 0.38, "$K$", kind="k")
    c.text(0.6, y_op - 0.7, f"{shape(n_q, d_k)}, {shape(n_k, d_k)}", size=SMALL, color=MUTED)
    c.arrow((0.93, y_op + 0.33), (xs[0] - 0.65, y_op + 0.08))
    c.arrow((0.93, y_op - 0.33), (xs[0] - 0.65, y_op - 0.08))
    c.box(9.6, y_op, 0.55, 0.38, "$V$", kind="v")
    c.text(9.6, y_op - 0.37, shape(n_k, d_v), size=SMALL, color=MUTED)
    c.arrow((9.32, y_op), (xs[-1] + 0.65, y_op))
    return c.fig


# --- 05: the causal mask --------------------------------------------------------------------------


def draw_causal_mask(tokens=CAT_TOKENS, lang=None):
    """Who may see whom: query i reads keys 0..i; later keys are covered. Then the same rule as matrices."""
    tokens = check_tokens(tokens)
    n = len(tokens)
    allowed = causal_mask(n)
    row_h = min(0.55, 2.6 / n)
    key_w = min(0.62, 3.0 / n)
    height = 1.75 + n * row_h
    c = Canvas(10.0, height, t("diagrams.causal_title", lang))
    ys = [height - 1.35 - i * row_h for i in range(n)]
    keys_left = 1.65
    c.text(0.65, ys[0] + 0.45, t("diagrams.query_col", lang), size=SMALL + 1, color=PALETTE["q"][1])
    c.text(keys_left + n * key_w / 2, ys[0] + 0.45, t("diagrams.keys_col", lang), size=SMALL + 1, color=PALETTE["k"][1])
    for i, y in enumerate(ys):
        c.box(0.65, y, 0.6, row_h * 0.75, tokens[i], kind="q", size=FONT + 1)
        c.arrow((1.0, y), (keys_left - 0.05, y))
        for j in range(n):
            x = keys_left + (j + 0.5) * key_w
            if allowed[i, j]:
                c.box(x, y, key_w * 0.88, row_h * 0.75, tokens[j], kind="k", size=FONT + 1)
            else:
                patch = c.box(x, y, key_w * 0.88, row_h * 0.75, "", kind="mask", dashed=True)
                patch.set_hatch("///")
                c.text(x, y, tokens[j], size=FONT + 1, color="#8c8c8c", bbox=_label_bg(False))
    c.text(2.3, ys[-1] - 0.55, t("diagrams.causal_note", lang), size=SMALL, color=MUTED)

    # the same rule as two matrices: boolean (True = may attend) and additive (0 / -inf)
    cell_w, cell_h = min(0.62, 2.2 / n), row_h
    for x_center, title, values in (
        (5.75, t("diagrams.causal_bool", lang), ("True", "False")),
        (8.6, t("diagrams.causal_add", lang), ("0", "−∞")),
    ):
        left, top = x_center - n * cell_w / 2, ys[0] + row_h / 2
        for i in range(n):
            for j in range(n):
                x, y = left + (j + 0.5) * cell_w, ys[i]
                patch = c.box(x, y, cell_w, cell_h, "", kind="k" if allowed[i, j] else "mask", radius=0.0)
                patch.set_linewidth(0.8)
                if not allowed[i, j]:
                    patch.set_hatch("///")
                c.text(x, y, values[0 if allowed[i, j] else 1], size=SMALL, color=TEXT, bbox=_label_bg(allowed[i, j]))
            c.text(left - 0.08, ys[i], tokens[i], size=SMALL + 1, ha="right", color=PALETTE["q"][1])
            c.text(left + (i + 0.5) * cell_w, top + 0.14, tokens[i], size=SMALL + 1, color=PALETTE["k"][1])
        c.text(x_center, ys[-1] - row_h / 2 - 0.25, title, size=SMALL + 1)
    return c.fig


def _label_bg(visible):
    """A background for text on a hatched cell, so the hatching does not run through the letters."""
    return None if visible else {"boxstyle": "square,pad=0.08", "facecolor": PALETTE["mask"][0], "edgecolor": "none"}


# --- 06: multi-head attention ---------------------------------------------------------------------


def draw_multi_head(n=5, d_model=12, n_heads=3, lang=None):
    """X -> Q, K, V -> split into h heads of d_k columns -> attention per head -> concat -> × W_O."""
    for name, size in (("n", n), ("d_model", d_model), ("n_heads", n_heads)):
        check_positive_int(size, name)
    check_heads_divide(d_model, n_heads)
    d_k = d_model // n_heads
    colours = [HEAD_COLOURS[i % len(HEAD_COLOURS)] for i in range(n_heads)]
    cell = min(0.09, 1.1 / d_model)
    c = Canvas(10.0, 4.4, t("diagrams.multi_title", lang))
    y_mid = 2.2

    def by_head(x, y, rows_h, edge):
        """An [n, d_model] block whose column groups are coloured by head; returns its right edge."""
        left = x - d_model * cell / 2
        for i in range(n_heads):
            c.ax.add_patch(_block(left + i * d_k * cell, y - rows_h / 2, d_k * cell, rows_h, colours[i]))
        c.ax.add_patch(_block(left, y - rows_h / 2, d_model * cell, rows_h, "none", edge=edge, lw=1.6))
        return left + d_model * cell

    left, bottom, right, top = c.matrix(0.8, y_mid, n, d_model, "x", cell=cell)
    c.text(0.8, top + 0.18, "$X$", size=FONT + 1)
    c.text(0.8, bottom - 0.18, shape(n, d_model), size=SMALL, color=MUTED)
    c.arrow((right + 0.05, y_mid), (1.72, y_mid))
    c.box(2.2, y_mid, 0.92, 0.62, "$W_Q, W_K, W_V$", kind="w", size=SMALL)
    qkv_x, block_h = 3.75, n * cell
    for name, role, dy in (("$Q$", "q", 1), ("$K$", "k", 0), ("$V$", "v", -1)):
        y = y_mid + dy * (block_h + 0.14)
        c.arrow((2.68, y_mid), (qkv_x - d_model * cell / 2 - 0.28, y), lw=1.0)
        c.text(qkv_x - d_model * cell / 2 - 0.08, y, name, size=FONT, ha="right", color=PALETTE[role][1])
        qkv_right = by_head(qkv_x, y, block_h, PALETTE[role][1])
    c.text(qkv_x, y_mid - 1.5 * block_h - 0.35, f"3 × {shape(n, d_model)}", size=SMALL, color=MUTED)
    c.text(4.95, 3.7, t("diagrams.split", lang), size=SMALL + 1, color=MUTED)

    # one attention per head, on its own d_k columns
    spacing = min(1.0, 3.3 / n_heads)
    ys = [y_mid + (n_heads - 1) / 2 * spacing - i * spacing for i in range(n_heads)]
    head_x, concat_x = 5.75, 7.55
    for i, y in enumerate(ys):
        c.arrow((qkv_right + 0.08, y_mid), (head_x - 0.92, y), color=colours[i], lw=1.6)
        patch = c.box(head_x, y, 1.75, min(0.6, spacing * 0.78), "", kind="op")
        patch.set_edgecolor(colours[i])
        patch.set_linewidth(2.2)
        c.text(head_x, y + 0.11, t("diagrams.head_i", lang, i=i + 1), size=SMALL + 1)
        c.text(head_x, y - 0.13, f"{shape(n, d_k)} → {shape(n, d_k)}", size=SMALL, color=MUTED)
        end_y = y_mid + block_h * 0.7 * ((n_heads - 1) / 2 - i) / max(n_heads - 1, 1)
        c.arrow((head_x + 0.9, y), (concat_x - d_model * cell / 2 - 0.04, end_y), color=colours[i], lw=1.6)
    concat_right = by_head(concat_x, y_mid, block_h, "#525252")
    c.text(concat_x, 3.7, t("diagrams.concat", lang), size=SMALL + 1, color=MUTED)
    c.text(concat_x, y_mid - block_h / 2 - 0.2, shape(n, d_model), size=SMALL, color=MUTED)
    c.box(8.75, y_mid, 0.62, 0.42, "$W_O$", kind="w")
    c.arrow((concat_right + 0.05, y_mid), (8.42, y_mid))
    c.box(9.55, y_mid, 0.7, 0.42, t("diagrams.output", lang), kind="out", size=SMALL + 1)
    c.arrow((9.07, y_mid), (9.19, y_mid))
    c.text(9.55, y_mid - 0.42, shape(n, d_model), size=SMALL, color=MUTED)
    c.text(5.0, 0.3, t("diagrams.multi_note", lang, h=n_heads, d_k=d_k, d_model=d_model), size=SMALL, color=MUTED)
    return c.fig


def _block(x, y, w, h, colour, edge="#525252", lw=0.8):
    return Rectangle((x, y), w, h, facecolor=colour, edgecolor=edge, linewidth=lw)
