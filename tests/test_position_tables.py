"""Notebook 07's picture of position tables: each table's first rows, and the cosine of every pair of positions."""

import re

import numpy as np
import pytest
from test_diagrams import layout_problems, render

from attn_lib.pictures import plot_position_tables
from attn_lib.position import sinusoidal_encoding

SINUSOID = sinusoidal_encoding(80, 32)  # [80, 32]
NOISE = np.random.default_rng(0).normal(0, 0.02, (100, 48))  # a learned table before training: d differs


def test_the_cosines_are_those_of_the_first_rows():
    _, cosines = plot_position_tables([SINUSOID, NOISE], ["sinusoid", "noise"], n_positions=64, lang="en")
    assert cosines.shape == (2, 64, 64)
    for table, cosine in zip((SINUSOID, NOISE), cosines, strict=True):
        rows = table[:64]
        lengths = np.linalg.norm(rows, axis=-1)
        np.testing.assert_allclose(cosine, rows @ rows.T / np.outer(lengths, lengths), atol=1e-12)
        np.testing.assert_allclose(np.diag(cosine), 1.0, atol=1e-12)
    # the sinusoid's band: neighbours are more alike than positions 32 apart; noise has no band
    assert np.diag(cosines[0], 1).mean() > np.diag(cosines[0], 32).mean() + 0.2
    assert abs(np.diag(cosines[1], 1).mean()) < 0.1


def test_the_cosine_depends_on_the_distance_only_for_the_sinusoid():
    _, (cosine,) = plot_position_tables([SINUSOID], ["sinusoid"], n_positions=40, lang="en")
    np.testing.assert_allclose(cosine[1:, 1:], cosine[:-1, :-1], atol=1e-12)  # every row of PE has one length


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_draws_cleanly_in_both_languages(lang):
    fig, _ = plot_position_tables([SINUSOID, NOISE], ["PE", "P"], lang=lang)
    assert layout_problems(fig, render(fig)) == []
    assert len(fig.axes) == 2 * 2 + 4  # a heatmap and a cosine map per table, each with its colour bar
    labels = " ".join(ax.get_xlabel() + ax.get_ylabel() + ax.get_title() for ax in fig.axes)
    assert bool(re.search(r"[\u4e00-\u9fff]", labels)) == (lang == "zh")
    heatmap = fig.axes[0].images[0].get_array()
    assert heatmap.shape == (32, 64)  # features down, the first 64 positions across


@pytest.mark.parametrize(
    ("tables", "titles", "n_positions", "error", "pattern"),
    [
        ([SINUSOID], ["a", "b"], 64, ValueError, "one title per table"),
        ([], [], 64, ValueError, "one title per table"),
        ([SINUSOID], ["short"], 81, ValueError, r"n_max >= 81, got \(80, 32\)"),
        ([SINUSOID[0]], ["one row"], 1, ValueError, "at least 2 dimensions"),
        ([np.zeros((70, 4))], ["zeros"], 64, ValueError, "zero row"),
        ([SINUSOID], ["x"], 0, ValueError, "positive integer"),
        ([[["a"] * 3] * 70], ["text"], 64, TypeError, "real numbers"),
    ],
)
def test_bad_input_is_refused_with_a_message(tables, titles, n_positions, error, pattern):
    with pytest.raises(error, match=pattern):
        plot_position_tables(tables, titles, n_positions)
