"""The pictures the widgets redraw many times a second: a frame drawn once, only the cells repainted.

`FastFigure` wraps a matplotlib Figure of heatmaps: its frame (axes, ticks, labels, colour bar) is
drawn once, later frames repaint only the heatmap cells, their numbers and the titles (matplotlib
"blitting"), and each frame is returned as PNG bytes for an `ipywidgets.Image`. Numbers are written by
`attn_lib.pictures.heatmaps.format_weight` (0.0026 stays 0.0026); masked cells, drawn grey and hatched with "—" when
the frame is made, keep their look in every frame. `heads_figure` draws
h heatmaps as one mosaic image, which matplotlib lays out far faster than h separate axes; its size is
bounded (MAX_MOSAIC_INCHES), so a long sentence costs a few megabytes, not gigabytes. `still_png` adds
a caption to a widget's picture for places where the live widget cannot run.
"""

import io
import re

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image

from attn_lib import examples
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import LEGEND_PAD, MASK_TEXT, format_weight, plot_attention, use_cjk_font

#: Dots per inch of the widgets' pictures: small enough to redraw in a few tens of milliseconds.
DPI = 80
#: The 猫吃鱼 heatmap's width in inches: 6.0 x DPI = 480 pixels, as wide as the course's other widget pictures.
CAT_WIDTH = 6.0
#: The notebooks' own figures are drawn at this many dots per inch; a widget's text should look as large.
NOTEBOOK_DPI = 100
#: The smallest text of the heads grid, in points at NOTEBOOK_DPI: 10 pt at DPI draws as 8 pt would there.
MIN_TEXT_PT = 8
#: The size of the heads grid's labels (points at DPI), so that they read like MIN_TEXT_PT in the notebook.
LABEL_PT = MIN_TEXT_PT * NOTEBOOK_DPI / DPI
#: The heads mosaic stays within this many inches on each side (760 pixels at DPI), whatever h and n, so that
#: with its labels the picture is at most about 1000 pixels wide and a notebook shows it unshrunk.
MAX_MOSAIC_INCHES = 9.5
#: Token labels closer than this (inches) would overlap: a long sentence labels every k-th token.
LABEL_SPACING = 1.2 * LABEL_PT / 72


def canvas_png(canvas):
    """The canvas' current pixels as PNG bytes (fast zlib level: these images are redrawn often)."""
    width, height = canvas.get_width_height(physical=True)
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


class FastFigure:
    """A Figure of heatmaps whose frame is drawn once; `render` repaints only the cells and the titles.

    `fig` comes from attn_lib.pictures.heatmaps (or is built with `draw_attention`); its heatmap axes are
    those holding an image, in order. `titles` are Text artists whose strings change between frames.
    """

    def __init__(self, fig, titles=(), dpi=DPI):
        fig.set_dpi(dpi)
        self.fig = fig
        self.canvas = FigureCanvasAgg(fig)
        heatmap_axes = [ax for ax in fig.axes if ax.images]
        self.images = [ax.images[0] for ax in heatmap_axes]
        # masked cells (False = may not attend), as the frame was drawn: they stay grey in every frame
        self.masks = [np.ma.getmaskarray(image.get_array()) for image in self.images]
        # cell annotations: texts drawn at data position (j, i) show matrix[i, j]; gid "label" marks other texts,
        # and a masked cell's "—" is not a number: it is drawn again on top of each frame, as are the hatches
        in_cells = [
            [text for text in ax.texts if text.get_gid() != "label" and text.get_transform() == ax.transData]
            for ax in heatmap_axes
        ]
        self.cells = [
            [(text, (round(text.get_position()[1]), round(text.get_position()[0]))) for text in texts]
            for texts in ([text for text in texts if text.get_text() != MASK_TEXT] for texts in in_cells)
        ]
        self.overlays = [
            [*ax.patches, *(text for text in texts if text.get_text() == MASK_TEXT)]
            for ax, texts in zip(heatmap_axes, in_cells, strict=True)
        ]
        self.titles = list(titles)
        self.n_heatmaps = len(self.images)  # how many heatmaps a reader sees (a mosaic image holds several)
        animated = [*self.images, *self.titles, *(text for cells in self.cells for text, _ in cells)]
        for artist in [*animated, *(artist for overlay in self.overlays for artist in overlay)]:
            artist.set_animated(True)  # left out of the frame, drawn by render()
        self.canvas.draw()  # lays out and draws the frame once
        fig.set_layout_engine("none")  # freeze the layout: later frames reuse it
        self.background = self.canvas.copy_from_bbox(fig.bbox)

    def render(self, matrices, titles=()):
        """Repaint heatmap i with matrices[i] and title j with titles[j]; return the PNG bytes."""
        self.canvas.restore_region(self.background)
        for image, mask, cells, overlay, matrix in zip(
            self.images, self.masks, self.cells, self.overlays, matrices, strict=True
        ):
            image.set_data(np.ma.masked_array(matrix, mask=mask) if mask.any() else matrix)
            self.fig.draw_artist(image)
            for artist in overlay:  # masked cells: hatching and "—" back on top of the new pixels
                self.fig.draw_artist(artist)
            if image.axes.axison:
                for spine in image.axes.spines.values():  # the frame goes back on top of the new pixels
                    self.fig.draw_artist(spine)
            draw_numbers(self.fig, cells, matrix)
        draw_titles(self.fig, self.titles, titles)
        return canvas_png(self.canvas)


