"""Notebook 15's pictures (attn_lib.pictures.gemma_plots) on made-up numbers (no model file needed): each draws in
both languages with every glyph, no text over another (tick labels and legends included), the Chinese tokens on
its axes, and the numbers it is given; bad shapes are refused with a message that names them."""

import itertools

import numpy as np
import pytest
from matplotlib.text import Text
from test_diagrams import layout_problems, render, strings

from attn_lib import i18n
from attn_lib.core import causal_mask, softmax
from attn_lib.i18n import t
from attn_lib.pictures import (
    draw_local_global_layers,
    plot_bos_share,
    plot_kv_cache_bytes,
    plot_score_ranges,
    plot_small_heatmaps,
)

LANGS = ("en", "zh")
CAT = ["猫", "吃", "鱼"]
BOS_CAT = ["<bos>", *CAT]
RNG = np.random.default_rng(15)
N_LAYERS, N_HEADS, GLOBAL = 18, 4, [5, 11, 17]  # Gemma 3 270M's shape: global layers 6, 12, 18 counted from 1


def causal_weights(n, rng=RNG):
    """[n, n] softmax rows of random scores under the causal mask: exactly 0 above the diagonal."""
    return softmax(np.where(causal_mask(n), rng.normal(size=(n, n)), -np.inf))


CAT_FULL = softmax(RNG.normal(size=(3, 3)))  # notebook 04's 猫吃鱼: every token sees every token
PANELS = [("猫吃鱼 (04)", CAT_FULL, CAT, CAT), ("layer 1, head 1", causal_weights(4), BOS_CAT, BOS_CAT),
          ("layer 6, head 2", causal_weights(4), BOS_CAT, BOS_CAT)]  # fmt: skip
SHARE = RNG.uniform(0, 1, size=(N_LAYERS, N_HEADS))
WITH_NORM = RNG.uniform(8, 30, size=N_LAYERS)
WITHOUT_NORM = RNG.uniform(5, 6000, size=N_LAYERS)
KV_ROWS = [("Gemma 3 270M (1 K/V head)", 36864, 36864), ("SmolLM2-135M (3 K/V heads)", 46080, 46080),
           ("the same model with 4 K/V heads (multi-head)", 4 * 36864, None)]  # fmt: skip


#: Each picture drawn on the numbers above, in the language given (None: set_language's).
PICTURES = {
    "plot_small_heatmaps": lambda lang: plot_small_heatmaps(PANELS, title="猫吃鱼", lang=lang),
    "plot_bos_share": lambda lang: plot_bos_share(SHARE, GLOBAL, lang=lang),
    "draw_local_global_layers": lambda lang: draw_local_global_layers(N_LAYERS, 512, GLOBAL, 2000, lang=lang),
    "plot_kv_cache_bytes": lambda lang: plot_kv_cache_bytes(KV_ROWS, lang=lang),
    "plot_score_ranges": lambda lang: plot_score_ranges(WITH_NORM, WITHOUT_NORM, GLOBAL, lang=lang),
}


#: How many axes each picture has: its panels and colour bars.
N_AXES = {"plot_small_heatmaps": 4, "plot_bos_share": 2, "draw_local_global_layers": 2, "plot_kv_cache_bytes": 1,
          "plot_score_ranges": 1}  # fmt: skip


def every_text(fig):
    """Every text the figure draws: texts, titles, axis labels, legends, and the tick labels inside the axes' limits
    (matplotlib keeps labels for ticks beyond them, which it does not draw)."""
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                loc = tick.get_loc()
                if loc is None or not low - 1e-9 * abs(high - low) <= loc <= high + 1e-9 * abs(high - low):
                    hidden.update({id(tick.label1), id(tick.label2)})
    return [
        text
        for text in fig.findobj(Text)
        if text.get_visible() and text.get_text().strip() and id(text) not in hidden and text.get_figure() is not None
    ]


def overlapping_texts(fig, renderer):
    """Pairs of texts (tick labels and legend entries too) whose boxes overlap by more than a pixel."""
    texts = every_text(fig)
    boxes = [text.get_window_extent(renderer) for text in texts]
    found = []
    for (a, box_a), (b, box_b) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        if (
            min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0) > 1
            and min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0) > 1
        ):
            found.append((a.get_text(), b.get_text()))
    return found


