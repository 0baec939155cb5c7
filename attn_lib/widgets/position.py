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

from attn_lib._checks import check_positive_int, check_seed
from attn_lib.i18n import t
from attn_lib.pictures.fast_figures import DPI, canvas_png, draw_titles
from attn_lib.pictures.heatmaps import use_cjk_font
from attn_lib.position import frequencies, rope, sinusoidal_encoding
from attn_lib.widgets.shell import AttentionWidget, widget_language

#: The frequency bases the slider offers (the papers use 10000; some recent models use far larger ones).
BASES = (100, 1000, 10_000, 100_000)

#: The largest max_offset, max_distance and d the widget takes (its set-up computes 4 x max_offset / 8 curves).
MAX_OFFSET, MAX_DISTANCE, MAX_D = 16_384, 512, 256


def _check_limit(value, name, limit):
    value = check_positive_int(value, name)
    if value > limit:
        raise ValueError(f"{name}={value} is more than the widget's limit of {limit}")
    return value


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
        return canvas_png(self.canvas)


class PositionWidget(AttentionWidget):
    """Sliders for the pair's position and the frequency base; the score against the distance, RoPE and added."""

    kind = "position"

    def __init__(self, d=32, max_distance=64, max_offset=512, lang=None, seed=0):
        self.d = _check_limit(d, "d", MAX_D)
        if self.d % 2:
            raise ValueError(f"d={d} must be even: RoPE turns pairs of features")
        self.max_offset = _check_limit(max_offset, "max_offset", MAX_OFFSET)
        max_distance = _check_limit(max_distance, "max_distance", MAX_DISTANCE)
        self.distances = np.arange(max_distance + 1)  # D = 0 .. max_distance
        self.x = np.random.default_rng(check_seed(seed)).standard_normal(self.d)  # the token vector, [d]
        self._at_zero = {base: self.curves(0, base) for base in BASES}
        # one y range for every setting (offsets in steps of 8), so that moving a slider never rescales the axis
        extremes = [
            (self._at_zero[base][0], self.added_scores(range(0, self.max_offset + 1, 8), base)) for base in BASES
        ]
        low = min(min(float(rope_scores.min()), float(added.min())) for rope_scores, added in extremes)
        high = max(max(float(rope_scores.max()), float(added.max())) for rope_scores, added in extremes)
        margin = 0.05 * (high - low)
        self.ylim = (min(low, 0.0) - margin, high + margin)
        lang_now = widget_language(lang)
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
        pe = sinusoidal_encoding(len(self.distances), self.d, base, start=offset)  # [D+1, d]: positions offset ..
        scale = np.sqrt(self.d)
        return q @ k / scale, (self.x + pe) @ (self.x + pe[0]) / scale  # [D+1] each

    def added_scores(self, offsets, base):
        """-> [offsets, D+1]: the added-sinusoid scores of `curves` at many offsets, in linear work.

        (x + PE[o + D]) . (x + PE[o]) = x . x + g(o + D) + g(o) + PE[o + D] . PE[o], with g(p) = x . PE[p]
        and PE[o + D] . PE[o] = sum_i cos(D theta_i), the same for every o: one g per position, not one
        sinusoid table per offset. (The RoPE score does not depend on the offset at all.)
        """
        offsets = np.asarray(offsets)[:, None]  # [O, 1]
        positions = np.arange(offsets.max() + len(self.distances))  # every position a curve reaches
        g = sinusoidal_encoding(len(positions), self.d, base) @ self.x  # [P]: x . PE[p]
        theta = frequencies(self.d, base)  # [d/2]
        pe_dot = np.cos(self.distances[:, None] * theta).sum(axis=-1)  # [D+1]: PE[o + D] . PE[o]
        return (self.x @ self.x + g[offsets + self.distances] + g[offsets] + pe_dot) / np.sqrt(self.d)  # [O, D+1]

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

    Limits (a ValueError beyond): max_offset <= 16384, max_distance <= 512, d <= 256.

    controls: "offset" (IntSlider 0 .. max_offset), "base" (SelectionSlider over BASES). state: offset,
    base, distances ([D+1]), rope_scores, added_scores ([D+1] each), rope_change and added_change (the
    largest difference from the same curve at offset 0), n_heatmaps (0), error.
    """
    return PositionWidget(d=d, max_distance=max_distance, max_offset=max_offset, lang=lang, seed=seed)
