"""The learned-attention pictures say what their colours mean: every colour that carries meaning has a
legend entry with that colour, in both languages (issue 15, item 4)."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from attn_lib.i18n import t
from attn_lib.pictures.training_plots import (
    ACCURACY_COLOR,
    OTHER_COLOR,
    TODAY_COLOR,
    YESTERDAY_COLOR,
    plot_blank_attention,
    plot_progress,
    plot_training,
)

LANGS = ("en", "zh")


def entries(legend):
    """legend -> {label: colour of its handle (RGBA)}."""
    colours = {}
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        colour = handle.get_facecolor() if hasattr(handle, "get_facecolor") else None
        if colour is None or not np.any(colour):
            colour = handle.get_color()
        colours[text.get_text()] = to_rgba(colour)
    return colours


@pytest.mark.parametrize("lang", LANGS)
def test_the_blank_attention_bars_have_a_legend_for_each_colour(lang):
    weights = np.full((2, 2, 5), 0.2)  # [L, h, n]
    fig = plot_blank_attention(weights, list("abcde"), today=3, yesterday=1, lang=lang)
    (legend,) = fig.legends
    assert entries(legend) == {
        t("tiny.legend_today", lang): to_rgba(TODAY_COLOR),
        t("tiny.legend_yesterday", lang): to_rgba(YESTERDAY_COLOR),
        t("tiny.legend_other", lang): to_rgba(OTHER_COLOR),
    }
    bars = fig.axes[0].patches
    assert to_rgba(bars[3].get_facecolor()) == to_rgba(TODAY_COLOR)  # the bar has the colour its entry names
    assert to_rgba(bars[1].get_facecolor()) == to_rgba(YESTERDAY_COLOR)
    fig.canvas.draw()  # a missing glyph would raise (conftest)


def test_no_legend_when_no_bar_is_coloured():
    fig = plot_blank_attention(np.full((1, 1, 3), 1 / 3), list("abc"))
    assert not fig.legends  # every bar has the same colour: nothing to explain


def test_only_the_cities_given_get_an_entry():
    fig = plot_blank_attention(np.full((1, 1, 3), 1 / 3), list("abc"), today=2, lang="en")
    assert list(entries(fig.legends[0])) == [t("tiny.legend_today", "en"), t("tiny.legend_other", "en")]


@pytest.mark.parametrize("lang", LANGS)
def test_the_training_curves_name_their_lines(lang):
    steps, loss, accuracy = [0, 10, 20], [6.0, 2.0, 0.1], [0.0, 0.5, 1.0]
    fig = plot_training(steps, loss, accuracy, [0, 5, 10, 15, 20], [0.1] * 5, [0.1] * 5, lang=lang)
    left, right = fig.axes[0], fig.axes[1]
    assert entries(left.get_legend()) == {
        t("tiny.loss", lang): to_rgba("black"),
        t("tiny.validation_accuracy", lang): to_rgba(ACCURACY_COLOR),
    }
    assert entries(right.get_legend()) == {
        t("tiny.to_today", lang): to_rgba(TODAY_COLOR),
        t("tiny.to_yesterday", lang): to_rgba(YESTERDAY_COLOR),
    }
    fig.canvas.draw()


@pytest.mark.parametrize("lang", LANGS)
def test_the_live_curve_names_its_lines_and_the_target(lang):
    fig = plot_progress([0, 1, 2], [6.0, 5.0, 4.0], [0], [0.1], 300, target=0.99, lang=lang)
    assert entries(fig.axes[0].get_legend()) == {
        t("tiny.loss", lang): to_rgba("black"),
        t("tiny.validation_accuracy", lang): to_rgba(ACCURACY_COLOR),
        t("tiny.legend_target", lang, target=0.99): to_rgba(ACCURACY_COLOR),
    }
    fig.canvas.draw()
    without_target = plot_progress([0, 1], [6.0, 5.0], [0], [0.1], 300, lang=lang)
    assert len(entries(without_target.axes[0].get_legend())) == 2
