"""Notebook 13's sampling widget: set each control's value in Python, then check what it computed and drew.

The expected distribution and sentence are recomputed here from attn_lib.sampling and
attn_lib.models.generation (the model's logits, a fresh seeded sampler), so the widget cannot agree with
itself by accident.
"""

import base64
import io

import ipywidgets
import numpy as np
import pytest
from PIL import Image

from attn_lib.i18n import STRINGS, set_language
from attn_lib.models.generation import never_next, next_token_logits, without, write
from attn_lib.models.lm_corpus import make_lm_corpus
from attn_lib.models.lm_experiment import load_tiny_lm
from attn_lib.sampling import greedy, sampler, sampling_distribution
from attn_lib.widgets import sampling_widget


@pytest.fixture(scope="module")
def model():
    corpus = make_lm_corpus()
    params, config = load_tiny_lm(corpus)
    return params, config, corpus


@pytest.fixture
def widget(model):
    set_language("en")
    yield sampling_widget(*model)
    set_language("en")


def expected(model, prompt, temperature, top_k, top_p, seed=0):
    """The distribution the widget should draw and the words it should write, computed here."""
    params, config, corpus = model
    logits = without(next_token_logits(params, config, corpus, prompt), never_next(corpus))
    if temperature == 0:
        return np.eye(len(logits))[greedy(logits)], write(params, config, corpus, prompt, greedy)
    top_k, top_p = top_k or None, None if top_p == 1 else top_p
    probs = sampling_distribution(logits, temperature, top_k, top_p)
    return probs, write(params, config, corpus, prompt, sampler(seed, temperature, top_k, top_p))


def test_the_contract_of_the_course_widgets(widget):
    assert isinstance(widget, ipywidgets.VBox) and set(widget.controls) == {"prompt", "temperature", "top_k", "top_p"}
    assert widget.state["error"] is None and widget.update() is widget.state
    for key, control in widget.controls.items():
        assert widget.state[key] == control.value
    data = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    still = np.asarray(Image.open(io.BytesIO(base64.b64decode(data["image/png"]))).convert("RGB"))
    live = np.asarray(Image.open(io.BytesIO(bytes(widget.image.value))).convert("RGB"))
    assert live.shape[1] > 400 and still.shape[1] == live.shape[1] and still.shape[0] > live.shape[0]
    np.testing.assert_array_equal(still[: live.shape[0]], live)  # the live picture, a caption band under it


@pytest.mark.parametrize(
    "settings",
    [
        {"temperature": 1.0},
        {"temperature": 0.5},
        {"temperature": 2.0, "top_k": 5},
        {"temperature": 1.3, "top_p": 0.9},
        {"temperature": 3.0, "top_k": 20, "top_p": 0.95},
        {"prompt": "我们", "temperature": 1.0, "top_p": 0.8},
    ],
)
def test_each_setting_draws_the_distribution_and_writes_what_the_seed_writes(widget, model, settings):
    for name, value in settings.items():
        widget.controls[name].value = value
    state = widget.state
    assert state["error"] is None, state["error"]
    c = widget.controls
    probs, words = expected(model, c["prompt"].value, c["temperature"].value, c["top_k"].value, c["top_p"].value)
    np.testing.assert_allclose(state["probs"], probs, atol=1e-12)
    assert state["written"] == words and words[-1] == "。"  # it stops at the end marker
    assert state["kept"] == int((probs > 0).sum()) and state["top_probability"] == pytest.approx(probs.max())


def test_greedy_and_top_k_1_write_the_same_sentence(widget, model):
    widget.controls["temperature"].value = 0.0
    greedy_words = widget.state["written"]
    assert widget.state["kept"] == 1 and greedy_words == expected(model, "今天 天气", 0, 0, 1.0)[1]
    widget.controls["temperature"].value = 1.6
    widget.controls["top_k"].value = 1  # one candidate: the sampler has no choice
    assert widget.state["kept"] == 1 and widget.state["written"] == greedy_words


def test_the_bars_are_the_filtered_distribution(widget):
    widget.controls["top_p"].value = 0.5
    bars = widget._figures[widget.figure_key(widget.state, "en")].bars
    heights = np.array([bar.get_height() for bar in bars])
    own, rest = widget.bars("今天 天气")
    np.testing.assert_allclose(heights, np.append(widget.state["probs"][own], widget.state["probs"][rest].sum()))
    assert heights.sum() == pytest.approx(1.0) and (heights > 0).sum() == widget.state["kept"]


def test_the_same_settings_write_the_same_words_and_cannot_draw_pad_or_bos(widget, model):
    widget.controls["temperature"].value = 3.0  # flat: every token that can come next gets a chance
    first = widget.state["written"]
    widget.controls["temperature"].value = 1.0
    widget.controls["temperature"].value = 3.0
    assert widget.state["written"] == first
    corpus = model[2]
    assert widget.state["probs"][[corpus.index["<pad>"], corpus.index["<bos>"]]].sum() == 0.0
    assert widget.state["kept"] == len(corpus.vocab) - 2


def test_a_new_sentence_and_the_chinese_labels(model):
    w = sampling_widget(*model, lang="zh")
    w.controls["prompt"].value = ""  # <bos> alone: the start of a new sentence
    assert w.state["error"] is None and w.state["written"][-1] == "。"
    options = dict(w.controls["temperature"].options)
    assert STRINGS["zh"]["gen.widget_greedy"] in options and w.controls["prompt"].label == "（一个新句子）"


def test_a_prompt_outside_the_vocabulary_is_named(model):
    with pytest.raises(ValueError, match=r"\['晴朗'\] not in the vocabulary"):
        sampling_widget(*model, prompts=("今天 晴朗",))
