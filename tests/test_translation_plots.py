"""Notebook 09's pictures (attn_lib.pictures.translation_plots): each draws in both languages with every glyph, keeps
all its text (titles, tick labels and legends too) inside the figure and off other text, and draws what it is given:
the masks' cells, the alignment's marks, each seed's pair of runs."""

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb
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
from attn_lib.pictures.translation_plots import ALLOWED_FACE, BETTER, KNOWN_EDGE, LARGEST, SAME, WORSE


@pytest.fixture(scope="module")
def model():
    corpus = make_parallel_corpus()
    params, config = load_translation_model(corpus)
    return corpus, reference_cross_weights(params, config, corpus.test)  # [L, B, h, T, S]


def sentence(model, source, layer=0, head=None):
    """One test sentence's cross-attention [T, S] (head None: the layer's heads averaged) and its pair."""
    corpus, weights = model
    i = next(i for i, p in enumerate(corpus.test.pairs) if " ".join(p.source) == source)
    pair = corpus.test.pairs[i]
    w = weights[layer, i].mean(axis=0) if head is None else weights[layer, i, head]
    return w[: len(pair.target), : len(pair.source)], pair


ARTICLE = "我 昨天 在 北京 吃了 烤鸭"
WEATHER = "北京 今天 天气 很好"  # the weather in Beijing is nice today: "the", "in", "is" have no counterpart


def _by_head(model, lang):
    corpus, weights = model
    accuracy = alignment_accuracy(weights, corpus.test.align)
    averaged = alignment_accuracy(weights.mean(axis=2, keepdims=True), corpus.test.align)[:, 0]
    return plot_alignment_by_head(accuracy, baseline_alignments(corpus.test), averaged=averaged, lang=lang)


def _alignment(model, lang, source=ARTICLE, title=None):
    weights, pair = sentence(model, source)
    return plot_alignment(weights, pair.target, pair.source, pair.align, title=title, lang=lang)


FIGURES = {
    "encoder_decoder": lambda model, lang: draw_encoder_decoder(lang=lang),
    "masks": lambda model, lang: draw_translation_masks(lang=lang),
    "alignment": lambda model, lang: _alignment(model, lang),
    "alignment_unaligned_words": lambda model, lang: _alignment(model, lang, WEATHER, "layer 1, heads averaged"),
    "by_head": _by_head,
    "by_head_no_average": lambda model, lang: plot_alignment_by_head(
        alignment_accuracy(model[1], model[0].test.align), baseline_alignments(model[0].test), lang=lang
    ),
    "seeds": lambda model, lang: plot_dropout_seeds(load_translation_table()["runs"], lang=lang),
}


# --- every text, not only the texts put on the axes: titles, axis and tick labels, legends ---------------------


def every_text(fig):
    """Every visible, non-empty text the figure draws, with whether it is a tick label (and of which axis)."""
    texts = [(text, None) for text in (*fig.texts, fig._suptitle) if text is not None]
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None:
            texts += [(text, None) for text in (*legend.get_texts(), legend.get_title())]
    for ax in fig.axes:
        texts += [(text, None) for text in (*ax.texts, ax.title, ax._left_title, ax._right_title)]
        for axis in (ax.xaxis, ax.yaxis):
            texts.append((axis.label, None))
            low, high = sorted(axis.get_view_interval())
            for locations, ticks in (
                (axis.get_majorticklocs(), axis.get_major_ticks),
                (axis.get_minorticklocs(), axis.get_minor_ticks),
            ):
                drawn = ticks(len(locations))
                texts += [(tick.label1, axis) for tick in drawn if low - 1e-9 <= tick.get_loc() <= high + 1e-9]
    unique = {id(text): (text, axis) for text, axis in reversed(texts)}  # the suptitle is also in fig.texts
    return [(text, axis) for text, axis in unique.values() if text.get_visible() and text.get_text().strip()]


