"""Notebook 08's live pieces: the checkpoint slider (each checkpoint's attention, computed independently here)
and the live training curve."""

import base64

import numpy as np
import pytest

from attn_lib.i18n import STRINGS, t
from attn_lib.models.corpus import TEMPLATES, make_corpus
from attn_lib.models.tiny_model import forward
from attn_lib.models.tiny_training import train
from attn_lib.widgets.progress import TrainingProgress
from attn_lib.widgets.training import checkpoint_widget


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


# --- the live training curve ----------------------------------------------------------------------


@pytest.fixture
def fake_notebook(monkeypatch):
    """Pretend to run in a notebook kernel: record what would be displayed and updated."""
    import IPython.display
    from IPython.core.interactiveshell import InteractiveShell

    shown = []

    class Handle:
        def update(self, bundle, raw=False):
            shown.append(("update", bundle))

    def display(bundle, raw=False, display_id=None):
        assert raw and display_id is True
        shown.append(("display", bundle))
        return Handle()

    monkeypatch.setattr(InteractiveShell, "initialized", classmethod(lambda cls: True))
    monkeypatch.setattr(IPython.display, "display", display)
    return shown


def test_training_progress_redraws_one_output_in_place_with_an_unchanging_text(trained, fake_notebook):
    corpus = trained[0]
    progress = TrainingProgress(interval=3600, lang="zh")  # a slow clock: the first picture and the last only
    result = train(corpus, seed=0, max_steps=12, eval_every=5, target_accuracy=1.0, progress=progress)
    assert [kind for kind, _ in fake_notebook] == ["display", "update"]
    texts = {bundle["text/plain"] for _, bundle in fake_notebook}
    assert texts == {t("tiny.progress_text", "zh")}  # what nbval compares never changes
    assert all(base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG") for _, bundle in fake_notebook)
    assert progress.steps == list(range(result.steps + 1)) and progress.done
    assert progress.eval_steps == [h["step"] for h in result.history] == [0, 5, 10, 12]
    final = progress.figure().axes[0].get_title()
    assert final == t("tiny.progress_done", "zh", steps=12, accuracy=result.history[-1]["validation_accuracy"])

    fake_notebook.clear()
    again = TrainingProgress(interval=0)
    train(corpus, seed=0, max_steps=3, progress=again)  # a new run starts a new curve
    assert [kind for kind, _ in fake_notebook][0] == "display" and again.steps == [0, 1, 2, 3]


@pytest.mark.parametrize("draw_seconds, expected_draws", [(0.01, 11), (0.5, 4)])
def test_training_progress_redraws_every_interval_but_spends_at_most_a_tenth_of_the_time_drawing(
    fake_notebook, monkeypatch, draw_seconds, expected_draws
):
    import attn_lib.widgets.progress

    clock = {"now": 0.0}
    monkeypatch.setattr(attn_lib.widgets.progress.time, "perf_counter", lambda: clock["now"])
    progress = TrainingProgress(interval=1.0)
    draw = progress._show

    def slow_draw():
        draw()
        clock["now"] += draw_seconds

    progress._show = slow_draw
    for step in range(100):  # a step every 0.1 s: 10 s of training
        progress({"step": step, "max_steps": 99, "loss": 1.0, "validation_accuracy": None, "done": step == 99})
        clock["now"] += 0.1
    # cheap pictures: about one per second; costly ones (0.5 s): one per 5 s, at 0, 5 and 10 s; and always the last
    assert progress.redraws == len(fake_notebook) == expected_draws
    # apart from the first and the last picture, drawing takes at most a tenth of the time
    assert (progress.redraws - 2) * draw_seconds <= 0.1 * clock["now"]


def test_training_progress_outside_a_notebook_only_records(trained):
    from IPython.core.interactiveshell import InteractiveShell

    # "outside a notebook" is a process without an IPython shell: a test that makes one must not leave it behind
    assert not InteractiveShell.initialized(), "an earlier test left InteractiveShell.instance() behind"
    corpus = trained[0]
    progress = TrainingProgress()
    with pytest.raises(ValueError, match="no training step recorded yet"):
        progress.figure()
    train(corpus, seed=0, max_steps=2, progress=progress)
    assert progress.redraws == 0 and progress.steps == [0, 1, 2]
    assert progress.figure().axes[0].get_title() == t(
        "tiny.progress_done", None, steps=2, accuracy=progress.accuracy[-1]
    )
    with pytest.raises(ValueError, match="interval must be a number of seconds"):
        TrainingProgress(interval=-1)
    with pytest.raises(TypeError, match="event must be the dict that train"):
        progress(0.5)
