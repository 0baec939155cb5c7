"""The drawing kit behind attn_lib.pictures.diagrams: a canvas measured in inches, boxes, matrices and arrows.

A `Canvas` is one matplotlib Figure whose single, invisible axes spans the whole figure with one
data unit per inch, so positions, box sizes and font sizes (points, 72 per inch) all mean what they
say at any dpi. Every diagram uses the same `PALETTE` (one colour per role: token vectors, queries,
keys, values, learned weights, operations, outputs) and the same font sizes, so the pictures of
different notebooks read as one set. A box label that would not fit its box is shrunk, never below
`MIN_FONT` points.
"""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle

from attn_lib._checks import describe_value
from attn_lib.pictures.heatmaps import use_cjk_font

#: Fill and edge colour for each role, the same in every diagram.
PALETTE = {
    "x": ("#e5f5e0", "#31a354"),  # token vectors, embeddings: green
    "q": ("#efedf5", "#756bb1"),  # queries: purple
    "k": ("#fee6ce", "#e6550d"),  # keys: orange
    "v": ("#deebf7", "#3182bd"),  # values: blue
    "w": ("#ffffff", "#525252"),  # learned weight matrices: white, dark edge
    "op": ("#f4f4f4", "#737373"),  # operations: grey
    "score": ("#fff7bc", "#d95f0e"),  # scores and weights: yellow
    "out": ("#fde0dd", "#c51b8a"),  # outputs: pink
    "mask": ("#d9d9d9", "#737373"),  # masked / not computed: grey
    "note": ("#ffffff", "#bdbdbd"),  # explanatory panels
}
TEXT = "#252525"  # labels
MUTED = "#636363"  # shapes and notes
ARROW = "#525252"
FONT = 11  # box labels
SMALL = 9  # shapes on arrows, notes
TITLE = 13
MIN_FONT = 8  # nothing smaller is drawn


