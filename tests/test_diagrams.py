"""The diagrams of attn_lib.pictures.diagrams: each draws in both languages with every glyph, keeps its text inside
the figure and inside its boxes, never writes one label over another or below 8 pt, and writes the
numbers and shapes it is given (computed, not copied)."""

import io
import itertools
import logging
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from attn_lib import i18n, pictures
from attn_lib.core import softmax
from attn_lib.examples import CAT_TOKENS, cat_example
from attn_lib.pictures import diagrams, model_diagrams, modern_diagrams

DIAGRAMS = {
    name: getattr(pictures, name) for module in (diagrams, model_diagrams, modern_diagrams) for name in module.__all__
}

TITLE_KEYS = {
    "draw_three_steps": "diagrams.steps_title",
    "draw_qkv_projection": "diagrams.qkv_title",
    "draw_attention_pipeline": "diagrams.pipeline_title",
    "draw_causal_mask": "diagrams.causal_title",
    "draw_multi_head": "diagrams.multi_title",
    "draw_transformer_block": "diagrams.block_title",
    "draw_cross_attention": "diagrams.cross_title",
    "draw_tiny_model": "diagrams.tiny_title",
    "draw_kv_cache": "diagrams.kv_title",
    "draw_online_softmax_tiles": "diagrams.tiles_title",
    "draw_kv_sharing": "diagrams.kvshare_title",
    "draw_sliding_window_layers": "diagrams.window_title",
}


