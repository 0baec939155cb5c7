"""Heatmaps draw Chinese without a missing-glyph warning, as real PNGs; the CJK font choice is clean."""

import io
import string
import subprocess
import sys
import warnings

import matplotlib
import matplotlib.image
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

import attn_lib.examples as examples
from attn_lib import causal_mask, i18n, scaled_dot_product_attention
from attn_lib.plotting import BUNDLED_FONT, PREFERRED_CJK_FONTS, find_cjk_font, plot_attention, plot_heads, use_cjk_font

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
        monkeypatch.setattr("attn_lib.plotting.PREFERRED_CJK_FONTS", ("No Such CJK Font",))
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
        "import attn_lib, attn_lib.plotting, attn_lib.examples, attn_lib.i18n\n"
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
