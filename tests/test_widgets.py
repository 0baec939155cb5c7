"""The widgets: set each control's value in Python, then check what the update computed and drew."""

import base64
import io
import warnings

import ipywidgets
import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from attn_lib import count_parameters, examples, init_multi_head_weights, multi_head_attention
from attn_lib.i18n import STRINGS, set_language
from attn_lib.widget_figures import still_png
from attn_lib.widgets import (
    D_K_OPTIONS,
    MAX_TOKENS,
    dk_widget,
    heads_mosaic,
    heads_widget,
    mask_widget,
    setup_check_widget,
)

ALL_WIDGETS = {
    "dk": dk_widget,
    "mask": mask_widget,
    "heads": heads_widget,
    "setup": setup_check_widget,
}


def has_chinese(text):
    return any("\u4e00" <= char <= "\u9fff" for char in text)


def png_of(widget):
    """The image/png entry of the widget's display data, decoded to a PIL image."""
    data = widget._repr_mimebundle_()
    raw = base64.b64decode(data["image/png"])
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(raw))


def pixels(png_bytes):
    return np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"))


@pytest.fixture
def english():
    set_language("en")
    yield
    set_language("en")


# --- the common contract -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_WIDGETS)
def test_every_widget_is_a_vbox_with_controls_state_and_update(name, english):
    w = ALL_WIDGETS[name]()
    assert isinstance(w, ipywidgets.VBox)
    assert w.controls and all(isinstance(c, ipywidgets.ValueWidget) for c in w.controls.values())
    assert w.state["error"] is None
    assert w.update() is w.state
    for key, control in w.controls.items():
        assert w.state[key] == control.value


@pytest.mark.parametrize("name", ALL_WIDGETS)
def test_the_static_png_is_the_widgets_picture_with_a_caption_under_it(name, english):
    w = ALL_WIDGETS[name]()
    data = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data  # the live widget is still offered
    image = png_of(w)
    image.load()
    assert image.size[0] > 100 and image.size[1] > 100
    still, live = pixels(base64.b64decode(data["image/png"])), pixels(w.image.value)
    height = live.shape[0]
    assert still.shape[1] == live.shape[1] and still.shape[0] > height + 12  # a band of text under the picture
    np.testing.assert_array_equal(still[:height], live)  # the picture itself, pixel for pixel
    band = still[height:]
    background = np.median(band.reshape(-1, 3), axis=0)
    assert background.min() > 200  # a light band ...
    assert (np.abs(band.astype(int) - background).sum(axis=-1) > 150).mean() > 0.01  # ... with dark text on it


def test_the_caption_follows_the_language_and_wraps_to_the_picture():
    w = setup_check_widget(lang="en")
    english_band = pixels(w.still_picture())[pixels(w.image.value).shape[0] :]
    w.lang = "zh"
    w.update()
    chinese_band = pixels(w.still_picture())[pixels(w.image.value).shape[0] :]
    assert english_band.shape != chinese_band.shape or (english_band != chinese_band).any()
    # a long caption on a narrow picture wraps onto more lines instead of being cut off
    narrow = Image.new("RGB", (200, 50), "white")
    buffer = io.BytesIO()
    narrow.save(buffer, format="PNG")
    short, long = still_png(buffer.getvalue(), "Run it."), still_png(buffer.getvalue(), "Run this cell again. " * 6)
    assert pixels(short).shape[1] == pixels(long).shape[1] == 200
    assert pixels(long).shape[0] > pixels(short).shape[0] + 30


@pytest.mark.parametrize("name", ALL_WIDGETS)
def test_an_exception_inside_update_becomes_a_message_not_a_traceback(name, english):
    w = ALL_WIDGETS[name]()

    def broken(lang):
        raise RuntimeError("boom")

    w.compute = broken
    state = w.update()  # must not raise
    assert state["error"] is not None and "boom" in state["error"]
    assert "boom" in w.message.value
    assert "Traceback" not in w.message.value
    del w.compute  # back to the class's method
    assert w.update()["error"] is None
    assert w.message.value == ""


