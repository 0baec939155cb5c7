"""The widgets: set each control's value in Python, then check what the update computed and drew."""

import base64
import io
import warnings

import ipywidgets
import matplotlib
import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from attn_lib import count_parameters, examples, init_multi_head_weights, multi_head_attention
from attn_lib.i18n import STRINGS, set_language
from attn_lib.pictures.fast_figures import DPI, cat_figure, still_png
from attn_lib.pictures.heatmaps import MASK_FACE, MASK_TEXT, format_weight
from attn_lib.widgets import dk_widget, heads_widget, mask_widget, setup_check_widget
from attn_lib.widgets.attention import D_K_OPTIONS, MAX_TOKENS, heads_grid, heads_mosaic

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
    for kind, numbers in (("causal", 6), ("none", 9), ("causal", 6)):  # every frame, both figures
        w.controls["mask"].value = kind
        (cells,) = w._figures[(kind, "en")].cells
        assert len(cells) == numbers  # a masked cell holds "—", not a number
        for text, (i, j) in cells:
            assert text.get_text() == format_weight(w.state["weights"][i, j])


def cell_pixels(widget, figure, i, j):
    """The RGB pixels of heatmap cell (i, j) in the widget's picture, without a margin of 3 pixels."""
    ax = figure.images[0].axes
    height = figure.canvas.get_width_height(physical=True)[1]
    (x0, y0), (x1, y1) = ax.transData.transform([(j - 0.5, i + 0.5), (j + 0.5, i - 0.5)])  # lower left, upper right
    rows = slice(int(height - y1) + 3, int(height - y0) - 3)
    return pixels(widget.image.value)[rows, int(x0) + 3 : int(x1) - 3]


def test_masked_cells_stay_grey_hatched_and_dashed_in_every_frame(english):
    """Issue 15 item 4: masked cells look different from a 0 weight, and the fast redraw leaves them so."""
    w = mask_widget()
    for kind in ("causal", "none", "causal"):
        w.controls["mask"].value = kind
    figure = w._figures[("causal", "en")]
    ax = figure.images[0].axes
    dashes = [text for text in ax.texts if text.get_text() == MASK_TEXT]
    assert sorted((round(text.get_position()[1]), round(text.get_position()[0])) for text in dashes) == [
        (0, 1),
        (0, 2),
        (1, 2),
    ]
    assert len(ax.patches) == 3 and all(patch.get_hatch() == "///" for patch in ax.patches)
    assert ax.get_legend() is not None and MASK_TEXT not in [text.get_text() for text, _ in figure.cells[0]]
    grey = np.array(matplotlib.colors.to_rgb(MASK_FACE)) * 255
    for i, j in [(0, 1), (0, 2), (1, 2)]:  # masked: grey face, dark hatching
        cell = cell_pixels(w, figure, i, j).reshape(-1, 3).astype(float)
        assert (np.abs(cell - grey).sum(axis=-1) < 12).mean() > 0.4, (i, j)
        assert (cell.sum(axis=-1) < 3 * 170).mean() > 0.03, (i, j)
    # an unmasked weight drawn in the same colours as a masked cell would look masked: it is blue, not grey
    visible = cell_pixels(w, figure, 1, 1).reshape(-1, 3).astype(float)
    assert (np.abs(visible - grey).sum(axis=-1) < 12).mean() < 0.05


def test_the_fast_redraw_writes_weights_as_format_weight_does(english):
    """A weight of 0.0026 is not "0.00" (issue 15): the fast redraw uses attn_lib.pictures.heatmaps.format_weight."""
    figure = cat_figure("en")
    matrix = np.array([[0.9974, 0.0026, 0.0], [0.5, 0.25, 0.25], [0.0004, 0.4996, 0.5]])
    figure.render([matrix], ["-"])
    shown = {index: text.get_text() for text, index in figure.cells[0]}
    assert shown[(0, 1)] == "0.0026" and shown[(0, 0)] == "1.00" and shown[(0, 2)] == "0"
    assert shown[(2, 0)] == "<0.001" and shown == {index: format_weight(matrix[index]) for index in shown}


# --- one 猫吃鱼 (issue 15 item 2) -------------------------------------------------------------------


