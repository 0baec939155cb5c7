"""The explorer of notebooks 10, 14 and 15: type a sentence, watch every head of a real model and its next token.

`explorer_widget(model, text)` takes MiniLM (notebook 10), SmolLM2 (14) or Gemma 3 (15) and shows, for the text
in its box (Enter runs the model):

- the tokens as the model reads them, as labels: Chinese characters as characters, a piece that is only part of a
  character's bytes as those bytes (``<E4 BB>``), ``[UNK]``, ``<bos>`` and the like as they are;
- one head's weights as a large heatmap (layer and head sliders), or all heads of the layer side by side (a
  toggle); a causal model's masked cells drawn grey with "—", as every heatmap of the course draws them;
- for the causal models, the next token's distribution (the ten most likely tokens as bars) under the temperature,
  top-k and top-p sliders of notebook 13's sampler, and a "write" button that continues the text one token at a
  time with the KV cache, each token shown as it comes, the written text kept apart from the prompt.

The model runs once per text (at most MAX_TOKENS tokens; a longer text is refused with a message that says so,
never cut); its weights and logits are kept, so the sliders only redraw. Errors become one short line in the
widget. Where the widget cannot run (GitHub, a closed notebook) its display data holds a still picture of the
heatmap and the bars with a caption, as the course's other widgets do. The models' side (one pass, cached steps, the
tokens as labels) is attn_lib.widgets.explorer_view.
"""

import html
import io

import ipywidgets
import numpy as np
from PIL import Image

from attn_lib._checks import check_positive_int, check_seed, describe_value
from attn_lib.i18n import t
from attn_lib.pictures.fast_figures import FastFigure, heads_figure, heads_grid, heads_mosaic, still_png
from attn_lib.pictures.generation_plots import NextTokenBars, setting_label
from attn_lib.pictures.heatmaps import plot_attention
from attn_lib.sampling import greedy, sampler, sampling_distribution
from attn_lib.widgets.explorer_view import ModelView, token_label
from attn_lib.widgets.generation import TEMPERATURES, TOP_K, TOP_P, selection_slider
from attn_lib.widgets.shell import widget_language

#: The longest text the explorer runs, in tokens: past it a heatmap's labels and cells are too small to read.
MAX_TOKENS = 64
#: How many of the most likely next tokens get a bar of their own.
TOP = 10
#: The choices of the "tokens to write" control.
WRITE_COUNTS = (1, 4, 8, 16, 32)
#: The figures kept drawn (a new text or a new mode needs a new layout; going back to one finds it ready).
KEEP_FIGURES = 6


# --- the widget ------------------------------------------------------------------------------------


class _Refused(ValueError):
    """A text the explorer does not run (empty, or longer than MAX_TOKENS); its message is shown as it is."""


def _png_stack(pictures):
    """PNG bytes of several pictures -> one PNG, one under the other (the still picture)."""
    images = [Image.open(io.BytesIO(p)).convert("RGB") for p in pictures if p]
    out = Image.new("RGB", (max(i.width for i in images), sum(i.height for i in images)), "white")
    top = 0
    for image in images:
        out.paste(image, (0, top))
        top += image.height
    buffer = io.BytesIO()
    out.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


