"""check_in_language_model inside Gemma 3 270M: a learner's attention in all 18 layers, each mistake diagnosed at
model scale, the sliding window of the local layers checked on a text longer than it.

Every lm_gemma.* diagnosis is fired here by the wrong function that earns it (the diagnoses Gemma shares with SmolLM2,
lm_model.*, too). The sentence fits in the window, so a function that builds its own causal mask passes it and is
caught on the sentence repeated past 512 tokens; with one key/value head, K/V heads tiled and repeated are the same.
"""

import re
import threading
import time

import numpy as np
import pytest
from checker_helpers import stable_softmax

from attn_lib import exercises as ex
from attn_lib.exercises import language_model
from attn_lib.i18n import STRINGS

GEMMA_TITLE = ("✗ your attention inside Gemma 3 270M — ", "✗ 把你的注意力放进 Gemma 3 270M——")


def plain(q, k, v, mask=None, scale=None, use_mask=True, own_mask=None):
    """A learner's attention from notebooks 04-05 (numpy's @ hands Gemma's one K/V head to all 4 query heads)."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if own_mask is not None:  # the learner's own mask instead of the one the layer gives
        mask = own_mask(*scores.shape[-2:])
    if mask is not None and use_mask:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def grouped(q, k, v, mask=None):
    """A learner's grouped-query attention from notebook 12: K/V heads repeated for their query heads."""
    g = q.shape[-3] // k.shape[-3]
    return plain(q, np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3), mask)


def four_axes(q, k, v, mask=None):
    """nanoGPT's layout, [B, h, n, d] only: given three axes it raises, so it is run inside grouped_attention."""
    _, _, n, d_k = q.shape
    return plain(q, k, v, mask)


def causal(n_q, n_k):
    return np.tril(np.ones((n_q, n_k), dtype=bool), n_k - n_q)  # every earlier key, however far back


def window_of_512(n_q, n_k):
    offset = np.arange(n_k - n_q, n_k)[:, None] - np.arange(n_k)
    return (offset >= 0) & (offset < 512)  # right for the local layers, wrong for the global ones


def half(q, k, v, mask=None, use_mask=True):
    """Attention in float16 as a GPU runs it: float16 inputs, weights and output, products summed in float32."""
    q, k, v = (a.astype(np.float16) for a in (q, k, v))
    scores = (q.astype(np.float32) @ np.swapaxes(k, -1, -2).astype(np.float32)).astype(np.float16)
    scores /= np.float16(np.sqrt(q.shape[-1]))
    if use_mask:
        scores = np.where(mask, scores, np.float16(-np.inf))
    weights = stable_softmax(scores)  # float16
    return (weights.astype(np.float32) @ v.astype(np.float32)).astype(np.float16), weights


SENTENCE_MISTAKES = [  # caught on the sentence itself (12 tokens)
    ("future", lambda q, k, v, mask=None: plain(q, k, v, mask, use_mask=False)),
    ("scale_d_model", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1 / np.sqrt(640))),  # Gemma's d_model
    ("scale_heads", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1 / np.sqrt(q.shape[-3] * q.shape[-1]))),
    ("scale_missing", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1.0)),
    ("scale_dk", lambda q, k, v, mask=None: plain(q, k, v, mask, scale=1 / q.shape[-1])),
]
LONG_TEXT_MISTAKES = [  # right on the sentence, caught only past the window (518 tokens)
    ("no_window", lambda q, k, v, mask=None: plain(q, k, v, mask, own_mask=causal)),
    ("differs_long", lambda q, k, v, mask=None: plain(q, k, v, mask, own_mask=window_of_512)),
]


def assert_both_languages(result, key):
    assert (result.ok, result.key, result.model) == (False, key, "gemma3"), result.verdict("en")
    en, zh = result.verdict("en"), result.verdict("zh")
    assert en.startswith(GEMMA_TITLE[0]) and zh.startswith(GEMMA_TITLE[1]) and "\n" not in en + zh
    assert re.search(r"[\u4e00-\u9fff]", zh.removeprefix(GEMMA_TITLE[1]))


@pytest.mark.parametrize(("key", "fn"), SENTENCE_MISTAKES, ids=[key for key, _ in SENTENCE_MISTAKES])
def test_each_mistake_on_the_sentence_gets_its_model_scale_diagnosis(gemma3, key, fn, capsys):
    result = ex.run_in_language_model_checks(fn, model=gemma3)
    assert_both_languages(result, key)
    assert "multi-query attention: 4 query heads sharing 1 key/value head" in result.verdict("en")
    assert "4 个查询头共用 1 个键/值头" in result.verdict("zh")
    assert ex.check_in_language_model(fn, lang="zh", model=gemma3) is False
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(GEMMA_TITLE[1])


