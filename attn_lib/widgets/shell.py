"""The shell every course widget shares: controls on top, the picture, numbers and messages below.

`AttentionWidget` is an `ipywidgets.VBox`; a subclass says what to compute (`compute`), how to draw its
figure (`build_figure`, a `FastFigure` from `attn_lib.pictures.fast_figures`) and, where a new value needs a
new figure, which values come next (`nearby_states`: their figures are drawn right after each update,
so the next key press finds them ready). Moving a control calls `update()`, which never raises: an
error becomes one short line in the widget. The display data holds the live widget and, for every
place where it cannot run, a captioned picture (`still_picture`).
"""

import asyncio
import base64
import html

import ipywidgets

from attn_lib._checks import describe_value
from attn_lib.i18n import check_language, get_language, t
from attn_lib.pictures.fast_figures import still_png

#: How many figures (layouts) a widget keeps drawn, e.g. one per head count h (a new layout is slow) ...
FIGURE_CACHE = 8
#: ... and at most this many pixels in all (a long sentence's layouts are large).
FIGURE_CACHE_PIXELS = 12_000_000


def widget_language(lang):
    """The language to draw in: `lang`, or the one set by `set_language` when `lang` is None."""
    return get_language() if lang is None else check_language(lang)


def check_tokens(tokens):
    """`tokens` (any iterable of strings, a generator included) as a list, else a clear error naming `tokens`."""
    if isinstance(tokens, (str, bytes)):
        raise TypeError(
            f"tokens must be a sequence of strings, one per token, got {describe_value(tokens)}"
            f" (for one token per character write list({tokens!r}))"
        )
    try:
        tokens = list(tokens)  # read once: a generator would be empty the second time
    except TypeError:
        raise TypeError(f"tokens must be a sequence of strings, one per token, got {describe_value(tokens)}") from None
    if not tokens:
        raise ValueError("tokens is empty: give at least one token (a string)")
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str):
            raise TypeError(f"tokens must hold strings only, but tokens[{i}] is {describe_value(tok)}")
    return tokens


def _run_later(callback, *args):
    """Run `callback(*args)` soon on the running event loop (the kernel's, after the current message).

    Outside an event loop (a script, a test) nothing is scheduled: the callback only saves time later.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_soon(callback, *args)
    return True


class AttentionWidget(ipywidgets.VBox):
    """Controls on top, the picture in the middle, numbers and messages below; subclasses compute."""

    kind = "base"  # names the CSS class attn-widget-<kind>

    def __init__(self, controls, lang=None):
        super().__init__()
        self.lang = None if lang is None else check_language(lang)
        self.controls = dict(controls)
        self.state = {}
        self._figures = {}  # figure key -> FastFigure, least recently used first
        self.image = ipywidgets.Image(format="png")
        self.info = ipywidgets.HTML()
        self.message = ipywidgets.HTML()
        # CSS hooks: the browser test finds each widget, its picture and its numbers by these classes
        self.add_class("attn-widget")
        self.add_class(f"attn-widget-{self.kind}")
        self.image.add_class("attn-widget-figure")
        self.info.add_class("attn-widget-stats")
        self.children = (ipywidgets.HBox(list(self.controls.values())), self.image, self.info, self.message)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change):
        self.update()

    def current_language(self):
        return widget_language(self.lang)

    def compute(self, lang):
        """-> (state dict, list of matrices to draw, list of title strings). Subclasses implement it."""
        raise NotImplementedError

    def build_figure(self, state, lang):
        """-> a FastFigure whose heatmaps `draw` repaints. Subclasses implement it."""
        raise NotImplementedError

    def figure_key(self, state, lang):
        """Which drawn figure fits `state` (a new key means a new layout: the slow path)."""
        return lang

    def nearby_states(self, state):
        """States (enough of them to build a figure) the learner may ask for next; their figures are drawn ahead."""
        return []

    def _keep(self, key, figure):
        """Keep `figure` under `key` as the most recently used; free the least recently used past the limits."""
        self._figures.pop(key, None)
        self._figures[key] = figure  # most recently used goes last
        while len(self._figures) > 1 and (
            len(self._figures) > FIGURE_CACHE
            or sum(f.canvas.get_width_height()[0] * f.canvas.get_width_height()[1] for f in self._figures.values())
            > FIGURE_CACHE_PIXELS
        ):
            del self._figures[next(iter(self._figures))]  # free the least recently used figure

    def draw(self, state, matrices, titles, lang):
        """Repaint the figure for `state` (built on first use, kept for the next FIGURE_CACHE keys); -> PNG bytes."""
        key = self.figure_key(state, lang)
        figure = self._figures.get(key) or self.build_figure(state, lang)
        self._keep(key, figure)
        state["n_heatmaps"] = figure.n_heatmaps
        return figure.render(matrices, titles)

    def prepare_nearby(self, lang):
        """Draw the frames of the states next to the current one, if not drawn yet (an optimisation only)."""
        current = self.figure_key(self.state, lang) if self.state.get("error") is None else None
        for state in self.nearby_states(self.state):
            key = self.figure_key(state, lang)
            if key in self._figures:
                continue
            try:
                figure = self.build_figure(state, lang)
            except Exception:  # drawing ahead only saves time: a real update reports any error
                return
            self._keep(key, figure)
        if current in self._figures:
            self._keep(current, self._figures[current])  # the one on screen stays the most recent

    def describe(self, state, lang):
        """-> HTML shown under the picture (may be empty)."""
        return ""

    def update(self):
        """Recompute and redraw from the controls' values; never raises. Returns the new state."""
        lang = self.current_language()
        values = {name: control.value for name, control in self.controls.items()}
        try:
            state, matrices, titles = self.compute(lang)
            self.image.value = self.draw(state, matrices, titles, lang)
            self.info.value = f'<div data-heatmaps="{state["n_heatmaps"]}">{self.describe(state, lang)}</div>'
            state = {**values, **state, "error": None}
            self.message.value = ""
        except Exception as exc:  # the learner sees one short line, not a traceback
            text = t("widgets.error", self.current_language(), message=f"{type(exc).__name__}: {exc}")
            state = {**values, "error": text}
            self.message.value = f'<span style="color:#b00020">{html.escape(text)}</span>'
        self.state = state
        if state["error"] is None and self.nearby_states(state):
            _run_later(self.prepare_nearby, lang)  # after this message: the new picture goes out first
        return state

    def still_picture(self):
        """PNG bytes: the current picture with a caption saying how to get the live widget."""
        return still_png(self.image.value, t("widgets.still_caption", self.current_language()))

    def _repr_mimebundle_(self, **kwargs):
        """The live widget for Jupyter, plus a captioned picture (image/png) wherever the widget cannot run."""
        data = super()._repr_mimebundle_(**kwargs)
        if data is not None and self.image.value:
            data["image/png"] = base64.b64encode(self.still_picture()).decode("ascii")
        return data
