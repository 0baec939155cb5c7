"""check_in_language_model: a learner's attention inside SmolLM2-135M-Instruct, each mistake diagnosed at model scale.

Every lm_model.* diagnosis of attn_lib.i18n is fired here by the wrong function that earns it, and the
numbers it prints are the model's: its loss on the sentence with the model's own attention and with the
learner's.
"""

import re
import time

import numpy as np
import pytest
from checker_helpers import stable_softmax

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.exercises import language_model
from attn_lib.i18n import STRINGS
from attn_lib.models import fetch


def plain(q, k, v, mask=None, scale=None, use_mask=True, axis=-1):
    """A learner's attention from notebooks 04-05."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None and use_mask:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores, axis=axis)
    return weights @ v, weights


def grouped(q, k, v, mask=None, spread=np.repeat, scale=None, axis=-1):
    """A learner's grouped-query attention from notebook 12: 9 query heads, 3 K/V heads."""
    g = q.shape[-3] // k.shape[-3]
    if spread is np.tile:
        k, v = np.tile(k, (g, 1, 1)), np.tile(v, (g, 1, 1))
    else:
        k, v = np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3)
    return plain(q, k, v, mask, scale, axis=axis)


def d_model_scale(q, k, v, mask=None):
    return grouped(q, k, v, mask, scale=1 / np.sqrt(q.shape[-3] * q.shape[-1]))  # 9 heads x 64 = d_model


def raises(q, k, v, mask=None):
    raise RuntimeError("my attention is broken")


WRONG = [
    ("future", lambda q, k, v, mask=None: plain(q, k, v, mask, use_mask=False)),
    ("softmax_axis", lambda q, k, v, mask=None: plain(q, k, v, mask, axis=-2)),  # over the queries
    ("scale_d_model", d_model_scale),
    ("tiled", lambda q, k, v, mask=None: grouped(q, k, v, mask, spread=np.tile)),
    ("scale_missing", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1.0)),
    ("scale_dk", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1 / q.shape[-1])),
    ("differs", lambda q, k, v, mask=None: (plain(q, k, v, mask)[0] * 1.01, plain(q, k, v, mask)[1])),
    ("raised", raises),
    ("not_implemented", lambda q, k, v, mask=None: None),
    ("not_callable", "my_attention"),
]


@pytest.mark.parametrize(("key", "fn"), WRONG, ids=[key for key, _ in WRONG])
def test_each_mistake_gets_its_model_scale_diagnosis(smollm, key, fn, capsys):
    result = ex.run_in_language_model_checks(fn, model=smollm)
    assert (result.ok, result.key) == (False, key), result.verdict("en")
    assert ex.check_in_language_model(fn, lang="en", model=smollm) is False
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("✗ your attention inside SmolLM2-135M-Instruct")
    assert re.search(r"[\u4e00-\u9fff]", result.verdict("zh"))


def test_a_correct_plain_or_grouped_attention_passes(smollm, capsys):
    for fn, kind in ((plain, "attention"), (grouped, "grouped"), (scaled_dot_product_attention, "attention")):
        result = ex.run_in_language_model_checks(fn, model=smollm)
        assert result.ok and result.kind == kind, result.verdict("en")
    assert ex.check_in_language_model(grouped, lang="en", model=smollm) is True
    out = capsys.readouterr().out
    assert out.startswith("✓ your attention inside SmolLM2-135M-Instruct (run as grouped-query attention")
    assert "all 12 positions" in out and "within 0.001" in out and "4.24 nats per token" in out


def test_the_missing_mask_is_told_by_the_collapse_of_the_loss(smollm):
    result = ex.run_in_language_model_checks(WRONG[0][1], model=smollm)
    assert result.fields["own"] == "4.24" and float(result.fields["yours"]) < 1.0  # measured: 0.76
    assert "falls from 4.24 to" in result.verdict("en") and "从每个词元 4.24 奈特降到" in result.verdict("zh")
    tiled = ex.run_in_language_model_checks(dict(WRONG)["tiled"], model=smollm)
    assert float(tiled.fields["yours"]) > 10 and tiled.kind == "grouped"  # measured: 13.41
    scaled = ex.run_in_language_model_checks(d_model_scale, model=smollm)
    assert "√d_model = 24 instead of √d_k = 8" in scaled.verdict("en")


def test_the_softmax_over_the_queries_is_named_plain_or_grouped(smollm):
    over_queries = dict(WRONG)["softmax_axis"]
    grouped_over_queries = lambda q, k, v, mask=None: grouped(q, k, v, mask, axis=-2)  # noqa: E731
    for fn, kind in ((over_queries, "attention"), (grouped_over_queries, "grouped")):
        result = ex.run_in_language_model_checks(fn, model=smollm)
        assert (result.key, result.kind) == ("softmax_axis", kind), result.verdict("en")
        assert "over the queries (axis −2)" in result.verdict("en") and "沿查询（axis −2）" in result.verdict("zh")
        assert result.fields["own"] == "4.24" and float(result.fields["yours"]) > 10  # measured: 11.62
    # what the verdict says: with the causal mask the last key is seen by the last query alone, and gets weight 1
    ids = smollm.encode(language_model.SENTENCE)
    recorder = language_model._Recorder(over_queries, "attention")
    language_model.forward(smollm, ids, grouped=recorder)
    weights = recorder.first[-1]  # [9, 12, 12], the first layer
    assert np.allclose(weights[:, -1, -1], 1.0) and not np.allclose(weights.sum(axis=-1), 1.0)


def test_a_function_that_never_returns_times_out(smollm):
    def stuck(q, k, v, mask=None):
        time.sleep(30)

    result = ex.run_in_language_model_checks(stuck, model=smollm, timeout=0.01)
    assert result.key == "timeout" and "0.3 s" in result.verdict("en")


def test_no_model_says_how_to_fetch_it(monkeypatch):
    def missing():
        raise fetch.ModelNotAvailableError("no file and no network")

    monkeypatch.setattr(language_model, "_default_model", missing)
    result = ex.run_in_language_model_checks(plain)
    assert result.key == "no_model" and "python -m attn_lib.models.fetch" in result.verdict("en")
    with pytest.raises(TypeError, match="model must be a SmolLM"):
        ex.run_in_language_model_checks(plain, model="SmolLM2")


def test_every_language_model_diagnosis_is_reached_by_a_test():
    framing = {"title", "passed", "failed", "inside_grouped", "inside_attention"}
    keys = {key.removeprefix("lm_model.") for key in STRINGS["en"] if key.startswith("lm_model.")} - framing
    reached = {key for key, _ in WRONG} | {"timeout", "no_model"}
    assert keys == reached
