"""The checkers' second hostile pass (issue 27): arguments refused by name, reduced precision, four axes,
which exercise a function comes from, and what a learner's code cannot do to the watch or the verdict.

Each test here failed before its fix.
"""

import numpy as np
import pytest
from checker_helpers import stable_softmax

from attn_lib import exercises as ex

RUNNERS_WITH_BATCHED = [
    ex.run_scaled_scores_checks,
    ex.run_attention_checks,
    ex.run_attention_formula_checks,
    ex.run_split_heads_checks,
    ex.run_multi_head_checks,
    ex.run_rope_checks,
    ex.run_grouped_query_attention_checks,
]


# --- items 11, 12: a checker's own arguments -------------------------------------------------------


@pytest.mark.parametrize("timeout", ["5", None, [5]])
def test_a_timeout_that_is_not_a_number_is_refused_by_name(timeout):
    for check in (ex.check_softmax, ex.run_softmax_checks, ex.check_in_real_model):
        with pytest.raises(TypeError, match=r"timeout must be a number of seconds .* got"):
            check(stable_softmax, timeout=timeout)


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan")])
def test_a_timeout_that_is_not_positive_and_finite_is_refused_by_name(timeout):
    for check in (ex.check_softmax, ex.run_attention_checks, ex.run_in_real_model_checks):
        with pytest.raises(ValueError, match=r"timeout must be a positive, finite number of seconds .* got"):
            check(stable_softmax, timeout=timeout)


@pytest.mark.parametrize("run", RUNNERS_WITH_BATCHED, ids=lambda run: run.__name__)
def test_batched_must_be_true_or_false(run):
    with pytest.raises(TypeError, match=r"batched must be True or False, got str 'no'"):
        run(stable_softmax, batched="no")
    assert run(lambda *a, **k: None, batched=np.True_).key == "not_implemented"


# --- item 6: two leading axes ------------------------------------------------------------------------


def three_d_only(q, k, v, mask=None):
    """Right for [n, d_k] and [B, n, d_k]; k.transpose(0, 2, 1) fails on the [B, h, n, d_k] of notebooks 06 and 10."""
    k_t = k.T if k.ndim == 2 else k.transpose(0, 2, 1)
    scores = q @ k_t / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def test_a_function_for_three_axes_only_fails_on_four_and_is_told_why():
    for run in (ex.run_attention_checks, ex.run_attention_formula_checks):
        result = run(three_d_only)
        assert (result.ok, result.key, result.case.kind) == (False, "batch_heads", "case_batch_heads"), result.verdict(
            "en"
        )
        assert "[B, h, n, d_k]" in result.verdict("en") and "[B, h, n, d_k]" in result.verdict("zh")
        assert run(three_d_only, batched=False).ok  # batched=False leaves out every case with leading axes


def test_the_four_axis_cases_broadcast_one_n_by_n_mask_over_batch_and_heads():
    from attn_lib.exercises import attention

    cases = {c.kind: c for c in attention._attention_cases(True)}
    q = cases["case_batch_heads_mask"].args[0]
    assert q.ndim == 4 and len(set(q.shape)) == 4 and cases["case_batch_heads_mask"].kwargs["mask"].shape == (5, 5)
    assert cases["case_batch_heads"].args[0].ndim == 4 and "mask" not in cases["case_batch_heads"].kwargs


def test_a_mask_that_only_works_without_heads_fails_on_the_four_axis_case():
    def mask_for_three_axes(q, k, v, mask=None):
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None and q.ndim == 4:
            mask = mask[:, None]  # a guess that breaks a [n, n] mask: [n, 1, n]
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = stable_softmax(scores)
        return weights @ v, weights

    result = ex.run_attention_checks(mask_for_three_axes)
    assert not result.ok and result.case.kind == "case_batch_heads_mask", result.verdict("en")


# --- item 7: which exercise a function comes from ----------------------------------------------------


def learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    *batch, n, d_model = x.shape

    def split(a):  # [..., n, d_model] -> [..., h, n, d_k]
        return np.swapaxes(a.reshape(*batch, n, n_heads, d_model // n_heads), -2, -3)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]).astype(q.dtype)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return np.swapaxes(weights @ v, -2, -3).reshape(x.shape) @ w_o, weights


def mha_with_default_heads(x, w_q, w_k, w_v, w_o, n_heads=2, mask=None):
    return learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask)


def wrapped(*args, **kwargs):  # e.g. a decorator's wrapper that forgot functools.wraps
    return learner_mha(*args, **kwargs)


def wrapped_attention(*args, **kwargs):
    return three_d_or_more(*args, **kwargs)


def three_d_or_more(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]).astype(q.dtype)  # float16 in, float16 out
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def test_a_multi_head_function_is_told_by_its_names_and_all_its_parameters():
    from attn_lib.exercises import capstone

    assert ex.run_multi_head_checks(mha_with_default_heads).ok and ex.run_multi_head_checks(wrapped).ok
    assert capstone.function_kind(mha_with_default_heads) == "multi_head"
    assert capstone.function_kind(lambda x, w_q, w_k, w_v, w_o, h=2, mask=None: None) == "multi_head"
    assert capstone.function_kind(wrapped) is None  # *args says nothing: both kinds are tried
    assert capstone.function_kind(three_d_or_more) == "attention"


@pytest.mark.parametrize("fn", [mha_with_default_heads, wrapped, wrapped_attention], ids=lambda f: f.__name__)
def test_the_other_kind_is_tried_before_the_function_is_blamed(fn, monkeypatch):
    """The small-input check that passes picks the kind; the model run then uses that kind (no model needed)."""
    from attn_lib.exercises import capstone

    kind, small = capstone.small_checks_of_either_kind(fn, 5.0)
    assert small.ok, small.verdict("en")
    assert kind == ("attention" if fn is wrapped_attention else "multi_head")


# --- item 5: reduced precision, and messages that never contradict themselves --------------------------


def in_float16(fn):
    """The learner's function computing in float16: its array inputs cast first, so the result is float16 too."""

    def half(*args, **kwargs):
        args = [a.astype(np.float16) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return fn(*args, **kwargs)

    return half


def half_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def half_layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + np.float16(eps)) * gamma + beta


FLOAT16_CORRECT = [
    (ex.run_softmax_checks, half_softmax),
    (ex.run_scaled_scores_checks, lambda q, k: q @ np.swapaxes(k, -1, -2) / np.sqrt(np.float16(q.shape[-1]))),
    (ex.run_attention_checks, three_d_or_more),
    (ex.run_attention_formula_checks, three_d_or_more),
    (ex.run_multi_head_checks, learner_mha),
    (ex.run_layer_norm_checks, half_layer_norm),
]


@pytest.mark.parametrize(("run", "fn"), FLOAT16_CORRECT, ids=[run.__name__ for run, _ in FLOAT16_CORRECT])
def test_a_correct_function_in_float16_passes_with_a_note_on_precision(run, fn):
    result = run(in_float16(fn))
    assert result.ok and result.precision == "float16", result.verdict("en")
    assert "float16" in result.verdict("en") and "3 significant digits" in result.verdict("en")
    assert "float16" in result.verdict("zh") and "3 位有效数字" in result.verdict("zh")
    assert run(fn).precision == ""  # float64 in, float64 out: no note


def test_a_wrong_function_in_float16_still_gets_its_diagnosis():
    def unscaled(q, k, v, mask=None):
        return three_d_or_more(q * np.sqrt(np.float16(q.shape[-1])), k, v, mask)

    result = ex.run_attention_checks(in_float16(unscaled))
    assert (result.ok, result.key, result.precision) == (False, "scale_missing", "float16"), result.verdict("en")
    assert "float16" in result.verdict("en")


def test_float16_arithmetic_in_a_float64_result_gets_a_clear_message_about_precision():
    """The issue's case: a correct attention computed in float16, whose result numpy promotes back to float64."""

    def promoted(q, k, v, mask=None):
        q, k, v = (a.astype(np.float16) for a in (q, k, v))
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # np.sqrt gives a float64: the scores are float64
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = stable_softmax(scores)
        return weights @ v, weights

    result = ex.run_attention_checks(promoted)
    assert (result.ok, result.key) == (False, "precision_loss"), result.verdict("en")
    assert "3 significant digits" in result.verdict("en") and "3 位有效数字" in result.verdict("zh")
    assert "sums to" not in result.verdict("en")


def test_weights_just_off_one_are_never_said_to_sum_to_1_not_1():
    def nearly_normalised(q, k, v, mask=None):
        output, weights = three_d_or_more(q, k, v, mask)
        w = weights * (1 + 0.2 * np.random.default_rng(0).random(weights.shape))  # wrong weights ...
        total = w.sum(axis=-1, keepdims=True)
        w = np.divide(w, total, out=np.zeros_like(w), where=total > 0) * (1 - 4e-5)  # ... whose rows sum to 0.99996
        return w @ v, w

    result = ex.run_attention_checks(nearly_normalised)
    assert result.key == "attn_weights_not_normalised", result.verdict("en")
    assert result.fields["total"] == "0.99996"
    assert "sums to 1," not in result.verdict("en") and "之和是 1，" not in result.verdict("zh")


