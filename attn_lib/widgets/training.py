"""A slider over the training checkpoints of notebook 08: watch the blank's attention form.

`checkpoint_widget(result, corpus, split, index)` shows, for one sentence of `split`, where the blank (the
position that predicts the dish) looks in every layer and head, at the training step the slider
selects. Built on the same shell as the widgets of notebooks 04-06 (`attn_lib.widgets`): moving the
slider recomputes and repaints, errors become a one-line message, and the first picture is stored
as PNG for readers without a kernel.
"""

import html

import ipywidgets
import numpy as np

from attn_lib._checks import describe_value
from attn_lib.i18n import t
from attn_lib.models.corpus import Corpus
from attn_lib.models.tiny_training import TrainResult, blank_attention, check_split
from attn_lib.pictures.fast_figures import FastFigure
from attn_lib.pictures.heatmaps import plot_attention
from attn_lib.widgets.shell import AttentionWidget, widget_language


class CheckpointWidget(AttentionWidget):
    """A training-step slider; one heatmap row per (layer, head): the blank's weights over the sentence."""

    kind = "checkpoints"

    def __init__(self, result, corpus, split, index=0, lang=None):
        if not isinstance(corpus, Corpus):
            raise TypeError(
                f"corpus must be a Corpus from attn_lib.models.corpus.make_corpus(), got {describe_value(corpus)}"
            )
        if not isinstance(result, TrainResult):
            raise TypeError(f"result must be the TrainResult returned by train(), got {describe_value(result)}")
        if not result.checkpoints:
            raise ValueError("result has no checkpoints: train with checkpoint_every > 0")
        check_split(split)
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(split):
            raise ValueError(f"index={index!r} must pick a sentence of split, between 0 and {len(split) - 1}")
        self.result, self.split, self.index = result, split, int(index)
        self.params = dict(result.checkpoints)  # step -> parameters at that step
        self.n = int(split.blank[index]) + 1  # the sentence's tokens: up to and including the blank
        self.words = corpus.decode(split.tokens[index])[: self.n]
        steps = list(self.params)
        # the head that looks most at the today-city once training is over: the one to follow along the slider
        final = blank_attention(self.params[steps[-1]], result.config, split)[:, :, self.index, split.today[index]]
        self.head = np.unravel_index(np.argmax(final), final.shape)  # (layer, head)
        slider = ipywidgets.SelectionSlider(
            options=steps,
            value=steps[-1],
            continuous_update=False,
            description=t("tiny.step_axis", widget_language(lang)),
            style={"description_width": "initial"},
        )
        super().__init__({"step": slider}, lang)

    def compute(self, lang):
        step = self.controls["step"].value
        config = self.result.config
        weights = blank_attention(self.params[step], config, self.split)  # [L, h, B, n_max]
        weights = weights[:, :, self.index, : self.n]  # [L, h, n] for this sentence
        rows = weights.reshape(config.n_layers * config.n_heads, self.n)  # [L * h, n]: one row per head
        today, yesterday = int(self.split.today[self.index]), int(self.split.yesterday[self.index])
        state = {
            "step": step,
            "weights": weights,
            "on_today": weights[:, :, today],  # [L, h]
            "on_yesterday": weights[:, :, yesterday],  # [L, h]
        }
        return state, [rows], [t("tiny.checkpoint_title", lang, step=step)]

    def build_figure(self, state, lang):
        config = self.result.config
        labels = [
            t("tiny.layer_head", lang, layer=layer + 1, head=head + 1)
            for layer in range(config.n_layers)
            for head in range(config.n_heads)
        ]
        fig = plot_attention(
            np.full((len(labels), self.n), 0.5), labels, self.words, lang=lang, title="-", annotate=False,
            figsize=(2.6 + 0.42 * self.n, 1.4 + 0.45 * len(labels)),
        )  # fmt: skip
        fig.axes[0].set_ylabel("")
        return FastFigure(fig, titles=[fig.axes[0].title])

    def describe(self, state, lang):
        best = self.head
        text = t(
            "tiny.checkpoint_info",
            lang,
            step=state["step"],
            layer=best[0] + 1,
            head=best[1] + 1,
            today=state["on_today"][best],
            yesterday=state["on_yesterday"][best],
        )
        return f"<p>{html.escape(text)}</p>"


def checkpoint_widget(result, corpus, split, index=0, lang=None):
    """A slider over `result`'s checkpoints: the blank's attention in sentence `index` of `split`.

    `result` comes from `tiny_training.train(corpus, ...)`; `split` is e.g. `corpus.test` or
    `corpus.encode(pairs, templates)`.

    controls: "step" (SelectionSlider over the checkpoint steps, starting at the last). state: step,
    weights ([layers, heads, n]), on_today and on_yesterday ([layers, heads]: the weight on each city),
    n_heatmaps, error.
    """
    return CheckpointWidget(result, corpus, split, index=index, lang=lang)
