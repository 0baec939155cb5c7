"""Notebook 00 states how long each notebook takes, by the rule of tools/notebook_durations.py, and stays short.

The rule: minutes = words / 120 + code lines * 0.12 (+ 10 per checked exercise), to the nearest 5, measured on the
English edition, for each notebook's main path, side paths and exercises apart. Every notebook of the folder must
have its row in notebook 00's map, in both editions, with the rule's three figures: a new notebook fails here until
its row is added, and so does a notebook that grew or shrank. No main path is longer than 45 minutes (issue 42).
"""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("notebook_durations", ROOT / "tools" / "notebook_durations.py")
durations = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(durations)

#: Notebook 00 is a start page: at most this many words (about 900 meant).
MAX_WORDS_00 = 1000


def markdown(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_notebook_00_states_every_notebooks_minutes_by_the_rule(edition):
    measured = durations.part_minutes()
    stated = durations.stated(edition)
    assert set(stated) == set(measured), (
        f"{edition}/00's map has rows for {sorted(stated)}, the folder has the notebooks {sorted(measured)}:"
        " add (or remove) the rows in both editions"
    )
    wrong = {n: (stated[n], measured[n]) for n in measured if stated[n] != measured[n]}
    assert not wrong, (
        f"{edition}/00 states minutes that the rule no longer gives, (stated, rule): {wrong};"
        " run python tools/notebook_durations.py and update both editions' maps"
    )


def test_every_main_path_takes_at_most_45_minutes():
    long = {n: main for n, (main, _, _) in durations.part_minutes().items() if main > durations.MAX_MAIN_MINUTES}
    assert not long, f"main paths over {durations.MAX_MAIN_MINUTES} minutes: {long}; fold what a learner can skip"


def test_the_folders_hold_the_same_notebooks():
    en = sorted(p.name for p in (ROOT / "notebooks" / "en").glob("*.ipynb"))
    assert en == sorted(p.name for p in (ROOT / "notebooks" / "zh").glob("*.ipynb"))


def test_notebook_00_is_a_start_page():
    start = "00_start_here.ipynb"
    en = sum(durations.words(text) for text in markdown(ROOT / "notebooks" / "en" / start))
    zh = sum(durations.chinese_words(text) for text in markdown(ROOT / "notebooks" / "zh" / start))
    assert en <= MAX_WORDS_00 and zh <= MAX_WORDS_00, f"notebook 00 has {en} words (en) and {zh:.0f} (zh)"


def test_the_rule_and_its_reading_can_fail(tmp_path):
    assert durations.words("| 07 | [position](07_position.ipynb) | it's 2,359,296 猫吃鱼 |") == 5
    assert durations.chinese_words("一二三四五六七 and two") == pytest.approx(2 + 7 / 1.7)
    assert durations.minutes(3000, 200) == 50 and durations.minutes(3600, 270) == 60 and durations.minutes(10, 1) == 5
    cell = {"cell_type": "markdown", "source": ["one two three"], "metadata": {}}
    code = {"cell_type": "code", "source": ["x = 1\n", "\n", "y = 2\n"], "metadata": {}}
    hidden = {"cell_type": "code", "source": ["z = 3\n"], "metadata": {"tags": ["solution"]}}
    path = tmp_path / "probe.ipynb"
    path.write_text(json.dumps({"cells": [cell, code, hidden]}), "utf-8")
    assert durations.count(path) == (3, 2)  # solution cells and blank lines are not counted
    row = "| 00 | start here | does it work? | 10 | – | – |\n| 01 | [x](01_x.ipynb) | what? | 30 | 5 | 25 |"
    assert durations.MAP_ROW.findall(row) == [("00", "10", "–", "–"), ("01", "30", "5", "25")]


def test_the_parts_are_read_as_jupyterlab_folds_them(tmp_path):
    def md(text, **metadata):
        return {"cell_type": "markdown", "source": [text], "metadata": metadata}

    def code(text, *tags):
        return {"cell_type": "code", "source": [text], "metadata": {"tags": list(tags)}}

    cells = [
        md("# Title\n\none two"),  # main: 3 words
        code("a = 1\nb = 2\n"),  # main: 2 lines
        md("### For the curious: three more\n\nfour five", **{"jp-MarkdownHeadingCollapsed": True}),  # side: 7
        code("c = 3\n"),  # side: 1 line
        md("#### still folded"),  # a lower heading stays in the fold
        md("## 2. Back on the main path"),  # main again: 6 words (2 is one)
        md("## Summary\n\nsix\n\n## Check yourself\n\nseven eight"),  # 2 main words, then 4 exercise words
        code("def f(x):\n    ...\n"),
        code("passed = check_softmax(f)\n"),  # a checked exercise
        code("def solution(x):\n    return x\n", "solution"),  # not counted
        md("## Exercises\n\n1. nine"),  # still exercises: 3 words
        md("## The article's corrections\n\nten"),  # main again
    ]
    path = tmp_path / "probe.ipynb"
    path.write_text(json.dumps({"cells": cells}), "utf-8")
    parts = durations.parts(path)
    assert parts["main"] == [3 + 6 + 2 + 4, 2, 0], parts
    assert parts["side"] == [7 + 2, 1, 0], parts
    assert parts["exercises"] == [4 + 3, 3, 1], parts
    assert durations.count(path) == (31, 6)
    assert durations.minutes(0, 0, at_least=0) == 0 and durations.minutes(0, 0, 1, at_least=0) == 10
