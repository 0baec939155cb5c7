"""Heatmaps draw Chinese without a missing-glyph warning, as real PNGs; masked cells look masked, small
weights do not read 0, worked examples are large enough; the CJK font choice is clean."""

import io
import string
import subprocess
import sys
import warnings

import matplotlib
import matplotlib.image
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

import attn_lib.examples as examples
from attn_lib import causal_mask, i18n, scaled_dot_product_attention
from attn_lib.pictures.heatmaps import (
    BUNDLED_FONT,
    MASK_FACE,
    PREFERRED_CJK_FONTS,
    find_cjk_font,
    format_weight,
    plot_attention,
    plot_attention_side_by_side,
    plot_heads,
    use_cjk_font,
)

SUBSET_FAMILY = "Noto Sans CJK SC Subset"

SENTENCES = {
    "cat": examples.CAT_TOKENS,
    "shanghai": examples.SHANGHAI_TOKENS,
    "shanghai_chars": tuple(examples.SHANGHAI_SENTENCE),
}


def causal_weights(n, n_heads=None, seed=0):
    """Attention weights of random embeddings under a causal mask: [n, n], or [h, n, n] with n_heads."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_heads or 1, n, 8))
    _, w = scaled_dot_product_attention(x, x, x, mask=causal_mask(n))
    return w if n_heads else w[0]


def render_png(fig):
    """Draw `fig` to PNG with every warning an error (a missing glyph is only reported at draw time)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.savefig(buffer, format="png")
    return buffer.getvalue()


def assert_non_trivial_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000
    image = matplotlib.image.imread(io.BytesIO(data), format="png")  # [height, width, RGBA] floats
    assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 200
    rgba = np.round(image * 255).astype(np.uint32)  # pack each pixel into one integer to count colours fast
    packed = (rgba[..., 0] << 24) | (rgba[..., 1] << 16) | (rgba[..., 2] << 8) | rgba[..., -1]
    assert len(np.unique(packed)) > 50  # a heatmap, text and anti-aliasing, not a blank canvas
    assert image[..., :3].std() > 0.05


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sentence", list(SENTENCES))
def test_plot_attention_draws_chinese_tokens(sentence, lang):
    tokens = SENTENCES[sentence]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_attention(causal_weights(len(tokens)), tokens, lang=lang)
    assert isinstance(fig, Figure)
    assert_non_trivial_png(render_png(fig))
    labels = [tick.get_text() for tick in fig.axes[0].get_xticklabels()]
    assert labels == list(tokens)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sentence", list(SENTENCES))
def test_plot_heads_draws_chinese_tokens(sentence, lang):
    tokens = SENTENCES[sentence]
    n_heads = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_heads(causal_weights(len(tokens), n_heads=n_heads), tokens, lang=lang, title="猫吃鱼 / 上海")
    assert isinstance(fig, Figure)
    assert_non_trivial_png(render_png(fig))
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == [i18n.t("head_title", lang, i=i + 1) for i in range(n_heads)]


def test_the_glyph_check_would_catch_a_font_without_chinese():
    """Proof that the tests above can fail: with only a Latin font, drawing 猫 warns about the glyph."""
    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        fig = Figure()
        fig.add_subplot().set_title("".join(examples.CAT_TOKENS))
        with pytest.warns(UserWarning, match="Glyph"):
            fig.savefig(io.BytesIO(), format="png")


def test_article_weights_heatmap_shows_the_numbers():
    fig = plot_attention(examples.ARTICLE_CAT_WEIGHTS, examples.CAT_TOKENS, lang="zh")
    texts = {text.get_text() for text in fig.axes[0].texts}
    assert {"0.20", "0.30", "0.50", "0.10", "0.60"} <= texts
    assert fig.axes[0].get_xlabel() == i18n.t("key_axis", "zh")
    assert fig.axes[0].get_ylabel() == i18n.t("query_axis", "zh")


# --- font choice ------------------------------------------------------------------------------------------


def installed_families():
    return {entry.name for entry in matplotlib.font_manager.fontManager.ttflist}


