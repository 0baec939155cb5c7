"""Notebook 04's pictures of one score: its d_k products as bars, and the softmax Jacobian as a heatmap."""

import re

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from test_diagrams import layout_problems, render

from attn_lib import examples, softmax
from attn_lib.pictures import plot_score_terms, plot_softmax_jacobian
from attn_lib.pictures.score_plots import NEGATIVE, POSITIVE, score_terms, softmax_jacobian

CAT = examples.cat_example()  # d_k = 2
CAT_64 = examples.cat_example(64)


def loop_jacobian(p):
    """The spec: J[i][j] = p_i (1 - p_j) when i == j, else -p_i p_j, one entry at a time."""
    n = len(p)
    return np.array([[p[i] * ((1.0 if i == j else 0.0) - p[j]) for j in range(n)] for i in range(n)])


# --- the numbers -------------------------------------------------------------------------------------


def test_the_terms_add_up_to_the_score_of_the_worked_example():
    """猫 -> 鱼 at d_k = 2 and 64: the products sum to the example's score, and / √d_k to its scaled score."""
    for example in (CAT, CAT_64):
        products, score, scaled = score_terms(example.q[0], example.k[2])
        assert products.shape == (example.q.shape[1],)
        np.testing.assert_allclose(products, [a * b for a, b in zip(example.q[0], example.k[2], strict=True)])
        assert score == pytest.approx(example.scores[0, 2]) and scaled == pytest.approx(example.scaled_scores[0, 2])


def test_the_jacobian_matches_the_loop_and_finite_differences():
    rng = np.random.default_rng(0)
    for n in (2, 3, 7):
        s = rng.standard_normal(n) * 3
        p = softmax(s)
        jacobian = softmax_jacobian(p)
        np.testing.assert_allclose(jacobian, loop_jacobian(p), atol=1e-15)
        eps = 1e-6
        numeric = np.stack([(softmax(s + eps * e) - softmax(s - eps * e)) / (2 * eps) for e in np.eye(n)], axis=1)
        np.testing.assert_allclose(jacobian, numeric, atol=1e-8)
        np.testing.assert_allclose(jacobian.sum(axis=1), 0, atol=1e-15)  # one number added to every score: no change


# --- the bars ----------------------------------------------------------------------------------------


def test_the_bars_are_the_products_then_the_sum_then_the_scaled_score():
    pairs = ((CAT.q[0], CAT.k[2]), (CAT_64.q[0], CAT_64.k[2]))
    fig = plot_score_terms([q for q, _ in pairs], [k for _, k in pairs], "猫", "鱼", lang="en")
    assert len(fig.axes) == 2
    for ax, (q, k) in zip(fig.axes, pairs, strict=True):
        features, total, scaled = ax.containers
        heights = [bar.get_height() for bar in features]
        np.testing.assert_allclose(heights, q * k)
        colours = [tuple(bar.get_facecolor()) for bar in features]
        expected = [POSITIVE if value >= 0 else NEGATIVE for value in q * k]
        assert colours == [to_rgba(c) for c in expected]
        assert total[0].get_height() == pytest.approx(q @ k)
        assert scaled[0].get_height() == pytest.approx(q @ k / np.sqrt(len(q)))
        assert f"d_k = {len(q)}" in ax.get_title() and ax.get_xlabel()
    assert "−0.60" in fig.axes[0].get_title()  # the score printed in the notebook's score matrix
    assert fig.axes[0].get_ylabel() and fig.get_suptitle()