def test_every_cat_widget_shows_the_course_example_at_its_default_settings(english):
    example, causal = examples.cat_example(), examples.cat_example(causal=True)
    dk, mask, setup = dk_widget(), mask_widget(), setup_check_widget()
    assert dk.state["d_k"] == 2 and dk.state["scale"] is True
    assert mask.state["mask"] == "none" and setup.state["temperature"] == 1.0
    for w in (dk, mask, setup):
        np.testing.assert_allclose(w.state["weights"], example.weights, rtol=1e-12, atol=1e-15)
    mask.controls["mask"].value = "causal"
    np.testing.assert_allclose(mask.state["weights"], causal.weights, rtol=1e-12, atol=1e-15)
    # and the picture says so: each drawn number is the example's weight
    for w, weights in ((dk, example.weights), (setup, example.weights), (mask, causal.weights)):
        figure = next(f for key, f in w._figures.items() if "causal" in key or w is not mask)
        for text, index in figure.cells[0]:
            assert text.get_text() == format_weight(weights[index])


def test_the_d_k_widget_shows_the_same_example_at_every_d_k():
    """猫吃鱼 at d_k uses the first d_k columns of the course's projections: cat_example(d_k) for every d_k."""
    w = dk_widget()
    for d_k in (1, 4, 64, 512):
        w.controls["d_k"].value = d_k
        np.testing.assert_allclose(w.state["weights"], examples.cat_example(d_k).weights, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("scale", [True, False])
def test_the_d_k_widget_rows_never_all_pick_one_key(english, scale):
    """Issue 26: at every d_k the slider offers, scaled and not, 猫吃鱼's rows put their largest weights on
    more than one key; and the note under the tables says what large d_k does without scaling, and why."""
    w = dk_widget()
    w.controls["scale"].value = scale
    assert tuple(w.controls["d_k"].options) == examples.CAT_D_KS
    for d_k in examples.CAT_D_KS:
        w.controls["d_k"].value = d_k
        assert w.state["error"] is None
        assert len(set(w.state["weights"].argmax(axis=-1).tolist())) > 1, (d_k, scale, w.state["weights"])
    assert "notebook 02" in w.info.value and "鱼 at most d_k up to 64, 吃 from 128 on" in w.info.value
    zh = dk_widget(lang="zh")
    assert "d_k 不超过 64 时多是“鱼”，从 128 起是“吃”" in zh.info.value
    # the note's claim about the article's raw X, computed: the key that all three rows pick, at each d_k
    raw = examples.cat_weights(examples.CAT_EMBEDDINGS, [examples.CAT_SEED])[:, 0].argmax(axis=-1)  # [d_ks, 3]
    shared = {d_k: set(examples.CAT_TOKENS[j] for j in row) for d_k, row in zip(examples.CAT_D_KS, raw, strict=True)}
    small = [d_k for d_k in examples.CAT_D_KS if d_k <= 64]
    assert sum(shared[d_k] == {"鱼"} for d_k in small) > len(small) / 2, shared
    assert all(shared[d_k] == {"吃"} for d_k in examples.CAT_D_KS if d_k >= 128), shared


# --- what a static reader sees -------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("d_k", "scale", "expected"), [(512, False, "512"), (512, True, "1"), (2, True, "1")])
def test_the_d_k_title_states_the_variance_over_all_sampled_pairs(lang, d_k, scale, expected):
    """Issue 15 item 4: the claim (Var ≈ d_k unscaled, ≈ 1 scaled) is in the picture, not only in the HTML below it."""
    w = dk_widget(lang=lang)
    w.controls["scale"].value = scale
    w.controls["d_k"].value = d_k
    (figure,) = w._figures.values()
    title = figure.titles[0]
    assert title is figure.fig._suptitle
    text = title.get_text()
    measured = w.state["sample_var"]
    assert f"{measured:.1f}" in text if not scale else f"{measured:.2f}" in text
    assert "2,000" in text and f"= {expected}" in text.replace("约等于 ", "≈ ").replace("≈ ", "= ")
    np.testing.assert_allclose(measured, d_k if not scale else 1.0, rtol=0.15)
    assert has_chinese(text) == (lang == "zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_heads_widget_says_1_head_not_1_heads(lang):
    w = heads_widget(lang=lang)
    w.controls["n_heads"].value = 1
    suptitle = w._figures[(1, lang)].fig._suptitle.get_text()
    info = w.info.value
    if lang == "en":
        assert suptitle.startswith("1 head,") and "h = 1 head," in info
        assert "1 heads" not in suptitle + info
    else:
        assert suptitle.startswith("1 个头") and "h = 1 个头" in info
    w.controls["n_heads"].value = 2
    assert w._figures[(2, lang)].fig._suptitle.get_text().startswith("2 heads" if lang == "en" else "2 个头")


@pytest.mark.parametrize("tokens", [examples.ANIMAL_TOKENS, None], ids=["animal", "cat"])
def test_the_heads_grid_at_16_heads_has_no_label_under_8_points_and_no_overlap(tokens, english):
    """Issue 15 item 4, measured as a reader sees it: the picture is at most 1000 pixels wide (a notebook shows
    it unshrunk), every text is drawn at least as large as an 8-point label of the notebooks' 100-dpi figures,
    and no two token labels overlap."""
    w = heads_widget(d_model=48, tokens=tokens)
    w.controls["n_heads"].value = 16
    figure = w._figures[(16, "en")]
    fig, renderer = figure.fig, figure.canvas.get_renderer()
    assert Image.open(io.BytesIO(w.image.value)).size[0] <= 1000
    texts = [text for text in fig.findobj(matplotlib.text.Text) if text.get_text().strip()]
    assert len(texts) > 20
    small = [(text.get_text(), text.get_fontsize()) for text in texts if text.get_fontsize() * DPI / 100 < 8]
    assert not small
    labels = [text for text in fig.axes[0].texts if text.get_gid() == "label" and text.get_text() in w.tokens]
    counts = {token: [text.get_text() for text in labels].count(token) for token in w.tokens}
    assert min(counts.values()) >= 2  # every token labelled, as a query (each row of heads) and as a key
    boxes = [text.get_window_extent(renderer) for text in labels]
    overlapping = [
        (labels[a].get_text(), labels[b].get_text())
        for a in range(len(boxes))
        for b in range(a + 1, len(boxes))
        if boxes[a].overlaps(boxes[b])
    ]
    assert not overlapping


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
    # The formatter an IPython shell displays with (InteractiveShell.display_formatter is a DisplayFormatter), on
    # its own: InteractiveShell.instance() would leave a process-wide shell behind, and every later test would
    # then run "inside a notebook" (TrainingProgress in tests/test_tiny_widgets.py drew into it).
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.interactiveshell import InteractiveShell

    data, _ = DisplayFormatter().format(dk_widget())
    assert not InteractiveShell.initialized()
    assert "application/vnd.jupyter.widget-view+json" in data
    Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).load()


def test_a_200_token_sentence_gets_bounded_pictures_at_every_h(english):
    """Issue 13, item 11: 200 tokens once made a 12,800-pixel-wide layout (gigabytes); now each is at most ~1,300."""
    from attn_lib.widgets.shell import FIGURE_CACHE_PIXELS

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
    from attn_lib.widgets.shell import FIGURE_CACHE

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


def test_the_heads_widget_frames_the_highlighted_row_in_every_head_and_on_top_of_the_cells(english):
    """Notebook 06 frames the row of "it": one red frame per head, around that row, still red after a repaint."""
    w = heads_widget(d_model=48, tokens=examples.ANIMAL_TOKENS, highlight="it")
    row = examples.ANIMAL_TOKENS.index("it")
    for h in (1, 4, 16):
        w.controls["n_heads"].value = h
        figure = w._figures[(h, "en")]
        frames = [p for p in figure.fig.axes[0].patches if p.get_gid() == "highlight"]
        assert len(frames) == h
        n, (_, _, gap_y) = len(w.tokens), heads_grid(h, len(w.tokens))
        assert {round(frame.get_y() + 0.5 - gap_y) % (n + gap_y) for frame in frames} == {row}  # the row of "it"
    pixels = np.asarray(Image.open(io.BytesIO(w.image.value)).convert("RGB")).astype(int)
    red = (np.abs(pixels - [214, 39, 40]).sum(axis=-1) < 60).sum()  # tab:red
    plain = np.asarray(Image.open(io.BytesIO(heads_widget(d_model=48, tokens=examples.ANIMAL_TOKENS).image.value)))
    assert red > 200 and red > (np.abs(plain[..., :3].astype(int) - [214, 39, 40]).sum(axis=-1) < 60).sum() + 200
    with pytest.raises(ValueError, match="highlight must be one of the tokens"):
        heads_widget(tokens=examples.ANIMAL_TOKENS, highlight="dog")
