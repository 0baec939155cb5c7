"""Notebook 07's position slider: set each control's value in Python, then check what it computed and drew.

The scores are recomputed here independently, from rotation matrices and the sinusoid formula written
out with math.sin / math.cos, so the widget cannot agree with itself by accident.
"""

import base64
import io
import math
import warnings

import ipywidgets
import numpy as np
import pytest
from PIL import Image

from attn_lib.i18n import STRINGS, set_language
from attn_lib.position import rope_matrix
from attn_lib.widgets.position import BASES, position_widget


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language("en")


def expected_scores(x, offset, base, distances):
    """RoPE: (R_(offset+D) x) . (R_offset x) / sqrt(d); added: (x + PE(offset+D)) . (x + PE(offset)) / sqrt(d)."""
    d = len(x)

    def pe(pos):
        return np.array(
            [math.sin(pos / base ** (j / d)) if j % 2 == 0 else math.cos(pos / base ** ((j - 1) / d)) for j in range(d)]
        )

    key_rope = rope_matrix(offset, d, base) @ x
    rope_scores = [rope_matrix(offset + D, d, base) @ x @ key_rope / math.sqrt(d) for D in distances]
    added = [(x + pe(offset + D)) @ (x + pe(offset)) / math.sqrt(d) for D in distances]
    return np.array(rope_scores), np.array(added)


def test_the_widget_contract(english):
    w = position_widget()
    assert isinstance(w, ipywidgets.VBox) and set(w.controls) == {"offset", "base"}
    assert w.state["error"] is None and w.update() is w.state
    for key, control in w.controls.items():
        assert w.state[key] == control.value
    assert list(w.controls["base"].options) == list(BASES) and w.controls["base"].value == 10_000
    data = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    raw = base64.b64decode(data["image/png"])
    still = np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"))
    live = np.asarray(Image.open(io.BytesIO(bytes(w.image.value))).convert("RGB"))
    assert live.shape[1] > 300 and live.shape[0] > 150
    # for readers without a kernel: the live picture, pixel for pixel, with a caption band under it
    assert still.shape[1] == live.shape[1] and still.shape[0] > live.shape[0]
    np.testing.assert_array_equal(still[: live.shape[0]], live)


@pytest.mark.parametrize("offset, base", [(0, 10_000), (37, 10_000), (512, 100), (200, 100_000)])
def test_moving_the_sliders_shows_the_scores_computed_independently(offset, base, english):
    w = position_widget(max_distance=20)
    w.controls["base"].value = base
    w.controls["offset"].value = offset
    rope_scores, added = expected_scores(w.x, offset, base, range(21))
    np.testing.assert_allclose(w.state["rope_scores"], rope_scores, atol=1e-10)
    np.testing.assert_allclose(w.state["added_scores"], added, atol=1e-10)
    assert w.state["offset"] == offset and w.state["base"] == base and w.state["error"] is None


def test_rope_curve_stays_put_while_the_added_one_moves(english):
    w = position_widget()
    at_zero = w.state["rope_scores"].copy(), w.state["added_scores"].copy()
    pictures = {w.image.value}
    for offset in (50, 123, 400):
        w.controls["offset"].value = offset
        np.testing.assert_allclose(w.state["rope_scores"], at_zero[0], atol=1e-12)
        assert w.state["rope_change"] < 1e-12 and w.state["added_change"] > 0.1
        assert np.abs(w.state["added_scores"] - at_zero[1]).max() == pytest.approx(w.state["added_change"])
        assert str(offset) in w.info.value
        pictures.add(w.image.value)
    assert len(pictures) == 4  # every position draws a different picture (the orange line moves)


def test_the_base_changes_how_fast_the_rope_score_falls_with_distance(english):
    w = position_widget()
    tails = {}
    for base in BASES:
        w.controls["base"].value = base
        scores = w.state["rope_scores"]
        assert scores[0] == pytest.approx(w.x @ w.x / np.sqrt(len(w.x)))  # D = 0: no turn at all
        tails[base] = float(np.abs(scores[1:8] - scores[0]).mean())  # how far the first few distances fall
    assert tails[100] > tails[1000] > tails[10_000] > tails[100_000]  # a larger base turns more slowly


def test_an_exception_inside_update_becomes_a_message(english):
    w = position_widget()
    w.compute = lambda lang: 1 / 0
    state = w.update()
    assert "ZeroDivisionError" in state["error"] and "Traceback" not in w.message.value
    del w.compute
    assert w.update()["error"] is None and w.message.value == ""


def test_chinese_labels_and_no_missing_glyph():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = position_widget(lang="zh")
        w.controls["offset"].value = 300
        w.controls["base"].value = 100
    assert w.state["error"] is None
    assert not [str(m.message) for m in caught if "Glyph" in str(m.message)]
    assert w.controls["offset"].description == STRINGS["zh"]["position.offset_label"]
    assert "旋转位置编码" in w.info.value


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="d=5 must be even"):
        position_widget(d=5)
    with pytest.raises(ValueError, match="max_offset=0 must be a positive integer"):
        position_widget(max_offset=0)
    with pytest.raises(ValueError, match="lang='fr'"):
        position_widget(lang="fr")


# --- issue 27 items 9 and 11: the work is linear in max_offset, the limits are stated, a bad seed is named --------


def test_the_work_is_linear_in_max_offset_and_the_scores_unchanged(monkeypatch, english):
    """max_offset=8192 used to compute 4.3 M rows of the sinusoid (positions 0 .. offset + D, per offset) for 133 k
    drawn; now one table of the positions the curves reach per base, and D + 1 rows per curve drawn."""
    import attn_lib.widgets.position as module

    rows = []
    real = module.sinusoidal_encoding

    def counting(n, d_model, base=10000.0, **kwargs):
        rows.append(n)
        return real(n, d_model, base, **kwargs)

    monkeypatch.setattr(module, "sinusoidal_encoding", counting)
    w = position_widget(max_offset=8192)
    assert sum(rows) <= 4 * (8192 + 65) + 65 * 8  # one table per base, and a few curves
    w.controls["offset"].value = 8000
    x = np.random.default_rng(0).standard_normal(32)
    rope_scores, added = expected_scores(x, 8000, 10_000, range(65))
    np.testing.assert_allclose(w.state["rope_scores"], rope_scores, atol=1e-9)
    np.testing.assert_allclose(w.state["added_scores"], added, atol=1e-9)
    for base in BASES:  # the fast form of the y range's scores is the direct one, offset by offset
        offsets = [0, 8, 4000, 8192]
        direct = np.array([w.curves(offset, base)[1] for offset in offsets])
        np.testing.assert_allclose(w.added_scores(offsets, base), direct, rtol=0, atol=1e-12)


def test_the_limits_are_stated_in_the_errors():
    with pytest.raises(ValueError, match=r"max_offset=20000 is more than the widget's limit of 16384"):
        position_widget(max_offset=20_000)
    with pytest.raises(ValueError, match=r"max_distance=5000 is more than the widget's limit of 512"):
        position_widget(max_distance=5000)
    with pytest.raises(ValueError, match=r"d=4096 is more than the widget's limit of 256"):
        position_widget(d=4096)
    with pytest.raises(ValueError, match=r"seed=-1 must be a non-negative integer"):
        position_widget(seed=-1)