class ExplorerWidget(ipywidgets.VBox):
    """A text box, the tokens, layer/head sliders over a heatmap, and (causal models) the next token and writing."""

    def __init__(self, view, text, seed=0, lang=None):
        super().__init__()
        self.view, self.seed, self.lang = view, check_seed(seed), lang
        now = widget_language(lang)
        self.result = None  # the last text the model ran on: ids, labels, weights, logits, probs
        self._figures = {}  # (labels, mode, lang) -> a drawn figure, least recently used first
        self.text = ipywidgets.Text(
            value="", placeholder=t("explore.text_hint", now), description=t("explore.text_label", now),
            continuous_update=False, layout=ipywidgets.Layout(width="34em"), style={"description_width": "initial"},
        )  # fmt: skip
        self.status = ipywidgets.HTML()
        self.tokens = ipywidgets.HTML()
        self.layer = ipywidgets.IntSlider(
            value=1, min=1, max=view.n_layers, description=t("explore.layer_label", now), continuous_update=False
        )
        self.head = ipywidgets.IntSlider(
            value=1, min=1, max=view.n_heads, description=t("explore.head_label", now), continuous_update=False
        )
        self.all_heads = ipywidgets.ToggleButton(value=False, description=t("explore.all_heads", now))
        self.image = ipywidgets.Image(format="png")
        self.info = ipywidgets.HTML()
        self.message = ipywidgets.HTML()
        rows = [
            ipywidgets.HBox([self.text, self.status]),
            self.tokens,
            ipywidgets.HBox([self.layer, self.head, self.all_heads]),
            self.image,
            self.info,
        ]
        self.controls = {"text": self.text, "layer": self.layer, "head": self.head, "all_heads": self.all_heads}
        if view.causal:
            labels = [(t("gen.widget_greedy", now) if v == 0 else f"{v:g}", v) for v in TEMPERATURES]
            self.temperature = selection_slider(labels, 1.0, t("gen.widget_temperature", now))
            self.top_k = selection_slider(
                [(t("gen.widget_off", now) if k == 0 else str(k), k) for k in TOP_K], 0, "top-k"
            )
            self.top_p = selection_slider(
                [(t("gen.widget_off", now) if p == 1 else f"{p:g}", p) for p in TOP_P], 1.0, "top-p"
            )
            self.count = ipywidgets.Dropdown(
                options=list(WRITE_COUNTS),
                value=8,
                description=t("explore.count_label", now),
                style={"description_width": "initial"},
                layout=ipywidgets.Layout(width="12em"),
            )
            self.write_button = ipywidgets.Button(description=t("explore.write", now), button_style="primary")
            self.bars = ipywidgets.Image(format="png")
            self.written = ipywidgets.HTML()
            rows += [
                ipywidgets.HBox([self.temperature, self.top_k, self.top_p]),
                self.bars,
                ipywidgets.HBox([self.count, self.write_button]),
                self.written,
            ]
            self.controls.update(temperature=self.temperature, top_k=self.top_k, top_p=self.top_p, count=self.count)
            for control in (self.temperature, self.top_k, self.top_p):
                control.observe(self._on_sampling, names="value")
            self.write_button.on_click(lambda _button: self.write())
            self.write_button.add_class("attn-explorer-write")
        rows.append(self.message)
        self.children = rows
        # CSS hooks for the browser test
        self.add_class("attn-widget")
        self.add_class("attn-widget-explorer")
        self.image.add_class("attn-widget-figure")
        self.text.add_class("attn-explorer-text")
        self.tokens.add_class("attn-explorer-tokens")
        self.head.add_class("attn-explorer-head")
        self.layer.add_class("attn-explorer-layer")
        self.text.observe(self._on_text, names="value")
        for control in (self.layer, self.head, self.all_heads):
            control.observe(self._on_view, names="value")
        self.text.value = text  # runs the model once

    # --- the callbacks (tested in pytest by setting the controls' values) ----------------------------

    def _on_text(self, change):
        self.run(change["new"])

    def _on_view(self, change):
        self._guarded(self.draw_attention)

    def _on_sampling(self, change):
        self._guarded(self.draw_bars)

    def current_language(self):
        return widget_language(self.lang)

    def _guarded(self, action, *args):
        """Run `action`; an error becomes one short line in the widget (never a traceback). -> True if it ran."""
        try:
            action(*args)
        except _Refused as exc:  # a text the explorer does not run: said as it is
            self.message.value = f'<span style="color:#b00020">{html.escape(str(exc))}</span>'
            return False
        except Exception as exc:
            text = t("widgets.error", self.current_language(), message=f"{type(exc).__name__}: {exc}")
            self.message.value = f'<span style="color:#b00020">{html.escape(text)}</span>'
            return False
        self.message.value = ""
        return True

    def run(self, text):
        """Run the model on `text` (at most MAX_TOKENS tokens), keep what it computed, redraw everything.

        An empty or too long text is refused with a line that says so; the pictures keep the text before.
        """
        lang = self.current_language()
        self.status.value = f"<i>{html.escape(t('explore.running', lang))}</i>"
        try:
            self._guarded(self._run, text)
        finally:
            self.status.value = ""

    def _run(self, text):
        lang = self.current_language()
        if not text.strip():
            raise _Refused(t("explore.empty", lang))
        ids, labels = self.view.tokenize(text)
        if len(ids) > MAX_TOKENS:
            raise _Refused(t("explore.too_long", lang, n=len(ids), max=MAX_TOKENS))
        weights, logits = self.view.analyse(text, ids)
        probs = None if logits is None else sampling_distribution(logits)
        self.result = {"text": text, "ids": ids, "labels": labels, "weights": weights, "logits": logits, "probs": probs}
        chips = "".join(
            '<span style="border:1px solid #9ab;border-radius:3px;padding:0 3px;margin:0 2px;'
            f'background:#f3f7fb;white-space:pre">{html.escape(label)}</span>'
            for label in labels
        )
        head = html.escape(t("explore.tokens", lang, model=self.view.name, n=len(ids)))
        self.tokens.value = f'<div data-tokens="{len(ids)}">{head} {chips}</div>'
        self.draw_attention()
        if self.view.causal:
            self.draw_bars()
            self.written.value = f"<p>{html.escape(t('explore.written_none', lang))}</p>"

    def _figure(self, key, build):
        figure = self._figures.pop(key, None) or build()
        self._figures[key] = figure  # the most recently used goes last
        while len(self._figures) > KEEP_FIGURES:
            del self._figures[next(iter(self._figures))]
        return figure

    def draw_attention(self):
        """Redraw the heatmap (one head, or every head of the layer) from the kept weights: no model run."""
        if self.result is None:
            return
        lang, labels = self.current_language(), self.result["labels"]
        layer, head = self.layer.value - 1, self.head.value - 1
        weights = self.result["weights"][layer]  # [h, n, n]
        n, h = len(labels), self.view.n_heads
        if self.all_heads.value:
            figure = self._figure((tuple(labels), "all", lang), lambda: heads_figure(h, labels, lang, self.view.d_k))
            mosaic = heads_mosaic(weights, *heads_grid(h, n))
            self.image.value = figure.render([mosaic])
            info = t("explore.info_layer", lang, layer=layer + 1, h=h)
        else:
            figure = self._figure((tuple(labels), "one", lang), lambda: self._head_figure(labels, lang))
            title = t("explore.head_title", lang, layer=layer + 1, L=self.view.n_layers, head=head + 1, h=h)
            self.image.value = figure.render([weights[head]], [title])
            info = self._describe_head(weights[head], labels, layer, head, lang)
        note = t("explore.masked", lang) if self.view.causal else t("explore.encoder_note", lang, model=self.view.name)
        self.info.value = f"<p>{html.escape(info)}</p><p><small>{html.escape(note)}</small></p>"

    def _head_figure(self, labels, lang):
        n = len(labels)
        mask = np.tril(np.ones((n, n), dtype=bool)) if self.view.causal else None
        frame = np.full((n, n), 0.5) if mask is None else np.where(mask, 0.5, 0.0)  # masked weights are 0
        fig = plot_attention(frame, labels, title="-", lang=lang, mask=mask)
        return FastFigure(fig, titles=[fig.axes[0].title])

    def _describe_head(self, w, labels, layer, head, lang):
        if len(labels) == 1:
            return t("explore.info_one_token", lang, layer=layer + 1, head=head + 1)
        rest = w[1:, 1:]  # [n - 1, n - 1]: every row but the first, every key but the first token
        q, k = np.unravel_index(int(np.argmax(rest)), rest.shape)
        return t(
            "explore.info_head", lang, layer=layer + 1, head=head + 1, query=labels[q + 1], attended=labels[k + 1],
            weight=float(rest[q, k]), first=float(w[:, 0].mean()), first_token=labels[0],
        )  # fmt: skip

    def sampling(self):
        """-> (temperature, top_k or None, top_p or None): the sliders' setting, "off" as None."""
        top_k, top_p = self.top_k.value or None, None if self.top_p.value == 1 else self.top_p.value
        return self.temperature.value, top_k, top_p

    def _setting(self, lang):
        """The sampling setting in words: "greedy", "T = 0.7, top-k = 5", ..."""
        if self.temperature.value == 0:
            return t("gen.widget_greedy_setting", lang)
        return setting_label(*self.sampling(), lang)

    def draw_bars(self):
        """Redraw the next-token bars from the kept logits under the sampling sliders: no model run."""
        if self.result is None or not self.view.causal:
            return
        lang, logits, own = self.current_language(), self.result["logits"], self.result["probs"]
        temperature, top_k, top_p = self.sampling()
        probs = (
            np.eye(1, len(logits), greedy(logits))[0]
            if temperature == 0
            else sampling_distribution(logits, temperature, top_k, top_p)
        )
        order = np.argsort(-own, kind="stable")[:TOP]  # the ten most likely at T = 1: fixed for this text
        rest = np.ones(len(logits), dtype=bool)
        rest[order] = False
        setting = self._setting(lang)
        key = (tuple(self.result["ids"]), "bars", lang)
        figure = self._figure(key, lambda: self._bars_figure(order, own, rest, lang))
        heights = np.append(probs[order], probs[rest].sum())
        lines = [
            t("explore.bars_title", lang, setting=setting),
            t("explore.bars_line", lang, kept=int((probs > 0).sum()), V=len(logits)),
        ]
        self.bars.value = figure.render([heights], lines)
        self.result["drawn"] = probs

    def _bars_figure(self, order, own, rest, lang):
        labels = [*(token_label(self.view.model, i) for i in order), None]
        heights = np.append(own[order], own[rest].sum())
        return NextTokenBars(labels, heights, lang, n_rest=int(rest.sum()), rotation=30)

    def write(self, count=None):
        """Continue the text by `count` tokens (default: the control's), one cached step each, shown as they come."""
        if self.result is None or not self.view.causal:
            return []
        count = check_positive_int(self.count.value if count is None else count, "count")
        lang, temperature = self.current_language(), self.temperature.value
        pick = greedy if temperature == 0 else sampler(self.seed, *self.sampling())
        setting = self._setting(lang)
        head = html.escape(t("explore.written", lang, setting=setting, seed=self.seed))
        prompt = html.escape(self.result["text"])
        new = []

        def show(tail=""):
            text = html.escape(self.view.model.decode(new)) if new else ""
            self.written.value = (
                f'<p data-written="{len(new)}">{head}<br><span style="color:#666">{prompt}</span>'
                f'<b style="color:#0b5394;white-space:pre-wrap">{text}</b> {tail}</p>'
            )

        def steps():
            for i, token in enumerate(self.view.write(self.result["ids"], count, pick)):
                new.append(token)
                self.status.value = f"<i>{html.escape(t('explore.writing', lang, i=i + 1, count=count))}</i>"
                show()

        try:
            self._guarded(steps)
        finally:
            self.status.value = ""
        stopped = bool(new) and new[-1] == self.view.model.config.eos_id
        show(html.escape(t("explore.stopped", lang)) if stopped else "")
        self.result["written"] = list(new)
        return new

    # --- where the widget cannot run ------------------------------------------------------------------

    def still_picture(self):
        """PNG bytes: the heatmap (and the bars) with a caption saying how to get the live widget."""
        pictures = [self.image.value, *([self.bars.value] if self.view.causal else [])]
        return still_png(_png_stack(pictures), t("widgets.still_caption", self.current_language()))

    def _repr_mimebundle_(self, **kwargs):
        """The live widget for Jupyter, plus a captioned picture (image/png) wherever the widget cannot run."""
        import base64

        data = super()._repr_mimebundle_(**kwargs)
        if data is not None and self.image.value:
            data["image/png"] = base64.b64encode(self.still_picture()).decode("ascii")
        return data


def explorer_widget(model, text, seed=0, lang=None):
    """A real model's attention and next token for any text you type: notebooks 10 (MiniLM), 14 (SmolLM2), 15 (Gemma 3).

    model: the loaded model (load_minilm(), load_smollm() or load_gemma3()); text: what the box holds at first (the
    model runs on it at once). seed: the sampler's seed for "write". Controls: "text" (Enter runs the model),
    "layer", "head" (from 1), "all_heads" (a toggle), and for the causal models "temperature" (0 = greedy),
    "top_k" (0 = off), "top_p" (1 = off), "count" (tokens to write) and the "write" button (`write()`).
    `result` holds what the model computed for the text: ids, labels, weights [L, h, n, n], logits, probs.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {describe_value(text)}")
    return ExplorerWidget(ModelView(model), text, seed=seed, lang=lang)