def tick_texts(ax, axis="x"):
    return [label.get_text() for label in (ax.get_xticklabels() if axis == "x" else ax.get_yticklabels())]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(PICTURES))
def test_every_picture_draws_cleanly(name, lang):
    fig = PICTURES[name](lang)
    assert len(fig.axes) == N_AXES[name]
    assert fig.get_size_inches()[0] <= 10.0  # a notebook cell shows it unshrunk at 100 dpi
    renderer = render(fig)  # warnings (a missing glyph) are errors
    assert layout_problems(fig, renderer) == []
    assert overlapping_texts(fig, renderer) == []


def test_the_overlap_check_can_fail():
    fig = plot_kv_cache_bytes(KV_ROWS, lang="en")
    fig.axes[0].text(0.0, 0.0, "over the first tick label", fontsize=10, ha="center", va="top")
    assert overlapping_texts(fig, render(fig))


def test_pictures_follow_set_language():
    before = i18n.get_language()
    try:
        i18n.set_language("zh")
        pictures = {name: draw(None) for name, draw in PICTURES.items()}
    finally:
        i18n.set_language(before)
    assert pictures["plot_bos_share"].axes[0].get_title() == t("gemma.bos_title", "zh")
    assert pictures["plot_kv_cache_bytes"].axes[0].get_title() == t("gemma.kv_title", "zh")
    assert pictures["plot_score_ranges"].axes[0].get_title() == t("gemma.score_title", "zh")
    assert pictures["draw_local_global_layers"].axes[0].get_title() == t("gemma.one_layer_title", "zh")
    assert pictures["plot_small_heatmaps"].axes[1].get_xlabel() == t("key_axis", "zh")


# --- small heatmaps ----------------------------------------------------------------------------------------------


