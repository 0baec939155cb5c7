"""Notebook 13's pictures: each draws in both languages with every glyph and its text inside the figure, and
draws the numbers it is given (bar heights recomputed here with attn_lib.sampling)."""

import numpy as np
import pytest
from test_diagrams import layout_problems, render, strings

from attn_lib.core import softmax
from attn_lib.i18n import t
from attn_lib.pictures import draw_kv_cache, plot_lm_training, plot_next_token, plot_sampling_filters
from attn_lib.pictures.generation_plots import FILTER_SETTINGS, NextTokenBars, top_and_rest
from attn_lib.sampling import sampling_distribution

LANGS = ("en", "zh")
TOKENS = ["很好", "不错", "真热", "见", "小面", "天", "。"]
LOGITS = np.array([2.0, 1.5, 0.6, -1.0, -1.2, -2.0, -3.0])
RUNS = [
    {"seed": 0, "best_step": 200, "history": [[0, None, 5.0], [100, 2.0, 1.5], [200, 1.2, 1.1]]},
    {"seed": 1, "best_step": 100, "history": [[0, None, 5.1], [100, 2.1, 1.4], [200, 1.1, 1.45]]},
]


def bar_heights(ax):
    return np.array([patch.get_height() for patch in ax.patches if patch.get_fill()])


@pytest.mark.parametrize("lang", LANGS)
def test_every_picture_draws_cleanly(lang):
    figures = [
        plot_next_token([("a", TOKENS[:3], [0.5, 0.3, 0.2]), ("b", TOKENS, softmax(LOGITS))], lang=lang),
        plot_sampling_filters(LOGITS, TOKENS, lang=lang),
        plot_lm_training(RUNS, lang=lang),
        draw_kv_cache(["<bos>", "今天", "天气", "很好", "。"], prompt=3, lang=lang),
    ]
    for fig in figures:
        assert fig.get_size_inches()[0] <= 10.0
        assert layout_problems(fig, render(fig)) == []


def test_next_token_panels_show_the_top_tokens_and_the_rest_together():
    probs = softmax(LOGITS)
    fig = plot_next_token([("counted", TOKENS[:3], [0.5, 0.3, 0.2]), ("model", TOKENS, probs)], top=3, lang="en")
    left, right = fig.axes
    np.testing.assert_allclose(bar_heights(left), [0.5, 0.3, 0.2])  # three tokens: no "others" bar
    np.testing.assert_allclose(bar_heights(right), [*probs[:3], probs[3:].sum()])
    assert right.get_xticklabels()[-1].get_text() == t("gen.others", "en", n=4)
    assert left.patches[0].get_facecolor() == right.patches[0].get_facecolor()  # 很好 has one colour in both


def test_each_filter_panel_is_the_distribution_sampling_draws_from():
    fig = plot_sampling_filters(LOGITS, TOKENS, top=4, lang="en")
    for ax, (temperature, top_k, top_p) in zip(fig.axes, FILTER_SETTINGS, strict=True):
        probs = sampling_distribution(LOGITS, temperature, top_k, top_p)
        np.testing.assert_allclose(bar_heights(ax), [*probs[:4], probs[4:].sum()], atol=1e-12)
        assert t("gen.kept", "en", n=int((probs > 0).sum())) in ax.get_title()


def test_the_training_picture_marks_the_checkpoint_kept():
    fig = plot_lm_training(RUNS, lang="en")
    dots = [line for line in fig.axes[0].lines if line.get_marker() == "o"]
    assert [(d.get_xdata()[0], d.get_ydata()[0]) for d in dots] == [(200, 1.1), (100, 1.4)]


def test_the_cache_with_a_prompt_stores_it_in_one_step():
    fig = draw_kv_cache(["<bos>", "今天", "天气", "很好", "。"], prompt=3, lang="en")
    drawn = strings(fig)
    assert t("diagrams.kv_row", "en", k=9, full=9) in drawn  # the prefill: 3 queries x 3 keys
    assert t("diagrams.kv_row", "en", k=5, full=25) in drawn and t("diagrams.kv_step", "en", t=4) not in drawn
    with pytest.raises(ValueError, match="prompt=6 must be between 1 and the 5 tokens"):
        draw_kv_cache(["a", "b", "c", "d", "e"], prompt=6)


def test_the_widget_frame_repaints_what_it_is_given():
    labels, heights = top_and_rest(TOKENS, softmax(LOGITS), 4)
    frame = NextTokenBars(labels, heights, n_rest=3)
    png = frame.render([np.array([0.7, 0.3, 0.0, 0.0, 0.0])], ["title", "seed 0 writes: 今天天气很好。"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert [bar.get_height() for bar in frame.bars] == [0.7, 0.3, 0.0, 0.0, 0.0]
    assert [text.get_text() for text in frame.texts] == ["title", "seed 0 writes: 今天天气很好。"]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="sum to 1"):
        plot_next_token([("a", ["x", "y"], [0.5, 0.2])])
    with pytest.raises(ValueError, match="2 tokens but probabilities of shape"):
        plot_next_token([("a", ["x", "y"], [1.0])])
    with pytest.raises(TypeError, match="panels must be a non-empty list"):
        plot_next_token([])
    with pytest.raises(TypeError, match="runs must be a non-empty list"):
        plot_lm_training({"seed": 0})
