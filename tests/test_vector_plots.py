"""Notebook 02's picture of the dot product: arrows and bars that show q · k = |q| × |k| × cos θ."""

import re

import numpy as np
import pytest
from test_diagrams import layout_problems, render

from attn_lib.pictures.vectors import dot_product_factors, plot_dot_products

KEYS = np.array([[0.0, -1.0], [2.0, -1.0], [0.0, 1.0], [2.0, 1.0]])  # notebook 02: 昨天 北京 今天 上海
QUERY = np.array([1.0, 1.0])  # "which city, today?"
TOKENS = ["昨天", "北京", "今天", "上海"]


def test_the_factors_multiply_to_the_dot_product():
    q_len, k_len, cosines, dots = dot_product_factors(QUERY, KEYS)
    np.testing.assert_allclose(dots, [-1, 1, 1, 3])
    np.testing.assert_allclose(q_len * k_len * cosines, dots)
    np.testing.assert_allclose(cosines[0], -(0.5**0.5))  # 昨天 points away from the question: cos < 0
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(5), rng.standard_normal((7, 5))
    q_len, k_len, cosines, dots = dot_product_factors(q, k)
    np.testing.assert_allclose(q_len * k_len * cosines, k @ q)
    assert np.all(np.abs(cosines) <= 1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_draws_cleanly_in_both_languages(lang):
    fig = plot_dot_products(QUERY, KEYS, TOKENS, lang=lang)
    assert layout_problems(fig, render(fig)) == []
    texts = " ".join(text.get_text() for text in fig.texts)
    assert bool(re.search(r"[\u4e00-\u9fff]", texts)) == (lang == "zh")


def test_each_bar_is_the_dot_product_and_its_label_the_three_factors():
    fig = plot_dot_products(QUERY, KEYS, TOKENS, lang="en")
    bars = fig.axes[1].patches
    widths = [bar.get_width() for bar in sorted(bars, key=lambda bar: -bar.get_y())]  # top bar first
    np.testing.assert_allclose(widths, KEYS @ QUERY)
    labels = [text.get_text() for text in fig.axes[1].texts]
    for label, dot in zip(labels, KEYS @ QUERY, strict=True):
        a, b, c, total = (float(x.replace("−", "-")) for x in re.findall(r"[−+]?\d+\.\d+", label))
        assert abs(a * b * c - dot) < 0.02 and total == pytest.approx(dot)
    ticks = sorted(((tick.get_position()[1], tick.get_text()) for tick in fig.axes[1].get_yticklabels()), reverse=True)
    assert [label for _, label in ticks] == TOKENS  # the first key on top, like the arrows' labels


def test_the_longer_key_wins_though_it_points_elsewhere():
    """The correction of notebook 02: [3, 0] has the larger dot product and the smaller cosine."""
    _, _, cosines, dots = dot_product_factors(QUERY, [[1.0, 1.0], [3.0, 0.0]])
    assert dots[1] > dots[0] and cosines[1] < cosines[0] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("query", "keys", "labels", "pattern"),
    [
        ([1.0, 1.0, 1.0], np.ones((2, 3)), ["a", "b"], "draws 2-D vectors"),
        ([1.0, 1.0], np.ones((2, 3)), ["a", "b"], r"same d, got shapes \(2,\) and \(2, 3\)"),
        ([0.0, 0.0], np.ones((2, 2)), ["a", "b"], "zero vectors"),
        ([1.0, 1.0], np.ones((2, 2)), ["a"], "labels has 1 entries but there are 2 keys"),
        ([1.0, np.nan], np.ones((2, 2)), ["a", "b"], "query contains NaN"),
    ],
)
def test_bad_input_gets_a_clear_error(query, keys, labels, pattern):
    with pytest.raises(ValueError, match=pattern):
        plot_dot_products(query, keys, labels)


@pytest.mark.parametrize("labels", [None, "昨天北京", 4])
def test_labels_must_be_a_list(labels):
    with pytest.raises(TypeError, match="labels must be a list of 4 key names"):
        plot_dot_products(QUERY, KEYS, labels)


def test_a_key_along_the_query_stays_visible_and_its_label_clear_of_the_shadows():
    """Notebook 02's [1, 1] key equals the query: it is drawn over q, and its label sits off q's line, not on the
    shadow of the other key (issue 26)."""
    keys, labels = np.array([[1.0, 1.0], [3.0, 0.0]]), ["[1, 1]", "[3, 0]"]
    fig = plot_dot_products(QUERY, keys, labels, lang="en")
    renderer = render(fig)
    arrows = fig.axes[0]
    q_arrow = next(a for a in arrows.texts if a.get_text() == "" and a.arrow_patch.get_linewidth() > 3)
    key_arrows = [a for a in arrows.texts if a.get_text() == "" and a is not q_arrow]
    assert all(a.get_zorder() > q_arrow.get_zorder() for a in key_arrows)  # keys drawn over the query
    label = next(a for a in arrows.texts if a.get_text() == "[1, 1]").get_window_extent(renderer)
    feet = [line for line in arrows.lines if line.get_marker() == "o"]
    for foot in feet:  # the shadows' end points on q's line
        x, y = arrows.transData.transform(np.column_stack(foot.get_data())[0])
        assert not label.expanded(1.2, 1.2).contains(x, y), "the [1, 1] label sits on a shadow"
    assert layout_problems(fig, renderer) == []
