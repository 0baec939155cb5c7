"""How long each notebook takes a learner, by one rule, and whether notebook 00 states it.

    minutes = words / WORDS_PER_MINUTE + code lines * MINUTES_PER_CODE_LINE, rounded to the nearest 5

measured on the English edition (both editions state the same minutes), over every cell a learner meets:
the markdown's words (`words`), and the non-empty lines of the code cells, side paths included, the folded solution
cells of the exercises left out. The time to solve the exercises is not included.

Why these constants:

- WORDS_PER_MINUTE = 120. Adults read ordinary prose at about 200-250 words a minute; text that teaches,
  with a formula or a number to check in most paragraphs, is read at about half that speed.
- MINUTES_PER_CODE_LINE = 0.12 (about 7 seconds a line). A code line is read, run (Shift-Enter) and its
  output compared with the text; most cells are 5-15 lines with one printout or one figure.

With them, notebooks 07, 08 and 10-12 (2,900-3,500 words and 200-272 code lines when this was written) take 45-60
minutes, which is what an instructor who worked through them reported (issue 26: 45-75).

    python tools/notebook_durations.py           # the table: words, code lines, minutes
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
ROUND_TO = 5
#: A word: a run of letters or digits (it's, top-k and 2,359,296 count as one), or a run of Chinese characters
#: (the English edition's Chinese is tokens and titles: 猫吃鱼, 从Token预测说起); markdown's marks (| # * -),
#: spaces and link targets are not words.
WORD = re.compile(r"[^\W_\u3400-\u9fff]+(?:[’'.,-][^\W_\u3400-\u9fff]+)*|[\u3400-\u9fff]+")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
#: For the Chinese edition's length (not its minutes): Chinese characters per English word, the usual ratio of a
#: translation (1,000 English words become about 1,500-1,800 characters).
CHARACTERS_PER_WORD = 1.7
#: A row of notebook 00's map: "| 07 | <the link to 07> | <its question> | 55 |"
MAP_ROW = re.compile(r"^\|\s*(\d\d)\s*\|.*\|\s*(\d+)\s*\|\s*$", re.M)


def words(text):
    """The words of a markdown text, as the rule counts them (`WORD`, link targets left out)."""
    return len(WORD.findall(LINK_TARGET.sub("]", text)))


def chinese_words(text):
    """The length of a Chinese markdown text in English words: its Latin words plus its Chinese characters / 1.7."""
    text = LINK_TARGET.sub("]", text)
    chinese = len(re.findall(r"[\u3400-\u9fff]", text))
    return len(WORD.findall(re.sub(r"[\u3400-\u9fff]+", " ", text))) + chinese / CHARACTERS_PER_WORD


def count(path):
    """(words, code lines) of a notebook: markdown words, non-empty lines of its non-solution code cells."""
    n_words = lines = 0
    for cell in json.loads(Path(path).read_text("utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            n_words += words(source)
        elif cell["cell_type"] == "code" and "solution" not in cell.get("metadata", {}).get("tags", []):
            lines += sum(1 for line in source.splitlines() if line.strip())
    return n_words, lines


def minutes(words, lines):
    """The rule: words / WORDS_PER_MINUTE + lines * MINUTES_PER_CODE_LINE, to the nearest ROUND_TO minutes."""
    exact = words / WORDS_PER_MINUTE + lines * MINUTES_PER_CODE_LINE
    return max(ROUND_TO, ROUND_TO * round(exact / ROUND_TO))


def durations(folder=ROOT / "notebooks" / "en"):
    """{notebook number: (words, code lines, minutes)} for every notebook in `folder`."""
    return {path.name[:2]: (*count(path), minutes(*count(path))) for path in sorted(Path(folder).glob("*.ipynb"))}


def stated(edition):
    """{notebook number: minutes} as notebook 00's map of `edition` states them."""
    start = next((ROOT / "notebooks" / edition).glob("00_*.ipynb"))
    text = "\n".join("".join(c["source"]) for c in json.loads(start.read_text("utf-8"))["cells"])
    return {number: int(value) for number, value in MAP_ROW.findall(text)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with notebook 00's map (both editions)")
    args = parser.parse_args()
    measured = durations()
    print(f"{'#':<3} {'words':>6} {'code lines':>10} {'minutes':>7}")
    for number, (words, lines, total) in measured.items():
        print(f"{number:<3} {words:>6} {lines:>10} {total:>7}")
    print(f"all {sum(m for *_, m in measured.values())} minutes")
    if args.check:
        expected = {number: total for number, (*_, total) in measured.items()}
        bad = [edition for edition in ("en", "zh") if stated(edition) != expected]
        for edition in bad:
            print(f"notebook 00 ({edition}) states {stated(edition)}, the rule gives {expected}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