class _LogRecords(logging.Handler):
    """Collects matplotlib's logged warnings: a glyph missing inside $math$ is only logged, not warned."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def render(fig):
    """Draw `fig` to PNG with warnings as errors and no matplotlib log warning allowed; return a renderer."""
    records = _LogRecords()
    logger = logging.getLogger("matplotlib")
    logger.addHandler(records)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig.savefig(io.BytesIO(), format="png")
    finally:
        logger.removeHandler(records)
    assert records.messages == [], records.messages
    return FigureCanvasAgg(fig).get_renderer()


def drawn_texts(fig):
    """Every non-empty text the figure draws (figure texts and axes texts)."""
    texts = [*fig.texts, *(text for ax in fig.axes for text in ax.texts)]
    return [text for text in texts if text.get_visible() and text.get_text().strip()]


def strings(fig):
    return [text.get_text() for text in drawn_texts(fig)]


def layout_problems(fig, renderer):
    """Texts outside the figure, below 8 pt, over another text, or spilling out of the box they sit in."""
    problems = []
    width, height = fig.bbox.width, fig.bbox.height
    texts = drawn_texts(fig)
    extents = {id(text): text.get_window_extent(renderer) for text in texts}
    for text in texts:
        box = extents[id(text)]
        if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5:
            problems.append(f"outside the figure: {text.get_text()!r}")
        if text.get_fontsize() < 8:
            problems.append(f"smaller than 8 pt: {text.get_text()!r} ({text.get_fontsize()} pt)")
    for a, b in itertools.combinations(texts, 2):
        box_a, box_b = extents[id(a)], extents[id(b)]
        overlap_x = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
        overlap_y = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        if overlap_x > 1 and overlap_y > 1:
            problems.append(f"overlapping: {a.get_text()!r} and {b.get_text()!r}")
    boxes = [patch for ax in fig.axes for patch in ax.patches if isinstance(patch, FancyBboxPatch)]
    for patch in boxes:
        outline = patch.get_window_extent(renderer)
        for text in texts:
            extent = extents[id(text)]
            centre = ((extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2)
            inside = outline.x0 < centre[0] < outline.x1 and outline.y0 < centre[1] < outline.y1
            if inside and (
                extent.x0 < outline.x0 - 1
                or extent.x1 > outline.x1 + 1
                or extent.y0 < outline.y0 - 1
                or extent.y1 > outline.y1 + 1
            ):
                problems.append(f"spills out of its box: {text.get_text()!r}")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_every_diagram_draws_cleanly(name, lang):
    fig = DIAGRAMS[name](lang=lang)
    assert isinstance(fig, Figure)
    assert fig.get_size_inches()[0] <= 10.0  # fits a notebook cell at 100 dpi without shrinking much
    renderer = render(fig)
    assert layout_problems(fig, renderer) == []
    assert i18n.t(TITLE_KEYS[name], lang) in strings(fig)


def test_every_diagram_has_a_title_key_in_both_languages():
    assert set(TITLE_KEYS) == set(DIAGRAMS)
    diagram_keys = {key for key in i18n.STRINGS["en"] if key.startswith("diagrams.")}
    assert set(TITLE_KEYS.values()) <= diagram_keys
    assert diagram_keys == {key for key in i18n.STRINGS["zh"] if key.startswith("diagrams.")}


def test_diagrams_follow_set_language():
    before = i18n.get_language()
    try:
        i18n.set_language("zh")
        assert i18n.STRINGS["zh"]["diagrams.kv_title"] in strings(pictures.draw_kv_cache())
    finally:
        i18n.set_language(before)


# --- the checks above can fail -----------------------------------------------------------------------


def test_layout_check_catches_text_off_the_edge_overlaps_and_spills():
    fig = pictures.draw_kv_cache(lang="en")
    ax = fig.axes[0]
    ax.text(9.9, 1.0, "a long label that runs off the right edge", fontsize=10)
    ax.text(0.3, 0.3, "tiny", fontsize=6)
    ax.add_patch(FancyBboxPatch((4.0, 2.0), 0.3, 0.3, boxstyle="round,pad=0"))
    ax.text(4.15, 2.15, "far too long for its box", fontsize=10, ha="center", va="center")
    ax.text(5.0, 0.3, "written over the note", fontsize=10, ha="center", va="center")  # the note sits at (5.0, 0.3)
    problems = layout_problems(fig, render(fig))
    assert any(p.startswith("outside the figure") for p in problems)
    assert any(p.startswith("smaller than 8 pt") for p in problems)
    assert any(p.startswith("spills out of its box") for p in problems)
    assert any(p.startswith("overlapping") for p in problems)


def test_glyph_check_catches_chinese_inside_math():
    fig = pictures.draw_kv_cache(lang="en")
    fig.axes[0].text(1.0, 1.0, "查询 $q$")  # math text has no CJK fallback: matplotlib only logs it
    with pytest.raises(AssertionError, match="glyph"):
        render(fig)


# --- what the diagrams write is computed from their arguments ----------------------------------------


def test_three_steps_shows_the_softmax_of_the_scores():
    scores = (0.5, -2.0, 1.5)
    fig = pictures.draw_three_steps(("甲", "乙", "丙"), scores, lang="en")
    written = strings(fig)
    for weight in softmax(np.array(scores)):
        assert f"{weight:.3f}" in written
    assert {"甲", "乙", "丙"} <= set(written)
    with pytest.raises(ValueError, match="scores must be 3 finite numbers"):
        pictures.draw_three_steps(("甲", "乙", "丙"), (1.0, 2.0))


def test_qkv_projection_writes_the_shapes_it_is_given():
    written = strings(pictures.draw_qkv_projection(("a", "b", "c", "d", "e"), d_model=6, d_k=3, d_v=4, lang="en"))
    assert written.count("[5, 6] × [6, 3]") == 2  # W_Q and W_K
    assert written.count("[5, 6] × [6, 4]") == 1  # W_V
    assert {"[5, 3]", "[5, 4]", "[5, 6]"} <= set(written)


def test_pipeline_writes_the_running_examples_numbers():
    example = cat_example(causal=True)
    written = strings(pictures.draw_attention_pipeline(example, lang="zh"))
    n_masked = int((~example.mask).sum())
    assert n_masked == 3
    assert written.count("−∞") == n_masked  # masked scores
    assert written.count("0") >= n_masked  # their weights, exactly 0
    for value in example.weights[example.mask]:
        assert f"{value:.2f}" in written
    for value in example.output.ravel():
        assert f"{value:.2f}".replace("-", "−") in written
    unmasked = strings(pictures.draw_attention_pipeline(lang="en"))
    assert "−∞" not in unmasked
    for value in cat_example().weights.ravel():
        assert f"{value:.2f}" in unmasked


def test_causal_mask_diagram_hides_exactly_the_future():
    tokens = ("我", "在", "上海", "吃了")
    written = strings(pictures.draw_causal_mask(tokens, lang="en"))
    assert written.count("False") == written.count("−∞") == 4 * 3 // 2
    assert written.count("True") == 4 * 5 // 2


def test_multi_head_shapes_follow_the_sizes():
    written = strings(pictures.draw_multi_head(n=4, d_model=8, n_heads=2, lang="en"))
    assert written.count("[4, 4] → [4, 4]") == 2
    assert i18n.t("diagrams.head_i", "en", i=2) in written
    with pytest.raises(ValueError, match="n_heads=4 does not divide d_model=10"):
        pictures.draw_multi_head(d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="n=0 must be a positive integer"):
        pictures.draw_multi_head(n=0)
    with pytest.raises(TypeError, match="tokens must be a sequence of token strings"):
        pictures.draw_causal_mask("猫吃鱼")


def test_block_cache_tiles_and_model_write_their_sizes():
    assert "[5, 8]" in strings(pictures.draw_transformer_block(n=5, d_model=8, n_heads=2, lang="en"))
    assert "[n, d_model]" in strings(pictures.draw_transformer_block(lang="en"))
    cache = strings(pictures.draw_kv_cache(("a", "b", "c", "d"), lang="en"))
    for step in range(1, 5):
        assert i18n.t("diagrams.kv_row", "en", k=step, full=step**2) in cache
    causal = strings(pictures.draw_online_softmax_tiles(causal=True, lang="en"))
    full = strings(pictures.draw_online_softmax_tiles(causal=False, lang="en"))
    assert [s for s in causal if s.isdigit()] == ["1", "2"]  # the third key tile is wholly in the future
    assert [s for s in full if s.isdigit()] == ["1", "2", "3"]
    with pytest.raises(ValueError, match="query_block must lie in 0..2"):
        pictures.draw_online_softmax_tiles(query_block=3)
    model = strings(pictures.draw_tiny_model(d_model=16, vocab_size=50, lang="en"))
    assert {"[11, 16]", "[16]", "[50]", "[16, 50]"} <= set(model)
    assert i18n.t("diagrams.tiny_layer", "en", layer=2, h=2, d_k=8) in model


def test_cross_attention_weights_have_target_rows_and_source_columns():
    written = strings(pictures.draw_cross_attention(CAT_TOKENS, ("the", "cat", "eats", "fish"), lang="en"))
    assert "[4, 3]" in written and "[4, 4]" in written


def test_kv_sharing_writes_the_head_counts_and_cache_fractions_it_is_given():
    written = strings(pictures.draw_kv_sharing(6, (6, 3, 1), lang="en"))
    for kv in (6, 3, 1):
        assert i18n.t("diagrams.kvshare_heads", "en", h=6, kv=kv) in written
        assert i18n.t("diagrams.kvshare_cache", "en", kv=kv, h=6) in written
    assert written.count("K") == 6 + 3 + 1  # one key box per K/V head
    assert [s for s in written if s.isdigit()] == [str(i) for i in range(1, 7)] * 3  # the query heads, per panel
    with pytest.raises(ValueError, match="n_kv_heads=4 does not divide n_heads=6"):
        pictures.draw_kv_sharing(6, (4,))


def test_window_layers_writes_the_reach_counted_from_the_masks():
    written = strings(pictures.draw_sliding_window_layers(n=16, window=4, n_layers=2, lang="en"))
    assert i18n.t("diagrams.window_reach", "en", window=4, layers=2, reach=7) in written  # 2 * (4 - 1) + 1
    fig = pictures.draw_sliding_window_layers(n=16, window=4, n_layers=2, lang="en")
    filled = [p for p in fig.axes[0].patches if p.get_facecolor()[:3] != (1.0, 1.0, 1.0)]
    assert len(filled) == 7 + 4 + 1  # the input row, layer 1, the last token of layer 2
    with pytest.raises(ValueError, match=r"n must be at least n_layers \* \(window - 1\) \+ 1 = 13"):
        pictures.draw_sliding_window_layers(n=10, window=5, n_layers=3)


def test_online_softmax_tiles_of_a_long_sentence_draw_few_artists_and_state_their_limits():
    """Issue 27 item 9: one 256-token tile drew 32,640 masked cells one by one (44 s)."""
    fig = pictures.draw_online_softmax_tiles(256, 256, 256, 256, query_block=0, lang="en")
    ax = fig.axes[0]
    assert len(ax.patches) < 300 and len(ax.lines) < 50  # one hatched strip per row, no 514 grid lines
    masked = [p for p in ax.patches if p.get_hatch() and p.get_zorder() == 1.9]
    cell = masked[0].get_height()
    assert round(sum(p.get_width() for p in masked) / cell) == 256 * 255 // 2  # exactly the future cells
    small = pictures.draw_online_softmax_tiles(lang="en").axes[0]  # notebook 11's: one patch per masked cell
    assert len([p for p in small.patches if p.get_zorder() == 1.9]) == 18  # 3 diagonal tiles x 6 future cells
    with pytest.raises(ValueError, match=r"n_q=300 is more than the diagram's limit of 256"):
        pictures.draw_online_softmax_tiles(300, 12)
    with pytest.raises(ValueError, match=r"64 x 64 tiles, more than the diagram's limit of 32 a side"):
        pictures.draw_online_softmax_tiles(256, 256, 4, 4)
