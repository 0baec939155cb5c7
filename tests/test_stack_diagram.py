"""plot_decoder_stack: the course's three decoders drawn from their configs, their differences visible, no text on
text, and anything that is not a decoder's config refused."""

import dataclasses
import itertools

import pytest
from matplotlib.colors import to_hex

from attn_lib.i18n import set_language
from attn_lib.models.configs import MISTRAL_7B
from attn_lib.models.gemma3 import model as gm
from attn_lib.models.smollm2 import model as lm
from attn_lib.models.tiny_lm import LMConfig
from attn_lib.models.tiny_model import TinyConfig
from attn_lib.pictures import plot_decoder_stack
from attn_lib.pictures.kit import PALETTE
from attn_lib.pictures.stack_diagram import describe_decoder_stack

# The configs as the models' files give them (tests/test_smollm.py and tests/test_gemma.py read the files).
TINY = LMConfig(vocab_size=205, max_len=18, d_model=32, n_heads=4, n_layers=2, d_ff=128)  # notebook 13's stored model
SMOLLM2 = lm.Config(49152, 576, 30, 9, 3, 1536, 100000.0, 1e-5, 8192, 1, 2)
GEMMA3 = gm.Config(
    vocab_size=262144, d_model=640, n_layers=18, n_heads=4, n_kv_heads=1, d_head=256, d_ff=2048,
    rope_base=1_000_000.0, window=512, rms_eps=1e-6, context=32768, bos_id=2, eos_id=1,
)  # fmt: skip
CONFIGS = {"tiny": TINY, "smollm2": SMOLLM2, "gemma3": GEMMA3}


def texts(fig):
    """Every string drawn on the figure, in one text."""
    return "\n".join(text.get_text() for ax in fig.axes for text in ax.texts)


def overlaps(fig):
    """[(text, text)] of the drawn strings whose boxes intersect, and of any string that leaves the figure."""
    renderer = fig.canvas.get_renderer()
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in fig.axes[0].texts if text.get_text()]
    found = [(a, b) for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2) if box_a.overlaps(box_b)]
    inside = fig.bbox
    found += [(a, "the figure's edge") for a, box in boxes if box.x0 < inside.x0 or box.x1 > inside.x1]
    return found + [(a, "the figure's edge") for a, box in boxes if box.y0 < inside.y0 or box.y1 > inside.y1]


def strip_colours(fig):
    """The fill colours of the layer strips (the thin rectangles of the stack, one per layer), bottom to top."""
    rectangles = [p for p in fig.axes[0].patches if type(p).__name__ == "Rectangle" and p.get_width() == 1.2]
    return [to_hex(p.get_facecolor()) for p in sorted(rectangles, key=lambda p: p.get_y())]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_each_config_draws_with_its_numbers_and_no_text_on_text(name, lang):
    config = CONFIGS[name]
    fig = plot_decoder_stack(config, lang=lang)
    drawn = texts(fig)
    for number in (config.n_layers, config.d_model, config.n_heads, config.d_ff, config.vocab_size):
        assert f"{number:,}" in drawn, f"{name} ({lang}): {number:,} is not drawn"
    assert len(strip_colours(fig)) == config.n_layers, "one strip per layer"
    assert overlaps(fig) == [], f"{name} ({lang}): texts overlap: {overlaps(fig)}"


def test_the_overlap_check_can_fail():
    fig = plot_decoder_stack(TINY, lang="en")
    fig.axes[0].text(1.55, 1.6, "a label on the embedding's label")
    assert overlaps(fig)
    fig.axes[0].text(9.9, 3.0, "a label running off the right edge")
    assert ("a label running off the right edge", "the figure's edge") in overlaps(fig)


