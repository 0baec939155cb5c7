"""The words attn_lib itself draws (figure titles, axis labels, widget labels, messages), in en and zh.

Every user-facing string of the package lives in this folder, one module per area, each key with its
English and Chinese side by side, so that a sentence changed in one language is seen next to its twin:

    plots                the heatmaps and plots (attn_lib.pictures)
    diagrams             the diagrams drawn by code
    widgets              the widgets (attn_lib.widgets)
    generation           notebook 12's pictures and sampling widget
    language_model       notebook 13's pictures (the real language model)
    models               the model fetcher's messages (attn_lib.models.fetch)
    check                the learner's readiness check (python -m attn_lib.check)
    exercises_shared     the diagnoses several checkers share (attn_lib.exercises.diagnose, .mistakes)
    exercises_<topic>    each checker module's own words (counting, basics, attention, multihead,
                         position, capstone, modern, generation, training, efficient,
                         budget, language_model)

Nothing else hard-codes UI text. Pick the language per call with ``lang="zh"``, or once per notebook with
``set_language("zh")``; ``t(key, **fields)`` fills in the ``{fields}``.
"""

from attn_lib.i18n import (
    check,
    diagrams,
    exercises_attention,
    exercises_basics,
    exercises_budget,
    exercises_capstone,
    exercises_counting,
    exercises_efficient,
    exercises_generation,
    exercises_language_model,
    exercises_modern,
    exercises_multihead,
    exercises_position,
    exercises_shared,
    exercises_training,
    generation,
    language_model,
    models,
    plots,
    widgets,
)

LANGUAGES = ("en", "zh")

#: The areas, each a module with STRINGS = {key: (English, 中文)}.
AREAS = (
    plots,
    diagrams,
    widgets,
    generation,
    language_model,
    models,
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