def test_the_scale_diagnoses_say_that_d_model_is_not_h_times_d_k(gemma3):
    d_model = ex.run_in_language_model_checks(SENTENCE_MISTAKES[1][1], model=gemma3).verdict("en")
    assert "√d_model = √640 = 25.3 instead of √d_k = 16" in d_model
    assert "d_model = 640 is not even h·d_k = 4 × 256 = 1024" in d_model and "d_model / h = 160" in d_model
    heads = ex.run_in_language_model_checks(SENTENCE_MISTAKES[2][1], model=gemma3)
    assert "√(h·d_k) = √(4 × 256) = 32" in heads.verdict("en") and float(heads.fields["yours"]) > 4.5
    future = ex.run_in_language_model_checks(SENTENCE_MISTAKES[0][1], model=gemma3)
    assert future.fields["own"] == "3.93" and future.fields["count"] == 12  # <bos> and 11 words of the sentence


@pytest.mark.parametrize(("key", "fn"), LONG_TEXT_MISTAKES, ids=[key for key, _ in LONG_TEXT_MISTAKES])
def test_a_mask_of_ones_own_is_caught_past_the_window(gemma3, key, fn):
    result = ex.run_in_language_model_checks(fn, model=gemma3)
    assert_both_languages(result, key)
    assert result.fields["long"] == 518 and result.fields["times"] == 47 and float(result.fields["worst"]) > 1
    assert "the sentence 47 times over (518 tokens" in result.verdict("en")
    assert "把句子重复 47 遍（518" in result.verdict("zh")


def test_correct_plain_and_grouped_functions_pass(gemma3, capsys):
    started = time.perf_counter()
    assert ex.check_in_language_model(grouped, lang="en", model=gemma3) is True
    seconds = time.perf_counter() - started
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(
        "✓ your attention inside Gemma 3 270M (run as multi-query attention: 4 query heads sharing 1 key/value head)"
    )
    assert "all 12 positions" in out and "47 times over (518 tokens, past the window of 512)" in out
    assert "the 15 local layers kept to their window" in out and "3.93 nats per token" in out
    for fn, kind in ((plain, "grouped"), (four_axes, "attention")):
        result = ex.run_in_language_model_checks(fn, model=gemma3)
        assert result.ok and result.kind == kind, result.verdict("en")
    assert "run inside grouped_attention: the 4 query heads at once" in result.verdict("en")
    assert re.search(r"[\u4e00-\u9fff]", result.verdict("zh")) and result.verdict("zh").startswith("✓ 把你的注意力")
    print(f"check_in_language_model on Gemma 3 with a correct function: {seconds:.1f} s")  # shown with pytest -s


def test_float16_is_compared_within_its_precision_in_both_models(gemma3, smollm):
    result = ex.run_in_language_model_checks(half, model=gemma3)
    assert result.ok and result.precision == "float16", result.verdict("en")
    assert "to within 0.1 and 1 (a float32 or float64 function: to within 0.001)" in result.verdict("en")
    assert "float16" in result.verdict("zh")
    wrong = ex.run_in_language_model_checks(lambda q, k, v, mask=None: half(q, k, v, mask, use_mask=False), gemma3)
    assert wrong.key == "future", wrong.verdict("en")
    result = ex.run_in_language_model_checks(lambda q, k, v, mask=None: half(*grouped_kv(q, k, v), mask), smollm)
    assert result.ok and result.model == "smollm2", result.verdict("en")  # it was told "differs" before
    assert result.verdict("en").endswith("compared to within 0.1 (a float32 or float64 function: to within 0.001).")


def grouped_kv(q, k, v):
    g = q.shape[-3] // k.shape[-3]
    return q, np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3)


def test_with_one_key_value_head_tiling_is_repeating():
    """Why "K/V heads tiled" is not diagnosed in Gemma 3: np.tile and np.repeat give the same 4 heads from one."""
    k = np.random.default_rng(0).standard_normal((1, 5, 3))
    assert np.array_equal(np.tile(k, (4, 1, 1)), np.repeat(k, 4, axis=0))
    assert "tiled" not in language_model.GEMMA_KEYS


def test_a_function_that_never_returns_times_out(gemma3):
    release = threading.Event()

    def stuck(q, k, v, mask=None):
        release.wait(30)

    try:
        result = ex.run_in_language_model_checks(stuck, model=gemma3, timeout=0.01)
    finally:
        release.set()  # the stuck thread ends now, not in 30 s (test_exercises looks for threads left behind)
    assert result.key == "timeout" and "0.18 s" in result.verdict("en") and result.model == "gemma3"


def test_every_gemma_diagnosis_is_reached_by_a_test():
    framing = {"title", "passed", "inside_grouped", "inside_attention"}
    keys = {key.removeprefix("lm_gemma.") for key in STRINGS["en"] if key.startswith("lm_gemma.")}
    assert keys == set(language_model.GEMMA_KEYS)
    reached = {key for key, _ in SENTENCE_MISTAKES + LONG_TEXT_MISTAKES}
    assert keys - framing == reached - {"future", "scale_missing", "scale_dk"}  # those three read as SmolLM2's
    assert {key for key in STRINGS["en"] if key.startswith("lm_float16.")} == {
        "lm_float16.note",
        "lm_float16.note_long",
    }