def draw_numbers(fig, cells, matrix):
    """Write matrix[index] into each (text, index) of `cells` (white on dark cells) and draw it on `fig`."""
    for text, index in cells:
        value = matrix[index]
        text.set_text(format_weight(value))
        text.set_color("white" if value > 0.55 else "black")
        fig.draw_artist(text)


def draw_titles(fig, texts, strings):
    """Set each of `texts` to its string and draw it on `fig` (a frame's changing titles)."""
    for text, string in zip(texts, strings, strict=True):
        text.set_text(string)
        fig.draw_artist(text)


class MosaicFigure(FastFigure):
    """A FastFigure of one big heatmap (the heads mosaic) whose cells are painted straight into the pixels.

    matplotlib would resample the whole mosaic through float arrays at every frame, which for a long
    sentence costs hundreds of megabytes and most of a second; here each pixel takes the colour of the
    nearest cell from a 256-colour table (the colour map's own), with NaN cells left as the background.
    """

    def __init__(self, fig, cmap, dpi=DPI):
        super().__init__(fig, dpi=dpi)
        (image,) = self.images
        self.lut = cmap(np.arange(cmap.N), bytes=True)  # [N, 4] uint8, the colour of each of N steps in [0, 1]
        _, height = self.canvas.get_width_height(physical=True)
        x0, y0, x1, y1 = image.get_window_extent(self.canvas.get_renderer()).extents  # display pixels
        left, right, top, bottom = round(x0), round(x1), round(height - y1), round(height - y0)  # buffer rows
        rows, cols = image.get_array().shape
        self.box = (top, bottom, left, right)
        self.row_of = ((np.arange(bottom - top) + 0.5) * rows / (bottom - top)).astype(int)  # pixel row -> cell row
        self.col_of = ((np.arange(right - left) + 0.5) * cols / (right - left)).astype(int)  # pixel col -> cell col

    def render(self, matrices, titles=()):
        """Paint the mosaic matrices[0] (values in [0, 1], NaN = gap), then its cell numbers; -> PNG bytes."""
        (mosaic,) = matrices
        self.canvas.restore_region(self.background)
        top, bottom, left, right = self.box
        cells = mosaic[np.ix_(self.row_of, self.col_of)]  # [pixel rows, pixel cols]: the nearest cell's value
        shown = ~np.isnan(cells)
        steps = np.clip((np.where(shown, cells, 0.0) * len(self.lut)).astype(int), 0, len(self.lut) - 1)
        pixels = np.asarray(self.canvas.buffer_rgba())  # [height, width, 4]: the canvas' own memory
        pixels[top:bottom, left:right][shown] = self.lut[steps[shown]]
        for frame in (p for ax in self.fig.axes for p in ax.patches if p.get_gid() == "highlight"):
            self.fig.draw_artist(frame)  # a framed row (heads_figure's highlight) stays on top of the cells
        draw_numbers(self.fig, self.cells[0], mosaic)
        draw_titles(self.fig, self.titles, titles)
        return canvas_png(self.canvas)


