"""Is this machine ready for the course? The learner's check, run from a terminal after the set-up command:

    python -m attn_lib.check            (python -m attn_lib.check --lang zh: in Chinese)

One line per check, ✓ or ✗ with what to do, then a verdict; exit status 0 when every check passed, else 1.
Nothing is downloaded, and it takes seconds (a minute at most on a slow machine):

- Python and the libraries the notebooks import, with their versions (`LIBRARIES`, the minimums of
  requirements.txt and pyproject.toml);
- the Chinese font: a figure that writes 猫吃鱼 and every other character of the course's examples is drawn,
  and a glyph the font lacks (matplotlib's "Glyph ... missing" warning) fails the check;
- the model files of notebooks 10 and 14, present where `attn_lib.models.fetch` looks for them, checksums
  verified (not fetched: the line says which command fetches them);
- a widget: notebook 00's setup check is built and redrawn, as moving its slider would.

A check that raises does not stop the others: it becomes a ✗ line with the error. The full test suite
(python -m pytest, several minutes) is for contributors; this is for learners.

This module is the package's entry point for learners: it may import every part of the package (models,
pictures, widgets), and nothing in the package imports it (tests/test_architecture.py).
"""

import argparse
import importlib.metadata
import io
import re
import sys
import warnings

from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

from attn_lib import examples
from attn_lib.i18n import check_language, t
from attn_lib.models import fetch
from attn_lib.pictures import heatmaps
from attn_lib.pictures.heatmaps import use_cjk_font
from attn_lib.widgets.attention import setup_check_widget

PYTHON_MINIMUM = (3, 10)
#: The distributions the notebooks need, with the oldest version the course supports.
LIBRARIES = (
    ("numpy", "1.26"),
    ("matplotlib", "3.8"),
    ("ipywidgets", "8.1"),
    ("threadpoolctl", "3.1"),
    ("jupyterlab", "4.2"),
    ("jupyterlab_widgets", "3.0"),
    ("ipykernel", "6.29"),
    ("safetensors", "0.4.3"),
    ("tokenizers", "0.19"),
    ("gguf", "0.10"),
)
#: The notebook that reads each model the set-up command fetches.
MODEL_NOTEBOOKS = ((fetch.MINILM, (7, 10)), (fetch.SMOLLM2, (14,)), (fetch.GEMMA3, (15,)))  # a model, its notebooks
REASON_LIMIT = 200  # characters of an error's first line quoted in a check's line
#: Warnings a check's drawing may give that the font check's line already reports: matplotlib's for a glyph the font
#: lacks, and attn_lib.pictures.heatmaps' when there is no CJK font at all (as regular expressions: warnings' filters)
GLYPH_WARNING, NO_CJK_FONT_WARNING = r"Glyph \d+ .*missing from", r"attn_lib\.pictures\.heatmaps"


def _version_tuple(text):
    """ "3.8.4" -> (3, 8, 4): the leading number of each dot-separated part ("2.1.0rc1" -> (2, 1, 0))."""
    return tuple(int(re.match(r"\d*", part).group() or 0) for part in str(text).split("."))


def _shortened(text, limit=REASON_LIMIT):
    """`text` in at most about `limit` characters, never cut inside a word: whole if it fits, else up to the end of
    a sentence (if one ends in the second half of the limit), else up to the last space, with "…"; whole if it has
    no space to cut at."""
    if len(text) <= limit:
        return text
    sentence = text.rfind(". ", 0, limit)
    if sentence >= limit // 2:
        return text[: sentence + 1]
    space = text.rfind(" ", 0, limit + 1)
    return text[:space].rstrip(" ,;:") + " …" if space > 0 else text


def _png_size(png):
    """(width, height) of PNG bytes, read from the image header (bytes 16-24)."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def course_characters():
    """Every Chinese character (and CJK punctuation) of the course's examples: 猫吃鱼, the sentences, the corpus."""
    texts = [examples.CAT_TOKENS, examples.SHANGHAI_SENTENCE, examples.WEATHER_PROMPT, examples.WEATHER_CONTINUATIONS]
    texts += [sentence for sentence, _ in examples.TINY_CORPUS]
    return sorted({ch for text in texts for ch in "".join(text) if ord(ch) > 0x2E80})


def check_python(lang=None, version=None):
    """(ok, line) for the running Python (or `version`, a tuple)."""
    version = tuple(sys.version_info[:3]) if version is None else tuple(version)
    shown = ".".join(str(v) for v in version)
    minimum = ".".join(str(v) for v in PYTHON_MINIMUM)
    return version[:2] >= PYTHON_MINIMUM, t("check.python", lang, name="Python", version=shown, minimum=minimum)


def check_library(name, minimum, lang=None, version_of=importlib.metadata.version):
    """(ok, line) for one installed distribution: present, and at least `minimum`."""
    try:
        version = version_of(name)
    except importlib.metadata.PackageNotFoundError:
        return False, t("check.missing_library", lang, name=name)
    if _version_tuple(version) < _version_tuple(minimum):
        return False, t("check.old_library", lang, name=name, version=version, minimum=minimum)
    return True, t("check.library", lang, name=name, version=version, minimum=minimum)


