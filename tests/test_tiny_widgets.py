"""The checkpoint slider of notebook 08: moving it shows each checkpoint's attention, computed independently here."""

import numpy as np
import pytest

from attn_lib.corpus import TEMPLATES, make_corpus
from attn_lib.i18n import STRINGS
from attn_lib.tiny_model import forward
from attn_lib.tiny_training import train
from attn_lib.tiny_widgets import checkpoint_widget


@pytest.fixture(scope="module")
def trained():
    corpus = make_corpus()
    result = train(corpus, seed=0, max_steps=20, checkpoint_every=5, target_accuracy=1.0)  # a short run
    article = corpus.encode([(0, 1)], TEMPLATES[:1])  # 北京 yesterday, 上海 today
    return corpus, result, article


def test_the_slider_offers_every_checkpoint_and_starts_at_the_last(trained):
    corpus, result, article = trained
    w = checkpoint_widget(result, corpus, article)
    steps = [step for step, _ in result.checkpoints]
    assert list(w.controls["step"].options) == steps == [0, 5, 10, 15, 20]
    assert w.state["step"] == 20 and w.state["error"] is None


def test_moving_the_slider_shows_that_checkpoints_attention(trained):
    corpus, result, article = trained
    w = checkpoint_widget(result, corpus, article)
    n = int(article.blank[0]) + 1
    today, yesterday = int(article.today[0]), int(article.yesterday[0])
    pictures = set()
    for step, params in result.checkpoints:
        w.controls["step"].value = step
        # independently: the model's own forward pass, the blank's row of every layer's weights
        _, caches = forward(params, result.config, article.tokens, article.blank)
        expected = np.stack([c["weights"][0, :, article.blank[0], :n] for c in caches["layers"]])  # [L, h, n]
        np.testing.assert_allclose(w.state["weights"], expected, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(w.state["weights"].sum(axis=-1), 1.0, rtol=1e-5)
        np.testing.assert_allclose(w.state["on_today"], expected[:, :, today], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(w.state["on_yesterday"], expected[:, :, yesterday], rtol=1e-6, atol=1e-7)
        assert f"{step}" in w.info.value
        pictures.add(w.image.value)
    assert len(pictures) == len(result.checkpoints)  # every step draws a different picture


def test_labels_follow_the_language(trained):
    corpus, result, article = trained
    w = checkpoint_widget(result, corpus, article, lang="zh")
    assert w.controls["step"].description == STRINGS["zh"]["tiny.step_axis"]
    assert "第" in w.info.value and "步" in w.info.value


def test_bad_arguments_are_named(trained):
    corpus, result, article = trained
    with pytest.raises(TypeError, match="result must be the TrainResult"):
        checkpoint_widget(None, corpus, article)
    with pytest.raises(TypeError, match="corpus must be a Corpus"):
        checkpoint_widget(result, None, article)
    with pytest.raises(ValueError, match="index=3 must pick a sentence of split, between 0 and 0"):
        checkpoint_widget(result, corpus, article, index=3)