def test_bundled_font_is_used_when_no_cjk_font_is_installed(monkeypatch):
    installed = [family for family in PREFERRED_CJK_FONTS if family in installed_families()]
    with matplotlib.rc_context():
        expected = installed[0] if installed else SUBSET_FAMILY  # this machine: none installed
        assert use_cjk_font() == expected
        # whatever the machine, with no preferred font present the bundled subset is registered and chosen
        monkeypatch.setattr("attn_lib.pictures.heatmaps.PREFERRED_CJK_FONTS", ("No Such CJK Font",))
        assert find_cjk_font() == SUBSET_FAMILY
        assert str(BUNDLED_FONT) in {entry.fname for entry in matplotlib.font_manager.fontManager.ttflist}


def test_use_cjk_font_keeps_the_latin_family_first_and_does_not_duplicate():
    with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        family = use_cjk_font()
        assert matplotlib.rcParams["font.family"] == ["sans-serif", family]
        assert use_cjk_font() == family
        assert matplotlib.rcParams["font.family"] == ["sans-serif", family]
    with matplotlib.rc_context({"font.family": ["DejaVu Serif", "serif"]}):
        family = use_cjk_font()
        use_cjk_font()
        assert matplotlib.rcParams["font.family"] == ["DejaVu Serif", "serif", family]