def test_the_differences_show():
    drawn = {name: texts(plot_decoder_stack(config, lang="en")) for name, config in CONFIGS.items()}
    # norm placement: Gemma's norms after each sublayer, pre-norm only for the others
    assert drawn["gemma3"].count("RMSNorm after") == 2 and "norms after each sublayer too" in drawn["gemma3"]
    assert all("RMSNorm after" not in drawn[n] and "pre-norm only" in drawn[n] for n in ("tiny", "smollm2"))
    # QK-norm: Gemma only
    assert "QK-norm: each head's q and k" in drawn["gemma3"]
    assert all("no QK-norm" in drawn[n] and "QK-norm:" not in drawn[n] for n in ("tiny", "smollm2"))
    # heads: multi-head, grouped-query (9 / 3), multi-query (4 / 1)
    assert "multi-head attention\n4 heads" in drawn["tiny"]
    assert "grouped-query attention\n9 query heads share 3 K/V heads\nd_head = 64" in drawn["smollm2"]
    assert "multi-query attention\n4 query heads share one K/V head\nd_head = 256" in drawn["gemma3"]
    # norms, feed-forward networks, positions
    assert "final LayerNorm" in drawn["tiny"] and "GELU feed-forward" in drawn["tiny"]
    assert "final RMSNorm" in drawn["smollm2"] and "SwiGLU feed-forward" in drawn["smollm2"]
    assert "GeGLU feed-forward" in drawn["gemma3"] and "× √640 = 25.3" in drawn["gemma3"]
    assert "learned positions P [18, 32]" in drawn["tiny"] and "RoPE" not in drawn["tiny"].replace("no RoPE", "")
    assert "base 100,000" in drawn["smollm2"]
    assert "base 10,000\n(local), 1,000,000 (global)" in drawn["gemma3"]
    # tied embeddings, and the local and global layers: 5 local : 1 global in Gemma, every layer full elsewhere
    assert all("tied: the same E" in text and "Eᵀ" in text for text in drawn.values())
    assert "local layer, window 512: 15" in drawn["gemma3"] and "global layer: 3 (layers 6, 12, 18)" in drawn["gemma3"]
    assert all("window" not in drawn[n] for n in ("tiny", "smollm2"))
    local, far = to_hex(PALETTE["v"][0]), to_hex(PALETTE["k"][0])
    assert strip_colours(plot_decoder_stack(GEMMA3)) == ([local] * 5 + [far]) * 3
    assert len(set(strip_colours(plot_decoder_stack(SMOLLM2)))) == 1


def test_what_the_picture_draws():
    gemma, smollm, tiny = (describe_decoder_stack(c) for c in (GEMMA3, SMOLLM2, TINY))
    assert (gemma.attention, smollm.attention, tiny.attention) == ("MQA", "GQA", "MHA")
    assert gemma.global_layers == (6, 12, 18) and gemma.windows.count(512) == 15
    assert gemma.rope_bases[0] == 10_000 and gemma.rope_bases[5] == 1_000_000
    assert (gemma.post_norms, gemma.qk_norm, smollm.post_norms, smollm.qk_norm) == (True, True, False, False)
    assert (gemma.d_head, smollm.d_head, tiny.d_head) == (256, 64, 8)  # Gemma's is not d_model / n_heads
    assert tiny.rope_bases is None and tiny.max_len == 18 and tiny.norm == "LayerNorm"
    assert describe_decoder_stack(dataclasses.replace(GEMMA3, qk_norm=False)).qk_norm is False
    assert "no QK-norm" in texts(plot_decoder_stack(dataclasses.replace(GEMMA3, qk_norm=False), lang="en"))

    @dataclasses.dataclass(frozen=True)
    class Untied(lm.Config):  # a Llama-style config as transformers names the choice
        tie_word_embeddings: bool = False

    untied = Untied(*dataclasses.astuple(SMOLLM2))
    assert describe_decoder_stack(untied).tied is False and describe_decoder_stack(SMOLLM2).tied is True
    assert "not tied: two matrices" in texts(plot_decoder_stack(untied, lang="en"))


def test_both_languages_and_the_title():
    zh = texts(plot_decoder_stack(SMOLLM2, lang="zh"))
    assert "分组查询注意力" in zh and "共享权重" in zh and "grouped-query" not in zh
    assert "第 6、12、18 层" in texts(plot_decoder_stack(GEMMA3, lang="zh"))
    tiny_zh = texts(plot_decoder_stack(TINY, lang="zh"))  # no space between two Chinese characters
    assert "最后的层归一化" in tiny_zh and "不用旋转位置编码" in tiny_zh and "最后的 RMSNorm" in zh
    set_language("zh")
    try:
        assert "多头注意力" in texts(plot_decoder_stack(TINY))  # lang=None follows set_language
    finally:
        set_language("en")
    assert "My model" in texts(plot_decoder_stack(TINY, title="My model"))


def test_a_config_that_is_not_a_decoders_is_refused():
    with pytest.raises(TypeError, match="vocab_size"):
        plot_decoder_stack({"n_layers": 2})
    with pytest.raises(TypeError, match="draw_tiny_model"):  # notebook 08's model: attention only
        plot_decoder_stack(TinyConfig(vocab_size=10, max_len=5))
    with pytest.raises(TypeError, match="d_ff"):  # notebook 12's configurations: attention only
        plot_decoder_stack(MISTRAL_7B)

    @dataclasses.dataclass
    class NoPositions:
        vocab_size: int = 10
        d_model: int = 8
        n_layers: int = 2
        n_heads: int = 2
        d_ff: int = 16

    with pytest.raises(ValueError, match="positions"):
        plot_decoder_stack(NoPositions())
    with pytest.raises(ValueError):
        plot_decoder_stack(dataclasses.replace(SMOLLM2, n_kv_heads=2))  # 9 query heads do not split into 2 groups
    with pytest.raises(ValueError):
        plot_decoder_stack(dataclasses.replace(SMOLLM2, n_layers=0))
