"""The English and Chinese editions run the same code: same code cells, in the same order.

Two code cells count as the same when their syntax trees are equal after every string literal
(f-strings included) is replaced by one placeholder; comments do not reach the tree at all. So the
editions may differ in prose, comments and messages, never in logic.
"""

import ast
import copy
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EN = ROOT / "notebooks" / "en"
ZH = ROOT / "notebooks" / "zh"
NOTEBOOKS = sorted(p.name for p in EN.glob("*.ipynb"))


class _BlankStrings(ast.NodeTransformer):
    def visit_JoinedStr(self, node):  # f"..." -> "<str>"
        return ast.copy_location(ast.Constant("<str>"), node)

    def visit_Constant(self, node):
        if isinstance(node.value, (str, bytes)):
            return ast.copy_location(ast.Constant("<str>"), node)
        return node


def normalised_code(source):
    """The cell's syntax tree with strings blanked, as text (IPython magics and shell lines kept verbatim)."""
    lines = source.splitlines()
    magics = [ln.strip() for ln in lines if ln.lstrip().startswith(("%", "!"))]
    python = "\n".join(ln for ln in lines if not ln.lstrip().startswith(("%", "!")))
    tree = _BlankStrings().visit(ast.parse(python))
    return "\n".join(magics) + "\n" + ast.dump(tree, annotate_fields=False, include_attributes=False)


def code_cells(notebook):
    cells = notebook["cells"] if isinstance(notebook, dict) else json.loads(notebook.read_text("utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def differences(en, zh):
    """A list of human-readable differences between two notebooks' code (empty if none)."""
    en_cells, zh_cells = code_cells(en), code_cells(zh)
    if len(en_cells) != len(zh_cells):
        return [f"{len(en_cells)} code cells in English, {len(zh_cells)} in Chinese"]
    found = []
    for i, (a, b) in enumerate(zip(en_cells, zh_cells, strict=True)):
        if normalised_code("".join(a["source"])) != normalised_code("".join(b["source"])):
            found.append(f"code cell {i + 1} differs:\n--- en\n{''.join(a['source'])}\n--- zh\n{''.join(b['source'])}")
        tags_a, tags_b = (sorted(c.get("metadata", {}).get("tags", [])) for c in (a, b))
        if tags_a != tags_b:
            found.append(f"code cell {i + 1} has tags {tags_a} in English but {tags_b} in Chinese")
    return found


def test_english_edition_exists():
    assert NOTEBOOKS, "notebooks/en has no notebooks"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_chinese_edition_has_the_same_code(name):
    zh = ZH / name
    assert zh.exists(), f"notebooks/zh/{name} is missing: the Chinese edition must have every notebook"
    found = differences(EN / name, zh)
    assert not found, f"{name}: the editions' code differs\n" + "\n".join(found)


def test_no_extra_chinese_notebooks():
    assert sorted(p.name for p in ZH.glob("*.ipynb")) == NOTEBOOKS


# --- the comparison itself must be able to fail ------------------------------------------------------


def _first_notebook():
    return json.loads((EN / NOTEBOOKS[0]).read_text("utf-8"))


def _edit_first_code_cell(notebook, edit):
    altered = copy.deepcopy(notebook)
    cell = code_cells(altered)[0]
    cell["source"] = edit("".join(cell["source"]))
    return altered


def test_parity_ignores_strings_and_comments():
    notebook = _first_notebook()
    translated = _edit_first_code_cell(
        notebook, lambda src: "# 中文注释\n" + re.sub(r'"en"', '"zh"', src) + '\nprint(f"你好 {1 + 1}")\n'
    )
    english = _edit_first_code_cell(notebook, lambda src: src + '\nprint(f"hello {1 + 1}")\n')
    assert differences(english, translated) == []


@pytest.mark.parametrize(
    "edit",
    [
        lambda src: src + "\nx_extra = 1\n",  # an added statement
        lambda src: src.replace("import numpy as np", "import numpy as onp"),  # a renamed import
        lambda src: src + '\nprint(f"{1 + 2}")\n',  # fine alone, but the other copy lacks it
    ],
)
def test_parity_catches_a_changed_code_cell(edit):
    notebook = _first_notebook()
    assert differences(notebook, _edit_first_code_cell(notebook, edit)), "an altered code cell was not caught"


def test_parity_catches_a_missing_cell():
    notebook = _first_notebook()
    altered = copy.deepcopy(notebook)
    first_code = next(i for i, c in enumerate(altered["cells"]) if c["cell_type"] == "code")
    del altered["cells"][first_code]
    assert differences(notebook, altered)


def test_parity_catches_a_changed_number():
    notebook = {"cells": [{"cell_type": "code", "source": "y = softmax(x, axis=-1)\n", "metadata": {}}]}
    altered = {"cells": [{"cell_type": "code", "source": "y = softmax(x, axis=0)\n", "metadata": {}}]}
    assert differences(notebook, altered)


# --- the Chinese edition's figures speak Chinese -------------------------------------------------------

LABEL_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "title", "xlabel", "ylabel", "legend"}
LABEL_KEYWORDS = {"title", "label", "xlabel", "ylabel"}


def figure_strings(source):
    """String literals that end up as figure titles, axis labels or legend labels in a code cell."""
    python = "\n".join(ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!")))
    found = []
    for node in ast.walk(ast.parse(python)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        args = list(node.args) if name in LABEL_CALLS else []
        args += [kw.value for kw in node.keywords if kw.arg in LABEL_KEYWORDS]
        for arg in args:
            for sub in ast.walk(arg):
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    found.append(sub.value)
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_chinese_figure_labels_have_no_english(name):
    from test_i18n import english_words

    path = ZH / name
    if not path.exists():
        pytest.skip(f"notebooks/zh/{name} is missing (reported by the parity test)")
    leftovers = {
        text: words
        for cell in code_cells(path)
        for text in figure_strings("".join(cell["source"]))
        if (words := english_words(text))
    }
    assert not leftovers, f"{name}: English words in Chinese figure labels: {leftovers}"


def test_figure_label_check_can_fail():
    strings = figure_strings('ax.set_title("attention weights")\nfig = plot(x, title="注意力")\n')
    assert strings == ["attention weights", "注意力"]