def test_small_heatmaps_label_the_chinese_tokens_and_write_every_weight():
    fig = plot_small_heatmaps(PANELS, lang="zh")
    cat, first, second = fig.axes[:3]
    assert tick_texts(cat) == CAT and tick_texts(cat, "y") == CAT
    assert tick_texts(first) == BOS_CAT and tick_texts(second, "y") == BOS_CAT
    assert [ax.get_title() for ax in fig.axes[:3]] == [title for title, *_ in PANELS]
    for ax, (_, weights, *_) in zip(fig.axes[:3], PANELS, strict=True):
        n = len(weights)
        cells = [text.get_text() for text in ax.texts]
        assert len(cells) == n * n
        shown = [float(c) for c in cells if c not in ("—", "0") and not c.startswith("<")]
        expected = [w for w in weights.ravel() if w >= 0.005]
        np.testing.assert_allclose(shown, expected, atol=0.005)  # two decimals
        assert cells.count("—") == (0 if ax is cat else n * (n - 1) // 2)  # the causal model's future is masked
        assert ax.images[0].get_clim() == (0.0, 1.0)  # one colour scale for all
    assert t("masked_cell", "zh") in [text.get_text() for text in fig.legends[0].get_texts()]


def test_small_heatmaps_keep_one_cell_size_across_sizes():
    fig = plot_small_heatmaps(PANELS, lang="en")
    render(fig)
    cat, first = fig.axes[:2]
    width = [ax.get_window_extent().width / len(tick_texts(ax)) for ax in (cat, first)]
    assert width[0] == pytest.approx(width[1], rel=0.02)


def test_small_heatmaps_take_an_explicit_mask():
    no_mask = plot_small_heatmaps([("causal, drawn whole", causal_weights(3), CAT, CAT, None)], lang="en")
    assert "—" not in strings(no_mask) and not no_mask.legends
    mask = np.array([[True, False, True], [True, True, True], [True, True, True]])
    weights = softmax(np.where(mask, 0.0, -np.inf))
    fig = plot_small_heatmaps([("one cell masked", weights, CAT, CAT, mask)], lang="en")
    assert strings(fig).count("—") == 1


def test_small_heatmaps_refuse_bad_panels():
    with pytest.raises(TypeError, match="panels must be a non-empty list"):
        plot_small_heatmaps([])
    with pytest.raises(TypeError, match="panel 0 must be"):
        plot_small_heatmaps([("a", CAT_FULL, CAT)])
    with pytest.raises(ValueError, match="panel 1's weights must be one"):
        plot_small_heatmaps([PANELS[0], ("b", np.ones((2, 3, 3)) / 3, CAT, CAT)])
    with pytest.raises(ValueError, match="row_labels has 4 tokens but the weights have 3 rows"):
        plot_small_heatmaps([("a", CAT_FULL, BOS_CAT, CAT)])
    with pytest.raises(ValueError, match="outside"):
        plot_small_heatmaps([("scores", CAT_FULL * 5, CAT, CAT)])
    with pytest.raises(ValueError, match="do not fit one row"):
        plot_small_heatmaps(
            [("big", softmax(np.zeros((12, 12))), list("一二三四五六七八九十甲乙"), list("abcdefghijkl"))] * 3
        )


# --- <bos> -------------------------------------------------------------------------------------------------------


def test_bos_share_writes_each_cell_and_names_the_global_layers():
    fig = plot_bos_share(SHARE, GLOBAL, lang="zh")
    ax = fig.axes[0]
    assert [text.get_text() for text in ax.texts] == [f"{v:.2f}" for v in SHARE.ravel()]
    labels = tick_texts(ax, "y")
    assert labels[0] == "1" and labels[5] == t("gemma.global_tick", "zh", l=6) == "6（全局）"
    assert [i for i, label in enumerate(labels) if label != str(i + 1)] == GLOBAL
    assert tick_texts(ax) == ["1", "2", "3", "4"]


def test_bos_share_refuses_bad_input():
    with pytest.raises(ValueError, match=r"share must be \[n_layers, n_heads\], got shape \(2, 18, 4\)"):
        plot_bos_share(np.stack([SHARE, SHARE]), GLOBAL)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        plot_bos_share(SHARE * 3, GLOBAL)
    with pytest.raises(ValueError, match="global_layers=\\[6, 12, 18\\] must be distinct layer indices from 0"):
        plot_bos_share(SHARE, [6, 12, 18])  # counted from 1 by mistake
    with pytest.raises(TypeError, match="global_layers must be a list"):
        plot_bos_share(SHARE, 5)


# --- local and global layers -------------------------------------------------------------------------------------


def reach_by_loops(n_layers, window, global_layers, n_tokens):
    """The spec: the positions the last token's output depends on after each layer, grown one layer at a time."""
    reached, counts = {n_tokens - 1}, []
    for layer in range(n_layers):
        reached = {
            j for i in reached for j in range(i + 1) if layer in global_layers or i - j < window
        }  # every key each reached position's query sees
        counts.append(len(reached))
    return counts


def bar_widths(ax):
    return [patch.get_width() for patch in ax.patches]


@pytest.mark.parametrize("global_layers", [[3], [], [0, 5]])
def test_local_global_layers_draw_each_layers_window_and_the_reach(global_layers):
    n_layers, window, n_tokens = 6, 4, 30
    fig = draw_local_global_layers(n_layers, window, global_layers, n_tokens, lang="en")
    seen, reach = fig.axes
    assert bar_widths(seen) == [n_tokens if i in global_layers else window for i in range(n_layers)]
    counts = reach_by_loops(n_layers, window, global_layers, n_tokens)
    assert bar_widths(reach) == counts
    written = [text.get_text() for text in reach.texts]
    expected = [t("gemma.reach_all", "en", n=n_tokens) if c == n_tokens else t("gemma.reach_count", "en", n=c)
                for i, c in enumerate(counts) if i == 0 or c != counts[i - 1]]  # fmt: skip
    assert written == expected  # a number where the reach grows, none repeated


def test_local_global_layers_count_from_one_and_name_the_global_ones():
    fig = draw_local_global_layers(N_LAYERS, 512, GLOBAL, 32768, lang="zh")
    labels = tick_texts(fig.axes[0], "y")
    assert labels[:5] == ["1", "2", "3", "4", "5"] and labels[11] == "12（全局）"
    assert fig.get_suptitle() == t("gemma.layers_title", "zh", q="32,767", n_local=15, n_global=3, window=512)


def test_local_global_layers_refuse_bad_input():
    with pytest.raises(ValueError, match="n_tokens=0 must be a positive integer"):
        draw_local_global_layers(18, 512, GLOBAL, 0)
    with pytest.raises(ValueError, match="global_layers=\\[18\\] must be distinct layer indices"):
        draw_local_global_layers(18, 512, [18], 100)
    with pytest.raises(ValueError, match="global_layers=\\[5, 5\\] must be distinct"):
        draw_local_global_layers(18, 512, [5, 5], 100)


# --- the KV cache ------------------------------------------------------------------------------------------------


def test_kv_cache_bytes_writes_both_numbers_in_kib():
    fig = plot_kv_cache_bytes(KV_ROWS, lang="zh")
    ax = fig.axes[0]
    assert bar_widths(ax) == [36.0, 36.0, 45.0, 45.0, 144.0]  # KiB: the last row has no measured bar
    assert strings(fig) == ["36 KiB", "36 KiB", "45 KiB", "45 KiB", "144 KiB", t("gemma.kv_not_measured", "zh")]
    assert tick_texts(ax, "y")[0] == "Gemma 3 270M (1 K/V head)"
    assert "\n" in tick_texts(ax, "y")[2]  # a long label is wrapped at a space
    assert plot_kv_cache_bytes([("半个", 1536, None)], lang="zh").axes[0].texts[0].get_text() == "1.5 KiB"


def test_kv_cache_bytes_refuses_bad_rows():
    with pytest.raises(TypeError, match="rows must be a non-empty list"):
        plot_kv_cache_bytes([])
    with pytest.raises(TypeError, match="row 0 must be \\(label, formula_bytes, measured_bytes or None\\)"):
        plot_kv_cache_bytes([("Gemma", 36864)])
    with pytest.raises(ValueError, match="row 1's formula bytes must be a positive number"):
        plot_kv_cache_bytes([KV_ROWS[0], ("broken", -1, None)])
    with pytest.raises(TypeError, match="row 0's measured bytes must be a number"):
        plot_kv_cache_bytes([("Gemma", 36864, "36 KiB")])


# --- scores with and without QK-norm -----------------------------------------------------------------------------


def test_score_ranges_draw_both_lines_and_mark_the_global_layers():
    fig = plot_score_ranges(WITH_NORM, WITHOUT_NORM, GLOBAL, lang="zh")
    ax = fig.axes[0]
    with_line, without_line = ax.lines
    np.testing.assert_array_equal(with_line.get_xdata(), np.arange(1, N_LAYERS + 1))
    np.testing.assert_array_equal(with_line.get_ydata(), WITH_NORM)
    np.testing.assert_array_equal(without_line.get_ydata(), WITHOUT_NORM)
    assert ax.get_yscale() == "log"  # the numbers span more than a factor of 30
    assert tick_texts(ax)[5] == t("gemma.global_tick_2", "zh", l=6)
    assert len(ax.patches) == len(GLOBAL)  # one band per global layer
    assert [text.get_text() for text in fig.legends[0].get_texts()] == [t("gemma.with_norm", "zh"),
                                                                         t("gemma.without_norm", "zh")]  # fmt: skip
    linear = plot_score_ranges([1.0, 2.0, 3.0], [2.0, 4.0, 9.0], [2], ylabel="max - min", lang="en").axes[0]
    assert linear.get_yscale() == "linear" and linear.get_ylabel() == "max - min"


def test_score_ranges_refuse_bad_input():
    with pytest.raises(ValueError, match="one number per layer each, got shapes \\(18,\\) and \\(17,\\)"):
        plot_score_ranges(WITH_NORM, WITHOUT_NORM[:-1], GLOBAL)
    with pytest.raises(ValueError, match=r"with_norm must be \[n_layers\]"):
        plot_score_ranges(np.ones((18, 4)), WITHOUT_NORM, GLOBAL)
    with pytest.raises(ValueError, match="without_norm must be >= 0"):
        plot_score_ranges(WITH_NORM, -WITHOUT_NORM, GLOBAL)
    with pytest.raises(ValueError, match="log=True needs numbers > 0"):
        plot_score_ranges([0.0, 1.0], [1.0, 2.0], [], log=True)
