"""The notebooks' "The same in PyTorch" cells run, and agree with attn_lib.

A notebook shows the PyTorch code a learner will reuse without running it (torch is a test-only dependency):
a markdown cell that starts with the marker below (alone on its line, or opening a paragraph), holding one
```python block that builds its inputs with a seeded numpy generator, computes with torch and with attn_lib, and
asserts that they agree.
Here every such block of both editions of every notebook runs, in a fresh namespace.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKERS = {"en": "**The same in PyTorch.**", "zh": "**用 PyTorch 写同样的计算。**"}
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def snippets(edition):
    """[(notebook, cell index, code)] of every marked cell of the edition (its one python block)."""
    found = []
    for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text("utf-8"))["cells"]):
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown" and text.startswith(MARKERS[edition]):
                blocks = BLOCK.findall(text)
                assert len(blocks) == 1, f"{edition}/{path.name} cell {i}: {len(blocks)} python blocks, expected 1"
                found.append((path.name, i, blocks[0]))
    return found


ALL = [(edition, *snippet) for edition in MARKERS for snippet in snippets(edition)]


def test_both_editions_show_the_same_snippets():
    """Each notebook has as many snippets in both editions, with the same code up to its strings and comments."""
    for (name, _, en), (other, _, zh) in zip(snippets("en"), snippets("zh"), strict=True):
        assert name == other
        assert strip(en) == strip(zh), f"{name}: the English and Chinese PyTorch snippets differ in their code"
    assert {name for name, _, _ in snippets("en")} >= {
        "04_scaled_dot_product_attention.ipynb",
        "05_causal_masking.ipynb",
        "07_position_and_the_transformer_block.ipynb",  # the marker opens a paragraph here (a test once missed them)
        "09_translation.ipynb",
        "12_attention_in_modern_models.ipynb",
    }


def strip(code):
    """The code without comments and string contents (the parts the two editions may word differently)."""
    code = re.sub(r"#.*", "", code)
    return re.sub(r"\"[^\"\n]*\"", '""', code).split()


@pytest.mark.parametrize(("edition", "name", "index", "code"), ALL, ids=[f"{e}/{n[:2]}/cell{i}" for e, n, i, _ in ALL])
def test_the_snippet_runs_and_agrees_with_attn_lib(edition, name, index, code):
    pytest.importorskip("torch", reason="the PyTorch snippets need torch (installed in CI)")
    assert "import torch" in code and "attn_lib" in code and "assert" in code, (
        f"{edition}/{name} cell {index}: a snippet computes with torch and attn_lib and asserts that they agree"
    )
    assert "default_rng(" in code, f"{edition}/{name} cell {index}: the inputs come from a seeded numpy generator"
    exec(compile(code, f"{edition}/{name}:cell{index}", "exec"), {"__name__": "snippet"})


def test_a_wrong_snippet_fails():
    torch = pytest.importorskip("torch")
    assert torch is not None
    code = snippets("en")[0][2].replace("np.allclose(out.numpy(), ours)", "np.allclose(out.numpy(), 2 * ours)")
    with pytest.raises(AssertionError):
        exec(compile(code, "wrong", "exec"), {"__name__": "snippet"})
    text = f"{MARKERS['en']}\n\n```python\nx = 1\n```\n\n```python\ny = 2\n```"
    assert len(BLOCK.findall(text)) == 2  # a cell with two blocks is refused by snippets()