def text_problems(fig, renderer):
    """Texts outside the figure, below 8 pt, or over another text (two tick labels of one axis may touch: a rotated
    label's box is larger than its letters)."""
    problems = []
    texts = every_text(fig)
    extents = [text.get_window_extent(renderer) for text, _ in texts]
    for (text, _), box in zip(texts, extents, strict=True):
        if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > fig.bbox.width + 0.5 or box.y1 > fig.bbox.height + 0.5:
            problems.append(f"outside the figure: {text.get_text()!r}")
        if text.get_fontsize() < 8:
            problems.append(f"smaller than 8 pt: {text.get_text()!r}")
    for ((a, axis_a), box_a), ((b, axis_b), box_b) in itertools.combinations(zip(texts, extents, strict=True), 2):
        if axis_a is not None and axis_a is axis_b:
            continue
        if (
            min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0) > 1
            and min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0) > 1
        ):
            problems.append(f"overlapping: {a.get_text()!r} and {b.get_text()!r}")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_picture_draws_cleanly_in_both_languages(model, name, lang):
    fig = FIGURES[name](model, lang)
    assert isinstance(fig, Figure) and fig.get_size_inches()[0] <= 10.0
    renderer = render(fig)  # a missing glyph, or any warning, fails here
    assert layout_problems(fig, renderer) == []  # the diagrams' check: boxes too
    assert text_problems(fig, renderer) == []


def test_the_text_check_sees_titles_and_tick_labels():
    fig = draw_translation_masks(lang="en")
    fig.suptitle(fig.axes[1].get_title(), y=fig.axes[1].title.get_position()[1])  # over the middle panel's title
    fig.axes[0].set_title("a title far too long for its panel, so it runs past the edge of the figure " * 3)
    problems = text_problems(fig, render(fig))
    assert any(p.startswith("overlapping") for p in problems)
    assert any(p.startswith("outside the figure") for p in problems)


# --- the encoder–decoder ---------------------------------------------------------------------------------------


def test_the_diagram_names_both_stacks_and_where_q_k_v_come_from():
    for lang in ("en", "zh"):
        drawn = strings(draw_encoder_decoder(lang=lang))
        for key in ("translation.encoder", "translation.decoder", "translation.kv_from_memory",
                    "translation.q_from_decoder", "translation.cross", "translation.self_causal",
                    "translation.self_pad", "translation.memory"):  # fmt: skip
            assert i18n.t(key, lang) in drawn, key
        assert i18n.t("translation.layers", lang, n=2) in drawn


def test_the_decoder_reads_bos_and_writes_each_next_word_above_it():
    target = ("the", "cat", "eats", "fish")
    fig = draw_encoder_decoder(("猫", "吃", "鱼"), target, lang="en", n_layers=3)
    drawn = {text.get_text(): text.get_position() for text in fig.axes[0].texts}
    assert i18n.t("translation.layers", "en", n=3) in drawn
    boxes = [(text.get_text(), *text.get_position()) for text in fig.axes[0].texts]
    inputs = sorted((x, word) for word, x, y in boxes if y < 1.0 and word in {"<bos>", *target})
    outputs = sorted((x, word) for word, x, y in boxes if y > 4.8 and word in {*target, "<eos>"})
    assert [w for _, w in inputs] == ["<bos>", *target] and [w for _, w in outputs] == [*target, "<eos>"]
    assert np.allclose([x for x, _ in inputs], [x for x, _ in outputs])  # output t stands over input t: shifted
    memory = [word for word, x, y in boxes if 4.0 < y < 4.6 and word in {"猫", "吃", "鱼"}]
    assert memory == ["猫", "吃", "鱼"]  # one memory vector per source token


def test_the_diagram_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match="source must be a sequence of token strings"):
        draw_encoder_decoder("猫吃鱼")
    with pytest.raises(ValueError, match="target is too long to draw"):
        draw_encoder_decoder(target=["word"] * 20)
    with pytest.raises(ValueError, match="n_layers=0 must be a positive integer"):
        draw_encoder_decoder(n_layers=0)