def test_fmt_apart_shows_enough_digits_to_tell_two_numbers_apart():
    from attn_lib.exercises.compare import fmt, fmt_apart

    assert fmt(0.99996) == "1" and fmt_apart(0.99996, 1) == "0.99996"
    assert fmt_apart(1.00000002, 1) == "1.00000002" and fmt_apart(0.5, 1) == "0.5"
    assert fmt_apart(0.17975584, 0.17980957) == "0.17976"


@pytest.mark.parametrize(
    ("run", "fn"),
    [
        (
            ex.run_kv_cache_bytes_checks,
            lambda n_layers, kv, d, tokens, nbytes: 2.0 * n_layers * kv * d * tokens * nbytes + 1e-3,
        ),
        (ex.run_parameter_count_checks, lambda d, h: 4 * d * d + 1e-3),
    ],
    ids=["kv_cache_bytes", "parameter_count"],
)
def test_a_count_just_off_is_never_shown_as_the_right_count(run, fn):
    result = run(fn)
    assert not result.ok and result.fields["got"].replace(",", "") != result.fields["expected"].replace(",", "")
    assert float(result.fields["got"].replace(",", "")) != float(result.fields["expected"].replace(",", ""))


# --- item 8: what a learner's code cannot do to the watch or the answer ---------------------------------

import sys  # noqa: E402
import threading  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import attn_lib  # noqa: E402


def softmax_in_a_pool(x):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(attn_lib.softmax, x).result()


def softmax_in_a_thread(x):
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("y", attn_lib.softmax(x)))
    worker.start()
    worker.join()
    return out["y"]


@pytest.mark.parametrize("fn", [softmax_in_a_pool, softmax_in_a_thread], ids=lambda f: f.__name__)
def test_a_forbidden_function_run_in_another_thread_is_seen(fn):
    result = ex.run_softmax_checks(fn)
    assert (result.key, result.fields.get("name")) == ("forbidden_call", "attn_lib.softmax"), result.verdict("en")
    assert ex.run_softmax_checks(fn, forbid=()).ok
    assert sys.getprofile() is None and threading.getprofile() is None if hasattr(threading, "getprofile") else True


def switch_the_watch_off(x):
    sys.setprofile(None)
    return attn_lib.softmax(x)


def off_and_on_again(x):
    hook = sys.getprofile()
    sys.setprofile(None)
    y = attn_lib.softmax(x)
    sys.setprofile(hook)
    return y


def under_a_profiler_of_its_own(x):
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()  # replaces the profile hook in C, where no Python call shows it
    y = attn_lib.softmax(x)
    profiler.disable()
    return y


def no_new_threads_watched(x):
    threading.setprofile(None)
    return softmax_in_a_thread(x)


@pytest.mark.parametrize(
    "fn",
    [switch_the_watch_off, off_and_on_again, under_a_profiler_of_its_own, no_new_threads_watched],
    ids=lambda f: f.__name__,
)
def test_switching_the_watch_off_fails_the_check(fn):
    result = ex.run_softmax_checks(fn)
    assert (result.ok, result.key) == (False, "watch_tampered"), result.verdict("en")
    assert "sys.setprofile" in result.verdict("en") and "sys.setprofile" in result.verdict("zh")
    assert sys.getprofile() is None


def answer_from_the_checkers_frames(*args, **kwargs):
    """Looks through every thread's frames for the case being checked and returns its answer."""
    from attn_lib.exercises.diagnose import Case, Reference

    for frame in sys._current_frames().values():
        while frame is not None:
            for value in list(frame.f_locals.values()):
                if isinstance(value, Case) and value.args and value.args[0] is not None:
                    same = all(np.array_equal(a, b) for a, b in zip(value.args, args, strict=False))
                    if same and isinstance(value.expected, Reference):
                        return value.expected.fn(*value.args, **value.kwargs)  # the checker's own recipe
                    if same:
                        return value.expected
            frame = frame.f_back
    return None


@pytest.mark.parametrize(
    "run",
    [ex.run_softmax_checks, ex.run_attention_checks, ex.run_grouped_query_attention_checks, ex.run_attend_all_checks],
    ids=lambda run: run.__name__,
)
def test_the_answer_is_not_in_reach_of_the_learners_function(run):
    result = run(answer_from_the_checkers_frames)
    assert not result.ok, result.verdict("en")
    assert result.key in ("forbidden_call", "forbidden_call_inside", "not_implemented"), result.verdict("en")