class Canvas:
    """A figure of `width` x `height` inches with one data unit per inch; draw with the methods below."""

    def __init__(self, width, height, title=None):
        use_cjk_font()
        self.fig = Figure(figsize=(width, height))
        self.renderer = FigureCanvasAgg(self.fig).get_renderer()  # to measure text while placing it
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, width)
        self.ax.set_ylim(0, height)
        self.ax.set_axis_off()
        self.width, self.height = width, height
        if title:
            self.text(width / 2, height - 0.3, title, size=TITLE)

    # --- text -------------------------------------------------------------------------------------

    def text(self, x, y, string, size=FONT, color=TEXT, ha="center", va="center", **kwargs):
        """A label centred (by default) on (x, y) inches."""
        return self.ax.text(x, y, string, fontsize=size, color=color, ha=ha, va=va, **kwargs)

    def width_of(self, artist):
        """The drawn width of a text artist, in inches."""
        return artist.get_window_extent(self.renderer).width / self.fig.dpi

    def fit(self, artist, max_width):
        """Shrink a text artist's font until it is at most `max_width` inches wide (not below MIN_FONT)."""
        while self.width_of(artist) > max_width and artist.get_fontsize() > MIN_FONT:
            artist.set_fontsize(max(MIN_FONT, artist.get_fontsize() - 0.5))
        return artist

    # --- shapes -----------------------------------------------------------------------------------

    def box(self, x, y, w, h, label="", kind="op", size=FONT, dashed=False, weight="normal", radius=0.08):
        """A rounded box of w x h inches centred on (x, y), coloured by its role, with a fitted label."""
        face, edge = PALETTE[kind]
        patch = FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle=f"round,pad=0,rounding_size={radius}",
            facecolor=face,
            edgecolor=edge,
            linewidth=1.4,
            linestyle=(0, (4, 2)) if dashed else "-",
        )
        self.ax.add_patch(patch)
        if label:
            self.fit(self.text(x, y, label, size=size, weight=weight), w - 0.12)
        return patch

    def circle(self, x, y, label="+", r=0.16, kind="op"):
        """A small round node (a sum ⊕, a product ×) centred on (x, y)."""
        face, edge = PALETTE[kind]
        self.ax.add_patch(Circle((x, y), r, facecolor=face, edgecolor=edge, linewidth=1.4))
        self.text(x, y, label, size=FONT + 1)

    def matrix(self, x, y, rows, cols, kind="x", cell=0.2):
        """A grid of rows x cols square cells in the role's colour, centred on (x, y): a matrix's shape made
        visible. Returns (left, bottom, right, top) in inches."""
        face, edge = PALETTE[kind]
        left, bottom = x - cols * cell / 2, y - rows * cell / 2
        for i in range(rows):
            for j in range(cols):
                self.ax.add_patch(
                    Rectangle((left + j * cell, bottom + i * cell), cell, cell, fc=face, ec=edge, linewidth=0.8)
                )
        self.ax.add_patch(Rectangle((left, bottom), cols * cell, rows * cell, fill=False, ec=edge, linewidth=1.6))
        return left, bottom, left + cols * cell, bottom + rows * cell

    def table(self, x, y, values, kind="score", cell=(0.46, 0.3), hidden=None, shade=None, hidden_text="−∞"):
        """A matrix with its numbers written in the cells, centred on (x, y); returns (left, bottom, right, top).

        `hidden` (bool, same shape) marks cells drawn grey and hatched with `hidden_text` (masked scores);
        `shade` (floats in 0..1) tints cells from white to the role's colour (weights, as in the heatmaps).
        """
        values = np.asarray(values, dtype=float)
        rows, cols = values.shape
        (cw, ch), (face, edge) = cell, PALETTE[kind]
        left, top = x - cols * cw / 2, y + rows * ch / 2
        for i in range(rows):
            for j in range(cols):
                is_hidden = hidden is not None and hidden[i][j]
                fill = PALETTE["mask"][0] if is_hidden else face if shade is None else _shade(shade[i][j], edge)
                self.ax.add_patch(
                    Rectangle(
                        (left + j * cw, top - (i + 1) * ch),
                        cw,
                        ch,
                        facecolor=fill,
                        edgecolor=PALETTE["mask"][1] if is_hidden else edge,
                        linewidth=0.8,
                        hatch="///" if is_hidden else None,
                    )
                )
                dark = shade is not None and not is_hidden and shade[i][j] > 0.6
                string = hidden_text if is_hidden else f"{values[i, j]:.2f}".replace("-", "−")
                self.text(
                    left + (j + 0.5) * cw,
                    top - (i + 0.5) * ch,
                    string,
                    size=MIN_FONT + 0.5,
                    color="white" if dark else TEXT,
                    bbox={"boxstyle": "square,pad=0.05", "facecolor": fill, "edgecolor": "none"} if is_hidden else None,
                )
        self.ax.add_patch(Rectangle((left, top - rows * ch), cols * cw, rows * ch, fill=False, ec=edge, lw=1.4))
        return left, top - rows * ch, left + cols * cw, top

    def arrow(self, start, end, label=None, color=ARROW, style="-|>", lw=1.4, curve=0.0, dashed=False, label_at=0.5):
        """An arrow from `start` to `end` (inches); `label` (e.g. a shape) sits on the line at `label_at`."""
        self.ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle=style,
                mutation_scale=14,
                color=color,
                linewidth=lw,
                linestyle=(0, (4, 2)) if dashed else "-",
                connectionstyle=f"arc3,rad={curve}",
                shrinkA=1,
                shrinkB=1,
            )
        )
        if label:
            (x0, y0), (x1, y1) = start, end
            x, y = x0 + (x1 - x0) * label_at, y0 + (y1 - y0) * label_at
            self.shape_label(x, y, label)

    def line(self, points, color=ARROW, lw=1.4, arrow_end=True, dashed=False):
        """A polyline through `points` (inches) with an arrow head at the end: a residual path, a bypass."""
        points = np.asarray(points, dtype=float)
        self.ax.plot(points[:-1, 0], points[:-1, 1], color=color, lw=lw, linestyle="--" if dashed else "-")
        self.arrow(tuple(points[-2]), tuple(points[-1]), color=color, lw=lw, style="-|>" if arrow_end else "-")

    def shape_label(self, x, y, string, ha="center"):
        """A small grey label (a shape such as [3, 4]) on a white background, so it can sit on a line."""
        return self.text(
            x,
            y,
            string,
            size=SMALL,
            color=MUTED,
            ha=ha,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
        )


def shape(*dims):
    """[3, 4] for shape(3, 4): how the diagrams write a shape."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def check_tokens(tokens, name="tokens"):
    """`tokens` as a list of at least one string, else a TypeError naming `name`."""
    if isinstance(tokens, str) or not hasattr(tokens, "__iter__"):
        raise TypeError(f"{name} must be a sequence of token strings, got {describe_value(tokens)}")
    tokens = list(tokens)
    if not tokens or not all(isinstance(token, str) for token in tokens):
        raise TypeError(f"{name} must be a non-empty sequence of strings, got {tokens!r}"[:160])
    return tokens


def _shade(value, edge):
    """A colour between white (0) and the role's edge colour (1)."""
    value = float(np.clip(value, 0.0, 1.0))
    return tuple(1.0 - value * (1.0 - c) for c in to_rgb(edge))