# --- the three masks ------------------------------------------------------------------------------------------


def allowed_cells(ax):
    """The mask a panel draws, read back from its cells' colours: True where the cell is the allowed green."""
    grid = {}
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_fill():
            x, y = patch.get_xy()
            grid[round(y + 0.5), round(x + 0.5)] = to_rgb(patch.get_facecolor()) == to_rgb(ALLOWED_FACE)
    hatched = {
        (round(p.get_y() + 0.5), round(p.get_x() + 0.5)) for p in ax.patches if not p.get_fill() and p.get_hatch()
    }
    cells = np.array(
        [[grid[i, j] for j in range(max(j for _, j in grid) + 1)] for i in range(max(i for i, _ in grid) + 1)]
    )
    assert hatched == {(int(i), int(j)) for i, j in np.argwhere(~cells)}  # every masked cell hatched, no other
    return cells


def test_the_masks_hide_the_padding_and_the_future():
    fig = draw_translation_masks(source_batch=(("我", "昨天", "在", "北京"), ("猫", "吃")), target=("the", "cat"))
    encoder, decoder, cross = fig.axes
    real = np.array([True, True, False, False])  # 猫 吃 <pad> <pad>
    assert (allowed_cells(encoder) == np.broadcast_to(real, (4, 4))).all()
    assert (allowed_cells(decoder) == np.tril(np.ones((3, 3), dtype=bool))).all()  # <bos> the cat
    assert (allowed_cells(cross) == np.broadcast_to(real, (3, 4))).all()  # no causal triangle
    assert [label.get_text() for label in cross.get_xticklabels()] == ["猫", "吃", "<pad>", "<pad>"]
    assert [label.get_text() for label in cross.get_yticklabels()] == ["<bos>", "the", "cat"]
    assert cross.get_title() == i18n.t("translation.mask_cross", "en", shape="[3, 4]")
    assert to_rgb(MASK_FACE) != to_rgb(ALLOWED_FACE)


def test_the_default_masks_are_the_cat_sentence_padded_to_six():
    encoder, decoder, cross = draw_translation_masks(lang="zh").axes
    assert [label.get_text() for label in encoder.get_xticklabels()] == ["猫", "吃", "鱼"] + ["<pad>"] * 3
    assert allowed_cells(encoder).sum() == 6 * 3 and allowed_cells(cross).shape == (5, 6)
    assert allowed_cells(decoder).sum() == 5 * 6 // 2
    tops = {round(ax.get_position().y1, 6) for ax in (encoder, decoder, cross)}
    assert len(tops) == 1  # the three panels line up at the top
    widths = [ax.get_position().width / len(ax.get_xticks()) for ax in (encoder, decoder, cross)]
    assert np.allclose(widths, widths[0])  # and share one cell size


def test_the_masks_refuse_bad_batches():
    with pytest.raises(TypeError, match="source_batch"):
        draw_translation_masks(source_batch="猫吃鱼")
    with pytest.raises(ValueError, match="source_batch must hold at least one sentence"):
        draw_translation_masks(source_batch=[])
    with pytest.raises(TypeError, match="target must be a sequence"):
        draw_translation_masks(target=None)
    with pytest.raises(ValueError, match="target gives 21 tokens"):
        draw_translation_masks(target=["w"] * 20)


# --- the alignment --------------------------------------------------------------------------------------------


def frames(ax):
    return sorted(
        (round(p.get_y() + 0.5), round(p.get_x() + 0.5))
        for p in ax.patches
        if isinstance(p, Rectangle) and not p.get_fill() and to_rgb(p.get_edgecolor()) == to_rgb(KNOWN_EDGE)
    )