def test_one_pair_draws_one_panel_and_labels_every_bar():
    fig = plot_score_terms(CAT.q[0], CAT.k[2], "猫", "鱼", lang="en")
    (ax,) = fig.axes
    labels = [text.get_text() for text in ax.texts]
    assert labels == ["+0.03", "−0.63", "−0.60", "−0.43"]  # each product, the score −0.603, −0.603 / √2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_both_pictures_draw_cleanly_in_both_languages(lang):
    """Nothing clipped at the figure's edge (notebook 04's histogram title once was), nothing overlapping."""
    figures = (
        plot_score_terms([CAT.q[0], CAT_64.q[0]], [CAT.k[2], CAT_64.k[2]], "猫", "鱼", lang=lang),
        plot_softmax_jacobian([CAT.scaled_scores[1], 22.6 * CAT.scaled_scores[1]], CAT.tokens, lang=lang),
    )
    for fig in figures:
        assert layout_problems(fig, render(fig)) == []
        texts = " ".join([fig.get_suptitle()] + [ax.get_xlabel() + ax.get_title() for ax in fig.axes])
        assert bool(re.search(r"[\u4e00-\u9fff]{2}", texts)) == (lang == "zh")


# --- the Jacobian heatmap ----------------------------------------------------------------------------


def test_each_panel_shows_the_jacobian_of_its_row_on_one_colour_scale():
    row = CAT.scaled_scores[1]  # 吃's row
    fig = plot_softmax_jacobian([row, 22.6 * row], CAT.tokens, names=["small", "large"], lang="en")
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2
    for ax, scores in zip(panels, (row, 22.6 * row), strict=True):
        (image,) = ax.images
        np.testing.assert_allclose(image.get_array(), loop_jacobian(softmax(scores)), atol=1e-15)
        assert [tick.get_text() for tick in ax.get_xticklabels()] == list(CAT.tokens)
    limits = {ax.images[0].get_clim() for ax in panels}
    assert len(limits) == 1 and limits.pop()[0] < 0  # shared and symmetric: a vanished gradient shows as blank
    assert panels[0].get_title().startswith("small") and "1.00" in panels[1].get_title()
    assert panels[0].texts[0].get_text() == f"+{loop_jacobian(softmax(row))[0, 0]:.3f}"
    assert {text.get_text() for text in panels[1].texts} == {"0.000"}  # saturated: every entry rounds to 0


def test_a_single_row_draws_one_panel():
    fig = plot_softmax_jacobian(CAT.scaled_scores[0], CAT.tokens, lang="zh")
    assert len([ax for ax in fig.axes if ax.images]) == 1
    assert "最大权重" in fig.axes[0].get_title()


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "k", "pattern"),
    [
        (np.ones(3), np.ones(4), r"same d_k >= 1, got shapes \(3,\) and \(4,\)"),
        (np.ones((2, 3)), np.ones((2, 3)), r"1-D with the same d_k >= 1, got shapes \(2, 3\) and \(2, 3\)"),
        (np.ones(0), np.ones(0), r"got shapes \(0,\) and \(0,\)"),
        ([np.ones(2), np.ones(3)], [np.ones(2)], "as many vectors .* got 2 and 1"),
        ([np.ones(2), np.ones(3)], [np.ones(2), np.ones(2)], r"got shapes \(3,\) and \(2,\)"),
    ],
)
def test_score_terms_refuse_mismatched_shapes(q, k, pattern):
    with pytest.raises(ValueError, match=pattern):
        plot_score_terms(q, k, "猫", "鱼")


@pytest.mark.parametrize(
    ("scores", "tokens", "names", "pattern"),
    [
        (np.zeros((2, 3, 3)), ["猫", "吃", "鱼"], None, r"one row \[n\] or rows \[panels, n\] .* shape \(2, 3, 3\)"),
        (np.zeros(1), ["猫"], None, r"n >= 2, got shape \(1,\)"),
        (np.zeros(3), ["猫", "吃"], None, "tokens has 2 tokens but the weights have 3"),
        (np.zeros((2, 3)), ["猫", "吃", "鱼"], ["only one"], "one name per row of scores"),
    ],
)
def test_the_jacobian_picture_refuses_bad_shapes(scores, tokens, names, pattern):
    with pytest.raises(ValueError, match=pattern):
        plot_softmax_jacobian(scores, tokens, names=names)


def test_the_jacobian_wants_weights():
    with pytest.raises(ValueError, match="summing to 1"):
        softmax_jacobian([0.5, 0.6])
    with pytest.raises(ValueError, match="1-D"):
        softmax_jacobian(np.eye(2))
