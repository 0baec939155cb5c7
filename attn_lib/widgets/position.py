"""The position slider of notebook 07: slide a pair of tokens along the sentence, change the frequency base.

`position_widget()` takes one token vector x and puts it twice in a sentence: as a key at position
`offset` and as a query D tokens later, for D = 0 .. 64. It draws their score against D, two ways:

    RoPE            rope(x, offset + D) . rope(x, offset) / sqrt(d)      the same curve at every offset
    sinusoid added  (x + PE[offset + D]) . (x + PE[offset]) / sqrt(d)   moves with the offset (dashed: at 0)

(The projections W_Q, W_K are left out, q = k = x, so that only the positions differ.) The "offset"
slider moves the pair; the "base" slider sets the frequency base of both (10000 in the papers).
Built on the shell of `attn_lib.widgets`: `controls`, `state`, `update()`, errors shown as one line,
and the first picture stored as PNG for readers without a kernel. Only the two lines and the title
are redrawn on each move (blitting), so an update takes a few tens of milliseconds.
"""

import html

import ipywidgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from attn_lib._checks import check_positive_int
from attn_lib.i18n import t
from attn_lib.pictures.fast_figures import DPI, _png, draw_titles
from attn_lib.pictures.heatmaps import use_cjk_font
from attn_lib.position import rope, sinusoidal_encoding
from attn_lib.widgets.shell import AttentionWidget, _language

#: The frequency bases the slider offers (the papers use 10000; some recent models use far larger ones).
BASES = (100, 1000, 10_000, 100_000)


class FastLines:
    """A line plot whose frame is drawn once; `render` redraws only the lines and the titles (blitting)."""

    n_heatmaps = 0  # the widget shell counts heatmaps; a line plot has none

    def __init__(self, fig, lines, titles=(), dpi=DPI):
        fig.set_dpi(dpi)
        self.fig, self.lines, self.titles = fig, list(lines), list(titles)
        self.canvas = FigureCanvasAgg(fig)
        for artist in [*self.lines, *self.titles]:
            artist.set_animated(True)  # left out of the frame, drawn by render()
        self.canvas.draw()
        fig.set_layout_engine("none")  # freeze the layout: later frames reuse it
        self.background = self.canvas.copy_from_bbox(fig.bbox)

    def render(self, curves, titles=()):
        """Redraw line i with y values curves[i] and title j with titles[j]; return the PNG bytes."""
        self.canvas.restore_region(self.background)
        for line, y in zip(self.lines, curves, strict=True):
            line.set_ydata(y)
            self.fig.draw_artist(line)
        draw_titles(self.fig, self.titles, titles)
        return _png(self.canvas)