@pytest.mark.parametrize("source", [ARTICLE, WEATHER])
def test_the_alignment_marks_the_known_cells_and_the_largest_weights(model, source):
    weights, pair = sentence(model, source)
    fig = plot_alignment(weights, pair.target, pair.source, pair.align, lang="en")
    learned, known = fig.axes
    expected = sorted((i, j) for i, j in enumerate(pair.align) if j >= 0)
    assert frames(learned) == frames(known) == expected
    (dots,) = [line for line in learned.lines if line.get_marker() == "o"]
    assert to_rgb(dots.get_color()) == to_rgb(LARGEST)
    xy = dots.get_xydata()
    assert (np.round(xy[:, 0]) == weights.argmax(axis=1)).all() and (np.round(xy[:, 1]) == np.arange(len(xy))).all()
    matrix = known.images[0].get_array()
    assert matrix.sum() == len(expected) and all(matrix[i, j] == 1 for i, j in expected)
    ones = [(round(t.get_position()[1]), round(t.get_position()[0])) for t in known.texts if t.get_text() == "1"]
    assert sorted(ones) == expected  # the 0/1 matrix writes its ones where the frames are
    hits = sum(weights[i].argmax() == j for i, j in expected)
    assert i18n.t("translation.agree", "en", hits=hits, total=len(expected)) == fig.legends[0].get_title().get_text()
    # the numbers in the learned panel are the weights given
    written = [t.get_text() for t in learned.texts]
    assert len(written) == weights.size


def test_a_word_with_no_counterpart_says_so_and_is_greyed(model):
    weights, pair = sentence(model, WEATHER)
    fig = plot_alignment(weights, pair.target, pair.source, pair.align, lang="zh")
    none = [i for i, j in enumerate(pair.align) if j < 0]
    assert none == [0, 2, 4]  # the, in, is
    drawn = [(t.get_text(), round(t.get_position()[1])) for t in fig.axes[1].texts]
    assert [row for text, row in drawn if text == i18n.t("translation.no_alignment", "zh")] == none
    assert all(row not in none for text, row in drawn if text in ("0", "1"))  # no row of zeros for them
    labels = fig.axes[0].get_yticklabels()
    assert {i for i, label in enumerate(labels) if to_rgb(label.get_color()) != to_rgb(labels[1].get_color())} == set(
        none
    )


def test_the_title_goes_above_both_panels():
    fig = plot_alignment(np.full((2, 3), 1 / 3), ["the", "cat"], ["猫", "吃", "鱼"], [-1, 0], title="head 1")
    assert fig._suptitle.get_text() == "head 1"
    assert plot_alignment(np.full((1, 1), 1.0), ["cat"], ["猫"], [0])._suptitle is None


def test_the_alignment_refuses_bad_inputs(model):
    weights, pair = sentence(model, ARTICLE)
    with pytest.raises(ValueError, match="align must be 7 integer source positions"):
        plot_alignment(weights, pair.target, pair.source, pair.align[:-1])
    with pytest.raises(ValueError, match="align must be 7 integer source positions"):
        plot_alignment(weights, pair.target, pair.source, np.array(pair.align, dtype=float))
    with pytest.raises(ValueError, match=r"align's positions must lie in -1\.\.5"):
        plot_alignment(weights, pair.target, pair.source, [0, 1, 2, 3, 4, 5, 6])
    with pytest.raises(TypeError, match="align must be a sequence"):
        plot_alignment(weights, pair.target, pair.source, 3)
    with pytest.raises(ValueError, match="target_words has 6 tokens but the weights have 7 rows"):
        plot_alignment(weights, pair.target[:-1], pair.source, pair.align)
    with pytest.raises(ValueError, match="source_tokens has 5 tokens but the weights have 6 columns"):
        plot_alignment(weights, pair.target, pair.source[:-1], pair.align)
    with pytest.raises(ValueError, match=r"weights must be one \[T, S\] matrix"):
        plot_alignment(weights[None], pair.target, pair.source, pair.align)
    with pytest.raises(ValueError, match="outside"):
        plot_alignment(weights + 1, pair.target, pair.source, pair.align)