def check_font(lang=None, family=None):
    """(ok, line): a figure writing the course's Chinese characters in `family` (default: the course's CJK font)
    is drawn without a missing glyph, and the font file has every one of them. With no CJK font at all (none
    installed, and the one attn_lib ships missing: a copy of the package without its data), the line says so."""
    if family is None:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module=NO_CJK_FONT_WARNING)  # said in the line
            family = use_cjk_font()
        if family is None:
            return False, t("check.font_file_missing", lang, path=heatmaps.BUNDLED_FONT, example="Noto Sans CJK SC")
    characters = course_characters()
    path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=True)
    font = FT2Font(path)
    missing = [ch for ch in characters if font.get_char_index(ord(ch)) == 0]
    fig = Figure(figsize=(4, 1))
    fig.text(0.05, 0.5, "猫吃鱼 " + "".join(characters), family=[family], fontsize=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(io.BytesIO(), format="png")
    missing += sorted({ch for w in caught if "Glyph" in str(w.message) for ch in characters if ch in str(w.message)})
    name = font_manager.FontProperties(fname=path).get_name()
    if missing or any("Glyph" in str(w.message) for w in caught):
        return False, t(
            "check.font_missing",
            lang,
            family=name,
            missing="".join(sorted(set(missing))) or "?",
            example="Noto Sans CJK SC",
        )
    return True, t("check.font", lang, family=name, count=len(characters))


def _notebooks(numbers, lang):
    """(7, 10) -> "notebook 07 and notebook 10" / "第 7 课和第 10 课"."""
    return t("check.and", lang).join(t("check.notebook", lang, number=n) for n in numbers)


def check_model(lang=None, find=fetch.find_model_files, spec=None, number=None):
    """(ok, line): the model files of the notebooks `number` (an int or a tuple; `spec`: fetch.MINILM by default,
    numbers: those MODEL_NOTEBOOKS gives the model) are where the course looks, with their pinned checksums."""
    spec = fetch.MINILM if spec is None else spec
    if number is None:
        number = next((numbers for known, numbers in MODEL_NOTEBOOKS if known is spec), ())
    numbers = (number,) if isinstance(number, int) else tuple(number)
    said = {"notebooks": _notebooks(numbers, lang), "model": spec.model}
    try:
        folder = find(download=False, verify=True, spec=spec)
    except fetch.ModelChecksumError as exc:  # a damaged file: fetching again would find it and stop
        reason = str(exc).splitlines()[0]
        return False, t("check.model_damaged", lang, reason=reason, folder=fetch.cache_dir(spec), **said)
    except (fetch.ModelNotAvailableError, OSError) as exc:
        return False, t("check.model_missing", lang, reason=_shortened(str(exc).splitlines()[0]), **said)
    return True, t("check.model", lang, folder=folder, count=len(spec.files), **said)


def check_widget(lang=None, build=setup_check_widget):
    """(ok, line): notebook 00's setup widget is built and redraws its picture when its slider moves. (Missing
    Chinese glyphs are the font check's to report: their warnings are not repeated here.)"""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=GLYPH_WARNING, category=UserWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module=NO_CJK_FONT_WARNING)
        widget = build(lang=lang)
        before = widget.image.value
        widget.controls["temperature"].value = 0.5  # what moving the slider does
    if widget.state.get("error") is not None or not widget.image.value or widget.image.value == before:
        return False, t("check.widget_failed", lang, error=widget.state.get("error") or "the picture did not change")
    width, height = _png_size(widget.image.value)
    return True, t("check.widget", lang, width=width, height=height)


def checks(lang=None):
    """[(name, function)]: every check `run` makes, in order."""
    found = [("Python", lambda: check_python(lang))]
    found += [
        (name, lambda name=name, minimum=minimum: check_library(name, minimum, lang)) for name, minimum in LIBRARIES
    ]
    found.append(("font", lambda: check_font(lang)))
    found += [
        (f"model {spec.model}", lambda spec=spec, number=number: check_model(lang, spec=spec, number=number))
        for spec, number in MODEL_NOTEBOOKS
    ]
    found.append(("widget", lambda: check_widget(lang)))
    return found


def run(lang=None, out=None, items=None):
    """Run every check (or `items`, [(name, function)]), print one line each and a verdict; -> exit status 0 / 1."""
    out = sys.stdout if out is None else out
    items = checks(lang) if items is None else items
    print(t("check.title", lang), file=out)
    failed = 0
    for name, function in items:
        try:
            ok, line = function()
        except Exception as exc:  # a check that breaks is a failed check, not a crash of the others
            ok, line = False, t("check.crashed", lang, check=name, error=f"{type(exc).__name__}: {exc}")
        failed += not ok
        print(("✓ " if ok else "✗ ") + line, file=out, flush=True)
    verdict = (
        t("check.not_ready", lang, failed=failed, n=len(items))
        if failed
        else t("check.ready", lang, n=len(items), lab="JupyterLab")
    )
    print(verdict, file=out)
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m attn_lib.check", description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en", choices=("en", "zh"), help="the language of the lines (en, zh)")
    args = parser.parse_args(argv)
    return run(check_language(args.lang))


if __name__ == "__main__":
    sys.exit(main())
