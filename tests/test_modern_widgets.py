"""Notebook 12's sliders: set each control's value in Python, then check what the widget computed and drew.

The expected numbers are recomputed here head by head and position by position (plain loops, the
plain-loop attention of tests/reference.py), so the widgets cannot agree with themselves by accident.
"""

import base64
import io
import warnings

import ipywidgets
import numpy as np
import pytest
import reference as ref
from PIL import Image

from attn_lib import causal_mask
from attn_lib.i18n import STRINGS, set_language
from attn_lib.widgets.modern import kv_heads_widget, window_widget


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language("en")


def check_contract(w, names):
    assert isinstance(w, ipywidgets.VBox) and set(w.controls) == set(names)
    assert w.state["error"] is None and w.update() is w.state
    for key, control in w.controls.items():
        assert w.state[key] == control.value
    data = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    still = np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).convert("RGB"))
    live = np.asarray(Image.open(io.BytesIO(bytes(w.image.value))).convert("RGB"))
    assert live.shape[1] > 400 and still.shape[1] == live.shape[1] and still.shape[0] > live.shape[0]
    np.testing.assert_array_equal(still[: live.shape[0]], live)  # the live picture, with a caption band under it


# --- how many key/value heads ------------------------------------------------------------------------


def test_kv_heads_widget_contract(english):
    w = kv_heads_widget()
    check_contract(w, {"n_kv_heads"})
    assert list(w.controls["n_kv_heads"].options) == [1, 2, 4, 8] and w.state["n_kv_heads"] == 2
    assert w.state["n_heatmaps"] == 8


@pytest.mark.parametrize("n_kv_heads", [1, 2, 4, 8])
def test_each_query_head_attends_with_the_mean_of_its_groups_kv_heads(n_kv_heads, english):
    w = kv_heads_widget()
    w.controls["n_kv_heads"].value = n_kv_heads
    h, n = 8, len(w.tokens)
    g = h // n_kv_heads
    assert w.state["kv_of_head"] == [i // g for i in range(h)]
    for i in range(h):  # head by head, with the plain loops: K/V head j = mean of the multi-head heads j*g .. (j+1)*g-1
        j = i // g
        k_j = sum(w._k[m] for m in range(j * g, (j + 1) * g)) / g
        v_j = sum(w._v[m] for m in range(j * g, (j + 1) * g)) / g
        _, expected = ref.attention(w._q[i], k_j, v_j, mask=causal_mask(n))
        np.testing.assert_allclose(w.state["weights"][i], expected, atol=1e-12)
    assert (w.state["weights"][:, ~causal_mask(n)] == 0).all()  # causal: the future gets weight exactly 0


def test_the_cache_numbers_follow_the_formula(english):
    w = kv_heads_widget()
    n, d = len(w.tokens), 8
    for kv, gib in ((8, 2.0), (2, 0.5), (1, 0.25)):
        w.controls["n_kv_heads"].value = kv
        assert w.state["cache_numbers"] == 2 * kv * n * d and w.state["mha_numbers"] == 2 * 8 * n * d
        assert w.state["llama_gib"] == pytest.approx(gib)  # Llama 2 7B's 2 GiB at the ratio kv / 8
        assert f"{2 * kv * n * d:,}" in w.info.value
    titles = set()
    for kv in (1, 2, 4, 8):
        w.controls["n_kv_heads"].value = kv
        titles.add(w.image.value)
    assert len(titles) == 4  # every setting draws a different picture


def test_multi_head_setting_is_multi_head_attention(english):
    from attn_lib import scaled_dot_product_attention

    w = kv_heads_widget()
    w.controls["n_kv_heads"].value = 8
    _, expected = scaled_dot_product_attention(w._q, w._k, w._v, mask=causal_mask(len(w.tokens)))
    np.testing.assert_allclose(w.state["weights"], expected, atol=1e-12)


# --- the sliding window ------------------------------------------------------------------------------


def test_window_widget_contract(english):
    w = window_widget()
    check_contract(w, {"window", "layers"})
    assert w.state["n_heatmaps"] == 2 and (w.state["window"], w.state["layers"]) == (4, 3)


@pytest.mark.parametrize(("window", "layers"), [(1, 1), (4, 3), (3, 8), (16, 1), (16, 3)])
def test_the_window_and_the_reach_are_computed_position_by_position(window, layers, english):
    w = window_widget()
    w.controls["window"].value = window
    w.controls["layers"].value = layers
    n = w.state["n"]
    expected_mask = np.array([[0 <= i - j < window for j in range(n)] for i in range(n)])
    np.testing.assert_array_equal(w.state["mask"], expected_mask)
    # after L layers output i depends on inputs i - L (W - 1) .. i (a chain of L steps of at most W - 1 back)
    expected_reach = np.array([[0 <= i - j <= layers * (window - 1) for j in range(n)] for i in range(n)])
    np.testing.assert_array_equal(w.state["reach"], expected_reach)
    assert w.state["formula"] == layers * (window - 1) + 1 and w.state["round"] == layers * window
    assert w.state["measured"] == min(n, layers * (window - 1) + 1)
    assert f"{w.state['formula']}" in w.info.value


def test_an_exception_inside_update_becomes_a_message(english):
    w = window_widget()
    w.compute = lambda lang: 1 / 0
    state = w.update()
    assert "ZeroDivisionError" in state["error"] and "Traceback" not in w.message.value
    del w.compute
    assert w.update()["error"] is None and w.message.value == ""


def test_chinese_labels_and_no_missing_glyph():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kv = kv_heads_widget(lang="zh")
        kv.controls["n_kv_heads"].value = 1
        win = window_widget(lang="zh")
        win.controls["layers"].value = 5
    assert kv.state["error"] is None and win.state["error"] is None
    assert not [str(m.message) for m in caught if "Glyph" in str(m.message)]
    assert kv.controls["n_kv_heads"].description == STRINGS["zh"]["modern.kv_label"]
    assert "键/值头" in kv.info.value and "感受野" in win.info.value and "个位置" in win.info.value


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="n_heads=16: the widget draws one heatmap per head, at most 12"):
        kv_heads_widget(n_heads=16)
    with pytest.raises(TypeError, match="tokens must be a sequence of strings"):
        kv_heads_widget(tokens="猫吃鱼")
    with pytest.raises(ValueError, match="max_window=0 must be a positive integer"):
        window_widget(max_window=0)
    with pytest.raises(ValueError, match="n=500: the widget draws two n x n heatmaps"):
        window_widget(n=500)
    with pytest.raises(ValueError, match="lang='fr'"):
        window_widget(lang="fr")