def cat_figure(lang, mask=None, legend_room=False):
    """A FastFigure of one 3 x 3 猫吃鱼 heatmap with a title that changes between frames.

    `mask` (bool [3, 3], True = may attend) draws the masked cells grey and hatched with "—" and a legend
    entry; `legend_room` leaves the legend's room above the heatmap even without a mask, so that the
    pictures with and without a mask have their heatmap in the same place (the mask widget's toggle).
    """
    n = len(examples.CAT_TOKENS)
    allowed = np.ones((n, n), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    fig = plot_attention(
        np.where(allowed, 0.5, 0.0),
        list(examples.CAT_TOKENS),
        lang=lang,
        title="-",
        figsize=(CAT_WIDTH, 4.9 if legend_room else 4.6),
        mask=None if mask is None else allowed,
    )
    title = fig.axes[0].title
    if legend_room:
        fig.axes[0].set_title(title.get_text(), pad=LEGEND_PAD)
    return FastFigure(fig, titles=[title])


# --- the heads mosaic (notebook 06) ---------------------------------------------------------------


def heads_mosaic(weights, ncols, gap_x, gap_y):
    """[h, n, n] -> [rows, cols]: the heads' heatmaps side by side, ncols per row, NaN in the gaps.

    Head i sits in grid row i // ncols, column i % ncols; a gap of `gap_y` rows above each head holds
    its title, `gap_x` columns separate neighbours.
    """
    h, n, _ = weights.shape
    nrows = -(-h // ncols)
    mosaic = np.full((nrows * (n + gap_y), ncols * (n + gap_x) - gap_x), np.nan)  # [rows, cols]
    for i in range(h):
        row, col = divmod(i, ncols)
        top, left = row * (n + gap_y) + gap_y, col * (n + gap_x)
        mosaic[top : top + n, left : left + n] = weights[i]
    return mosaic


def _cell_inches(h, n):
    """The side of one weight's square, in inches: smaller for long sentences, so the mosaic stays bounded."""
    ncols = min(h, 4)
    nrows = -(-h // ncols)
    fit_width = (MAX_MOSAIC_INCHES - 0.3 * (ncols - 1)) / (ncols * n)  # room for the gaps between heads
    fit_height = (MAX_MOSAIC_INCHES - 0.4 * nrows) / (nrows * n)  # and for the titles above them
    side = 0.2 if n > 4 else 0.5 if _annotated(h, n) else 0.38  # room for a number such as 0.0026 in each square
    return min(side, fit_width, fit_height)


def _annotated(h, n):
    """Whether the heads mosaic prints each weight in its square: only when the squares are few."""
    return n <= 4 and h <= 8


def heads_grid(h, n):
    """(h heads, n tokens) -> (ncols, gap_x, gap_y): how `heads_mosaic` lays out the heads (4 per row)."""
    cell = _cell_inches(h, n)
    return min(h, 4), max(1, int(np.ceil(0.25 / cell))), max(1, int(np.ceil(0.3 / cell)))


def _text_inches(text, points=LABEL_PT):
    """About how long `text` is drawn at `points` (a CJK character is about 1 em, a Latin one 0.55 em)."""
    return sum(1.0 if "\u2e80" <= char <= "\uffef" else 0.55 for char in text) * points / 72


def heads_figure(h, tokens, lang, d_k, highlight=None):
    """-> FastFigure: h heatmaps titled "head i", drawn as one mosaic image.

    `highlight` (a row index, or None) frames that query's row in every head.

    One axes and plain text labels instead of h axes with ticks: matplotlib builds it in a fraction
    of the time `plotting.plot_heads` needs, which matters because every new h needs a new layout.
    Every word is at least LABEL_PT (as large as MIN_TEXT_PT in the notebooks' own figures); where the
    squares are too small for one label per token, every k-th token is labelled.
    """
    use_cjk_font()
    n = len(tokens)
    ncols, gap_x, gap_y = heads_grid(h, n)
    nrows = -(-h // ncols)
    cell = _cell_inches(h, n)
    every = int(np.ceil(LABEL_SPACING / cell))  # label every k-th token when the squares are small
    pad = max(1.0, 0.2 / cell)  # data units in 0.2 inches (one square, unless the squares are small)
    rows, cols = nrows * (n + gap_y), ncols * (n + gap_x) - gap_x
    rotate = max(len(tok) for tok in tokens) > 2  # long key labels are written upwards, one per column
    label = max(_text_inches(tok) for tok in tokens) + 0.1  # inches taken by the longest token label
    left, right, top, bottom = label + 0.4, 1.25, 0.4, (label if rotate else 0.2) + 0.35
    width, height = left + cols * cell + right, bottom + rows * cell + top
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((left / width, bottom / height, cols * cell / width, rows * cell / height))
    cmap = matplotlib.colormaps["Blues"].with_extremes(bad=(1.0, 1.0, 1.0, 0.0))  # gaps transparent: titles show
    image = ax.imshow(
        heads_mosaic(np.full((h, n, n), 0.5), ncols, gap_x, gap_y),
        cmap=cmap,
        vmin=0.0,
        vmax=1.0,
        interpolation="nearest",
    )
    ax.set_axis_off()
    annotate = _annotated(h, n)  # print each weight in its cell when the cells are few
    for i in range(h):
        row, col = divmod(i, ncols)
        y0, x0 = row * (n + gap_y) + gap_y, col * (n + gap_x)
        ax.text(
            x0 + (n - 1) / 2,
            y0 - 0.7 * pad,
            t("head_title", lang, i=i + 1),
            ha="center",
            va="bottom",
            fontsize=LABEL_PT,
            gid="label",
        )
        if highlight is not None:  # frame one query's row in every head
            frame = Rectangle((x0 - 0.5, y0 + highlight - 0.5), n, 1, fill=False, edgecolor="tab:red", linewidth=2)
            ax.add_patch(frame).set_gid("highlight")  # drawn again over the painted cells (MosaicFigure.render)
        for a in range(n):
            labelled = a % every == 0
            if annotate:
                for b in range(n):
                    ax.text(x0 + b, y0 + a, "", ha="center", va="center", fontsize=LABEL_PT)
            if col == 0 and labelled:
                ax.text(-0.7 * pad, y0 + a, tokens[a], ha="right", va="center", fontsize=LABEL_PT, gid="label")
            # key labels under the lowest head (first column only for long sentences: every head has the same
            # keys, and each label costs redraw time)
            if labelled and i + ncols >= h and (col == 0 or n <= 4):
                ax.text(
                    x0 + a,
                    y0 + n - 0.5 + 0.2 * pad,
                    tokens[a],
                    ha="right" if rotate else "center",
                    va="center" if rotate else "top",
                    fontsize=LABEL_PT,
                    rotation=90 if rotate else 0,
                    rotation_mode="anchor",
                    gid="label",
                )
    fig.text(
        0.1 / width,
        (bottom + rows * cell / 2) / height,
        t("query_axis", lang),
        rotation=90,
        va="center",
        fontsize=LABEL_PT,
    )
    fig.text((left + cols * cell / 2) / width, 0.08 / height, t("key_axis", lang), ha="center", fontsize=LABEL_PT)
    cax = fig.add_axes(((left + cols * cell + 0.3) / width, bottom / height, 0.15 / width, rows * cell / height))
    colorbar = fig.colorbar(image, cax=cax, ticks=[0.0, 0.5, 1.0])
    colorbar.set_label(t("weight", lang), fontsize=LABEL_PT)
    cax.tick_params(labelsize=LABEL_PT)
    key = "heads_suptitle_one" if h == 1 else "heads_suptitle"
    fig.suptitle(t(key, lang, h=h, d_k=d_k), y=1 - 0.06 / height, va="top", fontsize=LABEL_PT + 1)
    figure = MosaicFigure(fig, cmap)
    figure.n_heatmaps = h  # one image, h heatmaps
    return figure


# --- the picture readers see where the widget cannot run -------------------------------------------


def _wrap(text, artist, renderer, max_width):
    """Break `text` into lines no wider than `max_width` pixels: between words, or between any two CJK characters."""
    pieces = re.findall(r"[\u2e80-\u9fff\uff00-\uffef][\u3000-\u303f\uff0c\uff1a\uff1b\uff09]*|\S+\s*|\s+", text)
    lines, line = [], ""
    for piece in pieces:
        artist.set_text((line + piece).rstrip())
        if line and artist.get_window_extent(renderer).width > max_width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    return "\n".join([*lines, line.rstrip()])


def still_png(png, caption, dpi=DPI):
    """PNG bytes -> PNG bytes: the same picture with `caption` in a light band under it.

    This is what a reader sees where the live widget cannot run (GitHub, nbviewer, a notebook that has
    not been run yet, a JupyterLab without the widget manager); the caption says what to do.
    """
    use_cjk_font()
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    width_in, margin = picture.width / dpi, 0.1
    band = Figure(figsize=(width_in, 1.0), dpi=dpi, facecolor="#fff4cc")
    canvas = FigureCanvasAgg(band)
    text = band.text(margin / width_in, 0.5, "", fontsize=9, va="center", color="#3d3000")
    text.set_text(_wrap(caption, text, canvas.get_renderer(), (width_in - 2 * margin) * dpi))
    height_in = text.get_window_extent(canvas.get_renderer()).height / dpi + 0.16
    band.set_size_inches(width_in, height_in)
    canvas.draw()
    width, height = canvas.get_width_height(physical=True)
    strip = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
    out = Image.new("RGB", (picture.width, picture.height + strip.height), "white")
    out.paste(picture, (0, 0))
    out.paste(strip.crop((0, 0, min(strip.width, picture.width), strip.height)), (0, picture.height))
    buffer = io.BytesIO()
    out.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
