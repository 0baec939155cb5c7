"""Notebook 09's pictures (attn_lib.pictures.translation_plots): each draws in both languages with every glyph, keeps
its text inside the figure and its boxes, and draws what it is given: the masks' cells, the alignment's marks."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from test_diagrams import layout_problems, render, strings

from attn_lib import i18n
from attn_lib.models.translation_corpus import make_parallel_corpus
from attn_lib.models.translation_decoding import alignment_accuracy, baseline_alignments, reference_cross_weights
from attn_lib.models.translation_experiment import load_translation_model, load_translation_table
from attn_lib.pictures import (
    draw_encoder_decoder,
    draw_translation_masks,
    plot_alignment,
    plot_alignment_by_head,
    plot_dropout_seeds,
)
from attn_lib.pictures.heatmaps import MASK_FACE
from attn_lib.pictures.translation_plots import ALLOWED_FACE, KNOWN_EDGE


@pytest.fixture(scope="module")
def model():
    corpus = make_parallel_corpus()
    params, config = load_translation_model(corpus)
    return corpus, reference_cross_weights(params, config, corpus.test)  # [L, B, h, T, S]


def article_row(model):
    corpus, weights = model
    pair = corpus.test.pairs[0]  # 我 昨天 在 北京 吃了 烤鸭
    return weights[0, 0].mean(axis=0)[: len(pair.target), : len(pair.source)], pair


FIGURES = {
    "encoder_decoder": lambda model, lang: draw_encoder_decoder(lang=lang),
    "masks": lambda model, lang: draw_translation_masks(lang=lang),
    "alignment": lambda model, lang: plot_alignment(*_alignment_args(model), lang=lang),
    "by_head": lambda model, lang: plot_alignment_by_head(
        alignment_accuracy(model[1], model[0].test.align), baseline_alignments(model[0].test), lang=lang
    ),
    "seeds": lambda model, lang: plot_dropout_seeds(load_translation_table()["runs"], lang=lang),
}


def _alignment_args(model):
    weights, pair = article_row(model)
    return weights, pair.target, pair.source, pair.align


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_picture_draws_cleanly_in_both_languages(model, name, lang):
    fig = FIGURES[name](model, lang)
    assert isinstance(fig, Figure) and fig.get_size_inches()[0] <= 12.0
    assert layout_problems(fig, render(fig)) == []


def test_the_diagram_names_both_stacks_and_where_q_k_v_come_from():
    drawn = strings(draw_encoder_decoder(lang="en"))
    for key in ("translation.encoder", "translation.decoder", "translation.kv_from_memory", "translation.cross"):
        assert i18n.t(key, "en") in drawn
    assert "<bos>" in drawn and "<eos>" in drawn and "北京" in drawn and "Beijing" in drawn


def test_the_masks_hide_the_padding_and_the_future():
    fig = draw_translation_masks(source_batch=(("我", "昨天", "在", "北京"), ("猫", "吃")), target=("the", "cat"))
    encoder, decoder, cross = fig.axes[:3]

    def allowed(ax):
        cells = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_fill() and p.get_hatch() is None]
        grid = {}
        for cell in cells:
            x, y = cell.get_xy()
            grid[round(y + 0.5), round(x + 0.5)] = cell.get_facecolor()[:3] == Figure().get_facecolor()[:3] or (
                np.allclose(cell.get_facecolor()[:3], _rgb(ALLOWED_FACE))
            )
        n_q, n_k = max(i for i, _ in grid) + 1, max(j for _, j in grid) + 1
        return np.array([[grid[i, j] for j in range(n_k)] for i in range(n_q)])

    real = np.array([True, True, False, False])  # 猫 吃 <pad> <pad>
    assert (allowed(encoder) == np.broadcast_to(real, (4, 4))).all()
    assert (allowed(decoder) == np.tril(np.ones((3, 3), dtype=bool))).all()  # <bos> the cat
    assert (allowed(cross) == np.broadcast_to(real, (3, 4))).all()
    assert [label.get_text() for label in cross.get_xticklabels()] == ["猫", "吃", "<pad>", "<pad>"]
    assert _rgb(MASK_FACE) != _rgb(ALLOWED_FACE)


def _rgb(colour):
    from matplotlib.colors import to_rgb

    return to_rgb(colour)


def test_the_alignment_marks_the_known_cells_and_the_largest_weights(model):
    weights, pair = article_row(model)
    fig = plot_alignment(weights, pair.target, pair.source, pair.align)
    learned = fig.axes[0]
    frames = [p for p in learned.patches if isinstance(p, Rectangle) and _rgb(p.get_edgecolor()) == _rgb(KNOWN_EDGE)]
    framed = sorted((round(p.get_y() + 0.5), round(p.get_x() + 0.5)) for p in frames)
    assert framed == sorted((i, j) for i, j in enumerate(pair.align) if j >= 0)
    dots = learned.lines[-1].get_xydata()
    assert (np.round(dots[:, 0] - 0.32).astype(int) == weights.argmax(axis=1)).all()
    known = fig.axes[1].images[0].get_array()
    assert known.sum() == (np.array(pair.align) >= 0).sum()


def test_an_unaligned_word_is_said_to_have_no_counterpart():
    fig = plot_alignment(np.full((2, 3), 1 / 3), ["the", "cat"], ["猫", "吃", "鱼"], [-1, 0], lang="zh")
    assert i18n.t("translation.no_alignment", "zh") in strings(fig)


def test_bad_inputs_are_named(model):
    weights, pair = article_row(model)
    with pytest.raises(ValueError, match="align must be 7 integer source positions"):
        plot_alignment(weights, pair.target, pair.source, pair.align[:-1])
    with pytest.raises(ValueError, match="must lie in -1..5"):
        plot_alignment(weights, pair.target, pair.source, [0, 1, 2, 3, 4, 5, 6])
    with pytest.raises(ValueError, match="target_words"):
        plot_alignment(weights, pair.target[:-1], pair.source, pair.align)
    with pytest.raises(ValueError, match="shares in"):
        plot_alignment_by_head(np.array([[1.5]]), {"diagonal": 0.1, "uniform": 0.2})
    with pytest.raises(TypeError, match="baselines"):
        plot_alignment_by_head(np.array([[0.5]]), [0.1, 0.2])
    with pytest.raises(ValueError, match="two dropout rates"):
        plot_dropout_seeds([r for r in load_translation_table()["runs"] if r["drop"] == 0.0])
    with pytest.raises(TypeError, match="source_batch"):
        draw_translation_masks(source_batch="猫吃鱼")
