"""How long each notebook takes a learner, by one rule, and whether notebook 00 states it.

    minutes = words / WORDS_PER_MINUTE + code lines * MINUTES_PER_CODE_LINE, rounded to the nearest 5

measured on the English edition (both editions state the same minutes), over every cell a learner meets:
the markdown's words (`words`), and the non-empty lines of the code cells, the folded solution cells of the
exercises left out. Each notebook's cells fall in three parts, each timed apart:

- the main path: every cell not in the two parts below;
- side paths: a folded "For the curious" section (its heading cell, and every cell up to the next heading of
  its level or higher, as JupyterLab folds it);
- exercises: from an "## Exercises" or "## Check yourself" heading up to the next "##" heading of another kind;
  their reading by the rule, plus MINUTES_PER_CHECKED_EXERCISE for each checked exercise (a cell that calls a
  check_* function) — the time to write and fix one function.

Why these constants:

- WORDS_PER_MINUTE = 120. Adults read ordinary prose at about 200-250 words a minute; text that teaches,
  with a formula or a number to check in most paragraphs, is read at about half that speed.
- MINUTES_PER_CODE_LINE = 0.12 (about 7 seconds a line). A code line is read, run (Shift-Enter) and its
  output compared with the text; most cells are 5-15 lines with one printout or one figure.
- MINUTES_PER_CHECKED_EXERCISE = 10: a 5-15 line function, one or two attempts with the checker's message.
  An estimate, not a measurement: learners differ most here.

With the first two, notebooks 07, 08 and 10-12 (2,900-3,500 words and 200-272 code lines when this was written)
took 45-60 minutes, which is what an instructor who worked through them reported (issue 26: 45-75).

    python tools/notebook_durations.py           # the table: words, code lines, minutes per part
    python tools/notebook_durations.py --check   # exit status 1 if notebook 00's map disagrees
"""

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS_PER_MINUTE = 120
MINUTES_PER_CODE_LINE = 0.12
MINUTES_PER_CHECKED_EXERCISE = 10
ROUND_TO = 5
#: The longest main path a notebook may have (issue 42): the rest goes into side paths or exercises.
MAX_MAIN_MINUTES = 45
#: A word: a run of letters or digits (it's, top-k and 2,359,296 count as one), or a run of Chinese characters
#: (the English edition's Chinese is tokens and titles: 猫吃鱼, 从Token预测说起); markdown's marks (| # * -),
#: spaces and link targets are not words.
WORD = re.compile(r"[^\W_\u3400-\u9fff]+(?:[’'.,-][^\W_\u3400-\u9fff]+)*|[\u3400-\u9fff]+")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
#: For the Chinese edition's length (not its minutes): Chinese characters per English word, the usual ratio of a
#: translation (1,000 English words become about 1,500-1,800 characters).
CHARACTERS_PER_WORD = 1.7
#: A row of notebook 00's map: "| 07 | <the link to 07> | <its question> | 40 | 10 | 30 |" (main path, side paths,
#: exercises; "–" for none)
MAP_ROW = re.compile(r"^\|\s*(\d\d)\s*\|.*\|\s*(\d+)\s*\|\s*(\d+|–)\s*\|\s*(\d+|–)\s*\|\s*$", re.M)
#: A side path's heading, at the start of a markdown cell: "### For the curious: ..." / "## 6. 选读：..."
SIDE_PATH = re.compile(r"^(#{2,4}) (?:\d+\. )?(?:For the curious|选读)[:：]")
#: The headings of the exercise sections, both editions.
EXERCISE_HEADING = re.compile(r"^## (?:Exercises|Check yourself|练习|自测练习)\s*$")
HEADING = re.compile(r"^(#{1,6}) ")
CHECKED = re.compile(r"\bcheck_\w+\(")


def words(text):
    """The words of a markdown text, as the rule counts them (`WORD`, link targets left out)."""
    return len(WORD.findall(LINK_TARGET.sub("]", text)))


def chinese_words(text):
    """The length of a Chinese markdown text in English words: its Latin words plus its Chinese characters / 1.7."""
    text = LINK_TARGET.sub("]", text)
    chinese = len(re.findall(r"[\u3400-\u9fff]", text))
    return len(WORD.findall(re.sub(r"[\u3400-\u9fff]+", " ", text))) + chinese / CHARACTERS_PER_WORD


