"""The words attn_lib itself draws (figure titles, axis labels, widget labels, messages), in en and zh.

Every user-facing string of the package lives in this folder, one module per area, each key with its
English and Chinese side by side, so that a sentence changed in one language is seen next to its twin:

    plots                the heatmaps and plots (attn_lib.pictures)
    diagrams             the diagrams drawn by code
    widgets              the widgets (attn_lib.widgets)
    explorer             the explorer widget of the real-model notebooks 10, 14 and 15
    translation          notebook 09's pictures (the encoder–decoder, its masks, alignments)
    generation           notebook 13's pictures and sampling widget
    language_model       notebook 14's pictures (the real language model)
    gemma                notebook 15's pictures (Gemma 3 270M: <bos>, local and global layers, the KV cache)
    models               the model fetcher's messages (attn_lib.models.fetch)
    configs              notebook 12's notes on the published model configurations it prints
    check                the learner's readiness check (python -m attn_lib.check)
    exercises_shared     the diagnoses several checkers share (attn_lib.exercises.diagnose, .mistakes)
    exercises_<topic>    each checker module's own words (counting, basics, attention, multihead,
                         position, capstone, modern, generation, training, translation,
                         efficient, budget, language_model, gemma)

Nothing else hard-codes UI text. Pick the language per call with ``lang="zh"``, or once per notebook with
``set_language("zh")``; ``t(key, **fields)`` fills in the ``{fields}``. A table a notebook prints lines up its
columns with ``pad(text, width)``, which counts a Chinese character as two columns, as a terminal draws it.
"""

import unicodedata

from attn_lib.i18n import (
    check,
    configs,
    diagrams,
    exercises_attention,
    exercises_basics,
    exercises_budget,
    exercises_capstone,
    exercises_counting,
    exercises_efficient,
    exercises_gemma,
    exercises_generation,
    exercises_language_model,
    exercises_modern,
    exercises_multihead,
    exercises_position,
    exercises_shared,
    exercises_training,
    exercises_translation,
    explorer,
    gemma,
    generation,
    language_model,
    models,
    plots,
    translation,
    widgets,
)

LANGUAGES = ("en", "zh")

#: The areas, each a module with STRINGS = {key: (English, 中文)}.
AREAS = (
    plots,
    diagrams,
    widgets,
    explorer,
    generation,
    language_model,
    gemma,
    models,
    configs,
    check,
    exercises_shared,
    exercises_counting,
    exercises_basics,
    exercises_attention,
    exercises_multihead,
    exercises_position,
    exercises_capstone,
    exercises_modern,
    exercises_generation,
    exercises_training,
    exercises_efficient,
    exercises_budget,
    exercises_language_model,
    exercises_translation,
    exercises_gemma,
    translation,
)


def _by_language(areas):
    """{lang: {key: text}} from the areas' (English, 中文) pairs; a key defined in two areas is an error."""
    strings = {lang: {} for lang in LANGUAGES}
    for area in areas:
        for key, pair in area.STRINGS.items():
            if key in strings["en"]:
                raise ValueError(f"the string key {key!r} is defined twice (again in {area.__name__})")
            for lang, text in zip(LANGUAGES, pair, strict=True):
                strings[lang][key] = text
    return strings


#: Every string by language: STRINGS["zh"][key] (built from the areas; edit the areas, not this).
STRINGS = _by_language(AREAS)

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


def display_width(text):
    """How many columns `text` takes in a monospaced font: 2 for a wide (East Asian) character, 0 for a combining
    mark, 1 for any other character (str() is taken of anything that is not a string)."""
    width = 0
    for ch in str(text):
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text, width, align="<"):
    """`text` padded with spaces to `width` display columns: "<" on the right, ">" on the left, "^" on both sides.

    Like f"{text:<{width}}", but a Chinese character counts as two columns, so the columns of a printed table
    with Chinese headers line up. Text already as wide as `width` or wider comes back unchanged.
    """
    if align not in ("<", ">", "^"):
        raise ValueError(f"align={align!r} is not one of '<', '>', '^' (left, right, centred)")
    if isinstance(width, bool) or not isinstance(width, int):
        raise TypeError(f"width={width!r} must be an int, a number of columns")
    text = str(text)
    gap = max(0, width - display_width(text))
    if align == "<":
        return text + " " * gap
    if align == ">":
        return " " * gap + text
    return " " * (gap // 2) + text + " " * (gap - gap // 2)