# --- by head, and the seeds -----------------------------------------------------------------------------------


def test_by_head_draws_every_head_and_both_guesses(model):
    fig = _by_head(model, "en")
    ax = fig.axes[0]
    corpus, weights = model
    accuracy = alignment_accuracy(weights, corpus.test.align)
    heights = [bar.get_height() for bar in ax.patches]
    assert np.allclose(sorted(heights), sorted([*accuracy.ravel(), *alignment_accuracy(
        weights.mean(axis=2, keepdims=True), corpus.test.align)[:, 0]]))  # fmt: skip
    baselines = baseline_alignments(corpus.test)
    levels = sorted(line.get_ydata()[0] for line in ax.lines)
    assert np.allclose(levels, sorted([baselines["diagonal"], baselines["uniform"]]))
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert i18n.t("translation.uniform", "en", value=baselines["uniform"]) in legend
    assert {i18n.t("translation.layer", "en", layer=k) for k in (1, 2)} <= set(strings(fig))


def test_by_head_refuses_bad_inputs():
    with pytest.raises(ValueError, match="shares in"):
        plot_alignment_by_head(np.array([[1.5]]), {"diagonal": 0.1, "uniform": 0.2})
    with pytest.raises(ValueError, match=r"accuracy must be a \[layers, heads\] array"):
        plot_alignment_by_head(np.array([[[0.5]]]), {"diagonal": 0.1, "uniform": 0.2})
    with pytest.raises(TypeError, match="baselines"):
        plot_alignment_by_head(np.array([[0.5]]), [0.1, 0.2])
    with pytest.raises(ValueError, match="averaged must be 2 shares"):
        plot_alignment_by_head(np.full((2, 4), 0.5), {"diagonal": 0.1, "uniform": 0.2}, averaged=[0.5])


def test_the_seeds_pair_each_seed_and_colour_its_direction():
    runs = load_translation_table()["runs"]
    fig = plot_dropout_seeds(runs, lang="en")
    by = {(r["seed"], r["drop"]): r for r in runs}
    seeds = sorted({r["seed"] for r in runs})
    fields = ("test_loss", "test_exact", "shown_head_test_alignment")
    for ax, field, higher in zip(fig.axes, fields, (False, True, True), strict=True):
        joins = [line for line in ax.lines if line.get_linestyle() == "-"]
        assert len(joins) == len(seeds)
        tally = {BETTER: 0, WORSE: 0}
        for line, seed in zip(joins, seeds, strict=True):
            without, with_drop = by[seed, 0.0][field], by[seed, 0.1][field]
            assert np.allclose(line.get_ydata(), [without, with_drop])  # left: no dropout; right: dropout
            better = with_drop < without if not higher else with_drop > without
            expected = BETTER if better else SAME if with_drop == without else WORSE
            assert to_rgb(line.get_color()) == to_rgb(expected)
            tally[expected] = tally.get(expected, 0) + 1
        assert ax.get_xlabel() == i18n.t(
            "translation.tally", "en", better=tally[BETTER], worse=tally[WORSE], n=len(seeds)
        )
    assert fig.axes[0].get_yscale() == "log"
    assert fig.axes[0].get_xlabel().startswith("with dropout: better in 10,")  # the notebook's claim: 10 of 10


def test_the_seeds_refuse_what_is_not_the_table():
    runs = load_translation_table()["runs"]
    with pytest.raises(ValueError, match="two dropout rates"):
        plot_dropout_seeds([r for r in runs if r["drop"] == 0.0])
    with pytest.raises(ValueError, match=r"seeds \[3\] lack one"):
        plot_dropout_seeds([r for r in runs if not (r["seed"] == 3 and r["drop"] == 0.1)])
    with pytest.raises(ValueError, match="every run must be a dict with"):
        plot_dropout_seeds([{"seed": 0}])
    with pytest.raises(TypeError, match="runs must be the table's list of runs"):
        plot_dropout_seeds(load_translation_table())
