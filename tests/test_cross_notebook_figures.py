"""A figure the text attributes to another notebook is a figure that notebook shows (issue 42, item 2).

The class of error: a sentence such as "notebook 11 measured its KV cache about 120 times faster" or "notebook 01's
120-line corpus" quotes a number from another notebook from memory, and the number drifts (or never was there) while
each notebook stays right about itself. nbval cannot see it: the number is in markdown, and the notebook it names is
validated on its own.

The rule, for every markdown cell of both editions and for both READMEs: a sentence that names another notebook
("notebook 07", "notebooks 10 and 14", "[03 · …](03_….ipynb)"; zh "第 7 课") and attributes something to it with a
verb of measuring or showing (ATTRIBUTION) must quote only numbers that notebook holds, in its markdown, its code or
its stored outputs. A number "holds" if the notebook has a number that rounds to it at the claim's precision (0.76 is
held by 0.7612; 1,024 by 1024; 43% by 43% or 0.43). Not checked as figures: the notebook numbers themselves, years,
section and step numbers, and digits inside names (GPT-2, Q4_1, all-MiniLM-L6-v2).

A sentence whose figure the named notebook reads from package data, or that another test checks, goes into ALLOWED
with where the figure comes from. Every entry of ALLOWED must still match a sentence, so the list cannot go stale.
"""

import json
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = ("en", "zh")
READMES = {"en": ROOT / "README.md", "zh": ROOT / "README.zh.md"}

#: Verbs that attribute a figure to the notebook named in the same sentence.
ATTRIBUTION = {
    "en": re.compile(
        r"\b(?:measure[sd]?|print(?:s|ed)?|gave|gives|found|finds|count(?:s|ed)?|show(?:s|ed|n)|comput(?:es|ed))\b",
        re.I,
    ),
    "zh": re.compile(r"测出|测得|测量|打印|算出|算过|得到|数出|数了|数数|统计|给出|显示"),
}
#: How far after the reference (in characters) the verb may stand: "notebook 01's 33-sentence corpus taught its counted
#: model" attributes, "第 7 课的块……最好的数数模型" (the counted model of another sentence part) does not.
VERB_WITHIN = {"en": 60, "zh": 30}
#: A reference to another notebook: "notebook 07", "notebooks 10, 14 and 15", a link "(07_….ipynb)", zh "第 7 课",
#: "第 10、14、15 课".
REFERENCE = {
    "en": re.compile(r"\bnotebooks? (\d\d(?:(?:, | and | or | to |–)\d\d)*)\b|\]\((\d\d)_[a-z0-9_]+\.ipynb\)"),
    "zh": re.compile(r"第 (\d+(?:[、–]\d+)*) 课|\]\((\d\d)_[a-z0-9_]+\.ipynb\)"),
}
#: A number as the text writes it: 0.76, 1,024, −1.341, 3e-13, 2.9×, 43%.
NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-−]?\d+)?%?")
#: Numbers that are not figures: years (in a citation), section, step and chapter numbers.
NOT_A_FIGURE = re.compile(
    r"(?:\b(?:sections?|§|steps?|chapters?|issue|arXiv:)|第)\s*\d+(?:\.\d+)*(?:[–-]\d+)?|\b(?:19|20)\d\d\b(?![,.]\d)"
)
#: Where a sentence ends. A single line break inside a paragraph is a space (the English markdown is wrapped); a
#: blank line, a list item, a table row or a heading starts anew.
SENTENCE_END = {"en": re.compile(r"(?<=[.!?])\s+(?=[^\sa-z])"), "zh": re.compile(r"(?<=[。！？])")}
BLOCK_START = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*|#>]|\d+\.)\s)")
#: A clause ends at a semicolon: a figure after it is not attributed by a verb before it.
CLAUSE_END = re.compile(r"[;；]")

#: Figures that a sentence names beside a reference to another notebook but that the named notebook does not hold,
#: each with where it does come from: (source, a piece of the sentence) -> (the figures as written, why).
ALLOWED = {
    ("en/14_a_real_language_model.ipynb", "than 134 million weights learned here"): (
        {"134"},
        "notebook 14's own SmolLM2 (134.5 M weights, printed in 14), not a figure of notebook 01",
    ),
    ("zh/14_a_real_language_model.ipynb", "比这里 1.34 亿个权重学到的还多"): (
        {"1.34"},
        "第 14 课自己的 SmolLM2（1.345 亿个权重，14 里打印），不是第 1 课的数",
    ),
}


