"""One 猫吃鱼 everywhere (issue 15): the matrices the notebooks print and the widgets draw at their defaults
are those of `attn_lib.examples.cat_example()`.

The notebooks are read as stored (what a reader sees on GitHub and what nbval compares): every 3 × 3 or
3 × 2 matrix they print is parsed, and the running example's must be among them, to the printed precision.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from attn_lib import examples
from attn_lib.widgets import dk_widget, mask_widget, setup_check_widget

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE, CAUSAL = examples.cat_example(), examples.cat_example(causal=True)
#: What each notebook prints of the running example (03 stops at the queries; 05 draws the unmasked weights
#: and prints the masked scores and weights).
PRINTED = {
    "00": {"weights": EXAMPLE.weights},
    "03": {"Q": EXAMPLE.q},
    "04": {"Q": EXAMPLE.q, "scores": EXAMPLE.scores, "weights": EXAMPLE.weights},
    "05": {"masked scores": np.where(CAUSAL.mask, EXAMPLE.scaled_scores, -np.inf), "causal weights": CAUSAL.weights},
}
MATRIX = re.compile(r"\[\[[^\[\]]*\](?:\s*\[[^\[\]]*\])*\]")  # numpy's printout of a 2-D array


def printed_matrices(path):
    """Every 2-D array printed in the notebook's stored outputs, as float arrays."""
    found = []
    for cell in json.loads(path.read_text("utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
            for block in MATRIX.findall(text):
                rows = re.findall(r"\[([^\[\]]*)\]", block)
                try:
                    values = [[float(v) for v in row.replace(",", " ").split()] for row in rows]
                    found.append(np.array(values))
                except ValueError:  # a printed list of words, not numbers
                    continue
    return found


def shown(matrix, printed):
    """Whether `matrix`, rounded as numpy prints it (3 decimals here), is one of the printed ones."""
    return any(p.shape == matrix.shape and np.allclose(p, matrix, atol=6e-4) for p in printed)


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("number", sorted(PRINTED))
def test_the_notebooks_print_the_running_example(edition, number):
    path = next((ROOT / "notebooks" / edition).glob(f"{number}_*.ipynb"))
    printed = printed_matrices(path)
    for what, matrix in PRINTED[number].items():
        assert shown(matrix, printed), f"{edition}/{path.name} does not print the running example's {what}"


def test_the_widgets_draw_the_running_example_at_their_defaults():
    dk = dk_widget(lang="en")
    assert np.allclose(dk.state["weights"], EXAMPLE.weights), "the d_k widget's default 猫吃鱼"
    mask = mask_widget(lang="en")
    for setting, expected in (("none", EXAMPLE.weights), ("causal", CAUSAL.weights)):
        mask.controls["mask"].value = setting  # as a click on the toggle would
        assert np.allclose(mask.state["weights"], expected), f"the mask toggle's 猫吃鱼 with mask = {setting}"
    setup = setup_check_widget(lang="en")
    setup.controls["temperature"].value = 1.0
    assert np.allclose(setup.state["weights"], EXAMPLE.weights), "the setup check at temperature 1"


def test_the_parser_finds_printed_matrices_and_the_check_can_fail():
    text = "weights =\n [[0.348 0.445 0.208]\n [0.117 0.123 0.76 ]\n [0.499 0.372 0.129]]\n"
    cell = {"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": [text]}]}]}
    path = ROOT / "tests" / "_parser_probe.ipynb"
    try:
        path.write_text(json.dumps(cell), "utf-8")
        printed = printed_matrices(path)
    finally:
        path.unlink()
    assert shown(EXAMPLE.weights, printed)
    assert not shown(EXAMPLE.weights + 0.01, printed)
    assert not shown(CAUSAL.weights, printed)