def test_kv_heads_widget_draws_the_future_grey_and_hatched_like_every_heatmap(english):
    """Issue 26: the causal cells were white (weight 0 in Blues); the course draws masked cells grey, hatched."""
    from matplotlib.colors import to_rgb

    from attn_lib.pictures.heatmaps import MASK_FACE, MASK_HATCH

    w = kv_heads_widget()
    figure = w._figures[next(iter(w._figures))]
    n = len(w.tokens)
    for image in figure.images:
        assert (np.ma.getmaskarray(image.get_array()) == ~causal_mask(n)).all()  # exactly the future is masked
    hatched = [p for ax in figure.fig.axes for p in ax.patches if p.get_hatch() == "///"]
    assert len(hatched) == 8 * n * (n - 1) // 2 and all(p.get_edgecolor()[:3] == to_rgb(MASK_HATCH) for p in hatched)
    pixels = np.asarray(Image.open(io.BytesIO(w.image.value)).convert("RGB")).astype(int)
    grey = (np.abs(pixels - np.array(to_rgb(MASK_FACE)) * 255).sum(axis=-1) < 12).sum()
    assert grey > 1000  # the masked cells are painted grey in the picture a reader sees


def test_the_limits_are_stated_in_the_errors():
    """Issue 27 item 9: d_head=1024 took 3.1 GB, max_window=10**6 430 MB (a slider of a million options)."""
    with pytest.raises(ValueError, match=r"d_head=1024 is more than the widget's limit of 128"):
        kv_heads_widget(d_head=1024)
    with pytest.raises(ValueError, match=r"seed=-1 must be a non-negative integer"):
        kv_heads_widget(seed=-1)
    with pytest.raises(ValueError, match=r"max_window=1000000 is more than n=32 positions"):
        window_widget(max_window=10**6)
    with pytest.raises(ValueError, match=r"max_layers=100 is more than n=32"):
        window_widget(max_layers=100)
    w = window_widget(n=64, max_window=64, max_layers=64)  # the largest allowed for n = 64
    assert list(w.controls["window"].options)[-1] == 64
    w.controls["window"].value, w.controls["layers"].value = 64, 64
    assert w.state["error"] is None and w.state["measured"] == 64
    assert kv_heads_widget(d_head=128).state["d_head"] == 128