def _pieces(cells):
    """(part, cell, markdown text or None) for each cell, a markdown cell split where an exercise section starts."""
    part, side_level = "main", None
    for cell in cells:
        if cell["cell_type"] != "markdown":
            yield ("side" if side_level else part), cell, None
            continue
        text = "".join(cell["source"])
        first = HEADING.match(text)
        if side_level and first and len(first.group(1)) <= side_level:
            side_level = None  # JupyterLab's fold ends at the next heading of its level or higher
        if side := SIDE_PATH.match(text):
            side_level = len(side.group(1))
        if side_level:
            yield "side", cell, text
            continue
        chunk = []
        for line in text.splitlines(keepends=True):
            if line.startswith("## ") and (EXERCISE_HEADING.match(line.strip()) is not None) != (part == "exercises"):
                if chunk:
                    yield part, cell, "".join(chunk)
                part, chunk = ("exercises" if EXERCISE_HEADING.match(line.strip()) else "main"), []
            chunk.append(line)
        if chunk:
            yield part, cell, "".join(chunk)


def parts(path):
    """{"main" | "side" | "exercises": [words, code lines, checked exercises]} of a notebook (see the docstring)."""
    counted = {name: [0, 0, 0] for name in ("main", "side", "exercises")}
    for part, cell, text in _pieces(json.loads(Path(path).read_text("utf-8"))["cells"]):
        if text is not None:
            counted[part][0] += words(text)
        elif cell["cell_type"] == "code" and "solution" not in cell.get("metadata", {}).get("tags", []):
            source = "".join(cell["source"])
            counted[part][1] += sum(1 for line in source.splitlines() if line.strip())
            counted[part][2] += bool(CHECKED.search(source)) and part == "exercises"
    return counted


def count(path):
    """(words, code lines) of a notebook: markdown words, non-empty lines of its non-solution code cells."""
    counted = parts(path).values()
    return sum(c[0] for c in counted), sum(c[1] for c in counted)


def minutes(words, lines, checked=0, at_least=ROUND_TO):
    """The rule: words / WORDS_PER_MINUTE + lines * MINUTES_PER_CODE_LINE (+ checked exercises), to the nearest 5."""
    exact = words / WORDS_PER_MINUTE + lines * MINUTES_PER_CODE_LINE + checked * MINUTES_PER_CHECKED_EXERCISE
    return max(at_least, ROUND_TO * round(exact / ROUND_TO)) if exact else 0


def durations(folder=ROOT / "notebooks" / "en"):
    """{notebook number: (words, code lines, minutes)} for every notebook in `folder`, every cell counted."""
    return {path.name[:2]: (*count(path), minutes(*count(path))) for path in sorted(Path(folder).glob("*.ipynb"))}


def part_minutes(folder=ROOT / "notebooks" / "en"):
    """{notebook number: (main path, side paths, exercises) in minutes} for every notebook in `folder`."""
    table = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        counted = parts(path)
        table[path.name[:2]] = (
            minutes(*counted["main"][:2]),
            minutes(*counted["side"][:2], at_least=0),
            minutes(*counted["exercises"], at_least=0),
        )
    return table


def stated(edition):
    """{notebook number: (main, side, exercises) minutes} as notebook 00's map of `edition` states them (0 for –)."""
    start = next((ROOT / "notebooks" / edition).glob("00_*.ipynb"))
    text = "\n".join("".join(c["source"]) for c in json.loads(start.read_text("utf-8"))["cells"])
    return {row[0]: tuple(0 if v == "–" else int(v) for v in row[1:]) for row in MAP_ROW.findall(text)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with notebook 00's map (both editions)")
    args = parser.parse_args()
    measured, split = durations(), part_minutes()
    print(f"{'#':<3} {'words':>6} {'code lines':>10} {'minutes':>7} {'main':>5} {'side':>5} {'exercises':>9}")
    for number, (words, lines, total) in measured.items():
        main_path, side, exercises = split[number]
        flag = "  main path over 45" if main_path > MAX_MAIN_MINUTES else ""
        print(f"{number:<3} {words:>6} {lines:>10} {total:>7} {main_path:>5} {side:>5} {exercises:>9}{flag}")
    totals = [sum(row[i] for row in split.values()) for i in range(3)]
    print(f"all: main path {totals[0]} minutes, side paths {totals[1]}, exercises {totals[2]}")
    if args.check:
        bad = [edition for edition in ("en", "zh") if stated(edition) != split]
        for edition in bad:
            print(f"notebook 00 ({edition}) states {stated(edition)}, the rule gives {split}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