def test_importing_attn_lib_changes_no_global_state():
    code = (
        "import matplotlib as m, numpy as np\n"
        "before = dict(m.rcParams); state = np.random.get_state()[1].copy()\n"
        "import attn_lib, attn_lib.pictures.heatmaps, attn_lib.examples, attn_lib.i18n\n"
        "assert dict(m.rcParams) == before, 'rcParams changed on import'\n"
        "assert (np.random.get_state()[1] == state).all(), 'numpy global seed changed on import'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""  # no printing on import either


def _strings(value):
    """Every str inside `value` (nested tuples, lists, dicts)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _strings(item)


def _non_ascii_characters(values):
    ascii_text = set(string.printable)
    return {char for text in _strings(values) for char in text if char not in ascii_text}


def _missing_glyphs(characters):
    """Characters that neither the bundled CJK font nor matplotlib's default Latin font (DejaVu Sans) can draw."""
    cjk = FT2Font(str(BUNDLED_FONT)).get_charmap()
    latin = FT2Font(matplotlib.font_manager.findfont("DejaVu Sans", fallback_to_default=False)).get_charmap()
    assert ord("猫") in cjk and ord("猫") not in latin  # the two fonts really are what they are meant to be
    return sorted(char for char in characters if ord(char) not in cjk and ord(char) not in latin)


def test_bundled_font_covers_every_chinese_character_of_the_examples():
    public = {name: value for name, value in vars(examples).items() if name.isupper()}
    characters = _non_ascii_characters(public)
    assert {"猫", "吃", "鱼", "上", "海", "，"} <= characters  # the collection itself works
    assert not _missing_glyphs(characters), f"no font draws {_missing_glyphs(characters)}"
    charmap = FT2Font(str(BUNDLED_FONT)).get_charmap()
    han = sorted(char for char in characters if "\u4e00" <= char <= "\u9fff")
    assert han and all(ord(char) in charmap for char in han)


def test_fonts_cover_every_chinese_ui_string():
    characters = _non_ascii_characters(i18n.STRINGS["zh"])
    assert characters
    assert not _missing_glyphs(characters), f"no font draws {_missing_glyphs(characters)}"


# --- masked cells, small weights, sizes, shared colour bars ---------------------------------------------

# 猫 sees only itself; 吃 gives 0.0026 to itself (small, not masked); 鱼 gives exactly 0 to 猫 (not masked)
SMALL_AND_MASKED = np.array([[1.0, 0.0, 0.0], [0.9974, 0.0026, 0.0], [0.0, 0.4, 0.6]])


def cell_texts(ax):
    """(row, column) -> the string written in that cell of a heatmap."""
    return {(round(text.get_position()[1]), round(text.get_position()[0])): text.get_text() for text in ax.texts}


def cell_colour(fig, ax, i, j):
    """The median RGB colour of a small patch near the top-left corner of cell (i, j), away from its text."""
    data = matplotlib.image.imread(io.BytesIO(render_png(fig)), format="png")[..., :3]  # [height, width, 3]
    x, y = ax.transData.transform((j - 0.3, i - 0.3))  # display pixels, origin at the bottom left
    row, col = int(round(data.shape[0] - y)), int(round(x))
    return np.median(data[row - 4 : row + 5, col - 4 : col + 5].reshape(-1, 3), axis=0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_masked_cells_are_drawn_differently_from_zero_weights(lang):
    mask = causal_mask(3)
    fig = plot_attention(SMALL_AND_MASKED, examples.CAT_TOKENS, mask=mask, lang=lang)
    ax = fig.axes[0]
    texts = cell_texts(ax)
    assert [texts[i, j] for i, j in zip(*np.nonzero(~mask), strict=True)] == ["—", "—", "—"]
    assert texts[2, 0] == "0" and texts[1, 1] == "0.0026"  # unmasked zero and small weight: not "0.00", not "—"
    image_mask = np.ma.getmaskarray(ax.images[0].get_array())
    np.testing.assert_array_equal(image_mask, ~mask)  # masked cells take the colour map's "bad" colour
    hatched = sorted((round(p.get_y() + 0.5), round(p.get_x() + 0.5)) for p in ax.patches if p.get_hatch())
    assert hatched == [(0, 1), (0, 2), (1, 2)]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [i18n.t("masked_cell", lang)]
    masked, zero = cell_colour(fig, ax, 0, 2), cell_colour(fig, ax, 2, 0)
    assert np.abs(masked - zero).max() > 0.1  # grey, not the near-white of weight 0
    assert masked.std() < 0.02 and zero[2] > zero[0]  # neutral grey vs the colour map's bluish white


def test_masked_cells_are_grey_with_any_colour_map():
    for cmap in ("viridis", matplotlib.colormaps["magma"]):
        fig = plot_attention(SMALL_AND_MASKED, examples.CAT_TOKENS, mask=causal_mask(3), cmap=cmap)
        bad = fig.axes[0].images[0].get_cmap().get_bad()
        np.testing.assert_allclose(bad, matplotlib.colors.to_rgba(MASK_FACE))


def test_format_weight():
    assert [format_weight(w) for w in (0.26, 0.0026, 0.0, 0.0004, 0.5, 1.0)] == [
        "0.26",
        "0.0026",
        "0",
        "<0.001",
        "0.50",
        "1.00",
    ]


def test_mask_must_be_boolean_broadcastable_and_agree_with_the_weights():
    tokens = examples.CAT_TOKENS
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        plot_attention(SMALL_AND_MASKED, tokens, mask=np.tril(np.ones((3, 3))))
    with pytest.raises(ValueError, match=r"mask of shape \(2, 2\) does not broadcast to the weights' shape \(3, 3\)"):
        plot_attention(SMALL_AND_MASKED, tokens, mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match=r"weights are 0.3 at index \(0, 1\), where the mask is False"):
        plot_attention(np.array(examples.ARTICLE_CAT_WEIGHTS), tokens, mask=causal_mask(3))
    fig = plot_attention(SMALL_AND_MASKED, tokens, mask=np.ones(3, dtype=bool))  # broadcasts: nothing masked
    assert fig.axes[0].get_legend() is None


def test_without_a_mask_nothing_is_hatched_and_there_is_no_legend():
    fig = plot_attention(np.array(examples.ARTICLE_CAT_WEIGHTS), examples.CAT_TOKENS)
    ax = fig.axes[0]
    assert ax.get_legend() is None and not [p for p in ax.patches if p.get_hatch()]
    assert not np.ma.getmaskarray(ax.images[0].get_array()).any()


def tight_width_px(fig):
    """The width of the PNG a notebook shows (bbox_inches="tight") at the figure's dpi."""
    return fig.get_tightbbox(FigureCanvasAgg(fig).get_renderer()).width * fig.dpi


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_worked_example_heatmap_is_at_least_480_pixels_wide(lang):
    fig = plot_attention(examples.ARTICLE_CAT_WEIGHTS, examples.CAT_TOKENS, title="猫吃鱼", lang=lang)
    assert fig.dpi == 100  # the notebooks' default
    assert tight_width_px(fig) >= 480
    heatmap = fig.axes[0].get_window_extent(FigureCanvasAgg(fig).get_renderer())
    assert heatmap.width >= 250  # the cells themselves, not only the margins, are large


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_side_by_side_heatmaps_share_one_colour_bar_and_line_up(lang):
    weights = SMALL_AND_MASKED
    fig = plot_attention_side_by_side(
        [np.array(examples.ARTICLE_CAT_WEIGHTS), weights],
        examples.CAT_TOKENS,
        ["no mask", "causal mask"],
        masks=[None, causal_mask(3)],
        lang=lang,
    )
    render_png(fig)
    heatmaps = [ax for ax in fig.axes if ax.images]
    assert len(heatmaps) == 2 and len(fig.axes) == 3  # two heatmaps and one colour bar
    assert [ax.images[0].get_clim() for ax in heatmaps] == [(0.0, 1.0), (0.0, 1.0)]
    assert heatmaps[0].get_legend() is None and heatmaps[1].get_legend() is not None
    renderer = FigureCanvasAgg(fig).get_renderer()
    tops = [ax.title.get_window_extent(renderer).y0 for ax in heatmaps]
    assert tops[0] == pytest.approx(tops[1], abs=1)  # the titles line up though only one panel has a legend
    assert tight_width_px(fig) >= 2 * 400
    with pytest.raises(ValueError, match="weights must all have the same shape"):
        plot_attention_side_by_side([weights, weights[:2]], examples.CAT_TOKENS, ["a", "b"])
    with pytest.raises(ValueError, match="masks has 1 entries but there are 2 weight matrices"):
        plot_attention_side_by_side([weights, weights], examples.CAT_TOKENS, ["a", "b"], masks=[None])


def test_plot_heads_draws_each_heads_masked_cells_and_one_legend():
    n_heads = 3
    weights = causal_weights(4, n_heads=n_heads)
    fig = plot_heads(weights, ("我", "在", "上海", "吃了"), mask=causal_mask(4), lang="zh")
    render_png(fig)
    heatmaps = [ax for ax in fig.axes if ax.images]
    assert len(heatmaps) == n_heads
    for ax in heatmaps:
        assert len([p for p in ax.patches if p.get_hatch()]) == 6  # the 4 x 3 / 2 future cells
        assert ax.get_legend() is None
    assert len(fig.legends) == 1


# --- issue 27 item 4: long sentences get smaller cells, not bigger figures; item 12: what a heatmap refuses -----


def tick_labels(axis):
    return [label.get_text() for label in axis.get_ticklabels()]


def test_figure_sizes_of_the_notebooks_do_not_change():
    """Up to 24 tokens a heatmap grows 0.45 in per token as before (notebook 10's 15 tokens: 9.15 x 7.95 in)."""
    for n, side in ((3, 3.5), (15, 6.75), (24, 10.8)):
        fig = plot_attention(np.full((n, n), 1 / n), [f"t{i}" for i in range(n)])
        np.testing.assert_allclose(fig.get_size_inches(), (side + 2.4, side + 1.2))
        assert tick_labels(fig.axes[0].xaxis) == [f"t{i}" for i in range(n)]  # every token labelled
    fig = plot_heads(np.full((4, 11, 11), 1 / 11), [f"t{i}" for i in range(11)])  # notebook 06: 11 tokens
    np.testing.assert_allclose(fig.get_size_inches(), (4.3 * 4 + 1.0, 4.3 + 0.6))


@pytest.mark.parametrize("n", [25, 150, 512, 1024])
def test_a_long_sentence_gets_smaller_cells_and_fewer_labels_not_a_bigger_figure(n):
    tokens = [f"t{i}" for i in range(n)]
    fig = plot_attention(causal_weights(n), tokens, mask=causal_mask(n))
    np.testing.assert_allclose(fig.get_size_inches(), (10.8 + 2.4, 10.8 + 1.2 + 0.3))  # as large as 24 tokens
    ax = fig.axes[0]
    for axis in (ax.xaxis, ax.yaxis):
        labels = tick_labels(axis)
        step = -(-n // 48)
        assert len(labels) <= 48 and labels == tokens[::step]  # every k-th token, from the first
    assert not ax.texts  # no per-cell numbers
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == n - 1  # one rectangle per row of future keys, not one per cell
    assert sum(p.get_width() for p in hatched) == n * (n - 1) // 2
    for p in hatched:  # row i: keys i+1 .. n-1
        i = round(p.get_y() + 0.5)
        assert (p.get_x() + 0.5, p.get_width()) == (i + 1, n - 1 - i)


def test_plot_heads_of_a_long_sentence_is_capped_and_labels_only_the_outer_heatmaps():
    weights = causal_weights(128, n_heads=12)  # one MiniLM layer of a 128-token input
    fig = plot_heads(weights, [f"t{i}" for i in range(128)])
    np.testing.assert_allclose(fig.get_size_inches(), (5.8 * 4 + 1.0, 5.8 * 3 + 0.6))  # as for 16 tokens
    heatmaps = [ax for ax in fig.axes if ax.images]
    for index, ax in enumerate(heatmaps):
        row, col = divmod(index, 4)
        assert len(tick_labels(ax.yaxis)) == (16 if col == 0 else 0)
        assert len(tick_labels(ax.xaxis)) == (16 if row == 2 else 0)


def test_annotate_true_is_refused_where_the_numbers_cannot_fit():
    plot_attention(np.full((32, 32), 1 / 32), [f"t{i}" for i in range(32)], annotate=True)  # the largest allowed
    with pytest.raises(ValueError, match=r"annotate=True writes a number in every cell, at most 32 x 32; .* 40 x 40"):
        plot_attention(np.full((40, 40), 1 / 40), [f"t{i}" for i in range(40)], annotate=True)
    with pytest.raises(TypeError, match="annotate must be True, False or None"):
        plot_attention(np.full((3, 3), 1 / 3), examples.CAT_TOKENS, annotate="yes")


def test_more_than_1024_tokens_or_64_heads_are_refused_with_the_limit():
    with pytest.raises(ValueError, match=r"more than 1024 queries or keys: a heatmap shows at most 1024 a side"):
        plot_attention(np.full((2, 1025), 1 / 1025), ["a", "b"], [str(i) for i in range(1025)])
    with pytest.raises(ValueError, match="weights has 72 heads; plot_heads draws at most 64"):
        plot_heads(np.full((72, 3, 3), 1 / 3), examples.CAT_TOKENS)


@pytest.mark.parametrize("bad", [1.5, -0.2])
def test_weights_outside_0_1_are_refused(bad):
    """Scores are not weights: the colour scale is 0-1, so a value outside it is an error, not a clipped cell."""
    weights = np.full((3, 3), 1 / 3)
    weights[1, 2] = bad
    for draw in (
        lambda: plot_attention(weights, examples.CAT_TOKENS),
        lambda: plot_heads(weights[None], examples.CAT_TOKENS),
        lambda: plot_attention_side_by_side([weights], examples.CAT_TOKENS, ["a"]),
    ):
        with pytest.raises(ValueError, match=rf"weights holds {bad:g} at index \(.*1, 2\), outside \[0, 1\]"):
            draw()
    plot_attention(np.nextafter(np.eye(3), 2), examples.CAT_TOKENS)  # rounding just above 1 is not refused


def test_tokens_may_be_a_generator():
    tokens = ("猫", "吃", "鱼")
    fig = plot_heads(np.full((2, 3, 3), 1 / 3), (tok for tok in tokens))
    assert tick_labels(fig.axes[0].xaxis) == list(tokens) and tick_labels(fig.axes[0].yaxis) == list(tokens)
    fig = plot_attention(np.full((3, 3), 1 / 3), iter(tokens))
    assert tick_labels(fig.axes[0].xaxis) == list(tokens)
    fig = plot_attention_side_by_side([np.full((3, 3), 1 / 3)] * 2, iter(tokens), ["a", "b"])
    assert tick_labels(fig.axes[1].xaxis) == list(tokens)


@pytest.mark.parametrize("shape", [(2, 4), (3, 3), (5, 2)])
def test_the_colour_bar_is_exactly_as_tall_as_the_heatmap(shape):
    """Issue 26 (notebook 02's two questions over four tokens): the colour bar beside a heatmap that is not square
    spans the heatmap's height, not the taller box the layout gave it; and it stays one axes of the figure."""
    weights = np.full(shape, 1 / shape[1])
    fig = plot_attention(weights, [f"q{i}" for i in range(shape[0])], [f"k{j}" for j in range(shape[1])])
    render_png(fig)
    renderer = FigureCanvasAgg(fig).get_renderer()
    heatmap, bar = (ax.get_window_extent(renderer) for ax in fig.axes)
    assert len(fig.axes) == 2
    assert abs(bar.y0 - heatmap.y0) < 1.5 and abs(bar.height - heatmap.height) < 1.5, (heatmap, bar)
    assert 0 < bar.x0 - heatmap.x1 < 40  # beside it, right of it
