"""The words attn_lib itself draws (figure titles, axis labels, widget labels, messages), in en and zh.

Every user-facing string of the package lives in `STRINGS`; nothing else hard-codes UI text.
Pick the language per call with ``lang="zh"``, or once per notebook with ``set_language("zh")``.
"""

LANGUAGES = ("en", "zh")

STRINGS = {
    "en": {
        "query_axis": "query (token attending)",
        "key_axis": "key (token attended to)",
        "weight": "attention weight",
        "attention_title": "Attention weights",
        "head_title": "head {i}",
        "heads_suptitle": "{h} heads, d_k = {d_k} each",
        # --- widgets (attn_lib/widgets.py) ---
        # --- exercises (attn_lib/exercises.py) ---
        # --- learned attention (attn_lib/tiny_model.py) ---
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
    },
    "zh": {
        "query_axis": "查询（发出注意力的词）",
        "key_axis": "键（被关注的词）",
        "weight": "注意力权重",
        "attention_title": "注意力权重",
        "head_title": "第 {i} 个头",
        "heads_suptitle": "{h} 个头，每个头 d_k = {d_k}",
        # --- widgets (attn_lib/widgets.py) ---
        # --- exercises (attn_lib/exercises.py) ---
        # --- learned attention (attn_lib/tiny_model.py) ---
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
    },
}

_current = {"lang": "en"}


def set_language(lang):
    """Make `lang` ("en" or "zh") the default for every figure and widget drawn afterwards."""
    _current["lang"] = check_language(lang)


def get_language():
    """The default language set by `set_language` ("en" unless changed)."""
    return _current["lang"]


def check_language(lang):
    """`lang` if it is a supported language code, else a ValueError naming the choices."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not supported; choose one of {LANGUAGES}")
    return lang


def t(key, lang=None, **fields):
    """The string `key` in `lang` (default: the current language), with `fields` filled in."""
    lang = get_language() if lang is None else check_language(lang)
    return STRINGS[lang][key].format(**fields)