def test_a_failing_observer_update_does_not_raise_either(english):
    w = mask_widget()

    def broken(state, matrices, titles, lang):
        raise ValueError("cannot draw")

    w.draw = broken
    w.controls["mask"].value = "causal"  # the observer calls update(); nothing escapes
    assert "cannot draw" in w.state["error"]


def test_the_error_message_follows_the_language():
    w = mask_widget(lang="zh")
    w.compute = lambda lang: 1 / 0
    assert w.update()["error"].startswith(STRINGS["zh"]["widgets.error"].split("{")[0])


@pytest.mark.parametrize("name", ALL_WIDGETS)
def test_chinese_labels_and_no_missing_glyph(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = ALL_WIDGETS[name](lang="zh")
        for control in w.controls.values():
            options = getattr(control, "options", None)
            if options:
                control.value = control.options[-1] if not isinstance(options[0], tuple) else options[-1][1]
    assert w.state["error"] is None
    assert not [str(m.message) for m in caught if "Glyph" in str(m.message)]
    assert all(has_chinese(control.description) for control in w.controls.values())
    if name != "mask":
        assert has_chinese(w.info.value)


def test_lang_none_follows_set_language():
    try:
        set_language("zh")
        w = heads_widget()
        assert has_chinese(w.info.value) and has_chinese(w.controls["n_heads"].description)
        set_language("en")
        w.update()
        assert not has_chinese(w.info.value)
    finally:
        set_language("en")


def test_bad_arguments_are_rejected_at_construction():
    with pytest.raises(ValueError, match="lang"):
        dk_widget(lang="fr")
    with pytest.raises(ValueError, match="d_model"):
        heads_widget(d_model=0)
    with pytest.raises(TypeError, match=r"tokens must be a sequence of strings.*list\('猫吃鱼'\)"):
        heads_widget(tokens="猫吃鱼")


@pytest.mark.parametrize("make", [dk_widget, mask_widget, heads_widget])
@pytest.mark.parametrize("seed", ["1", 1.5, None, True, [1]])
def test_a_seed_of_the_wrong_type_is_named(make, seed):
    with pytest.raises(TypeError, match=r"seed must be a non-negative integer .* got"):
        make(seed=seed)


@pytest.mark.parametrize("make", [dk_widget, mask_widget, heads_widget])
def test_a_negative_seed_is_named(make):
    with pytest.raises(ValueError, match=r"seed=-1 must be a non-negative integer"):
        make(seed=-1)


def test_tokens_may_come_from_a_generator_and_are_read_once():
    words = examples.ANIMAL_TOKENS
    from_list = heads_widget(tokens=list(words))
    from_generator = heads_widget(tokens=(word for word in words))
    assert from_generator.state["error"] is None
    assert from_generator.state["tokens"] == tuple(words)
    np.testing.assert_array_equal(from_generator.state["weights"], from_list.state["weights"])


@pytest.mark.parametrize(
    ("tokens", "error", "match"),
    [
        (["猫", 3, "鱼"], TypeError, r"tokens must hold strings only, but tokens\[1\] is int 3"),
        ([b"cat"], TypeError, r"tokens\[0\] is bytes"),
        ((tok for tok in ["猫", None]), TypeError, r"tokens\[1\] is None"),
        (5, TypeError, "tokens must be a sequence of strings, one per token, got int 5"),
        ([], ValueError, "tokens is empty"),
        (iter([]), ValueError, "tokens is empty"),
        (["t"] * (MAX_TOKENS + 1), ValueError, rf"tokens has {MAX_TOKENS + 1} tokens; .* at most {MAX_TOKENS}"),
    ],
)
def test_bad_tokens_are_named(tokens, error, match):
    with pytest.raises(error, match=match):
        heads_widget(tokens=tokens)


# --- d_k and scaling -----------------------------------------------------------------------------


def test_dk_slider_offers_powers_of_two_up_to_512():
    w = dk_widget()
    assert list(w.controls["d_k"].options) == [2**i for i in range(10)]
    assert tuple(w.controls["d_k"].options) == D_K_OPTIONS
    assert isinstance(w.controls["scale"], ipywidgets.Checkbox)


@pytest.mark.parametrize("d_k", [16, 64, 256, 512])
def test_measured_variance_is_d_k_unscaled_and_1_scaled(d_k):
    w = dk_widget()
    w.controls["d_k"].value = d_k
    w.controls["scale"].value = False
    assert w.state["d_k"] == d_k and w.state["scale"] is False
    np.testing.assert_allclose(w.state["sample_var"], d_k, rtol=0.15)
    assert w.state["expected_var"] == d_k
    w.controls["scale"].value = True
    np.testing.assert_allclose(w.state["sample_var"], 1.0, rtol=0.15)
    assert w.state["expected_var"] == 1.0


def test_unscaled_rows_are_peakier_than_scaled_rows():
    w = dk_widget()
    w.controls["d_k"].value = 256
    w.controls["scale"].value = False
    unscaled = w.state
    w.controls["scale"].value = True
    scaled = w.state
    for key in ("row_max", "long_row_max"):
        assert unscaled[key].mean() > scaled[key].mean()
    assert unscaled["long_score_var"] > 10 * scaled["long_score_var"]


def test_unscaled_large_d_k_saturates_towards_one_hot():
    w = dk_widget()
    w.controls["scale"].value = False
    w.controls["d_k"].value = 1
    small = w.state["long_row_max"].mean()
    w.controls["d_k"].value = 512
    large = w.state["long_row_max"].mean()
    assert large > 0.9 > small


def test_dk_state_is_consistent_with_softmax_of_its_scores():
    """The widget's weights, row maxima and variances, recomputed by the plain-loop reference softmax."""
    w = dk_widget()
    for scale in (True, False):
        w.controls["scale"].value = scale
        for prefix in ("", "long_"):
            scores, weights = w.state[prefix + "scores"], w.state[prefix + "weights"]
            n = len(w.state[prefix + "tokens"])
            assert scores.shape == weights.shape == (n, n)
            expected = np.array(ref.softmax(scores.tolist()))
            np.testing.assert_allclose(weights, expected, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
            np.testing.assert_allclose(w.state[prefix + "row_max"], [max(row) for row in expected.tolist()])
            mean = sum(scores.ravel().tolist()) / scores.size
            np.testing.assert_allclose(
                w.state[prefix + "score_var"], sum((s - mean) ** 2 for s in scores.ravel()) / scores.size
            )
    assert w.state["n_heatmaps"] == 2


def test_scaling_divides_the_scores_by_sqrt_d_k():
    w = dk_widget()
    w.controls["d_k"].value = 64
    w.controls["scale"].value = False
    raw = w.state["scores"]
    w.controls["scale"].value = True
    np.testing.assert_allclose(w.state["scores"], raw / 8.0)


def test_the_picture_changes_with_d_k():
    w = dk_widget()
    w.controls["d_k"].value = 1
    before = w.image.value
    w.controls["d_k"].value = 512
    assert w.image.value != before


# --- the mask ------------------------------------------------------------------------------------


def test_causal_mask_zeroes_the_upper_triangle_exactly():
    w = mask_widget()
    assert isinstance(w.controls["mask"], ipywidgets.ToggleButtons)
    assert [value for _, value in w.controls["mask"].options] == ["none", "causal"]
    w.controls["mask"].value = "none"
    unmasked, scores = w.state["weights"], w.state["scores"]
    assert (unmasked[np.triu_indices(3, k=1)] > 0).any()
    w.controls["mask"].value = "causal"
    weights = w.state["weights"]
    assert (weights[np.triu_indices(3, k=1)] == 0.0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    assert weights[0, 0] == 1.0  # 猫 can only see itself
    # the same scores, masked by hand and normalised by the plain-loop reference, give the same weights
    by_hand = ref.softmax(np.where(np.tri(3, dtype=bool), scores, -np.inf).tolist())
    np.testing.assert_allclose(weights, by_hand, rtol=1e-12, atol=1e-15)


def test_the_annotated_cells_show_the_weights():
    w = mask_widget()
    w.controls["mask"].value = "causal"
    (figure,) = w._figures.values()
    (cells,) = figure.cells
    assert len(cells) == 9
    for text, (i, j) in cells:
        assert text.get_text() == f"{w.state['weights'][i, j]:.2f}"


# --- heads ---------------------------------------------------------------------------------------


def divisors_by_loop(n):
    return [h for h in range(1, n + 1) if n % h == 0]


@pytest.mark.parametrize("d_model", [48, 768])
def test_heads_slider_offers_only_divisors(d_model):
    w = heads_widget(d_model=d_model, max_heads=d_model)
    control = w.controls["n_heads"]
    assert isinstance(control, ipywidgets.SelectionSlider)
    assert list(control.options) == divisors_by_loop(d_model)


@settings(deadline=None, max_examples=12)
@given(d_model=st.integers(1, 120), max_heads=st.integers(1, 20))
def test_heads_options_are_the_divisors_up_to_max_heads(d_model, max_heads):
    w = heads_widget(d_model=d_model, max_heads=max_heads)
    options = list(w.controls["n_heads"].options)
    assert options == [h for h in divisors_by_loop(d_model) if h <= max_heads]
    assert all(d_model % h == 0 for h in options)


def test_each_head_count_draws_h_heatmaps_with_the_right_d_k_and_parameters():
    d_model = 48
    w = heads_widget(d_model=d_model)
    n = len(examples.CAT_TOKENS)
    for h in w.controls["n_heads"].options:
        w.controls["n_heads"].value = h
        state = w.update()
        assert state["error"] is None
        assert state["weights"].shape == (h, n, n)
        assert state["d_k"] == d_model // h
        assert state["n_params"] == count_parameters(d_model, h) == 4 * d_model**2
        assert state["n_heatmaps"] == h
        np.testing.assert_allclose(state["weights"].sum(axis=-1), 1.0)
        # the same numbers as attn_lib.multi_head_attention on the widget's inputs
        weights = init_multi_head_weights(d_model, h, seed=0)
        _, expected = multi_head_attention(w._x, n_heads=h, **weights)
        np.testing.assert_allclose(state["weights"], expected)


def test_heads_widget_on_a_twelve_token_sentence_at_d_model_768():
    tokens = (*examples.ANIMAL_TOKENS, ".")
    w = heads_widget(d_model=768, tokens=tokens)
    w.controls["n_heads"].value = 12
    assert w.state["error"] is None
    assert w.state["weights"].shape == (12, 12, 12)
    assert w.state["d_k"] == 64
    assert w.state["n_params"] == 2_359_296
    assert "2,359,296" in w.info.value


@settings(deadline=None, max_examples=25)
@given(
    h=st.integers(1, 7), n=st.integers(1, 5), ncols=st.integers(1, 4), gap_x=st.integers(1, 3), gap_y=st.integers(1, 3)
)
def test_heads_mosaic_puts_head_i_in_its_grid_cell(h, n, ncols, gap_x, gap_y):
    weights = np.random.default_rng(h * 100 + n).random((h, n, n))
    mosaic = heads_mosaic(weights, ncols, gap_x, gap_y)
    for i in range(h):  # the spec, as a loop
        row, col = divmod(i, ncols)
        top, left = row * (n + gap_y) + gap_y, col * (n + gap_x)
        np.testing.assert_array_equal(mosaic[top : top + n, left : left + n], weights[i])
    assert np.isnan(mosaic).sum() == mosaic.size - h * n * n


# --- the setup check -----------------------------------------------------------------------------


def test_temperature_sharpens_and_flattens_the_weights():
    w = setup_check_widget()
    assert isinstance(w.controls["temperature"], ipywidgets.FloatLogSlider)
    w.controls["temperature"].value = 0.1
    sharp = w.state["weights"]
    w.controls["temperature"].value = 10.0
    flat = w.state["weights"]
    assert w.state["temperature"] == pytest.approx(10.0)
    assert sharp.max(axis=-1).mean() > flat.max(axis=-1).mean()
    np.testing.assert_allclose(flat, np.full((3, 3), 1 / 3), atol=0.1)
    np.testing.assert_allclose(sharp.sum(axis=-1), 1.0)


def test_ipython_display_stores_both_the_live_widget_and_the_png():
    from IPython.core.interactiveshell import InteractiveShell

    data, _ = InteractiveShell.instance().display_formatter.format(dk_widget())
    assert "application/vnd.jupyter.widget-view+json" in data
    Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).load()


def test_a_200_token_sentence_gets_bounded_pictures_at_every_h(english):
    """Issue 13, item 11: 200 tokens once made a 12,800-pixel-wide layout (gigabytes); now each is at most ~1,300."""
    from attn_lib.widget_shell import FIGURE_CACHE_PIXELS

    tokens = [f"w{i}" for i in range(200)]
    w = heads_widget(d_model=768, tokens=tokens)
    for h in (16, 1):  # the tallest and the widest layouts
        w.controls["n_heads"].value = h
        assert w.state["error"] is None and w.state["weights"].shape == (h, 200, 200)
        width, height = w._figures[(h, "en")].canvas.get_width_height()
        assert width <= 1400 and height <= 1400, (h, width, height)
        assert max(Image.open(io.BytesIO(w.image.value)).size) <= 1400
    assert sum(f.canvas.get_width_height()[0] * f.canvas.get_width_height()[1] for f in w._figures.values()) <= (
        FIGURE_CACHE_PIXELS
    )
    labels = [text.get_text() for text in w._figures[(1, "en")].fig.axes[0].texts if text.get_gid() == "label"]
    assert "w0" in labels and len(labels) < 200  # every k-th token is labelled, not all 200 twice (400)


def test_the_next_head_counts_are_drawn_ahead_in_a_running_event_loop(english):
    """In a kernel (an event loop runs) the layouts one slider step away are drawn right after an update."""
    import asyncio

    w = heads_widget(d_model=48)  # h = 4 of 1, 2, 3, 4, 6, 8, 12, 16
    assert set(w._figures) == {(4, "en")}  # outside an event loop nothing is drawn ahead

    async def move_slider():
        w.controls["n_heads"].value = 8
        await asyncio.sleep(0)  # the kernel goes on with its queue: the neighbours are drawn now

    asyncio.run(move_slider())
    assert {(6, "en"), (8, "en"), (12, "en")} <= set(w._figures)
    assert list(w._figures)[-1] == (8, "en")  # the picture on screen stays the most recently used
    before = w._figures[(12, "en")]
    w.controls["n_heads"].value = 12
    assert w._figures[(12, "en")] is before and w.state["n_heatmaps"] == 12  # the key press found it ready


def test_heads_widget_keeps_a_bounded_number_of_layouts(english):
    from attn_lib.widget_shell import FIGURE_CACHE

    w = heads_widget(d_model=720, max_heads=720)  # 30 divisors, more than the cache holds
    options = list(w.controls["n_heads"].options)[:12]
    for h in options:
        w.controls["n_heads"].value = h
        assert w.state["n_heatmaps"] == h
        assert len(w._figures) <= FIGURE_CACHE
    first = w._figures[(options[-1], "en")]
    w.controls["n_heads"].value = options[-2]
    w.controls["n_heads"].value = options[-1]
    assert w._figures[(options[-1], "en")] is first  # a recent layout is reused, not rebuilt
