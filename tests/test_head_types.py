"""Head types by a computed rule (attn_lib.models.minilm.head_types): each rule against a plain loop, on heads built to
satisfy it, at its threshold, in its order; bad input named; the grid drawn in both languages."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from attn_lib.i18n import t
from attn_lib.models.minilm.head_types import (
    HEAD_TYPES,
    band_marks,
    band_scores,
    count_head_types,
    head_type_scores,
    head_types,
)
from attn_lib.pictures.head_types import TYPE_COLORS, plot_head_types


def random_weights(shape, seed):
    """Random attention weights: every row a distribution."""
    x = np.random.default_rng(seed).exponential(size=shape)
    return x / x.sum(axis=-1, keepdims=True)


def loop_scores(weights):
    """The rules written as plain loops over layers, heads and queries."""
    n_layers, n_heads, n, _ = weights.shape
    scores = {kind: np.zeros((n_layers, n_heads)) for kind in ("previous", "next", "special")}
    for layer in range(n_layers):
        for head in range(n_heads):
            w = weights[layer, head]
            scores["previous"][layer, head] = sum(w[i, i - 1] for i in range(1, n)) / (n - 1)
            scores["next"][layer, head] = sum(w[i, i + 1] for i in range(n - 1)) / (n - 1)
            scores["special"][layer, head] = sum(w[i, 0] + w[i, n - 1] for i in range(n)) / n
    return scores


@pytest.mark.parametrize(("shape", "seed"), [((2, 3, 5, 5), 0), ((3, 4, 7, 7), 1), ((1, 1, 3, 3), 2)])
def test_the_scores_are_the_plain_loops(shape, seed):
    weights = random_weights(shape, seed)  # distinct sizes: a swapped axis cannot pass
    expected = loop_scores(weights)
    got = head_type_scores(weights)
    assert set(got) == set(expected)
    for kind in expected:
        np.testing.assert_allclose(got[kind], expected[kind], atol=1e-12, err_msg=kind)


def built_heads(n=6):
    """[1, 4, n, n]: a previous-token head, a next-token head, a head on the first and last token, a uniform one."""
    eye = np.eye(n)
    previous = np.roll(eye, -1, axis=1)  # row i has its 1 in column i - 1
    previous[0] = eye[0]  # the first token has no previous one: itself
    following = np.roll(eye, 1, axis=1)  # row i has its 1 in column i + 1
    following[-1] = eye[-1]
    special = np.zeros((n, n))
    special[:, 0] = special[:, -1] = 0.5
    uniform = np.full((n, n), 1 / n)
    return np.stack([previous, following, special, uniform])[None]


def test_each_rule_names_the_head_built_for_it():
    types = head_types(built_heads())
    assert types.tolist() == [["previous", "next", "special", "other"]]
    assert count_head_types(types) == {"previous": 1, "next": 1, "special": 1, "other": 1}


def test_an_average_at_the_threshold_counts_and_just_below_does_not():
    n = 5
    half = np.eye(n) / 2  # every query after the first puts 0.5 on itself and 0.5 on its previous token
    half[np.arange(1, n), np.arange(n - 1)] = 0.5
    half[0, 0] = 1.0
    weights = half[None, None]
    assert head_type_scores(weights)["previous"][0, 0] == pytest.approx(0.5)
    assert head_types(weights).item() == "previous"
    assert head_types(weights, threshold=0.51).item() == "other"


def test_the_first_rule_that_holds_names_the_head():
    # query 1 looks at key 0, which is both its previous token and [CLS]: both rules hold, "previous" comes first
    w = np.array([[1.0, 0, 0], [1.0, 0, 0], [0, 0, 1.0]])
    scores = head_type_scores(w[None, None])
    assert scores["previous"][0, 0] >= 0.5 and scores["special"][0, 0] >= 0.5
    assert head_types(w[None, None]).item() == HEAD_TYPES[0] == "previous"


@pytest.mark.parametrize(
    ("bad", "error", "words"),
    [
        (np.full((3, 3), 1 / 3), ValueError, "at least 4 dimensions"),
        (np.full((1, 1, 3, 4), 0.25), ValueError, r"\[L, h, n, n\]"),
        (np.full((1, 1, 2, 2), 0.5), ValueError, "at least 3 tokens"),
        (np.full((1, 1, 3, 3), 0.5), ValueError, "sums to 1.5"),
        ("weights", TypeError, "attentions must be an array"),
    ],
)
def test_bad_attentions_are_named(bad, error, words):
    with pytest.raises(error, match=words):
        head_types(bad)


def test_bad_thresholds_types_and_sizes_are_named():
    weights = built_heads()
    for threshold in (0, 1.5):
        with pytest.raises(ValueError, match=f"threshold={float(threshold)}"):
            head_types(weights, threshold=threshold)
    with pytest.raises(ValueError, match=r"types must be \[L, h\] = \(1, 4\)"):
        plot_head_types(weights, np.array([["other"] * 3]))
    with pytest.raises(ValueError, match="types must hold only"):
        count_head_types([["previous", "induction"]])
    with pytest.raises(ValueError, match="cell=-1.0"):
        plot_head_types(weights, cell=-1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_grid_frames_each_head_in_its_types_colour_and_counts_them(lang):
    weights = np.concatenate([built_heads(), built_heads()[:, ::-1]])  # [2, 4, n, n]
    types = head_types(weights)
    fig = plot_head_types(weights, types, lang=lang)
    axes = np.array(fig.axes).reshape(2, 4)
    for (layer, head), kind in np.ndenumerate(types):
        spine = axes[layer, head].spines["left"]
        assert to_rgba(spine.get_edgecolor()) == to_rgba(TYPE_COLORS[kind]), (layer, head, kind)
        assert (spine.get_linewidth() > 1) == (kind != "other")
    (legend,) = fig.legends
    counts = count_head_types(types)
    assert [text.get_text() for text in legend.get_texts()][: len(HEAD_TYPES)] == [
        t(f"heads.{kind}", lang, count=counts[kind], threshold=0.5) for kind in HEAD_TYPES
    ]
    assert axes[0, 0].get_title() == t("head_title", lang, i=1) and axes[1, 0].get_ylabel() == t(
        "heads.layer", lang, layer=2
    )
    fig.canvas.draw()  # every label rendered: a missing glyph would raise (conftest)


def test_the_legend_states_the_threshold_used():
    fig = plot_head_types(built_heads(), threshold=0.4, lang="en")
    assert "0.4" in fig.legends[0].get_texts()[0].get_text()


# --- the diagonal bands in the weight that is not parked ------------------------------------------------


def loop_band_scores(weights, width=2):
    """band_scores as plain loops: drop [CLS] and [SEP], rescale each row, average the band over the rows."""
    n_layers, n_heads, n, _ = weights.shape
    scores = {name: np.zeros((n_layers, n_heads)) for name in ("behind", "ahead")}
    for layer in range(n_layers):
        for head in range(n_heads):
            rows = []
            for i in range(1, n - 1):
                rest = [weights[layer, head, i, j] for j in range(1, n - 1)]
                if sum(rest) > 1e-12:
                    rows.append((i, {j: weights[layer, head, i, j] / sum(rest) for j in range(1, n - 1)}))
            for name, sign in (("behind", -1), ("ahead", 1)):
                on = [sum(row.get(i + sign * d, 0.0) for d in range(1, width + 1)) for i, row in rows]
                scores[name][layer, head] = sum(on) / max(len(on), 1)
    return scores


@pytest.mark.parametrize(("shape", "seed"), [((2, 3, 6, 6), 3), ((1, 2, 9, 9), 4), ((1, 1, 3, 3), 5)])
def test_the_band_scores_are_the_plain_loops(shape, seed):
    weights = random_weights(shape, seed)
    got, expected = band_scores(weights), loop_band_scores(weights)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], atol=1e-12, err_msg=name)


def parked_with_a_band(n=8, parked=0.6, offset=-1):
    """One head that parks `parked` on [CLS] and puts the rest on key i + offset (where there is one)."""
    w = np.zeros((n, n))
    for i in range(n):
        j = i + offset
        if 1 <= j < n - 1 and 1 <= i < n - 1:
            w[i, 0], w[i, j] = parked, 1 - parked
        else:
            w[i, 0] = 1.0
    return w[None, None]  # [1, 1, n, n]


def test_a_head_that_parks_can_still_hold_a_band_and_the_grid_marks_it():
    behind, ahead = parked_with_a_band(offset=-1), parked_with_a_band(offset=2)
    weights = np.concatenate([behind, ahead, parked_with_a_band(offset=4)], axis=1)  # [1, 3, n, n]
    assert list(head_types(weights)[0]) == ["special"] * 3  # the frame alone says only "parks"
    assert list(band_marks(weights)[0]) == ["behind", "ahead", ""]  # offset 4 is outside the band of 2
    fig = plot_head_types(weights, lang="en")
    marked = [[line.get_marker() for line in ax.get_lines() if line.get_gid() == "band"] for ax in fig.axes[:3]]
    assert marked == [["<"], [">"], []]
    texts = [text.get_text() for text in fig.legends[0].get_texts()]
    assert texts[-2:] == [
        t("heads.band_behind", "en", count=1, threshold=0.5),
        t("heads.band_ahead", "en", count=1, threshold=0.5),
    ]
    assert not [ln for ax in plot_head_types(weights, bands=False).axes for ln in ax.get_lines()]


def test_a_previous_token_head_gets_no_second_mark():
    n = 6
    w = np.zeros((1, 1, n, n))
    w[0, 0, 0, 0] = 1.0
    for i in range(1, n):
        w[0, 0, i, i - 1] = 1.0
    assert head_types(w)[0, 0] == "previous" and band_marks(w)[0, 0] == "behind"
    fig = plot_head_types(w)
    assert not [line for line in fig.axes[0].get_lines() if line.get_gid() == "band"]