def markdown_cells(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def notebook_path(edition, number):
    found = sorted((ROOT / "notebooks" / edition).glob(f"{int(number):02d}_*.ipynb"))
    return found[0] if found else None


def plain(text):
    """Markdown without its link targets, inline code and LaTeX (the digits of `x[0]` or $d_{k}$ are not figures)."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\$[^$]*\$", " ", text)


def sentences(text, edition):
    """The sentences of a markdown text: its blocks (paragraphs, list items, table rows) split at sentence ends."""
    found = []
    for block in BLOCK_START.split(text):
        block = re.sub(r"\s*\n\s*", " ", block)
        found += [s.strip() for s in SENTENCE_END[edition].split(block) if s and s.strip()]
    return found


def referenced(sentence, edition):
    """[(start, end, [notebook numbers])] of the references in a sentence (links found before the targets go)."""
    found = []
    for match in REFERENCE[edition].finditer(sentence):
        numbers = re.findall(r"\d+", match.group(1) or match.group(2))
        if match.group(1) and re.search(r"–| to ", match.group(1)):  # a range, "notebooks 10–14", "07 to 13"
            low, high = int(numbers[0]), int(numbers[-1])
            numbers = [str(n) for n in range(low, high + 1)]
        found.append((match.start(), match.end(), [f"{int(n):02d}" for n in numbers]))
    return found


def figures(text):
    """The numbers of a piece of text that are figures, each as (Decimal value, decimals, written form)."""
    text = NOT_A_FIGURE.sub(" ", text)
    found = []
    for match in NUMBER.finditer(text):
        written = match.group()
        before = text[max(0, match.start() - 2) : match.start()]
        after = text[match.end() : match.end() + 1]
        if re.match(r"[A-Za-z_]-?$", before[-1:]) or re.search(r"[A-Za-z]-$", before) or re.match(r"[A-Za-z_]", after):
            continue  # GPT-2, L6, 7B, Q4_1: a name, not a figure
        value = written.replace("−", "-").replace(",", "").rstrip("%")
        try:
            number = Decimal(value)
        except InvalidOperation:
            continue
        decimals = len(value.split(".")[1].split("e")[0]) if "." in value and "e" not in value.split(".")[0] else 0
        found.append((number, decimals, written))
    return found


def claims(text, edition):
    """[(sentence, [notebook numbers], [(value, decimals, written)])] for each sentence of a markdown text that
    attributes figures to another notebook: the figures after a reference, up to the next reference or the end of
    the clause, when an attribution verb follows the reference closely (VERB_WITHIN)."""
    found = []
    for sentence in sentences(text, edition):
        refs = referenced(sentence, edition)
        for k, (start, end, numbers) in enumerate(refs):
            stop = refs[k + 1][0] if k + 1 < len(refs) else len(sentence)
            clause = CLAUSE_END.search(sentence, end, stop)
            stop = clause.start() if clause else stop
            if ATTRIBUTION[edition].search(plain(sentence[start : min(stop, end + VERB_WITHIN[edition])])):
                quoted = figures(plain(sentence[end:stop]))
                if quoted:
                    found.append((sentence, numbers, quoted))
    return found


def notebook_numbers(path):
    """Every number a notebook holds (its markdown, its code, its stored text outputs), as Decimals."""
    parts = []
    for cell in json.loads(path.read_text("utf-8"))["cells"]:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    values = set()
    for written in NUMBER.findall("\n".join(parts)):
        try:
            values.add(abs(Decimal(written.replace("−", "-").replace(",", "").rstrip("%"))))
        except InvalidOperation:
            pass
    return values


def rounds_to(value, wanted, decimals):
    try:
        return value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP) == wanted
    except InvalidOperation:  # too many digits for the context: not this number
        return False


def holds(values, figure):
    """Whether a notebook's numbers hold a figure: one of them rounds to it at the figure's precision, or, for a
    percentage, one of them times 100 does (43% is held by 0.43 and by 0.4312)."""
    value, decimals, written = figure
    value = abs(value)
    if any(rounds_to(v, value, decimals) for v in values):
        return True
    return written.endswith("%") and any(rounds_to(v * 100, value, decimals) for v in values)


def sources():
    """(name, edition, [(cell index or None, markdown)]) for every notebook of both editions and both READMEs."""
    found = []
    for edition in EDITIONS:
        for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
            found.append((f"{edition}/{path.name}", edition, markdown_cells(path)))
        found.append((READMES[edition].name, edition, [(None, READMES[edition].read_text("utf-8"))]))
    return found


SOURCES = sources()


def allowed(name, sentence):
    """The figures of a sentence that ALLOWED exempts (an empty set if none)."""
    return set().union(
        *(figs for (source, piece), (figs, _) in ALLOWED.items() if source == name and piece in sentence)
    )


def unheld(name, edition, cells, notebooks=None):
    """[(cell, sentence, [notebooks], [figures as written])] of the sentences of `cells` that quote, beside a
    reference to another notebook, figures that notebook does not hold. `notebooks` maps a notebook number to its
    numbers (by default read from the edition's folder)."""
    own = name.split("/")[-1][:2]
    wrong = []
    for index, text in cells:
        for sentence, numbers, quoted in claims(text, edition):
            others = [n for n in numbers if n != own]
            if notebooks is None:
                held = [notebook_numbers(notebook_path(edition, n)) for n in others if notebook_path(edition, n)]
            else:
                held = [notebooks[n] for n in others if n in notebooks]
            if not held:
                continue
            values = set().union(*held)
            exempt = allowed(name, sentence)
            missing = [f[2] for f in quoted if f[2] not in exempt and not holds(values, f)]
            if missing:
                wrong.append((index, sentence, others, missing))
    return wrong


@pytest.mark.parametrize("name,edition,cells", SOURCES, ids=[name for name, *_ in SOURCES])
def test_figures_attributed_to_another_notebook_are_in_that_notebook(name, edition, cells):
    wrong = unheld(name, edition, cells)
    assert not wrong, f"{name}: figures attributed to a notebook that does not show them:\n" + "\n".join(
        f"  cell {cell}, notebook {'/'.join(nbs)} lacks {', '.join(missing)}: {sentence}"
        for cell, sentence, nbs, missing in wrong
    )


def test_every_allowed_figure_is_still_quoted():
    """An entry of ALLOWED whose sentence is gone, or no longer quotes its figures, is removed, not kept."""
    stale = []
    for (source, piece), (figs, _) in ALLOWED.items():
        name, edition, cells = next(s for s in SOURCES if s[0] == source)
        quoted = {
            f[2]
            for _, text in cells
            for sentence, _, found in claims(text, edition)
            if piece in sentence
            for f in found
        }
        if not figs <= quoted:
            stale.append(f"{source}: “{piece}” no longer quotes {sorted(figs - quoted)} beside a reference")
    assert not stale, "stale entries of ALLOWED:\n" + "\n".join(stale)


def test_the_check_finds_a_figure_the_named_notebook_does_not_show():
    """A fake claim fails, a true one passes, in both editions; the extraction reads numbers as the text writes them."""
    notebooks = {"11": {Decimal("164.2"), Decimal("1024"), Decimal("0.115")}, "01": {Decimal("33"), Decimal("0.43")}}
    fake = [(3, "Writing is fast (notebook 11 measured its KV cache about 120 times faster, for 1,024 tokens).")]
    true = [(3, "Writing is fast (notebook 11 measured its KV cache 164× faster, for 1,024 tokens, in 0.115 s).")]
    assert unheld("en/13_generating_text.ipynb", "en", fake, notebooks) == [(3, fake[0][1], ["11"], ["120"])]
    assert unheld("en/13_generating_text.ipynb", "en", true, notebooks) == []
    fake_zh = [(5, "正是缓存让生成变快（第 11 课测出，写 1,024 个词元时，KV 缓存快约 120 倍）。")]
    assert unheld("zh/13_generating_text.ipynb", "zh", fake_zh, notebooks)[0][3] == ["120"]
    assert unheld("zh/14_x.ipynb", "zh", [(1, "第 1 课数出 43% 的句子，共 33 句。")], notebooks) == []
    # a claim with no verb, or about the notebook itself, is not one; names, years and sections are not figures
    assert unheld("en/13_x.ipynb", "en", [(0, "Notebook 11 is about 120 things.")], notebooks) == []
    assert unheld("en/11_x.ipynb", "en", [(0, "Notebook 11 measured 120 things.")], notebooks) == []
    assert [
        f[2] for f in figures("GPT-2, Q4_1, L6 and 7B in 2017, section 3.2: 1,024 and −1.341 and 3e-13 and 43%")
    ] == [
        "1,024",
        "−1.341",
        "3e-13",
        "43%",
    ]
    assert holds({Decimal("0.7612")}, (Decimal("0.76"), 2, "0.76"))
    assert not holds({Decimal("0.7712")}, (Decimal("0.76"), 2, "0.76"))