class PositionWidget(AttentionWidget):
    """Sliders for the pair's position and the frequency base; the score against the distance, RoPE and added."""

    kind = "position"

    def __init__(self, d=32, max_distance=64, max_offset=512, lang=None, seed=0):
        self.d = check_positive_int(d, "d")
        if self.d % 2:
            raise ValueError(f"d={d} must be even: RoPE turns pairs of features")
        self.max_offset = check_positive_int(max_offset, "max_offset")
        self.distances = np.arange(check_positive_int(max_distance, "max_distance") + 1)  # D = 0 .. max_distance
        self.x = np.random.default_rng(seed).standard_normal(self.d)  # the token vector, [d]
        # one y range for every setting, so that moving a slider never rescales the axis
        extremes = [self.curves(offset, base) for base in BASES for offset in range(0, self.max_offset + 1, 8)]
        low = min(float(np.concatenate(pair).min()) for pair in extremes)
        high = max(float(np.concatenate(pair).max()) for pair in extremes)
        margin = 0.05 * (high - low)
        self.ylim = (min(low, 0.0) - margin, high + margin)
        self._at_zero = {base: self.curves(0, base) for base in BASES}
        lang_now = _language(lang)
        controls = {
            "offset": ipywidgets.IntSlider(
                value=0,
                min=0,
                max=self.max_offset,
                continuous_update=False,
                description=t("position.offset_label", lang_now),
                style={"description_width": "initial"},
            ),
            "base": ipywidgets.SelectionSlider(
                options=BASES,
                value=10_000,
                continuous_update=False,
                description=t("position.base_label", lang_now),
                style={"description_width": "initial"},
            ),
        }
        super().__init__(controls, lang)

    def curves(self, offset, base):
        """-> (RoPE scores [D+1], added-sinusoid scores [D+1]) for the key at `offset` and the query D later."""
        queries = np.tile(self.x, (len(self.distances), 1))  # [D+1, d]: the same vector at every query position
        q = rope(queries, positions=offset + self.distances, base=base)  # [D+1, d]
        k = rope(self.x[None, :], positions=[offset], base=base)[0]  # [d]
        pe = sinusoidal_encoding(offset + len(self.distances), self.d, base)[offset:]  # [D+1, d], positions offset ..
        scale = np.sqrt(self.d)
        return q @ k / scale, (self.x + pe) @ (self.x + pe[0]) / scale  # [D+1] each

    def compute(self, lang):
        offset, base = int(self.controls["offset"].value), int(self.controls["base"].value)
        rope_scores, added_scores = self.curves(offset, base)
        rope_zero, added_zero = self._at_zero[base]
        state = {
            "offset": offset,
            "base": base,
            "distances": self.distances,
            "rope_scores": rope_scores,
            "added_scores": added_scores,
            "rope_change": float(np.abs(rope_scores - rope_zero).max()),  # against the pair at positions 0 and D
            "added_change": float(np.abs(added_scores - added_zero).max()),
        }
        curves = [added_zero, rope_scores, added_scores]  # the faint reference first, drawn underneath
        return state, curves, [t("position.widget_title", lang, offset=offset, base=base)]

    def build_figure(self, state, lang):
        use_cjk_font()
        fig = Figure(figsize=(7.2, 3.6), layout="constrained")
        ax = fig.add_subplot()
        zeros = np.zeros(len(self.distances))
        (reference,) = ax.plot(
            self.distances, zeros, color="tab:orange", lw=1, ls="--", alpha=0.5, label=t("position.added_zero", lang)
        )
        (rope_line,) = ax.plot(self.distances, zeros, color="tab:blue", lw=2, label=t("position.rope_line", lang))
        (added_line,) = ax.plot(self.distances, zeros, color="tab:orange", lw=1.5, label=t("position.added_line", lang))
        ax.axhline(0, color="0.7", lw=0.8)
        ax.set_xlim(self.distances[0], self.distances[-1])
        ax.set_ylim(*self.ylim)
        ax.set_xlabel(t("position.distance_axis", lang))
        ax.set_ylabel(t("position.score_axis", lang))
        ax.legend(loc="upper right", fontsize=8)
        title = ax.set_title("-")
        return FastLines(fig, [reference, rope_line, added_line], [title])

    def describe(self, state, lang):
        return "<p>" + html.escape(t("position.widget_info", lang, **state)) + "</p>"


def position_widget(d=32, max_distance=64, max_offset=512, lang=None, seed=0):
    """Sliders "offset" (where the key stands; the query is D tokens later) and "base" (RoPE's and the sinusoid's).

    Draws the score between one token vector x at the key's position and x again at the query's,
    against the distance D = 0 .. max_distance: with RoPE it is the same curve at every offset; with
    the sinusoidal encoding added to x it changes as the pair moves.

    controls: "offset" (IntSlider 0 .. max_offset), "base" (SelectionSlider over BASES). state: offset,
    base, distances ([D+1]), rope_scores, added_scores ([D+1] each), rope_change and added_change (the
    largest difference from the same curve at offset 0), n_heatmaps (0), error.
    """
    return PositionWidget(d=d, max_distance=max_distance, max_offset=max_offset, lang=lang, seed=seed)
